"""Shared CLI plumbing: error → exit-code mapping and output helpers. No logic lives here."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, NoReturn, ParamSpec, TypeVar

import typer

from tvmc.errors import TvmcError

P = ParamSpec("P")
R = TypeVar("R")

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2


def fail(err: TvmcError) -> NoReturn:
    """Print one line for a tvmc error and exit with its code (1 invalid input, 2 usage)."""
    typer.echo(f"tvmc: error: {err.one_line()}", err=True)
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
    typer.echo(f"tvmc: warning: {message}", err=True)


def write_stdout(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def unused(*_: Any) -> None:
    """Mark parameters typer needs but a command ignores."""
