"""Shared CLI plumbing: error → exit-code mapping, output helpers, a lazily built group. No logic lives here."""

from __future__ import annotations

import difflib
import functools
import sys
from collections.abc import Callable
from typing import Any, NoReturn, ParamSpec, TypeVar

import click
import typer
from typer.core import TyperGroup

from tvmc.errors import TvmcError
from tvmc.text import one_line

P = ParamSpec("P")
R = TypeVar("R")

EXIT_INVALID = 1


def fail(err: TvmcError) -> NoReturn:
    """Print one line for a tvmc error and exit with its code (1 invalid input, 2 usage)."""
    typer.echo(f"tvmc: error: {one_line(err.one_line())}", err=True)
    raise typer.Exit(err.exit_code)


def reports_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Decorate a command so tvmc errors (and runaway inputs) become one line and an exit code."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except TvmcError as err:
            fail(err)
        except RecursionError:
            typer.echo("tvmc: error: input is nested too deeply", err=True)
            raise typer.Exit(EXIT_INVALID) from None
        except KeyboardInterrupt:
            typer.echo("tvmc: interrupted", err=True)
            raise typer.Exit(130) from None

    return wrapper


def warn(message: str) -> None:
    typer.echo(f"tvmc: warning: {one_line(message)}", err=True)


def write_stdout(text: str) -> None:
    """Write command output as UTF-8 whatever the locale, so that the same input prints the same
    bytes; text that UTF-8 cannot hold is escaped rather than crashing the write."""
    data = text.encode("utf-8", "backslashreplace")
    try:
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is None:  # a text-only stream (tests may substitute one)
            sys.stdout.write(data.decode("utf-8"))
            sys.stdout.flush()
        else:
            sys.stdout.flush()  # what was written as text goes first
            buffer.write(data)
            buffer.flush()
    except BrokenPipeError:
        raise  # the reader went away (`| head`): click exits quietly
    except OSError as err:  # e.g. a full disk behind `> file`
        raise TvmcError(f"cannot write the output: {err.strerror or err}", "<stdout>") from None


def resolve_suggesting(
    group: click.Group, ctx: click.Context, args: list[str]
) -> tuple[str | None, click.Command | None, list[str]]:
    """`group.resolve_command` for a group whose commands are built lazily, with one did-you-mean
    for an unknown command, computed from every command name (click >= 8.4 and typer each add
    their own from the commands built so far: none, or the same one twice)."""
    try:
        return click.Group.resolve_command(group, ctx, args)
    except click.UsageError as err:
        name = args[0] if args else ""
        names = group.list_commands(ctx)
        if not name or name in names or not err.message.startswith("No such command"):
            raise
        matches = difflib.get_close_matches(name, names)
        hint = f" Did you mean {', '.join(repr(m) for m in matches)}?" if matches else ""
        raise click.UsageError(f"No such command {name!r}.{hint}", ctx) from None


class LazyCommandsGroup(TyperGroup):
    """A typer group that builds each subcommand from its registration when it is first asked for:
    `tvmc config validate` builds `validate` alone, not the five other `config` commands (typer
    inspects every command's signature to build it). Made by `lazy_group`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending: dict[str, Callable[[], click.Command]] = {}
        self.order: list[str] = []

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.order)  # registration order, built or not

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        return resolve_suggesting(self, ctx, args)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        build = self.pending.pop(cmd_name, None)
        if build is not None:
            self.commands[cmd_name] = build()
        return super().get_command(ctx, cmd_name)


def lazy_group(app: typer.Typer) -> click.Group:
    """`typer.main.get_group(app)` (the app made with `cls=LazyCommandsGroup`), its commands built on use."""
    from typer.main import get_command_from_info, get_command_name

    infos = app.registered_commands
    app.registered_commands = []  # the group itself, without building a command
    try:
        group = typer.main.get_group(app)
    finally:
        app.registered_commands = infos
    assert isinstance(group, LazyCommandsGroup), "make the app with cls=LazyCommandsGroup"
    for info in infos:
        assert info.callback is not None
        name = info.name or get_command_name(info.callback.__name__)
        group.order.append(name)
        group.pending[name] = functools.partial(
            get_command_from_info,
            info,
            pretty_exceptions_short=app.pretty_exceptions_short,
            rich_markup_mode=app.rich_markup_mode,
        )
    return group
