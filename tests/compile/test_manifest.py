"""A library that knows what it is (issue 27): the manifest `compile` links into every library, `tvmc
inspect` (without TVM), `config show --from` / `config diff` of libraries, `tvmc run LIB` with nothing
else, the will-it-run decision from the manifest, and `run` in a child process."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from testkit import cli_env
from tvmc import api, manifest

pytestmark = pytest.mark.tvm
tvm = pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -e '.[tvm]')")
np = pytest.importorskip("numpy")
onnx = pytest.importorskip("onnx")

Invoke = Callable[..., Result]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, invoke: Invoke, mlp_path: Path) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("manifest")
    libraries = {
        "so": (folder / "mlp.so", ()),
        "tar": (folder / "mlp.tar", ("--set", "build.output-format=tar")),
        "fixed": (folder / "fixed.so", ("--input-shapes", "x:[4,8]", "-O", "2")),
    }
    for out, extra in libraries.values():
        result = invoke("compile", str(mlp_path), "-o", str(out), *extra)
        assert result.exit_code == 0, result.output
    return {name: out for name, (out, _) in libraries.items()}


def test_every_library_carries_its_manifest(built: dict[str, Path], mlp_path: Path) -> None:
    resolved = api.resolve([], [])
    for name in ("so", "tar"):
        doc = manifest.read(built[name])
        assert doc is not None and doc["format"] == manifest.FORMAT and doc["output-format"] == name
        assert doc["tvm"] == tvm.__version__ and doc["tvmc"] and doc["llvm"]
        assert doc["model"] == {
            "file": "mlp.onnx",
            "format": "onnx",
            "sha256": hashlib.sha256(mlp_path.read_bytes()).hexdigest(),
            "size": mlp_path.stat().st_size,
            "input-shapes": None,
        }
        assert doc["inputs"] == [{"name": "x", "shape": ["batch", 8], "dtype": "float32", "model-shape": ["batch", 8]}]
        assert doc["outputs"] == [{"name": "y", "shape": ["batch", 4], "dtype": "float32"}]
        assert doc["cpu-features"] == {"arch": "x86_64", "features": []}  # plain llvm: generic code
        assert doc["tuning"] == {"database": None}
    so = manifest.read(built["so"])
    assert so is not None and so["config"] == resolved.to_dict() and so["fingerprint"] == resolved.fingerprint()
    assert so["origins"]["/opt-level"] == "default"
    fixed = manifest.read(built["fixed"])
    assert (
        fixed is not None and fixed["inputs"][0]["shape"] == [4, 8] and fixed["model"]["input-shapes"] == {"x": [4, 8]}
    )
    assert fixed["origins"]["/opt-level"] == "-O 2"


def test_inspect_reads_the_manifest_without_tvm(built: dict[str, Path]) -> None:
    blocked = "import sys; sys.modules['tvm'] = None; from tvmc.cli.app import main; sys.argv[0] = 'tvmc'; main()"
    for library in (built["so"], built["tar"]):
        text = subprocess.run(
            [sys.executable, "-c", blocked, "inspect", str(library)],
            capture_output=True,
            text=True,
            env=cli_env(),
            timeout=120,
        )
        assert text.returncode == 0, text.stderr
        lines = text.stdout.splitlines()
        assert lines[0].startswith(f"library      {library} (")
        assert (
            "  x  float32  [batch, 8]  (dynamic: batch)" in lines
            and "  y  float32  [batch, 4]  (dynamic: batch)" in lines
        )
        assert any(line.startswith("cpu          x86_64: generic code") for line in lines)
        assert "  default\topt-level = 3" in lines
        doc = subprocess.run(
            [sys.executable, "-c", blocked, "inspect", str(library), "--format", "json"],
            capture_output=True,
            text=True,
            env=cli_env(),
            timeout=120,
        )
        assert doc.returncode == 0 and json.loads(doc.stdout) == manifest.read(library)


def test_inspect_of_a_file_without_a_manifest_is_one_line(invoke: Invoke, tmp_path: Path) -> None:
    (tmp_path / "other.so").write_bytes(b"\x7fELF" + b"\0" * 64)
    result = invoke("inspect", str(tmp_path / "other.so"))
    assert (
        result.exit_code == 1
        and result.stderr.startswith("tvmc: error: LIBRARY: ")
        and "has no tvmc manifest" in result.stderr
    )


def test_config_show_from_and_diff_of_libraries(invoke: Invoke, built: dict[str, Path]) -> None:
    shown = invoke("config", "show", "--from", str(built["fixed"]), "--format", "json")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout) == {**api.resolve([], [("-O", "2")]).to_dict()}
    origin = invoke("config", "show", "--from", str(built["fixed"]), "--origin")
    assert "-O 2\topt-level = 2" in origin.stdout.splitlines()
    hashed = invoke("config", "show", "--from", str(built["so"]), "--hash")
    assert hashed.stdout.strip() == api.resolve([], []).fingerprint()
    diff = invoke("config", "diff", str(built["so"]), str(built["fixed"]))
    assert diff.exit_code == 1
    assert diff.stdout.splitlines()[2:] == ["opt-level", "  - 3    [default]", "  + 2    [-O 2]"]
    same = invoke("config", "diff", str(built["so"]), "host/default")
    assert same.exit_code == 0 and same.stdout == ""
    mixed = invoke("config", "show", "--from", str(built["so"]), "-O", "1")
    assert mixed.exit_code == 2 and "give no --config or rewrite with it" in mixed.stderr


def test_run_needs_nothing_but_the_library(invoke: Invoke, built: dict[str, Path], mlp_path: Path) -> None:
    for library in built.values():
        result = invoke("run", str(library), "--print-time")
        assert result.exit_code == 0, result.output
        assert result.stdout.splitlines()[0] in ("y: shape (1, 4) float32", "y: shape (4, 4) float32")
        assert re.search(r"[0-9] (ns|µs|ms|s), median [0-9.]+ (ns|µs|ms|s),", result.stdout), result.stdout
    # The README's tuned library (built for x:[4,8]) checks against the model with no --batch.
    checked = invoke("run", str(built["fixed"]), "--check", str(mlp_path))
    assert checked.exit_code == 0, checked.output
    assert "y: shape (4, 4) float32" in checked.stdout and "check y: " in checked.stdout
    batch = invoke("run", str(built["so"]), "--batch", "3", "--fill", "ones")
    assert batch.stdout.startswith("y: shape (3, 4) float32")
    shaped = invoke("run", str(built["so"]), "--input-shapes", "x:[5,8]")
    assert shaped.stdout.startswith("y: shape (5, 4) float32")


def test_run_refuses_inputs_the_library_does_not_take(invoke: Invoke, built: dict[str, Path], tmp_path: Path) -> None:
    np.savez(tmp_path / "names.npz", b=np.ones((1, 8), "float32"), A=np.ones((1, 8), "float32"))
    wrong = invoke("run", str(built["so"]), "--inputs", str(tmp_path / "names.npz"))
    assert wrong.exit_code == 2
    assert wrong.stderr == "tvmc: error: --inputs: no input named 'b'; the library's inputs: x [batch, 8] float32\n"
    np.savez(tmp_path / "x3.npz", x=np.ones((3, 8), "float32"))
    shape = invoke("run", str(built["fixed"]), "--inputs", str(tmp_path / "x3.npz"))
    assert shape.exit_code == 2
    assert shape.stderr == "tvmc: error: --inputs: input 'x' has shape [3, 8]; the library takes [4, 8]\n"
    huge = invoke("run", str(built["so"]), "--batch", "100000000000")
    assert huge.exit_code == 2 and "would take 2.9 TiB" in huge.stderr


def test_outputs_are_named_as_in_the_model(built: dict[str, Path], tmp_path: Path, invoke: Invoke) -> None:
    result = api.run(built["so"], {"x": np.ones((2, 8), "float32")})
    assert list(result.outputs) == ["y"] and result.outputs["y"].shape == (2, 4)
    out = tmp_path / "out.npz"
    assert invoke("run", str(built["so"]), "--outputs", str(out)).exit_code == 0
    with np.load(out) as saved:
        assert saved.files == ["y"]


def test_check_warns_when_the_model_is_not_the_one_built(
    invoke: Invoke, built: dict[str, Path], mlp_path: Path, tmp_path: Path
) -> None:
    other = tmp_path / "renamed.onnx"
    model = onnx.load(str(mlp_path))
    model.doc_string = "same graph, other bytes"
    onnx.save(model, str(other))
    result = invoke("run", str(built["so"]), "--check", str(other))
    assert result.exit_code == 0, result.output
    assert (
        f"tvmc: warning: --check {other} is not the model mlp.onnx the library was built from (SHA-256 "
        in result.stderr
    )
    same = invoke("run", str(built["so"]), "--check", str(mlp_path))
    assert "warning" not in same.stderr


def _with_manifest(library: Path, out: Path, change: Callable[[dict[str, object]], None]) -> None:
    """A copy of `library` whose manifest says something else (written over the old frame)."""
    data = bytearray(library.read_bytes())
    doc = manifest.read(library)
    assert doc is not None
    start = data.find(manifest.MAGIC)
    old = len(manifest.encode(doc))
    doc["origins"] = {}  # room for the change: the frame must fit where the old one was
    change(doc)
    frame = manifest.encode(doc)
    assert len(frame) <= old
    data[start : start + len(frame)] = frame
    out.write_bytes(bytes(data))


def test_will_it_run_here_is_decided_from_the_manifest(invoke: Invoke, built: dict[str, Path], tmp_path: Path) -> None:
    """Features no CPU has: refused before loading (it would die with Illegal instruction); --force runs."""
    needy = tmp_path / "needy.so"

    def features(doc: dict[str, object]) -> None:
        doc["cpu-features"] = {"arch": "x86_64", "features": ["avx512-imaginary"]}

    _with_manifest(built["so"], needy, features)
    refused = invoke("run", str(needy))
    assert refused.exit_code == 1
    assert refused.stderr.startswith(
        f"tvmc: error: LIBRARY: {needy} holds code that needs avx512-imaginary; this machine lacks them: it would "
        "die with Illegal instruction; build it for this machine"
    )
    assert "--force" in refused.stderr
    forced = invoke("run", str(needy), "--force")
    assert forced.exit_code == 0, forced.output
    assert "tvmc: warning: --force: " in forced.stderr and forced.stdout.startswith("y: shape (1, 4)")
    foreign = tmp_path / "foreign.so"

    def arch(doc: dict[str, object]) -> None:
        doc["cpu-features"] = {"arch": "riscv64", "features": []}

    _with_manifest(built["so"], foreign, arch)
    other = invoke("run", str(foreign))
    assert other.exit_code == 1 and "holds riscv64 code; this machine is x86_64" in other.stderr
    gpu = tmp_path / "gpu.so"

    def device(doc: dict[str, object]) -> None:
        doc["target"] = {"kind": "vulkan"}

    _with_manifest(built["so"], gpu, device)
    if not tvm.runtime.enabled("vulkan"):
        no_device = invoke("run", str(gpu))
        assert no_device.exit_code == 1 and "holds vulkan code, but this TVM has no vulkan runtime" in no_device.stderr


def test_a_library_without_a_manifest_runs_with_a_note(invoke: Invoke, built: dict[str, Path], tmp_path: Path) -> None:
    bare = tmp_path / "bare.so"
    bare.write_bytes(built["so"].read_bytes().replace(manifest.MAGIC, b"\0" * len(manifest.MAGIC)))
    np.savez(tmp_path / "in.npz", x=np.ones((2, 8), "float32"))
    result = invoke("run", str(bare), "--inputs", str(tmp_path / "in.npz"))
    assert result.exit_code == 0, result.output
    assert "has no tvmc manifest (built elsewhere" in result.stderr and result.stdout.startswith(
        "output_0: shape (2, 4)"
    )
    alone = invoke("run", str(bare))
    assert alone.exit_code == 2 and "no tvmc manifest to generate inputs from" in alone.stderr


def test_a_damaged_library_is_one_line(invoke: Invoke, built: dict[str, Path], tmp_path: Path) -> None:
    """Loading happens in a child: a truncated library (SIGBUS or SIGSEGV in the loader) is an error line."""
    data = built["so"].read_bytes()
    start = data.find(manifest.MAGIC)
    truncated = tmp_path / "truncated.so"
    truncated.write_bytes(data[: start + 200])  # the manifest is cut too: refused before loading
    cut = invoke("run", str(truncated))
    assert cut.exit_code == 1 and "the tvmc manifest" in cut.stderr and "Traceback" not in cut.output
    half = tmp_path / "half.so"
    half.write_bytes(data[: len(data) // 2].replace(manifest.MAGIC, b"\0" * len(manifest.MAGIC)))
    np.savez(tmp_path / "in.npz", x=np.ones((1, 8), "float32"))
    crashed = invoke("run", str(half), "--inputs", str(tmp_path / "in.npz"))
    assert crashed.exit_code == 1 and "Traceback" not in crashed.output
    assert crashed.stderr.startswith(f"tvmc: error: LIBRARY: {half} crashed the process (SIG")
    assert len(crashed.stderr.splitlines()) == 1


def test_run_takes_regular_files_only(invoke: Invoke, built: dict[str, Path], tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.npz"
    os.mkfifo(fifo)
    for args, message, code in (  # a bad input file exits 1, as compile's MODEL (an output one: -o's 2)
        (["--inputs", str(fifo)], "is a FIFO (named pipe), not a regular file", 1),
        (["--check", "/dev/zero"], "/dev/zero is a device, not a regular file", 1),
        (["--outputs", str(fifo)], "is not a regular file: tvmc writes only regular files", 2),
    ):
        result = invoke("run", str(built["so"]), *args)
        assert result.exit_code == code and message in result.stderr, result.output


def test_the_emitted_script_links_the_same_manifest(
    invoke: Invoke, built: dict[str, Path], mlp_path: Path, tmp_path: Path
) -> None:
    script = tmp_path / "build.py"
    emitted = invoke("compile", str(mlp_path), "--emit", "python", "-o", str(script))
    assert emitted.exit_code == 0, emitted.output
    out = tmp_path / "from-script.so"
    done = subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert manifest.read(out) == manifest.read(built["so"])
    ran = invoke("run", str(out))
    assert ran.exit_code == 0 and ran.stdout.startswith("y: shape (1, 4) float32")
