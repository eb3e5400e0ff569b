"""The manifest format (issue 27) and what `run` decides from a signature, without TVM: framing,
damage, inputs generated within their index range, names and shapes checked, tolerances by dtype."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tvmc import manifest
from tvmc.backend import run as running
from tvmc.errors import TvmcError, UsageError

np = pytest.importorskip("numpy")
HAVE_TVM = importlib.util.find_spec("tvm") is not None

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=60, deadline=None)
@given(
    body=st.dictionaries(st.text(max_size=10), json_values, max_size=5),
    before=st.binary(max_size=200),
    after=st.binary(max_size=200),
)
def test_a_framed_manifest_is_found_anywhere_in_a_file(body: dict[str, Any], before: bytes, after: bytes) -> None:
    doc = {**body, "format": manifest.FORMAT}
    assert manifest.scan(before.replace(manifest.MAGIC, b"") + manifest.encode(doc) + after, "f") == doc


def test_damage_is_told_from_absence(tmp_path: Path) -> None:
    frame = manifest.encode({"format": manifest.FORMAT, "inputs": []})
    lib = tmp_path / "lib.so"
    lib.write_bytes(b"\x7fELF" + b"\0" * 100)
    assert manifest.read(lib) is None
    lib.write_bytes(b"\x7fELF" + frame[:-1] + b"X")
    with pytest.raises(manifest.ManifestError, match="checksum does not match"):
        manifest.read(lib)
    lib.write_bytes(b"\x7fELF" + frame[:30])
    with pytest.raises(manifest.ManifestError, match="cut short"):
        manifest.read(lib)
    with pytest.raises(TvmcError, match="has no tvmc manifest"):
        manifest.require(_plain(tmp_path))


def _plain(tmp_path: Path) -> Path:
    path = tmp_path / "plain.so"
    path.write_bytes(b"\x7fELF plain")
    return path


def test_the_c_source_holds_the_frame() -> None:
    frame = manifest.encode({"format": manifest.FORMAT})
    text = manifest.c_source(frame)
    assert f"const unsigned char {manifest.C_SYMBOL}[{len(frame)}]" in text
    assert bytes(int(h, 16) for h in __import__("re").findall(r"0x([0-9a-f]{2})", text)) == frame


SIGNATURE = [
    {"name": "ids", "shape": ["n"], "dtype": "int64", "index-range": [0, 5]},
    {"name": "x", "shape": ["n", 3], "dtype": "float32"},
]


def test_generated_integers_stay_inside_the_tensor_they_index() -> None:
    inputs = running.generate_inputs(SIGNATURE, "random", batch=1000)
    assert inputs["ids"].shape == (1000,) and inputs["ids"].min() >= 0 and inputs["ids"].max() < 5
    assert inputs["x"].shape == (1000, 3) and inputs["x"].dtype == np.float32
    unknown = [{"name": "ids", "shape": [2], "dtype": "int32", "indexes": True}]
    with pytest.raises(UsageError, match="input 'ids' indexes a tensor whose size the library does not record"):
        running.generate_inputs(unknown, "random", batch=1)


def test_dynamic_dimensions_come_from_input_shapes_and_huge_shapes_are_refused() -> None:
    inputs = running.generate_inputs(SIGNATURE, "zeros", batch=1, shapes={"x": (7, 3), "ids": (7,)})
    assert inputs["x"].shape == (7, 3)
    with pytest.raises(UsageError, match=r"the library takes shape \[n, 3\], not \[7, 4\]"):
        running.generate_inputs(SIGNATURE, "zeros", batch=1, shapes={"x": (7, 4)})
    with pytest.raises(UsageError, match=r"would take .* TiB: more than tvmc generates"):
        running.generate_inputs(SIGNATURE, "zeros", batch=10**12)
    with pytest.raises(UsageError, match="no input named 'y'; the library's inputs: ids, x"):
        running.generate_inputs(SIGNATURE, "zeros", batch=1, shapes={"y": (1,)})


def test_inputs_are_matched_by_name_exactly_and_by_shape() -> None:
    """The issue's case: an npz holding {b, A} for a library taking (a, b) is refused, never fed in order."""
    signature = [{"name": "a", "shape": [4], "dtype": "float32"}, {"name": "b", "shape": [4], "dtype": "float32"}]
    ones = np.ones(4, "float32")
    with pytest.raises(UsageError) as wrong:
        running.check_inputs(signature, {"b": ones, "A": ones * 5})
    assert str(wrong.value) == "--inputs: no input named 'A'; the library's inputs: a [4] float32, b [4] float32"
    with pytest.raises(UsageError, match="input 'b' is missing"):
        running.check_inputs(signature, {"a": ones})
    with pytest.raises(UsageError, match=r"input 'a' has shape \[3\]; the library takes \[4\]"):
        running.check_inputs(signature, {"a": ones[:3], "b": ones})
    dynamic = [{"name": "a", "shape": ["n"], "dtype": "float32"}, {"name": "b", "shape": ["n"], "dtype": "float32"}]
    with pytest.raises(UsageError, match=r"input 'b' has shape \[3\]; the library takes \[n\]"):
        running.check_inputs(dynamic, {"a": ones, "b": ones[:3]})
    ordered = running.check_inputs(signature, {"b": ones * 2, "a": ones})
    assert list(ordered) == ["a", "b"]


def test_npz_files_are_checked_before_they_are_read(tmp_path: Path) -> None:
    np.save(tmp_path / "one.npy", np.ones(3))
    (tmp_path / "one.npz").write_bytes((tmp_path / "one.npy").read_bytes())
    with pytest.raises(UsageError, match=r"is an .npy file \(one unnamed array\), not an .npz"):
        running.load_inputs(tmp_path / "one.npz")
    np.savez(tmp_path / "c.npz", x=np.ones(2, "complex64"))
    with pytest.raises(UsageError, match="dtype complex64 is not a tensor type TVM runs"):
        running.load_inputs(tmp_path / "c.npz")
    np.savez(tmp_path / "s.npz", x=np.array(["a", "b"]))
    with pytest.raises(UsageError, match="is not a tensor type TVM runs"):
        running.load_inputs(tmp_path / "s.npz")
    fifo = tmp_path / "fifo.npz"
    __import__("os").mkfifo(fifo)
    with pytest.raises(TvmcError, match="is a FIFO \\(named pipe\\), not a regular file"):
        running.load_inputs(fifo)
    with pytest.raises(TvmcError, match="/dev/zero is a device, not a regular file"):
        running.regular_file(Path("/dev/zero"), "--check", running.MAX_MODEL_BYTES, "model")


@pytest.mark.parametrize(
    ("header", "offset", "value", "expected"),
    [
        ("flag bits", 6, b"\x01\x00", "is encrypted, password required"),  # RuntimeError escaped
        ("method", 8, b"\x09\x00", "compression method is not supported"),  # deflate64: NotImplementedError
    ],
)
def test_an_npz_zipfile_cannot_open_is_one_line(
    tmp_path: Path, header: str, offset: int, value: bytes, expected: str
) -> None:
    """Members zipfile refuses to open (encrypted, a compression method it lacks) are a usage error
    naming the file, like any other damage, not a RuntimeError/NotImplementedError traceback."""
    path = tmp_path / "x.npz"
    np.savez(path, x=np.zeros(3))
    data = bytearray(path.read_bytes())
    for signature, shift in ((b"PK\x03\x04", 0), (b"PK\x01\x02", 2)):  # local header, central directory
        at = data.find(signature) + offset + shift
        data[at : at + 2] = value
    path.write_bytes(bytes(data))
    with pytest.raises(UsageError, match=f"cannot read input 'x' from {path}: .*{expected}"):
        running.load_inputs(path)


def _identity(tmp_path: Path, dtype: Any) -> Path:
    onnx = pytest.importorskip("onnx")
    elem = onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Identity", ["x"], ["y"])],
        "identity",
        [onnx.helper.make_tensor_value_info("x", elem, [4])],
        [onnx.helper.make_tensor_value_info("y", elem, [4])],
    )
    path = tmp_path / f"identity-{np.dtype(dtype)}.onnx"
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)]), str(path))
    return path


@pytest.mark.parametrize(
    ("dtype", "delta", "ok"),
    [
        ("float16", "ulp", True),  # one ulp apart: inside fp16's tolerance, outside fp32's default
        ("float32", "ulp", True),
        ("float32", 1e-2, False),
        ("int32", 1, False),  # integers are exact
        ("int32", 0, True),
    ],
)
def test_check_tolerance_follows_the_dtype(tmp_path: Path, dtype: str, delta: Any, ok: bool) -> None:
    x = np.array([1.0, 2.0, 3.0, 100.0]).astype(dtype)
    got = np.nextafter(x, np.array(np.inf, dtype)) if delta == "ulp" else (x + np.array(delta).astype(dtype))
    result = running.RunResult({"x": x}, {"y": got.astype(dtype)})
    (check,) = running.check_outputs(result, _identity(tmp_path, dtype))
    assert check.ok is ok and check.output == "y" and check.dtype == dtype


def test_nan_equals_nan_in_a_check(tmp_path: Path) -> None:
    x = np.array([np.nan, 1.0, np.inf, -np.inf], "float32")
    (check,) = running.check_outputs(running.RunResult({"x": x}, {"y": x.copy()}), _identity(tmp_path, "float32"))
    assert check.ok and check.max_abs == 0.0
    other = x.copy()
    other[0] = 0.0
    (check,) = running.check_outputs(running.RunResult({"x": x}, {"y": other}), _identity(tmp_path, "float32"))
    assert not check.ok


def test_the_onnx_signature_records_index_ranges(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    from tvmc.backend.embed import onnx_signature

    table = onnx.numpy_helper.from_array(np.zeros((6, 3), "float32"), "table")
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Gather", ["table", "ids"], ["rows"], axis=0)],
        "lookup",
        [onnx.helper.make_tensor_value_info("ids", onnx.TensorProto.INT64, ["n"])],
        [onnx.helper.make_tensor_value_info("rows", onnx.TensorProto.FLOAT, ["n", 3])],
        [table],
    )
    path = tmp_path / "lookup.onnx"
    onnx.save(onnx.helper.make_model(graph), str(path))
    signature = onnx_signature(str(path))
    assert signature["inputs"] == [{"name": "ids", "shape": ["n"], "dtype": "int64", "index-range": [0, 6]}]
    assert [o["name"] for o in signature["outputs"]] == ["rows"]
    assert json.dumps(signature)  # plain data: it goes into the manifest


def test_a_runtime_tvm_does_not_know_is_a_runtime_it_lacks() -> None:
    """`--target webgpu`: TVM's `runtime.enabled("webgpu")` raises; preflight says it has none."""
    from types import SimpleNamespace

    from tvmc.backend import preflight

    def enabled(kind: str) -> bool:
        if kind == "webgpu":
            raise RuntimeError("Unknown optional runtime webgpu")
        return kind == "cuda"

    fake = SimpleNamespace(runtime=SimpleNamespace(enabled=enabled))
    assert preflight.runtime_enabled(fake, "webgpu") is False
    assert preflight.runtime_enabled(fake, "cuda") is True


def test_model_inspect_checks_the_format(tmp_path: Path, app: Any) -> None:
    pytest.importorskip("onnx")
    from typer.testing import CliRunner

    (tmp_path / "empty.onnx").write_bytes(b"")
    (tmp_path / "x.tflite").write_bytes(b"TFL3")
    runner = CliRunner()
    empty = runner.invoke(app, ["model", "inspect", str(tmp_path / "empty.onnx")])
    assert empty.exit_code == 1
    assert (
        empty.stderr == f"tvmc: error: MODEL: {tmp_path / 'empty.onnx'} is not an ONNX model (it holds no ONNX graph)\n"
    )
    tflite = runner.invoke(app, ["model", "inspect", str(tmp_path / "x.tflite")])
    assert tflite.exit_code == 2 and "is a tflite model by its name; model inspect reads ONNX models" in tflite.stderr


@pytest.mark.parametrize(
    ("node", "machine", "expected"),
    [
        ({"kind": "llvm", "mcpu": "cortex-a72"}, "x86_64", "mtriple = 'aarch64-linux-gnu'"),
        ({"kind": "llvm", "mcpu": "skylake", "mtriple": "aarch64-linux-gnu"}, "x86_64", "mtriple = 'x86_64-linux-gnu'"),
        ({"kind": "llvm", "mcpu": "cortex-a72"}, "aarch64", None),
        ({"kind": "llvm", "mcpu": "skylake"}, "x86_64", None),
        ({"kind": "llvm", "mcpu": "skylake-avx51"}, "x86_64", None),  # unknown everywhere: unknown-cpu says so
        ({"kind": "llvm", "mcpu": "native"}, "x86_64", None),
    ],
)
def test_an_mcpu_of_another_architecture_names_the_triple(
    node: dict[str, str], machine: str, expected: str | None
) -> None:
    from tvmc.backend import preflight

    problem = preflight.foreign_cpu(node, machine)
    assert (problem is None) if expected is None else (problem is not None and problem.endswith(expected))


def test_compile_refuses_an_mcpu_of_another_architecture(tmp_path: Path) -> None:
    """`llvm -mcpu=cortex-a72` without a triple built generic x86 code, exit 0 (issue 27)."""
    import platform

    from tvmc import api
    from tvmc.errors import BuildError

    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the default triple here is not x86_64")
    with pytest.raises(BuildError) as refused:
        api.compile(tmp_path / "m.onnx", [], [("--target", "llvm -mcpu=cortex-a72")], output=tmp_path / "m.so")
    assert refused.value.one_line().startswith(
        "--target=llvm -mcpu=cortex-a72: mcpu 'cortex-a72' is a CPU of aarch64, arm, not of this machine (x86_64"
    )


def test_a_manifest_nested_too_deeply_is_a_damaged_manifest(tmp_path: Path) -> None:
    """A checksummed frame is still another's file: JSON nested past Python's recursion limit is a
    `ManifestError` naming the library (it escaped as a RecursionError, and the CLI's catch-all
    line did not name the file)."""
    import hashlib

    text = b"[" * 100_000 + b"]" * 100_000
    lib = tmp_path / "deep.so"
    lib.write_bytes(
        b"\x7fELF" + manifest.MAGIC + len(text).to_bytes(8, "little") + hashlib.sha256(text).digest() + text
    )
    with pytest.raises(manifest.ManifestError, match=r"deep\.so: the tvmc manifest is nested too deeply"):
        manifest.read(lib)


_FIELDS = [
    ("cpu-features",),
    ("cpu-features", "features"),
    ("inputs",),
    ("outputs",),
    ("inputs", 0, "shape"),
    ("inputs", 0, "index-range"),
    ("outputs", 0, "shape"),
    ("inputs", 0, "model-shape"),
    ("target",),
]
_WELL_FORMED = {
    "format": manifest.FORMAT,
    "cpu-features": {"arch": "x86_64", "features": ["avx2"]},
    "inputs": [{"name": "x", "dtype": "float32", "shape": ["batch", 8], "index-range": [0, 4]}],
    "outputs": [{"name": "y", "dtype": "float32", "shape": ["batch", 4]}],
    "config": {"targets": [{"kind": "llvm"}]},
    "origins": {"/targets/0/kind": "x.toml:1:1"},
}


@settings(max_examples=150, deadline=None)
@given(
    edits=st.lists(
        st.tuples(
            st.sampled_from(_FIELDS),
            json_values,
        ),
        min_size=1,
        max_size=3,
    )
)
def test_inspect_prints_any_manifest_fields_without_a_traceback(edits: list[tuple[Any, Any]], app: Any) -> None:
    """`tvmc inspect` prints what a manifest holds, whatever another tvmc (or a hand) wrote in its
    fields: lists where tables were, numbers where names were (a TypeError escaped before)."""
    import copy
    import tempfile

    from typer.testing import CliRunner

    doc = copy.deepcopy(_WELL_FORMED)
    for where, value in edits:
        node: Any = doc
        for key in where[:-1]:
            found = (isinstance(node, dict) and key in node) or (isinstance(node, list) and node)
            node = node[key] if found else None
        if isinstance(node, dict) or (isinstance(node, list) and node):
            node[where[-1] if isinstance(node, dict) else 0] = value
    with tempfile.TemporaryDirectory() as folder:
        lib = Path(folder) / "m.so"
        lib.write_bytes(b"\x7fELF" + manifest.encode(doc))
        result = CliRunner().invoke(app, ["inspect", str(lib)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"library      {lib} ")


_RUN_BASE = {
    "format": manifest.FORMAT,
    "inputs": [{"name": "x", "dtype": "int64", "shape": ["batch", 8], "index-range": [0, 4]}],
    "cpu-features": {"arch": "x86_64", "features": []},
    "target": {"kind": "llvm"},
}
_RUN_FIELDS = [
    ("inputs",),
    ("inputs", 0),
    ("inputs", 0, "name"),
    ("inputs", 0, "dtype"),
    ("inputs", 0, "shape"),
    ("inputs", 0, "index-range"),
    ("inputs", 0, "indexes"),
    ("cpu-features", "features"),
    ("cpu-features", "arch"),
    ("target",),
]
_odd_values = json_values | st.sampled_from(["U3", "S2", "O", "complex64", "1,2", [-1, 8], [True, 8], [4, 0], [0.5, 3]])


@settings(max_examples=150, deadline=None)
@given(
    edits=st.lists(st.tuples(st.sampled_from(_RUN_FIELDS), _odd_values), min_size=1, max_size=3),
    fill=st.sampled_from(["random", "zeros", "ones"]),
)
def test_run_reads_any_manifest_signature_as_inputs_or_one_error(
    edits: list[tuple[Any, Any]], fill: running.Fill
) -> None:
    """What `run` decides from a manifest before it loads the library (will it run here, the inputs
    it generates and checks) is a tvmc error for any field of another type: a name or dtype that is
    not a string, a negative or boolean dimension, an index-range of one number (KeyError,
    TypeError, numpy's ValueError escaped before)."""
    import copy
    import tempfile

    doc: dict[str, Any] = copy.deepcopy(_RUN_BASE)
    for where, shared in edits:
        value = copy.deepcopy(shared)  # sampled values are shared between examples
        node: Any = doc
        for key in where[:-1]:
            found = (isinstance(node, dict) and key in node) or (isinstance(node, list) and node)
            node = node[key] if found else None
        if isinstance(node, dict) and isinstance(where[-1], str):  # an index into what became a table: no
            node[where[-1]] = value  # edit (a JSON object's keys are strings; json.dumps sorts them)
        elif isinstance(node, list) and node:
            node[0] = value
    with tempfile.TemporaryDirectory() as folder:
        lib = Path(folder) / "m.so"
        lib.write_bytes(b"\x7fELF\x02\x01" + bytes(60) + manifest.encode(doc))
        try:
            if HAVE_TVM:  # whether the device opens here is asked of TVM (`run` needs it anyway)
                running.refuse_here(lib, manifest.read(lib), force=True)
            signature = manifest.checked_signature(doc, str(lib))
            generated = running.generate_inputs(signature, fill, 1)
            running.check_inputs(signature, generated)
        except TvmcError as err:
            assert "\n" not in err.one_line()


def test_a_malformed_input_entry_is_a_damaged_manifest() -> None:
    doc = {"format": manifest.FORMAT, "inputs": [{"name": "x", "dtype": "int64", "shape": [-1]}]}
    with pytest.raises(
        manifest.ManifestError, match=r"lib\.so: the tvmc manifest is damaged \(its inputs\[0\] has a shape"
    ):
        manifest.checked_signature(doc, "lib.so")
    doc["inputs"] = [{"name": "x", "dtype": "int64", "shape": [2], "index-range": [3]}]
    with pytest.raises(manifest.ManifestError, match="index-range that is not two increasing integers"):
        manifest.checked_signature(doc, "lib.so")


@pytest.mark.parametrize("compress", ["gz", "xz"])
def test_a_damaged_compressed_tar_is_one_line(tmp_path: Path, compress: str) -> None:
    """A .tar library whose compressed stream is damaged past its header: zlib's and lzma's errors
    escaped `manifest.read`; tarfile's own message for an unreadable tar spans lines."""
    import io
    import tarfile

    frame = manifest.c_source(manifest.encode({"format": manifest.FORMAT})).encode()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=f"w:{compress}") as archive:
        for name, data in (("lib0.o", bytes(range(256)) * 64), (manifest.TAR_MEMBER, frame)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    whole = buffer.getvalue()
    lib = tmp_path / "lib.tar"
    for damaged in (whole[:40] + bytes(len(whole) - 40), whole[: len(whole) // 2], b"\x1f\x8b" + bytes(600)):
        lib.write_bytes(damaged)
        try:
            manifest.read(lib)
        except manifest.ManifestError as err:
            assert err.one_line().startswith(f"{lib}: ") and "\n" not in err.one_line()


def test_a_ragged_input_value_is_a_usage_error() -> None:
    """`tvmc.api.run(inputs={...})` with a nest of lists numpy cannot make one array of: numpy's
    ValueError escaped `check_inputs`."""
    signature = [{"name": "x", "dtype": "float32", "shape": [2, 8]}]
    with pytest.raises(UsageError, match="input 'x' is not an array: setting an array element with a sequence"):
        running.check_inputs(signature, {"x": [[1.0] * 8, [1.0] * 7]})


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"pass-config": {"relay.FuseOps.max_depth": 2**70}}, "integer 1180591620717411303424 is outside the 64-bit"),
        ({"description": "a\x00b"}, r"description: string with a NUL character"),
    ],
)
def test_a_manifest_config_is_held_to_the_loaders_limits(tmp_path: Path, config: dict[str, Any], message: str) -> None:
    """A manifest's config is JSON that did not come through the loader: an integer beyond int64 or a
    NUL in a string (what `config show -c` of the same text refuses) was shown and rebuilt from."""
    from tvmc import api

    doc = {"format": manifest.FORMAT, "config": {"targets": ["llvm"], **config}, "origins": {}}
    lib = tmp_path / "lib.so"
    lib.write_bytes(b"\x7fELF" + manifest.encode(doc))
    with pytest.raises(TvmcError, match=f"lib.so: the config in its manifest is not valid here: .*{message}"):
        api.from_library(lib)


def test_inspect_prints_a_library_path_with_a_line_break_on_one_line(tmp_path: Path, app: Any) -> None:
    from typer.testing import CliRunner

    lib = tmp_path / "a\nb.so"
    lib.write_bytes(b"\x7fELF" + manifest.encode(_WELL_FORMED))
    result = CliRunner().invoke(app, ["inspect", str(lib)])
    assert (
        result.exit_code == 0
        and result.stdout.splitlines()[0] == f"library      {tmp_path}/a\\nb.so (None, {manifest.FORMAT})"
    )


@pytest.mark.parametrize(
    ("target", "damage"),
    [
        ({"kind": 5}, "its target kind 5 is not a name"),
        ({"kind": ""}, 'its target kind "" is not a name'),
        ({"kind": ["cuda"] * 20}, 'its target kind ["cuda", "cuda", "cuda", "cuda", "cuda"… is not a name'),
        (5, "its target is not a table"),
    ],
)
def test_a_target_kind_that_is_not_a_name_is_a_damaged_manifest(
    app: Any, tmp_path: Path, target: Any, damage: str
) -> None:
    """`run` took a manifest's `target.kind = 5` for a device: 'holds 5 code, but this TVM has no 5
    runtime to load it'. It is a damaged manifest field, one line naming the library, with or
    without --device or --force (the child decides the device from the manifest too)."""
    from typer.testing import CliRunner

    doc = {**_RUN_BASE, "target": target}
    lib = tmp_path / "m.so"
    lib.write_bytes(b"\x7fELF\x02\x01" + bytes(60) + manifest.encode(doc))
    message = f"{lib}: the tvmc manifest is damaged ({damage})"
    with pytest.raises(manifest.ManifestError) as raised:
        running.refuse_here(lib, manifest.read(lib), force=True)
    assert raised.value.one_line() == message
    for extra in ([], ["--force"]):
        result = CliRunner().invoke(app, ["run", str(lib), *extra])
        assert result.exit_code == 1 and result.output == f"tvmc: error: {message}\n", result.output
    shown = CliRunner().invoke(app, ["inspect", str(lib)])  # the manifest as it is, the damage named
    assert shown.exit_code == 0 and shown.stdout.startswith(f"library      {lib} "), shown.output
    assert shown.stderr == f"tvmc: warning: {message}\n"
    assert manifest.target_kind({"target": {"kind": "cuda"}}, "m.so") == "cuda"
    assert manifest.target_kind({}, "m.so") is None and manifest.target_kind({"target": {}}, "m.so") is None
