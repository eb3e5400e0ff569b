"""How commands write: their output as UTF-8 bytes, a warning line, the one line and exit code of
an error. Without click, so that a command tvmc.cli.fast runs writes exactly what the typer path
writes (tvmc.cli.common re-exports these for the typer commands)."""

from __future__ import annotations

import sys

from tvmc.errors import TvmcError
from tvmc.text import one_line

EXIT_INVALID = 1


def warn(message: str) -> None:
    """`tvmc: warning: MESSAGE` on stderr, as click.echo writes it (one_line leaves no escape
    sequence for click to strip)."""
    sys.stderr.write(f"tvmc: warning: {one_line(message)}\n")
    sys.stderr.flush()


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
        raise  # the reader went away (`| head`): the caller exits quietly
    except OSError as err:  # e.g. a full disk behind `> file`
        raise TvmcError(f"cannot write the output: {err.strerror or err}", "<stdout>") from None


def error_report(err: TvmcError | RecursionError | KeyboardInterrupt) -> tuple[str, int]:
    """The one stderr line and the exit code of an error a command reports: a tvmc error (1 invalid
    input, 2 usage), a runaway input, Ctrl-C."""
    if isinstance(err, TvmcError):
        return f"tvmc: error: {one_line(err.one_line())}", err.exit_code
    if isinstance(err, RecursionError):
        return "tvmc: error: input is nested too deeply", EXIT_INVALID
    return "tvmc: interrupted", 130
