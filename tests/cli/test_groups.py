"""The command groups: subcommands built on first use, and one did-you-mean for a misspelt command."""

from __future__ import annotations

import click
import pytest
import typer
from typer.testing import CliRunner


@pytest.mark.parametrize(
    ("argv", "suggestion"),
    [
        (["confg", "show"], "'config'"),
        (["config", "valdate", "x.toml"], "'validate'"),
        (["target", "canonicalise", "llvm"], "'canonicalize'"),
    ],
)
def test_a_misspelt_command_gets_one_suggestion(app: typer.Typer, argv: list[str], suggestion: str) -> None:
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2
    assert result.output.count("did you mean") == 1 and result.output.endswith(f" (did you mean {suggestion}?)\n")


def test_unknown_command_without_a_neighbour(app: typer.Typer) -> None:
    result = CliRunner().invoke(app, ["config", "zzzzzz"])
    assert result.exit_code == 2 and "No such command 'zzzzzz';" in result.output
    assert "did you mean" not in result.output.lower()


def test_config_group_builds_only_the_command_that_runs() -> None:
    from tvmc.cli.app import _config

    group = _config()
    assert isinstance(group, click.Group)
    ctx = click.Context(group)
    names = group.list_commands(ctx)
    assert names == [
        "show",
        "get",
        "explain",
        "list",
        "validate",
        "schema",
        "diff",
        "migrate",
        "detect",
    ]  # registration order
    command = group.get_command(ctx, "schema")
    assert command is not None and command.name == "schema"
    assert group.get_command(ctx, "schema") is command  # built once
    assert group.get_command(ctx, "nope") is None
