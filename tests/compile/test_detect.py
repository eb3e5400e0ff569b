"""`tvmc config detect` (issue 16): the config of this machine validates, builds without a
preflight warning, and the library runs here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import Result
from tvmc.sources.detect import plain_triple
from tvmc.validate import runner as validate_runner

pytestmark = pytest.mark.tvm
tvm = pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -e '.[tvm]')")
np = pytest.importorskip("numpy")

Invoke = Callable[..., Result]


def test_the_vendor_of_llvms_own_build_is_dropped() -> None:
    assert plain_triple("x86_64-conda-linux-gnu") == "x86_64-linux-gnu"
    assert plain_triple("x86_64-pc-linux-gnu") == "x86_64-linux-gnu"
    assert plain_triple("aarch64-linux-gnu") == "aarch64-linux-gnu"
    assert plain_triple("arm64-apple-darwin") == "arm64-apple-darwin"


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory, invoke: Invoke) -> Path:
    out = tmp_path_factory.mktemp("detect") / "native.toml"
    result = invoke("config", "detect", "-o", str(out))
    assert result.exit_code == 0, result.output
    return out


def test_the_detected_config_is_this_cpu_and_validates(native: Path) -> None:
    from tvm.target import codegen

    text = native.read_text()
    assert text.startswith("#:schema ") and "# Detected on " in text
    assert f'mcpu = "{codegen.llvm_get_system_cpu()}"' in text
    result = validate_runner.Validator(validate_runner.Settings(strict=True)).file(str(native))
    assert [d.rule for d in result.diagnostics] == []


def test_json_form(invoke: Invoke) -> None:
    import json

    result = invoke("config", "detect", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["targets"][-1]["kind"] == "llvm" and doc["targets"][-1]["mtriple"]


def test_a_build_for_it_runs_here_without_a_warning(
    native: Path,
    invoke: Invoke,
    mlp_path: Path,
    tmp_path: Path,
    run_library: Callable[[Path, Any], Any],
    make_model: ModuleType,
) -> None:
    out = tmp_path / "mlp.so"
    result = invoke("compile", str(mlp_path), "--config", str(native), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "will not run here" not in result.stderr
    x = np.random.default_rng(0).standard_normal((4, 8)).astype("float32")
    np.testing.assert_allclose(run_library(out, x), make_model.reference(x), rtol=1e-5, atol=1e-5)
