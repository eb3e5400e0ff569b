"""The `tvmc` command: parses argv, calls the API, prints. Logic lives in the core modules.

Commands are loaded lazily: `tvmc config show` imports and builds only the `config` group, and
`tvmc --help` (and completing a command name) imports none, using the summaries in `COMMANDS`.
Each loader registers its commands exactly as an eager app would (`x_cmd.register(group_app)`).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Sequence
from functools import cache, partial
from typing import Any, NoReturn

import click
import typer

from tvmc import __version__
from tvmc.cli.common import LazyGroup, lazy_group
from tvmc.cli.exiting import exit_now

# The `config` commands that other modules register (`x_cmd.register(app)`), in their order: the
# module is imported when one of them is built, not for `config show` (validate's module loads
# the rule tables and reporters). tests/hardening/test_startup.py checks the names against them.
CONFIG_REGISTERED: dict[str, tuple[str, ...]] = {
    "validate": ("validate", "schema"),
    "tooling": ("diff", "migrate", "detect"),
}


# Each loader runs once per process (typer builds a new root group per invocation), as the eager
# registration at import did: registering into `config_cmd.app` twice would add every command again.
@cache
def _config() -> click.Command:
    from tvmc.cli import config_cmd

    group = lazy_group(config_cmd.app)
    assert isinstance(group, LazyGroup)
    for module, names in CONFIG_REGISTERED.items():
        for name in names:
            group.add_lazy(name, partial(_registered_in, module, name))
    return group


@cache
def _registered_group(module: str) -> click.Group:
    """A group of the commands `tvmc.cli.MODULE_cmd.register` adds, made as the `config` group is
    (lazy_group: each command is built when asked for)."""
    from tvmc.cli import config_cmd

    holder = typer.Typer(
        cls=LazyGroup,
        rich_markup_mode=config_cmd.app.rich_markup_mode,
        pretty_exceptions_short=config_cmd.app.pretty_exceptions_short,
    )
    importlib.import_module(f"tvmc.cli.{module}_cmd").register(holder)
    return lazy_group(holder)


def _registered_in(module: str, name: str) -> click.Command:
    group = _registered_group(module)
    command = group.get_command(click.Context(group), name)
    assert command is not None, f"tvmc.cli.{module}_cmd registers no {name!r} (see CONFIG_REGISTERED)"
    return command


@cache
def _target() -> click.Command:
    from tvmc.cli import target_cmd

    return lazy_group(target_cmd.app)


def _top_level(name: str) -> click.Command:
    """A top-level command (`compile`, `run`) from the module `tvmc.cli.NAME_cmd`'s `register`."""
    module = importlib.import_module(f"tvmc.cli.{name}_cmd")
    holder = typer.Typer(rich_markup_mode=None)
    module.register(holder)
    command = typer.main.get_group(holder).get_command(click.Context(click.Group()), name)
    assert command is not None
    return command


@cache
def _compile() -> click.Command:
    return _top_level("compile")


@cache
def _run() -> click.Command:
    return _top_level("run")


@cache
def _inspect() -> click.Command:
    return _top_level("inspect")


@cache
def _tune() -> click.Command:
    return _top_level("tune")


@cache
def _doctor() -> click.Command:
    return _top_level("doctor")


@cache
def _lsp() -> click.Command:
    return _top_level("lsp")


@cache
def _model() -> click.Command:
    from tvmc.cli import model_cmd

    return typer.main.get_group(model_cmd.app)


# name → (one-line summary shown by `tvmc --help` and completion, loader); in --help order.
COMMANDS: dict[str, tuple[str, Callable[[], click.Command]]] = {
    "config": ("Resolve, inspect and list compilation configs.", _config),
    "target": ("Parse, canonicalize and explain TVM targets.", _target),
    "compile": ("Compile MODEL with the config that --config and the rewrites resolve to.", _compile),
    "run": ("Run a library `tvmc compile` built (Relax VM); --check MODEL compares with ONNX's reference.", _run),
    "inspect": ("What a library tvmc built is: its manifest (config, model, inputs, CPU features).", _inspect),
    "tune": (
        "Tune MODEL with MetaSchedule; `tvmc compile` applies the records (tvmc tune db --help: the database).",
        _tune,
    ),
    "model": ("Look inside models.", _model),
    "doctor": (
        "Check this installation: versions, this CPU, what each feature needs and the command that fixes it.",
        _doctor,
    ),
    "lsp": ("Run the language server for tvmc's configs (diagnostics, completion, hover, definition).", _lsp),
}


def _completion(show: bool) -> Callable[[click.Context, click.Parameter, str | None], None]:
    def callback(ctx: click.Context, _param: click.Parameter, shell: str | None) -> None:
        if shell is None or ctx.resilient_parsing:
            return
        from tvmc.cli.common import fail
        from tvmc.cli.completion import install_completion
        from tvmc.errors import UsageError

        try:
            typer.echo(install_completion(None if shell == "auto" else shell, show=show))
        except UsageError as err:
            fail(err)
        raise typer.Exit()

    return callback


_SHELL_CHOICE = click.Choice(["bash", "zsh", "fish", "powershell", "pwsh", "auto"])  # auto: detect it


class OneLineUsageError(click.UsageError):
    """A usage error the argument parser found, shown as one line like every other tvmc error
    (click's own is three: `Usage:`, `Try ... --help`, `Error: ...`), worded as they are: the
    message, `; see COMMAND --help`, then the did-you-mean (click put its own `Did you mean` in the
    middle, in two spellings). Exit 2."""

    def __init__(self, message: str, ctx: click.Context | None = None, suggestions: Sequence[str] = ()) -> None:
        super().__init__(message, ctx)
        self.suggestions = tuple(suggestions)

    def show(self, file: Any = None) -> None:
        from tvmc.errors import UsageError

        see = f"see {self.ctx.command_path} --help" if self.ctx is not None else None
        line = UsageError(self.message.rstrip("."), hint=see, suggestions=self.suggestions).one_line()
        click.echo(f"tvmc: error: {line}", file=file or sys.stderr, err=True)


def _one_line(err: click.UsageError) -> click.UsageError:
    if isinstance(err, OneLineUsageError) or type(err).__name__ == "NoArgsIsHelpError":
        return err  # a group run without a command prints its help, as asked
    suggestions = getattr(err, "possibilities", None) or ()  # click's NoSuchOption, tvmc's unknown command
    message = err.message if suggestions else err.format_message()  # without click's `Did you mean`
    return OneLineUsageError(message, err.ctx, suggestions)  # exit 2, as every usage error


class _Root(LazyGroup):
    """`tvmc`: its commands' modules are imported only when one is run."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, (summary, load) in COMMANDS.items():
            self.add_lazy(name, load, summary)
        # click options (typer drops flag_value): the SHELL is optional, detected when left out.
        for flag, show, help_ in (
            ("--install-completion", False, "Install completion for SHELL (default: the shell tvmc runs in)."),
            ("--show-completion", True, "Print the completion script for SHELL (default: the shell tvmc runs in)."),
        ):
            self.params.append(
                click.Option(
                    [flag],
                    type=_SHELL_CHOICE,
                    is_flag=False,
                    flag_value="auto",
                    metavar="[SHELL]",
                    callback=_completion(show=show),
                    is_eager=True,
                    expose_value=False,
                    help=help_,
                )
            )

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except click.UsageError as err:
            raise _one_line(err) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as err:  # a subcommand's arguments (parsed inside the root's invoke)
            raise _one_line(err) from None


app = typer.Typer(
    name="tvmc",
    cls=_Root,
    help="Layered TVM compilation configs: show, validate, convert, and compile with them.",
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    add_completion=False,  # tvmc's own --install-completion/--show-completion take the shell (below)
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"tvmc {__version__}{_tvm_version()}")
        raise typer.Exit()


def _tvm_version() -> str:
    """` (TVM 0.27.0.post1, tvm-ffi 0.1.14.post1)` when TVM is installed, from its metadata: importing
    TVM would take seconds (`tvmc doctor` says more)."""
    from importlib import metadata

    found = []
    for label, distribution in (("TVM", "apache-tvm"), ("tvm-ffi", "apache-tvm-ffi")):
        try:
            found.append(f"{label} {metadata.version(distribution)}")
        except Exception:  # not installed, or unreadable metadata: say nothing about it
            continue
    return f" ({', '.join(found)})" if found and found[0].startswith("TVM ") else ""


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """tvmc — TVM compilation configuration.

    Exit codes: 0 ok, 1 invalid input (bad config, target or file), 2 usage error.
    """


def main() -> NoReturn:
    if "_TVMC_COMPLETE" in os.environ:  # a TAB: the shells' protocols, as typer has them, plus bash's ':'
        from tvmc.cli.completion import register_shells

        register_shells()
    try:
        app(prog_name="tvmc")
    except SystemExit as done:  # click's standalone mode always ends here
        exit_now(done.code)
    except OSError as err:  # output click itself could not write (help to a full disk); pipes are handled
        if err.filename is not None:  # a file a command could not reach (a name too long...): that file,
            from tvmc.text import one_line  # not "cannot write the output"

            name = os.fsdecode(err.filename) if isinstance(err.filename, bytes) else str(err.filename)
            sys.stderr.write(f"tvmc: error: {one_line(name)}: {err.strerror or err}\n")
        else:
            sys.stderr.write(f"tvmc: error: cannot write the output: {err.strerror or err}\n")
        exit_now(1)
    exit_now(0)
