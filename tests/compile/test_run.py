"""`tvmc run` (issue 16): runs a library `tvmc compile` built, checks it against the ONNX reference,
reads and writes npz, times it, and refuses what it cannot run with one line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

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
    assert "output_0: shape (3, 4) float32" in result.stdout
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


def test_inputs_and_outputs_as_npz_and_timing(invoke: Invoke, library: Path, tmp_path: Path) -> None:
    x = np.random.default_rng(1).standard_normal((2, 8)).astype("float32")
    np.savez(tmp_path / "in.npz", x=x)
    out = tmp_path / "out.npz"
    result = invoke("run", str(library), "--inputs", str(tmp_path / "in.npz"), "--outputs", str(out), "--print-time")
    assert result.exit_code == 0, result.output
    assert "time: mean " in result.stdout and "(3 x 10 runs)" in result.stdout
    with np.load(out) as saved:
        vm = tvm.relax.VirtualMachine(tvm.runtime.load_module(str(library)), tvm.cpu())
        np.testing.assert_array_equal(saved["output_0"], vm["main"](tvm.runtime.tensor(x)).numpy())


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["run", "missing.so", "--check", "m.onnx"], 2, "is not a file"),
        (["run", "LIB"], 2, "give --inputs NPZ, or --check MODEL"),
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
