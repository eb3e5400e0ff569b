"""Reproducible builds (issue 27, point 6): the same config, model and versions make a byte-identical
library, whatever else differs between the two builds (working directory, where the model and the
output are, TMPDIR, the hash seed, the time); `tvmc compile --reproduce LIB MODEL` rebuilds from the
library's manifest and says so (exit 0), or names each recorded input that differs (exit 1).

The builds are real `python -m tvmc` processes: the property is about separate runs."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from testkit import cli_env
from tvmc import manifest
from tvmc.backend.reproduce import compare, differing_parts
from tvmc.backend.runner import deterministic_tar

ROOT = Path(__file__).resolve().parents[2]
MODELS = sorted((ROOT / "models").glob("*.onnx"))
CROSS = "base/aarch64-linux"  # linked with aarch64-linux-gnu-gcc (scripts/install-cross-compilers)
TVM_MISSING = "apache-tvm is not installed (pip install -e '.[tvm]')"


def tvmc(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tvmc", *args], env=cli_env(**env), cwd=cwd, capture_output=True, text=True, timeout=600
    )


def needs_tvm() -> None:
    pytest.importorskip("tvm", reason=TVM_MISSING)
    pytest.importorskip("onnx", reason="onnx is not installed (pip install -e '.[tvm]')")


def two_builds(model: Path, config: list[str], tmp_path: Path, suffix: str = "so") -> tuple[Path, Path]:
    """The same build twice, as differently as a user could run it: the second from another working
    directory, the model copied elsewhere, another output folder, TMPDIR and hash seed, later."""
    first = tmp_path / "one" / f"lib.{suffix}"
    first.parent.mkdir()
    built = tvmc("compile", str(model), *config, "-o", str(first), PYTHONHASHSEED="1")
    assert built.returncode == 0, built.stdout + built.stderr
    elsewhere = tmp_path / "elsewhere" / "deeper"
    elsewhere.mkdir(parents=True)
    copy = elsewhere / model.name
    shutil.copyfile(model, copy)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    time.sleep(1.1)  # a time stamp in the file would now differ
    second = elsewhere / f"other.{suffix}"
    again = tvmc(
        "compile", model.name, *config, "-o", second.name, cwd=elsewhere, PYTHONHASHSEED="2", TMPDIR=str(temporary)
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert not list(temporary.iterdir())  # and the build left nothing behind
    return first, second


def assert_reproduced(library: Path, model: Path) -> None:
    verdict = tvmc("compile", "--reproduce", str(library), str(model), PYTHONHASHSEED="3")
    assert verdict.returncode == 0, verdict.stdout + verdict.stderr
    digest = hashlib.sha256(library.read_bytes()).hexdigest()[:16]
    assert verdict.stdout == (
        f"tvmc: reproduced {library}: byte-identical ({library.stat().st_size} bytes, sha256 {digest})\n"
    )


@pytest.mark.tvm
@pytest.mark.parametrize("model", MODELS, ids=lambda p: p.name)
def test_same_inputs_make_a_byte_identical_library_that_reproduces(model: Path, tmp_path: Path) -> None:
    needs_tvm()
    first, second = two_builds(model, ["--config", "host/native"], tmp_path)
    assert first.read_bytes() == second.read_bytes(), differing_parts(first.read_bytes(), second.read_bytes())
    assert_reproduced(first, model)


@pytest.mark.tvm
@pytest.mark.parametrize("model", MODELS, ids=lambda p: p.name)
def test_a_cross_build_is_byte_identical_and_reproduces(model: Path, tmp_path: Path) -> None:
    needs_tvm()
    if shutil.which("aarch64-linux-gnu-gcc") is None:
        pytest.skip("aarch64-linux-gnu-gcc is not installed (scripts/install-cross-compilers)")
    first, second = two_builds(model, ["--config", CROSS], tmp_path)
    assert first.read_bytes()[:4] == b"\x7fELF"
    assert first.read_bytes() == second.read_bytes(), differing_parts(first.read_bytes(), second.read_bytes())
    assert_reproduced(first, model)


@pytest.mark.tvm
def test_a_tar_is_byte_identical_and_reproduces(tmp_path: Path) -> None:
    """TVM writes the tar with `tar -czf`: each build's time, the user and the umask were in it."""
    needs_tvm()
    model = ROOT / "models" / "cnn.onnx"
    config = ["--config", "host/native", "--set", "build.output-format=tar"]
    first, second = two_builds(model, config, tmp_path, "tar")
    assert first.read_bytes() == second.read_bytes()
    with tarfile.open(first) as archive:
        assert {(m.mtime, m.uid, m.gid, m.uname, m.gname, m.mode) for m in archive.getmembers()} == {
            (0, 0, 0, "", "", 0o644)
        }
    assert_reproduced(first, model)
    ran = tvmc("run", str(first))  # and it still loads: TVM links the tar's objects
    assert ran.returncode == 0, ran.stderr


@pytest.mark.tvm
def test_another_model_is_named_as_the_one_difference(tmp_path: Path) -> None:
    needs_tvm()
    library = tmp_path / "cnn.so"
    assert (
        tvmc("compile", str(ROOT / "models" / "cnn.onnx"), "--config", "host/native", "-o", str(library)).returncode
        == 0
    )
    other = ROOT / "models" / "mlp.onnx"
    verdict = tvmc("compile", "--reproduce", str(library), str(other))
    assert verdict.returncode == 1, verdict.stderr
    theirs = manifest.read(library)
    assert theirs is not None
    ours = hashlib.sha256(other.read_bytes()).hexdigest()
    assert verdict.stdout.splitlines() == [
        f"tvmc: {library} is not reproduced: the rebuild differs in",
        f"  model: {other} has sha256 {ours}, the library was built from cnn.onnx with sha256 "
        f"{theirs['model']['sha256']}",
    ]


def forge(library: Path, edit: dict[str, str]) -> None:
    """Rewrite the manifest inside a .so as another tvmc would have written it (same length, its
    checksum recomputed): how a library built with other versions looks."""
    data = bytearray(library.read_bytes())
    start = data.find(manifest.MAGIC)
    header = len(manifest.MAGIC) + 8 + 32
    length = int.from_bytes(data[start + len(manifest.MAGIC) : start + len(manifest.MAGIC) + 8], "little")
    text = bytes(data[start + header : start + header + length])
    doc = json.loads(text)
    for key, value in edit.items():
        assert len(value) == len(str(doc[key]))
        doc[key] = value
    new = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    assert len(new) == length
    data[start + header : start + header + length] = new
    data[start + len(manifest.MAGIC) + 8 : start + header] = hashlib.sha256(new).digest()
    library.write_bytes(bytes(data))


@pytest.mark.tvm
def test_other_versions_are_named_one_line_each(tmp_path: Path) -> None:
    needs_tvm()
    model = ROOT / "models" / "mlp.onnx"
    library = tmp_path / "mlp.so"
    assert tvmc("compile", str(model), "--config", "host/native", "-o", str(library)).returncode == 0
    doc = manifest.read(library)
    assert doc is not None
    old_tvmc, old_tvm = "9" * len(doc["tvmc"]), "8" * len(doc["tvm"])
    forge(library, {"tvmc": old_tvmc, "tvm": old_tvm})
    verdict = tvmc("compile", "--reproduce", str(library), str(model), "-o", str(tmp_path / "again.so"))
    assert verdict.returncode == 1, verdict.stderr
    assert verdict.stdout.splitlines() == [
        f"tvmc: {library} is not reproduced: the rebuild differs in",
        f"  tvmc version: the library was built with {old_tvmc}, this rebuild with {doc['tvmc']}",
        f"  TVM version: the library was built with {old_tvm}, this rebuild with {doc['tvm']}",
        f"  rebuilt {tmp_path / 'again.so'}",
    ]
    assert manifest.read(tmp_path / "again.so") == doc  # the rebuild is the library as this tvmc builds it


def test_reproduce_takes_nothing_but_the_library_and_the_model(tmp_path: Path) -> None:
    library = tmp_path / "lib.so"
    library.write_bytes(b"\x7fELF")
    for extra in (
        ["--config", "host/native"],
        ["--set", "opt-level=1"],
        ["--input-shapes", "x:[1,8]"],
        ["--emit", "plan"],
    ):
        refused = tvmc("compile", "--reproduce", str(library), str(ROOT / "models" / "mlp.onnx"), *extra)
        assert refused.returncode == 2, refused.stderr
        assert refused.stderr.startswith(f"tvmc: error: {extra[0]}: --reproduce builds from the library's manifest")
    missing = tvmc("compile", "--reproduce", str(library), str(ROOT / "models" / "mlp.onnx"))
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1
    assert "has no tvmc manifest" in missing.stderr


# ---- the comparison and the tar, without TVM --------------------------------------------------------

BASE = {
    "tvmc": "0.1.0",
    "tvm": "0.27.0",
    "llvm": "22",
    "model": {"file": "m.onnx", "format": "onnx", "sha256": "a" * 64, "input-shapes": None},
    "config": {"targets": [{"kind": "llvm", "mcpu": "znver4"}], "opt-level": 3},
    "fingerprint": "f" * 64,
    "target": {"kind": "llvm", "mcpu": "znver4"},
    "tuning": {"database": "/db/fp", "kernels": 2, "kernels-from-records": 2, "records-sha256": "b" * 64},
    "output-format": "so",
}


def test_equal_manifests_name_no_input() -> None:
    assert compare(BASE, json.loads(json.dumps(BASE)), "m.onnx") == []


def test_each_input_that_differs_is_one_line_naming_it() -> None:
    other = json.loads(json.dumps(BASE))
    other["llvm"] = "21"
    other["config"]["opt-level"] = 2
    other["fingerprint"] = "e" * 64
    other["target"]["mcpu"] = "skylake"
    other["tuning"]["records-sha256"] = "c" * 64
    lines = compare(BASE, other, "m.onnx")
    assert lines == [
        "LLVM version: the library was built with 22, this rebuild with 21",
        f"config: fingerprint {'f' * 16} in the library, {'e' * 16} in this rebuild (at /opt-level)",
        "target: the config resolves to another target here (mcpu 'native' is this machine's CPU): "
        "kind=llvm mcpu=znver4 in the library, kind=llvm mcpu=skylake here",
        f"tuning records: the library applied 2 of 2 kernels' records (sha256 {'b' * 16}), this rebuild "
        f"2 of 2 kernels' records (sha256 {'c' * 16}) (the records differ)",
    ]


def test_the_library_manifests_text_never_forges_a_line() -> None:
    """The manifest is another's file: a model name or database path holding a line break printed
    a line of its own under 'the rebuild differs in', an ESC sequence reached the terminal."""
    theirs = json.loads(json.dumps(BASE))
    theirs["model"]["file"] = "m.onnx\n::error::forged"
    theirs["model"]["sha256"] = "0" * 64
    theirs["tuning"]["database"] = "/db\x1b[2J"
    lines = compare(theirs, BASE, "m.onnx")
    assert len(lines) == 2 and all(line.isprintable() for line in lines), lines
    assert "built from m.onnx\\n::error::forged with sha256" in lines[0]
    assert lines[1].startswith("tuning database: the library applied /db\\x1b[2J, this rebuild ")


def test_records_found_elsewhere_name_the_database_only() -> None:
    other = json.loads(json.dumps(BASE))
    other["tuning"]["database"] = "/moved/fp"
    assert compare(BASE, other, "m.onnx") == ["tuning database: the library applied /db/fp, this rebuild /moved/fp"]


def tar_of(files: dict[str, bytes], mtime: int, uid: int, mode: int, order: list[str]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as archive:
        for name in order:
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.uid, info.mode, info.uname = len(files[name]), mtime, uid, mode, "someone"
            archive.addfile(info, io.BytesIO(files[name]))
    return gzip.compress(raw.getvalue(), mtime=mtime)


def test_a_tar_of_the_same_objects_is_the_same_bytes() -> None:
    files = {"lib0.o": b"\x7fELF code", "devc.o": b"\x7fELF imports", "tvmc_manifest.c": b"/* m */"}
    one = deterministic_tar(tar_of(files, 1_700_000_000, 1000, 0o664, ["lib0.o", "devc.o", "tvmc_manifest.c"]))
    two = deterministic_tar(tar_of(files, 1_800_000_000, 0, 0o600, ["tvmc_manifest.c", "devc.o", "lib0.o"]))
    assert one == two
    with tarfile.open(fileobj=io.BytesIO(one)) as archive:
        assert [m.name for m in archive.getmembers()] == sorted(files)
        assert {n: archive.extractfile(n).read() for n in files} == files  # type: ignore[union-attr]
    changed = deterministic_tar(tar_of({**files, "lib0.o": b"other"}, 0, 0, 0o644, sorted(files)))
    assert changed != one and differing_parts(one, changed) == ["lib0.o"]


@pytest.mark.tvm
def test_shape_functions_are_written_in_the_order_of_their_slots() -> None:
    """VMShapeLower orders a shape_func's stores by an unordered_map keyed by a variable's address:
    models/mlp.onnx's `H[1] = 64 * batch; H[2] = 16 * batch` came out swapped in 2 of 40 rebuilds,
    and so did the machine code. The build's instrument writes them in slot order."""
    tvm = pytest.importorskip("tvm", reason=TVM_MISSING)
    from tvmc.backend.runner import shape_func_order

    tirx = tvm.tirx
    heap = tirx.Var("heap", tvm.ir.PointerType(tvm.ir.PrimType("int64")))
    buffer = tirx.decl_buffer((3,), "int64", "H", data=heap)
    batch = tirx.BufferLoad(buffer, [tvm.tirx.IntImm("int64", 0)])

    def store(slot: int, factor: int) -> object:
        return tirx.BufferStore(buffer, batch * tvm.tirx.IntImm("int64", factor), [tvm.tirx.IntImm("int64", slot)])

    swapped = tirx.PrimFunc([heap], tirx.SeqStmt([store(2, 16), store(1, 64)]))
    mod = tvm.IRModule({"shape_func": swapped})
    with tvm.transform.PassContext(instruments=[shape_func_order(tvm)]):
        lowered = tvm.relax.transform.VMShapeLower()(mod)
    body = lowered["shape_func"].body
    assert [int(s.indices[0].value) for s in body.seq] == [1, 2]
    assert [int(s.value.b.value) for s in body.seq] == [64, 16]  # each store kept its value


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("a string", "does-not-exist.onnx"),  # AttributeError escaped: model.get on a str
        ({"input-shapes": {"x": "ab"}}, r"damaged \(its model.input-shapes are not lists of sizes\)"),
        ({"input-shapes": {"x": [{"n": 1}]}}, r"damaged \(its model.input-shapes are not lists of sizes\)"),
        # sizes TVM cannot take: a TypeError from its importer, a failed check in its builder
        ({"input-shapes": {"x": [2**70, 8]}}, r"damaged \(its model.input-shapes are not lists of sizes\)"),
        ({"input-shapes": {"x": [-1, 8]}}, r"damaged \(its model.input-shapes are not lists of sizes\)"),
        # was '--input-shapes: unknown model format', a flag the user did not give
        ({"format": "xyz\n"}, r"lib.so: .*damaged \(its model.format 'xyz\\n' is not a model format\)"),
    ],
)
def test_a_manifest_model_entry_of_another_type_is_one_line(tmp_path: Path, model: object, expected: str) -> None:
    """`--reproduce` reads the manifest's model entry (format, input shapes) as another's data: a
    string where a table was, shapes that are not lists of sizes, are tvmc errors naming the
    library (or, for a model entry it cannot use, the model file it then looks for), before TVM."""
    from tvmc import api
    from tvmc.errors import TvmcError

    doc = {"format": manifest.FORMAT, "config": {"targets": [{"kind": "llvm"}]}, "origins": {}, "model": model}
    lib = tmp_path / "lib.so"
    lib.write_bytes(b"\x7fELF" + manifest.encode(doc))
    with pytest.raises(TvmcError, match=expected) as err:
        api.reproduce(lib, tmp_path / "does-not-exist.onnx")
    assert "\n" not in err.value.one_line()


@pytest.mark.tvm
def test_recorded_input_shapes_the_model_lacks_name_the_manifest_not_a_flag(tmp_path: Path) -> None:
    """The input shapes a rebuild uses are the manifest's: one naming an input the model lacks was
    reported as '--input-shapes: ...', a flag the user did not give (and exit 2, a usage error)."""
    needs_tvm()
    from tvmc import api
    from tvmc.errors import TvmcError, UsageError

    doc = {
        "format": manifest.FORMAT,
        "config": {"targets": [{"kind": "llvm"}]},
        "origins": {},
        "model": {"format": "onnx", "input-shapes": {"y": [1, 8]}},
    }
    lib = tmp_path / "lib.so"
    lib.write_bytes(b"\x7fELF" + manifest.encode(doc))
    with pytest.raises(TvmcError) as err:
        api.reproduce(lib, ROOT / "models" / "mlp.onnx")
    assert not isinstance(err.value, UsageError)
    assert err.value.one_line() == (
        f"{lib} (its manifest's model.input-shapes): the model has no input 'y' (inputs: x)"
    )
