"""Shared fixtures: an isolated search path and environment for every test that resolves configs."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import typer

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "configs"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No user config dir, no TVMC_* variables from the developer's shell."""
    for var in list(os.environ):
        if var.startswith("TVMC_") and var != "TVMC_UPDATE_GOLDEN":
            monkeypatch.delenv(var)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg")))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
    monkeypatch.setenv("TYPER_USE_RICH", "0")
    monkeypatch.setenv("NO_COLOR", "1")
    yield


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str], Path]:
    """write("dir/name.toml", text) → the path of a file under a temporary config directory."""

    def _write(rel: str, text: str) -> Path:
        path = tmp_path / "cfg" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    return _write


@pytest.fixture
def cfgdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config directory put first on the search path via TVMC_CONFIG_PATH."""
    directory = tmp_path / "cfg"
    directory.mkdir(exist_ok=True)
    monkeypatch.setenv("TVMC_CONFIG_PATH", str(directory))
    return directory


@pytest.fixture(scope="session")
def app() -> typer.Typer:
    """The `tvmc` app, for tests that invoke it through CliRunner."""
    from tvmc.cli.app import app as tvmc_app

    return tvmc_app


# Hooks that make a silently unrun test fail the suite (see tests/suite_guards.py).
from suite_guards import (  # noqa: E402, F401
    pytest_collection_modifyitems,
    pytest_runtest_makereport,
    pytest_sessionstart,
)
