"""The checked-in registry is what the sync script generates from the installed TVM."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from tvmc import registry

ROOT = Path(__file__).resolve().parents[2]


def test_registry_shape() -> None:
    assert "llvm" in registry.kinds() and registry.kinds()["cuda"].device_type == 2
    assert len(registry.tag_names()) == 287
    assert registry.kind("stackvm") is not None and registry.kind("stackvm").legacy  # type: ignore[union-attr]
    assert set(registry.executors()) == {"graph", "aot", "vm"}
    assert set(registry.runtimes()) == {"cpp", "crt"}
    assert registry.legacy_options()["llvm"]["system-lib"].lifts_to == "runtime.system-lib"


def test_registry_matches_installed_tvm() -> None:
    pytest.importorskip("tvm", reason="apache-tvm not installed: cannot compare the registry with TVM")
    legacy_data = ROOT.parent / "shared" / "data"
    if not (legacy_data / "tvm_kinds_legacy.json").exists():
        pytest.skip("legacy research data (../shared/data) not present")
    spec = importlib.util.spec_from_file_location("sync_registry", ROOT / "scripts" / "sync_registry.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["sync_registry"] = module
    spec.loader.exec_module(module)
    generated = module.build(legacy_data)
    for name, text in generated.items():
        checked_in = (ROOT / "cli" / "tvmc" / "registry" / "data" / name).read_text(encoding="utf-8")
        assert checked_in == text, f"{name} is stale: run scripts/sync_registry.py"
