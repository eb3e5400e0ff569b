"""The checked-in registry is what the sync script generates from the installed TVM."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testkit import load_script
from tvmc import registry

ROOT = Path(__file__).resolve().parents[2]


def test_registry_shape() -> None:
    assert "llvm" in registry.kinds() and registry.kinds()["cuda"].device_type == 2
    assert len(registry.tag_names()) == 287
    assert registry.kind("stackvm") is not None and registry.kind("stackvm").legacy  # type: ignore[union-attr]
    assert set(registry.executors()) == {"graph", "aot", "vm"}
    assert set(registry.runtimes()) == {"cpp", "crt"}
    assert registry.kinds()["llvm"].legacy_options["system-lib"].lifts_to == "runtime.system-lib"


@pytest.mark.tvm
def test_registry_matches_installed_tvm() -> None:
    pytest.importorskip("tvm", reason="apache-tvm not installed: cannot compare the registry with TVM")
    module = load_script("sync_registry")
    generated = module.build(module.DEFAULT_LEGACY_DATA)
    for name, text in generated.items():
        checked_in = (ROOT / "cli" / "tvmc" / "registry" / "data" / name).read_text(encoding="utf-8")
        assert checked_in == text, f"{name} is stale: run scripts/sync_registry.py"


def test_data_read_without_the_files_next_to_the_module(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The data files are read straight from the package directory; importlib.resources is the
    fallback (tvmc imported from a zip archive) and reads the same data, for the registry and for
    shell completion's tag names (`tvmc.datafiles`, the one reader of both)."""
    from tvmc import datafiles
    from tvmc.cli.config_names import tag_names

    direct, names = registry._load("kinds.json"), tag_names()
    monkeypatch.setattr(datafiles, "_DATA_DIR", str(tmp_path / "missing"))
    datafiles.tags.cache_clear()
    try:
        assert registry._load("kinds.json") == direct
        assert tag_names() == names
    finally:
        datafiles.tags.cache_clear()


def test_tag_config_is_a_fresh_copy() -> None:
    for name in registry.tag_names():
        config = registry.tag_config(name)
        assert config == json.loads(json.dumps(registry._tags()[name]))
        assert config is not None and config is not registry._tags()[name]
    first = registry.tag_config("nvidia/nvidia-a100")
    assert first is not None
    first["keys"].append("changed")
    first["extra"] = 1
    assert registry.tag_config("nvidia/nvidia-a100") == json.loads(json.dumps(registry._tags()["nvidia/nvidia-a100"]))
    assert "changed" not in registry._tags()["nvidia/nvidia-a100"]["keys"]
    assert registry.tag_config("no/such-tag") is None
