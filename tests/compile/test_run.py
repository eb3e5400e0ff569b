"""`tvmc run` (issue 16): runs a library `tvmc compile` built, checks it against the ONNX reference,
reads and writes npz, times it, and refuses what it cannot run with one line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from tvmc.errors import BuildError

pytestmark = pytest.mark.tvm
tvm = pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -e '.[tvm]')")
np = pytest.importorskip("numpy")
onnx = pytest.importorskip("onnx")

Invoke = Callable[..., Result]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory, invoke: Invoke, mlp_path: Path) -> Path:
    out = tmp_path_factory.mktemp("run") / "mlp.so"
    result = invoke("compile", str(mlp_path), "-o", str(out))  # plain llvm: runs on any x86-64 CPU
    assert result.exit_code == 0, result.output
    return out


def test_check_against_the_onnx_reference(invoke: Invoke, library: Path, mlp_path: Path) -> None:
    result = invoke("run", str(library), "--check", str(mlp_path), "--batch", "3", "--print-top", "2")
    assert result.exit_code == 0, result.output
    assert "y: shape (3, 4) float32" in result.stdout  # named as in the model
    assert "top: [" in result.stdout and "check y: max abs error" in result.stdout and ": ok" in result.stdout


def test_a_wrong_library_fails_the_check(invoke: Invoke, library: Path, mlp_path: Path, tmp_path: Path) -> None:
    model = onnx.load(str(mlp_path))
    for init in model.graph.initializer:  # same signature, other weights: other results
        array = onnx.numpy_helper.to_array(init) * 2 + 1
        init.CopyFrom(onnx.numpy_helper.from_array(array.astype(array.dtype), init.name))
    other = tmp_path / "other.onnx"
    onnx.save(model, str(other))
    result = invoke("run", str(library), "--check", str(other))
    assert result.exit_code == 1 and "OUTSIDE rtol" in result.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "{model} is not an ONNX model (it holds no ONNX graph)"),
        (b"\x08\x07", "{model} is not an ONNX model (it holds no ONNX graph)"),  # an ir_version, no graph
        (b"hello\n", "cannot read the ONNX model {model}: "),
    ],
)
def test_check_with_a_file_that_is_no_onnx_model_names_it(
    invoke: Invoke, library: Path, tmp_path: Path, content: bytes, message: str
) -> None:
    """protobuf reads an empty file as an empty model: `--check EMPTY` said 'the library has 1
    outputs, the model 0'."""
    model = tmp_path / "empty.onnx"
    model.write_bytes(content)
    result = invoke("run", str(library), "--check", str(model))
    assert result.exit_code == 1, result.output
    assert result.output.startswith(f"tvmc: error: --check: {message.format(model=model)}"), result.output
    assert len(result.output.splitlines()) == 1 and "outputs" not in result.output


def test_inputs_and_outputs_as_npz_and_timing(invoke: Invoke, library: Path, tmp_path: Path) -> None:
    x = np.random.default_rng(1).standard_normal((2, 8)).astype("float32")
    np.savez(tmp_path / "in.npz", x=x)
    out = tmp_path / "out.npz"
    result = invoke("run", str(library), "--inputs", str(tmp_path / "in.npz"), "--outputs", str(out), "--print-time")
    assert result.exit_code == 0, result.output
    assert "time: mean " in result.stdout and "(3 x 10 runs)" in result.stdout
    with np.load(out) as saved:
        vm = tvm.relax.VirtualMachine(tvm.runtime.load_module(str(library)), tvm.cpu())
        np.testing.assert_array_equal(saved["y"], vm["main"](tvm.runtime.tensor(x)).numpy())


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["run", "missing.so", "--check", "m.onnx"], 1, "LIBRARY: missing.so does not exist"),  # as inspect
        (["run", "LIB", "--fill", "twos"], 2, "unknown fill 'twos'"),
        (["run", "LIB", "--inputs", "NOTNPZ"], 2, "cannot read inputs"),
        (["run", "LIB", "--device", "cuda", "--inputs", "NPZ"], 1, "no cuda device here"),
        (["run", "NOTLIB", "--inputs", "NPZ"], 1, "cannot load"),
    ],
)
def test_what_cannot_run_is_one_line(
    invoke: Invoke, library: Path, tmp_path: Path, args: list[str], code: int, message: str
) -> None:
    (tmp_path / "bad.txt").write_text("not an npz")
    (tmp_path / "notlib.so").write_text("not a library")
    np.savez(tmp_path / "in.npz", x=np.ones((1, 8), "float32"))
    paths = {
        "LIB": library,
        "NOTNPZ": tmp_path / "bad.txt",
        "NPZ": tmp_path / "in.npz",
        "NOTLIB": tmp_path / "notlib.so",
    }
    result = invoke(*[str(paths.get(a, a)) for a in args])
    assert result.exit_code == code, result.output
    assert message in result.stderr and "Traceback" not in result.output


def test_model_inspect_lists_inputs_and_outputs(invoke: Invoke, mlp_path: Path, tmp_path: Path) -> None:
    import json

    text = invoke("model", "inspect", str(mlp_path))
    assert text.exit_code == 0, text.output
    assert text.stdout.splitlines() == [
        "inputs:",
        "  x  float32  [batch, 8]  (dynamic: batch)",
        "outputs:",
        "  y  float32  [batch, 4]  (dynamic: batch)",
    ]
    doc = json.loads(invoke("model", "inspect", str(mlp_path), "--format", "json").stdout)
    assert doc == {
        "inputs": [{"name": "x", "shape": ["batch", 8], "dtype": "float32"}],
        "outputs": [{"name": "y", "shape": ["batch", 4], "dtype": "float32"}],
    }
    (tmp_path / "bad.onnx").write_text("not a model")
    bad = invoke("model", "inspect", str(tmp_path / "bad.onnx"))
    assert bad.exit_code == 1 and "cannot read the ONNX model" in bad.stderr


def test_profile_as_table_and_json(invoke: Invoke, library: Path, mlp_path: Path) -> None:
    import json

    text = invoke("run", str(library), "--check", str(mlp_path), "--profile", "--repeat", "2")
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("function "))
    assert lines[header].split() == ["function", "calls", "total", "us", "mean", "us", "%", "shapes"]
    rows = {line.split()[0]: line.split() for line in lines[header + 1 :] if not line.startswith("check ")}
    # build.pipeline's default fuses each layer's matmul, bias add and relu into one kernel
    assert {"fused_matmul_add_relu", "fused_matmul1_add1_relu1"} <= set(rows)
    assert rows["fused_matmul_add_relu"][1] == "2"  # once per run
    doc = json.loads(invoke("run", str(library), "--check", str(mlp_path), "--profile", "-f", "json").stdout)
    kernels = {op["function"]: op for op in doc["profile"]}
    first = kernels["fused_matmul_add_relu"]
    assert first["calls"] == 3 and first["shapes"] == "(1,8) (8,16) (16,) (1,16)"
    assert doc["checks"][0]["ok"] is True and doc["outputs"][0]["shape"] == [1, 4]


def test_api_compile_and_run_are_the_cli(tmp_path: Path, mlp_path: Path) -> None:
    from tvmc import api
    from tvmc.errors import TvmcError

    (tmp_path / "out").mkdir()
    compiled = api.compile(
        mlp_path, ["host/native"], [("-O", "1")], output=tmp_path / "out", input_shapes={"x": (2, 8)}
    )
    assert compiled.path == tmp_path / "out" / "mlp.so" and compiled.path.stat().st_size == compiled.size
    assert compiled.plan.opt_level == 1 and set(compiled.timings) == {"import", "build", "export"}
    result = api.run(compiled.path, check=mlp_path, batch=2, time_it=True, repeat=2, number=2)
    assert [c.ok for c in result.checks] == [True] and result.timing is not None and result.timing.repeat == 2
    x = np.ones((2, 8), "float32")
    again = api.run(compiled.path, {"x": x})
    assert again.outputs["y"].shape == (2, 4)
    with pytest.raises(TvmcError, match=r"missing\.so does not exist") as missing:
        api.run(tmp_path / "missing.so", {"x": x})
    assert missing.value.exit_code == 1
    with pytest.raises(TvmcError, match="is not a CPU LLVM 22"):
        api.compile(mlp_path, ["host/default"], [("--target-llvm-mcpu", "skylake-avx51")], output=tmp_path / "y.so")
    with pytest.raises(TvmcError, match="the directory does not exist"):
        api.compile(mlp_path, [], [], output=f"{tmp_path / 'missing'}/")


def test_foreign_libraries_are_refused_before_loading(invoke: Invoke, library: Path, tmp_path: Path) -> None:
    np.savez(tmp_path / "in.npz", x=np.ones((1, 8), "float32"))
    arm = tmp_path / "arm.so"
    data = bytearray(library.read_bytes())
    data[18:20] = (183).to_bytes(2, "little")  # e_machine: AArch64
    arm.write_bytes(bytes(data))
    result = invoke("run", str(arm), "--inputs", str(tmp_path / "in.npz"))
    assert result.exit_code == 1
    assert (
        result.stderr
        == f"tvmc: error: LIBRARY: {arm} is a library for aarch64; this machine is x86_64: run it on that machine; "
        "--force tries anyway\n"
    )


def test_a_cuda_library_without_cuda_runtime_is_refused_with_the_reason(
    invoke: Invoke, mlp_path: Path, tmp_path: Path
) -> None:
    import shutil

    from tvmc.backend.preflight import no_runtime_here

    if tvm.runtime.enabled("cuda"):  # a TVM built with CUDA loads it: nothing to refuse
        assert no_runtime_here({"kind": "cuda"}) == []
        return
    assert no_runtime_here({"kind": "cuda"}) == [
        "cuda: this TVM has no cuda runtime: the library cannot be loaded here (tvmc run needs one)"
    ]
    if not shutil.which("nvcc"):  # TVM's CUDA codegen needs nvcc to build the library
        return
    out = tmp_path / "t4.so"
    built = invoke("compile", str(mlp_path), "--config", "nvidia/nvidia-t4", "-o", str(out))
    assert built.exit_code == 0, built.output
    assert "tvmc: warning: cuda: this TVM has no cuda runtime: the library cannot be loaded here" in built.stderr
    ran = invoke("run", str(out), "--check", str(mlp_path))
    assert ran.exit_code == 1 and "holds cuda code, but this TVM has no cuda runtime to load it" in ran.stderr


def test_a_library_needing_missing_cpu_features_is_refused_before_loading(
    invoke: Invoke, mlp_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """compile records the CPU features the code needs in the manifest; run compares them with this
    machine's, here a baseline x86-64 CPU, and refuses instead of dying with Illegal instruction
    (--force runs anyway: an fp32 library for sapphirerapids has no AMX instruction)."""
    from tvmc import manifest
    from tvmc.backend import preflight
    from tvmc.backend import run as running

    out = tmp_path / "spr.so"
    built = invoke("compile", str(mlp_path), "--target", "llvm -mcpu=sapphirerapids", "-o", str(out))
    assert built.exit_code == 0, built.output
    doc = manifest.read(out)
    assert doc is not None and doc["target"] == {"keys": ["cpu"], "kind": "llvm", "mcpu": "sapphirerapids", "tag": ""}
    assert {"avx512f", "amx-tile", "amx-bf16"} <= set(doc["cpu-features"]["features"])
    baseline = {"sse", "sse2", "cx16"}
    monkeypatch.setattr(preflight, "host_isa", lambda: baseline)
    with pytest.raises(BuildError) as refused:
        running.refuse_here(out, doc, force=False)
    assert refused.value.message.startswith(f"{out} holds code that needs ")
    assert "more; this machine lacks them: it would die with Illegal instruction" in refused.value.message
    assert "--force" in str(refused.value.hint)
    notes = running.refuse_here(out, doc, force=True)
    assert len(notes) == 1 and notes[0].startswith("--force: ")


def test_inputs_made_from_a_manifest_the_library_does_not_take_name_the_manifest(
    invoke: Invoke, library: Path, tmp_path: Path
) -> None:
    """Inputs generated from a manifest whose input names are not main's (another tvmc's, or an
    altered one) were refused as '--inputs: no input named ...', a flag the user did not give."""
    import hashlib
    import json

    from tvmc import manifest

    data = bytearray(library.read_bytes())
    start = data.find(manifest.MAGIC)
    header = len(manifest.MAGIC) + 8 + 32
    length = int.from_bytes(data[start + len(manifest.MAGIC) : start + len(manifest.MAGIC) + 8], "little")
    doc = json.loads(bytes(data[start + header : start + header + length]))
    doc["inputs"][0]["name"] = "z"  # as long as 'x': the frame keeps its size
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    assert len(text) == length
    data[start + header : start + header + length] = text
    data[start + len(manifest.MAGIC) + 8 : start + header] = hashlib.sha256(text).digest()
    altered = tmp_path / "altered.so"
    altered.write_bytes(bytes(data))
    result = invoke("run", str(altered))
    assert result.exit_code == 1
    assert result.stderr == (
        f"tvmc: error: {altered}: the tvmc manifest does not match the library (inputs made from it: no input "
        "named 'z'; the library's inputs: x)\n"
    )
