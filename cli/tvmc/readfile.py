"""Reading a small file that must be a regular file: a config, a tuning partition's JSON files.

The one reader of both (`sources.loader` turns its refusals into located config errors, `tune.store`
into messages naming the database file). Only `os`, `stat` and `tvmc.errors`: the loader reads
every config through it, and `tvmc.fileio` (the writer) costs milliseconds to import.
"""

from __future__ import annotations

import os
import stat

from tvmc.errors import TvmcError

# O_NONBLOCK: opening a FIFO must not wait for a writer; it changes nothing for a regular file.
# (Computed once: the failing getattr on POSIX raises and catches an AttributeError each time.)
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


class NotRegularFile(OSError):
    """A directory, a FIFO, a device or a socket where a regular file was to be read."""

    def __init__(self, mode: int) -> None:
        super().__init__(0, "not a regular file")
        self.kind = file_kind(mode)  # "is a FIFO (named pipe)", for messages that say which


class FileTooLarge(OSError):
    """A file larger than the reader's limit (as stat'ed, or grown while it was read)."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(0, f"larger than {limit} bytes ({size} bytes)")
        self.size = size


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file at `path`, refused (`NotRegularFile`) without reading from it
    when it is anything else — a FIFO there would block a plain read forever, a device never end —
    and refused (`FileTooLarge`) when it holds more than `limit` bytes, of which at most `limit` + 1
    are read. Other failures are the OSError `os.open` raises (FileNotFoundError...); a NUL byte in
    the name is its ValueError."""
    # Raw descriptor calls: for a config of a few hundred bytes, file objects and a path stat cost
    # more than the read itself.
    fd = os.open(path, _OPEN_FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(st.st_mode)
        if st.st_size > limit:
            raise FileTooLarge(st.st_size, limit)
        data = os.read(fd, st.st_size + 1)  # one byte more than stat'ed shows a file that grew
        while len(data) > st.st_size and len(data) <= limit:
            more = os.read(fd, limit + 1 - len(data))
            if not more:
                break
            data += more
        if len(data) > limit:
            raise FileTooLarge(len(data), limit)
        return data
    finally:
        os.close(fd)


def input_file(path: str | os.PathLike[str], source: str) -> os.stat_result:
    """The one check of a file a command is given to read (a model, a library, an .npz), before it
    is opened: one that is missing, a directory, a FIFO or a device is invalid input (exit 1), worded
    alike in every command (`MODEL: m.onnx does not exist`; `run` said `is not a file`, exit 2, where
    `compile` said `model file 'm.onnx' does not exist`, exit 1). Returns its stat."""
    try:
        info = os.stat(path)
    except FileNotFoundError:  # a dangling symbolic link too; another OSError (a name too long) is
        raise TvmcError(f"{os.fspath(path)} does not exist", source) from None  # the CLI's, naming the file
    if not stat.S_ISREG(info.st_mode):
        raise TvmcError(f"{os.fspath(path)} {file_kind(info.st_mode)}, not a regular file", source)
    return info


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, for messages: `{path} {file_kind(mode)}`."""
    if stat.S_ISDIR(mode):
        return "is a directory"
    if stat.S_ISFIFO(mode):
        return "is a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device"
    if stat.S_ISSOCK(mode):
        return "is a socket"
    return "is not a regular file"
