"""The console script's entry point: small, so that it is in force before the heavy imports.

- Ctrl-C at any moment, also while typer and click are being imported, ends with exit 130 and one
  line, never a KeyboardInterrupt traceback.
- A closed standard stream (`tvmc … >&-`, `<&-`) is a stream that fails with EBADF, so the command
  reports "cannot write the output" (or cannot read stdin) instead of crashing on None.
- Output is UTF-8 whatever the locale or PYTHONIOENCODING (README: canonical output is UTF-8 bytes);
  what UTF-8 cannot hold (a lone surrogate from a file name) is escaped, not a crash.
"""

# No `from __future__ import annotations`: at run time it imports the `__future__` module, a
# file-system lookup before the handler below is in force (a Ctrl-C landed there once in CI).
# The C module: `signal` builds enums at import, slow enough for a Ctrl-C to land in.
import _signal  # type: ignore[import-not-found,unused-ignore]
import os
import sys


def _interrupted_now(signum: int, frame: object) -> None:
    # While the modules load, Ctrl-C ends the process at once: a KeyboardInterrupt raised inside the
    # import machinery can surface as an "Exception ignored" traceback that no `except` catches.
    # Nothing is written yet, so there is nothing to clean up. Self-contained: the signal can land
    # before the rest of this module (its `_interrupted`) is defined.
    try:  # noqa: SIM105  (no contextlib: nothing more is imported before the handler is in force)
        os.write(2, b"tvmc: interrupted\n")
    except OSError:
        pass
    os._exit(130)


_signal.signal(_signal.SIGINT, _interrupted_now)

import errno  # noqa: E402
import gc  # noqa: E402
import io  # noqa: E402

# `typing` (with re, enum, functools) is not loaded for `tvmc --help`: ~5 ms of a bare Python's 12.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


class _ClosedStream(io.RawIOBase):
    """Stands in for a standard stream the shell closed: every read or write fails with EBADF."""

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def readinto(self, buffer: object) -> int:
        raise OSError(errno.EBADF, "standard input is closed")

    def write(self, data: object) -> int:
        raise OSError(errno.EBADF, "the output stream is closed")


def _standard_streams() -> None:
    for name in ("stdin", "stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            raw = _ClosedStream()
            setattr(sys, name, io.TextIOWrapper(io.BufferedRWPair(raw, raw), encoding="utf-8"))
        elif name != "stdin" and isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")


def _interrupted() -> "NoReturn":
    try:
        sys.stderr.write("tvmc: interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(130)


def main() -> "NoReturn":
    _signal.signal(_signal.SIGINT, _interrupted_now)  # again: main() may be called after a reset
    # No cyclic garbage collection while tvmc starts: what start-up allocates (modules, classes,
    # the registry's tables) lives until exit, and collecting it over and over took 17 passes and
    # ~2.7 ms of `config show`'s ~35 (scripts/bench_startup.py). The fast answers below end the
    # process with collection still off (they allocate little); every other command gets it back,
    # with what start-up made left out of it (gc.freeze).
    gc.disable()
    try:
        _standard_streams()
        if "_TVMC_COMPLETE" in os.environ or sys.argv[1:] in (["--help"], ["-h"]):
            from tvmc.cli.fast import answer

            answer()  # exits when it can answer without click and typer
        elif sys.argv[1:3] == ["config", "show"]:
            from tvmc.cli.fast import config_show

            show = config_show(sys.argv[3:])  # None: a command line for click to read
            if show is not None:
                from tvmc.cli.exiting import exit_now

                # As below: from here on, Ctrl-C unwinds and ends quietly.
                _signal.signal(_signal.SIGINT, _signal.default_int_handler)
                exit_now(show())
        from tvmc.cli.app import main as run

        gc.freeze()
        gc.enable()
        # From here on, Ctrl-C unwinds (temporary files are removed on the way) and ends quietly.
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)
        run()
    except KeyboardInterrupt:
        _interrupted()
