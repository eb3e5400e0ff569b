"""The CLI with `config diff`/`config migrate` registered (until app.py wires them itself)."""

from __future__ import annotations

import pytest
import typer


@pytest.fixture(scope="session")
def app() -> typer.Typer:
    from tvmc.cli import config_cmd, tooling_cmd
    from tvmc.cli.app import app as tvmc_app

    if "diff" not in {c.name for c in config_cmd.app.registered_commands}:
        tooling_cmd.register(config_cmd.app)
    return tvmc_app
