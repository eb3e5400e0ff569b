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


def one_line(text: str) -> str:
    """`text` on one printable line: line breaks and other control characters (which user input
    can carry into a message) are shown escaped, as in a Python string literal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


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


def unused(*_: Any) -> None:
    """Mark parameters typer needs but a command ignores."""
