"""Built and run (issue 16): three models of different shapes — the shipped MLP (dynamic batch), the
shipped CNN (conv/relu/pool/gemm, NCHW) and the CNN with a dynamic batch — for host/native and with
-O 0, desired-layout NHWC and the VM's compiled mode; `tvmc run --check` compares each library with
ONNX's reference evaluator and must be within tolerance."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import Result

pytestmark = pytest.mark.tvm
pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -e '.[tvm]')")
pytest.importorskip("onnx", reason="onnx is not installed (pip install -e '.[tvm]')")

ROOT = Path(__file__).resolve().parents[2]
Invoke = Callable[..., Result]
NHWC = ("--set", 'build.desired-layout=["NHWC"]')
COMPILED = ("--executor-vm-exec-mode", "compiled")
O0 = ("-O", "0")

CASES = [
    ("mlp", (), 3),
    ("mlp", O0, 1),
    ("mlp", COMPILED, 2),
    ("cnn", (), 1),
    ("cnn", NHWC, 1),
    ("cnn", O0, 1),
    ("cnn-dynamic", (), 2),
    ("cnn-dynamic", (*NHWC, *COMPILED), 3),
]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory, make_model: ModuleType) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("models")
    dynamic = folder / "cnn-dynamic.onnx"
    dynamic.write_bytes(make_model.make_cnn(batch="N").SerializeToString())
    return {"mlp": ROOT / "models" / "mlp.onnx", "cnn": ROOT / "models" / "cnn.onnx", "cnn-dynamic": dynamic}


def test_shipped_models_are_what_make_model_writes(make_model: ModuleType) -> None:
    assert (ROOT / "models" / "mlp.onnx").read_bytes() == make_model.make_mlp().SerializeToString()
    assert (ROOT / "models" / "cnn.onnx").read_bytes() == make_model.make_cnn().SerializeToString()


@pytest.mark.parametrize(("name", "flags", "batch"), CASES, ids=[f"{n}{''.join(f)}" for n, f, _ in CASES])
def test_built_library_matches_the_onnx_reference(
    name: str, flags: tuple[str, ...], batch: int, models: dict[str, Path], invoke: Invoke, tmp_path: Path
) -> None:
    library = tmp_path / f"{name}.so"
    built = invoke("compile", str(models[name]), "--config", "host/native", *flags, "-o", str(library))
    assert built.exit_code == 0, built.output
    mode = "compiled" if "compiled" in flags else "bytecode"
    assert f"vm      exec-mode {mode}" in built.stdout
    ran = invoke("run", str(library), "--check", str(models[name]), "--batch", str(batch), "--rtol", "1e-4")
    assert ran.exit_code == 0, ran.output
    lines = ran.stdout.splitlines()
    assert lines[0].startswith(f"y: shape ({batch}, ")  # named as in the model
    check = [line for line in lines if line.startswith("check y: max abs error ")]
    assert len(check) == 1 and check[0].endswith(": ok (rtol 0.0001 / atol 0.0001, float32)"), ran.stdout
    max_abs = float(check[0].split("max abs error ")[1].split(",")[0])
    assert max_abs < 1e-4
