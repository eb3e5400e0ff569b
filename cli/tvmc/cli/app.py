"""The `tvmc` command: parses argv, calls the API, prints. Logic lives in the core modules."""

from __future__ import annotations

import typer

from tvmc import __version__

app = typer.Typer(
    name="tvmc",
    help="Layered TVM compilation configs: show, validate, convert, and compile with them.",
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"tvmc {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """tvmc — TVM compilation configuration.

    Exit codes: 0 ok, 1 invalid input (bad config, target or file), 2 usage error.
    """


def _register_groups() -> None:
    from tvmc.cli import compile_cmd, config_cmd, target_cmd, tooling_cmd, validate_cmd

    app.add_typer(config_cmd.app, name="config", help="Resolve, inspect and list compilation configs.")
    app.add_typer(target_cmd.app, name="target", help="Parse, canonicalize and explain TVM targets.")
    validate_cmd.register(config_cmd.app)
    tooling_cmd.register(config_cmd.app)
    compile_cmd.register(app)


_register_groups()


def main() -> None:
    app(prog_name="tvmc")
