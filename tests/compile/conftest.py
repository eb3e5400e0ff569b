"""Fixtures for the compile tests: the CLI app with `compile`, the README's model, built libraries.

TVM builds take a second or so each (most of it importing TVM once), so libraries that several
tests inspect are built once per session.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import typer
from click.testing import Result
from testkit import load_script
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
TVM_MISSING = "apache-tvm is not installed (pip install -e '.[tvm]')"


@pytest.fixture(scope="session")
def make_model() -> ModuleType:
    return load_script("make_model")


@pytest.fixture(scope="session")
def invoke(app: typer.Typer) -> Callable[..., Result]:
    runner = CliRunner()

    def _invoke(*args: str) -> Result:
        return runner.invoke(app, list(args))

    return _invoke


@pytest.fixture(scope="session")
def mlp_path(tmp_path_factory: pytest.TempPathFactory, make_model: ModuleType) -> Path:
    """The README's model, generated (ONNX: MatMul/Add/Relu with fixed weights, symbolic batch)."""
    pytest.importorskip("onnx", reason="onnx is not installed (pip install -e '.[tvm]')")
    path = tmp_path_factory.mktemp("model") / "mlp.onnx"
    path.write_bytes(make_model.make_mlp().SerializeToString())
    return path


@pytest.fixture(scope="session")
def run_library() -> Callable[[Path, Any], Any]:
    """Load a library `tvmc compile` wrote and run its `main` on an input with the relax VM (CPU)."""
    tvm = pytest.importorskip("tvm", reason=TVM_MISSING)

    def _run(path: Path, x: Any) -> Any:
        lib = tvm.runtime.load_module(str(path))
        vm = tvm.relax.VirtualMachine(lib, tvm.cpu())
        return vm["main"](tvm.runtime.tensor(x)).numpy()

    return _run
