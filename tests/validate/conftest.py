"""Fixtures for the validate tests: a CLI runner and the corpus as working directory and search path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from corpus_expect import CORPUS, Invoke
from typer.testing import CliRunner


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
