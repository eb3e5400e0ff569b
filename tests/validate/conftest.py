"""Fixtures for the validate tests: the command registered on the `config` group, a CLI runner,
and the corpus as working directory and search path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from corpus_expect import CORPUS
from tvmc.cli import config_cmd, validate_cmd
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session", autouse=True)
def _registered() -> None:
    """`tvmc config validate/schema`, registered unless the app already wires them."""
    names = {info.name for info in config_cmd.app.registered_commands}
    if "validate" not in names:
        validate_cmd.register(config_cmd.app)


Invoke = Callable[..., Any]


@pytest.fixture
def tvmc() -> Invoke:
    """tvmc(*argv, input=None, env=None) → click Result of `tvmc config <argv>`."""
    from tvmc.cli.app import app

    def run(*argv: str, input: bytes | str | None = None, env: dict[str, str] | None = None) -> Any:
        runner = CliRunner()
        result = runner.invoke(app, ["config", *argv], input=input, env=env, catch_exceptions=True)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result

    return run


@pytest.fixture
def in_corpus(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Work inside the corpus, with it first on the search path."""
    monkeypatch.chdir(CORPUS)
    monkeypatch.setenv("TVMC_CONFIG_PATH", str(CORPUS))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return CORPUS
