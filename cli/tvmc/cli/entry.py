"""The console script's entry point: small, so that it is in force before the heavy imports.

- Ctrl-C at any moment, also while typer and click are being imported, ends with exit 130 and one
  line, never a KeyboardInterrupt traceback.
- A closed standard stream (`tvmc … >&-`, `<&-`) is a stream that fails with EBADF, so the command
  reports "cannot write the output" (or cannot read stdin) instead of crashing on None.
- Output is UTF-8 whatever the locale or PYTHONIOENCODING (README: canonical output is UTF-8 bytes);
  what UTF-8 cannot hold (a lone surrogate from a file name) is escaped, not a crash.
"""

from __future__ import annotations

import errno
import io
import os
import sys
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


def _interrupted() -> NoReturn:
    try:
        sys.stderr.write("tvmc: interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(130)


def main() -> NoReturn:
    try:
        _standard_streams()
        from tvmc.cli.app import main as run

        run()
    except KeyboardInterrupt:
        _interrupted()
