"""`--config host/native` (issue 16): detected on demand, cached per machine, builds code that runs
here; a file on the search path pins it; without TVM and without a cache it says what it needs."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import Result
from tvmc import api
from tvmc.sources import native

pytestmark = pytest.mark.tvm
pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -e '.[tvm]')")

Invoke = Callable[..., Result]


def test_detected_once_then_read_from_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    first = api.resolve(["host/native"], [], env={})
    cached = native.cache_dir() / f"native-{native.machine_key()}.toml"
    assert cached.is_file() and first.config.targets[-1]["kind"] == "llvm"
    assert f"native-{native.machine_key()}.toml" in str(first.origin("/targets/0/mcpu"))  # --origin shows the key
    import tvmc.sources.detect as detect

    monkeypatch.setattr(detect, "detect", lambda: (_ for _ in ()).throw(AssertionError("detected again")))
    assert api.resolve(["host/native"], [], env={}).config == first.config


def test_a_file_on_the_search_path_pins_it(cfgdir: Path) -> None:
    (cfgdir / "host").mkdir()
    (cfgdir / "host" / "native.toml").write_text('targets = [{ kind = "llvm", mcpu = "haswell" }]\n')
    assert api.resolve(["host/native"], []).config.targets[0]["mcpu"] == "haswell"


def test_without_tvm_and_without_a_cache(invoke: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tvm", None)
    result = invoke("config", "show", "--config", "host/native")
    assert result.exit_code == 1 and "needs the Python package 'apache-tvm'" in result.stderr
    assert "pip install 'apache-tvm==0.27.0.post1'" in result.stderr


def test_the_quick_start_builds_what_runs_here(
    invoke: Invoke, mlp_path: Path, tmp_path: Path, make_model: ModuleType
) -> None:
    out = tmp_path / "mlp.so"
    built = invoke("compile", str(mlp_path), "--config", "host/native", "-o", str(out))
    assert built.exit_code == 0 and "will not run here" not in built.stderr, built.output
    ran = invoke("run", str(out), "--check", str(mlp_path), "--batch", "5")
    assert ran.exit_code == 0 and ": ok" in ran.stdout, ran.output
