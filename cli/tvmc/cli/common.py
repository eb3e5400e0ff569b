"""Shared CLI plumbing: error → exit-code mapping, output helpers, a lazily built group. No logic lives here."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NoReturn, ParamSpec, TypeVar

import click
import typer
from typer.core import TyperGroup

from tvmc.cli.output import EXIT_INVALID, error_report, warn, write_stdout
from tvmc.errors import TvmcError

__all__ = [
    "EXIT_INVALID",
    "LazyGroup",
    "fail",
    "lazy_group",
    "reports_errors",
    "resolve_suggesting",
    "warn",
    "write_stdout",
]

P = ParamSpec("P")
R = TypeVar("R")


def fail(err: TvmcError) -> NoReturn:
    """Print one line for a tvmc error and exit with its code (1 invalid input, 2 usage)."""
    line, code = error_report(err)
    typer.echo(line, err=True)
    raise typer.Exit(code)


def reports_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Decorate a command so tvmc errors (and runaway inputs) become one line and an exit code."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except TvmcError as err:
            fail(err)
        except (RecursionError, KeyboardInterrupt) as err:  # a runaway input; Ctrl-C
            line, code = error_report(err)
            typer.echo(line, err=True)
            raise typer.Exit(code) from None

    return wrapper


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
        from tvmc.errors import did_you_mean

        raise NoSuchCommand(name, did_you_mean(name, names, n=3), ctx) from None


class NoSuchCommand(click.UsageError):
    """An unknown command, with the close names as click's NoSuchOption carries them: the root
    words the did-you-mean as every tvmc error does (tvmc.cli.app.OneLineUsageError)."""

    def __init__(self, name: str, possibilities: list[str], ctx: click.Context | None) -> None:
        super().__init__(f"No such command {name!r}.", ctx)
        self.possibilities = possibilities


class LazyGroup(TyperGroup):
    """The one lazy command group: each subcommand is built when it is first asked for. The root
    (`tvmc`) adds loaders that import a command's module (`tvmc --help` and completing a command
    name import none, using the summaries given); a group of commands (`config`, `target`, `tune
    db`, made by `lazy_group`) builds each from its registration (typer inspects every command's
    signature to build it: `tvmc config validate` builds `validate` alone)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.order: list[str] = []  # registration order, built or not
        self.pending: dict[str, Callable[[], click.Command]] = {}
        self.summaries: dict[str, str] = {}  # one-line help of commands not to build for it

    def add_lazy(self, name: str, build: Callable[[], click.Command], summary: str | None = None) -> None:
        self.order.append(name)
        self.pending[name] = build
        if summary is not None:
            self.summaries[name] = summary

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*self.order, *(name for name in super().list_commands(ctx) if name not in self.order)]

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        return resolve_suggesting(self, ctx, args)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        build = self.pending.pop(cmd_name, None)
        if build is not None:
            command = build()
            command.name = cmd_name
            self.commands[cmd_name] = command
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as err:
            command = self.commands.get(ctx.invoked_subcommand) if ctx.invoked_subcommand else None
            if err.ctx is None and command is not None:
                # Some of the parser's errors name no command (`Option '-O' requires an argument`):
                # it is the one being parsed, so the one-line error can say `see … --help`.
                err.ctx = click.Context(command, info_name=ctx.invoked_subcommand, parent=ctx)
            raise

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        if not set(names) <= set(self.summaries):
            return super().format_commands(ctx, formatter)  # builds them, as click does
        with formatter.section("Commands"):
            formatter.write_dl([(name, self.summaries[name]) for name in names])

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[Any]:
        names = [name for name in self.list_commands(ctx) if name.startswith(incomplete)]
        if not set(names) <= set(self.summaries):
            return super().shell_complete(ctx, incomplete)  # builds them, as click does
        from click.shell_completion import CompletionItem

        items = [CompletionItem(name, help=self.summaries[name]) for name in names]
        return [*items, *click.Command.shell_complete(self, ctx, incomplete)]  # the group's own options


def lazy_group(app: typer.Typer) -> click.Group:
    """`typer.main.get_group(app)` (the app made with `cls=LazyGroup`), its commands built on use."""
    from typer.main import get_command_from_info, get_command_name

    infos = app.registered_commands
    app.registered_commands = []  # the group itself, without building a command
    try:
        group = typer.main.get_group(app)
    finally:
        app.registered_commands = infos
    assert isinstance(group, LazyGroup), "make the app with cls=LazyGroup"
    for info in infos:
        assert info.callback is not None
        build = functools.partial(
            get_command_from_info,
            info,
            pretty_exceptions_short=app.pretty_exceptions_short,
            rich_markup_mode=app.rich_markup_mode,
        )
        group.add_lazy(info.name or get_command_name(info.callback.__name__), build)
    return group
