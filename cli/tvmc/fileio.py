"""Writing output files: atomically for a regular file or a new path, in place for a stream.

Rules (README, "Limits, safety and determinism"):
- a regular file or a new path gets a temporary file in the same directory and an atomic rename,
  so a failure leaves the previous file untouched and no temporary behind;
- a character device, a FIFO, or `/dev/stdout`/`/dev/stderr` is opened and written in place, never
  renamed over (`-o /dev/null` must not replace the system's /dev/null);
- anything else that is not a regular file (a directory, a socket, a block device) is refused.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from tvmc.errors import TvmcError, UsageError

# Temporary files are named `.NAME.tvmc-PID-RANDOM.tmp`, so a later run recognises the ones a killed
# run left behind. NAME is cut so that the whole name fits in NAME_MAX (255 bytes on Linux/macOS).
_TEMP_MARK = ".tvmc-"
_TEMP_SUFFIX = ".tmp"
_NAME_MAX = 255
# Names that mean the process's own standard streams, whatever they are connected to.
_STREAMS = {"/dev/stdout": 1, "/dev/stderr": 2, "/dev/fd/1": 1, "/dev/fd/2": 2, "/proc/self/fd/1": 1}
_STREAMS["/proc/self/fd/2"] = 2
_STARTED = time.time()


def write_atomic(
    path: str | Path, data: str | bytes, *, inputs: Iterable[Path | str | None] = (), flag: str = "-o"
) -> Path:
    """Write `data` to `path` (see the module's rules). Refuses to overwrite any of `inputs` (tvmc never
    modifies its inputs)."""
    target = Path(path)
    where = f"{flag} {path}"
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if str(path) in _STREAMS:
        _write_fd(_STREAMS[str(path)], payload, target, where)
        return target
    try:
        resolved = target.resolve(strict=False)
    except (OSError, RuntimeError) as err:  # a symlink loop
        raise TvmcError(f"cannot write {target}: {_reason(err)}", where) from None
    for item in inputs:
        if item is not None and _same(Path(item), resolved):
            raise UsageError(f"refusing to overwrite the input file {target}", where)
    try:
        mode: int | None = os.stat(resolved).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as err:
        raise TvmcError(f"cannot write {target}: {_reason(err)}", where) from None
    if mode is not None and not stat.S_ISREG(mode):
        if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
            _write_in_place(resolved, payload, target, where)
            return target
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise UsageError(f"{target} is {kind}", where)
    _replace(resolved, payload, mode, target, where)
    return target


def _replace(resolved: Path, payload: bytes, mode: int | None, target: Path, where: str) -> None:
    directory = resolved.parent
    if not directory.is_dir():
        raise TvmcError(f"cannot write {target}: directory {directory} does not exist", where)
    _remove_stale_temporaries(directory)
    tmp: str | None = None
    try:
        fd = -1
        for _ in range(100):
            # Named before it is created, inside the cleanup's scope: an interrupt at any point
            # leaves no temporary behind (and a SIGKILL leaves one a later run recognises).
            tmp = _temp_name(directory, resolved.name)
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
                break
            except FileExistsError:
                tmp = None  # someone else's: never removed
        if tmp is None:
            raise OSError(errno.EEXIST, "no free temporary name")
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, stat.S_IMODE(mode) if mode is not None else 0o666 & ~_umask())
        os.replace(tmp, resolved)
        tmp = None
    except OSError as err:
        raise TvmcError(f"cannot write {target}: {_reason(err)}", where) from None
    finally:
        if tmp is not None:
            _unlink_quietly(tmp)


def _temp_name(directory: Path, name: str) -> str:
    prefix = f".{name}"
    tail = f"{_TEMP_MARK}{os.getpid()}-"
    budget = _NAME_MAX - len(tail.encode()) - len(_TEMP_SUFFIX) - 8  # 8: the random part
    encoded = prefix.encode("utf-8", "surrogateescape")
    if len(encoded) > budget:
        prefix = encoded[:budget].decode("utf-8", "ignore")
    return str(directory / f"{prefix}{tail}{os.urandom(4).hex()}{_TEMP_SUFFIX}")


def _remove_stale_temporaries(directory: Path) -> None:
    """Remove temporaries a killed tvmc left in `directory`: ours by name, older than this process, and
    whose process is gone."""
    try:
        names = [n for n in os.listdir(directory) if _TEMP_MARK in n and n.endswith(_TEMP_SUFFIX) and n[0] == "."]
    except OSError:
        return
    for name in names:
        pid_text = name.rsplit(_TEMP_MARK, 1)[1].split("-", 1)[0]
        if not pid_text.isdigit() or process_alive(int(pid_text)):
            continue
        path = directory / name
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_mtime < _STARTED:
            _unlink_quietly(str(path))


def process_alive(pid: int) -> bool:
    """Whether a process exists (ours always); when it cannot tell, it says yes: keep its files."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # exists (another user's) or cannot tell: keep its file
    return True


def _write_in_place(resolved: Path, payload: bytes, target: Path, where: str) -> None:
    # O_NONBLOCK: a FIFO without a reader fails at once (ENXIO) instead of hanging.
    try:
        fd = os.open(resolved, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        if err.errno == errno.ENXIO:
            raise TvmcError(f"cannot write {target}: it is a FIFO that no process reads", where) from None
        raise TvmcError(f"cannot write {target}: {_reason(err)}", where) from None
    try:
        os.set_blocking(fd, True)  # the reader is there: wait for it like any writer
        _write_all(fd, payload, target, where)
    finally:
        os.close(fd)


def _write_fd(fd: int, payload: bytes, target: Path, where: str) -> None:
    stream = sys.stdout if fd == 1 else sys.stderr
    if stream is not None:
        with contextlib.suppress(OSError, ValueError):  # a closed stream
            stream.flush()  # what was printed before comes first
    _write_all(fd, payload, target, where)


def _write_all(fd: int, payload: bytes, target: Path, where: str) -> None:
    view = memoryview(payload)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except OSError as err:
        raise TvmcError(f"cannot write {target}: {_reason(err)}", where) from None


def _reason(err: BaseException) -> str:
    if isinstance(err, RuntimeError) or getattr(err, "errno", None) == errno.ELOOP:
        return "symbolic link loop"
    return getattr(err, "strerror", None) or str(err)


def _unlink_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _same(item: Path, resolved: Path) -> bool:
    """Whether `item` is the file at `resolved`: the same path once symlinks and `..` are resolved,
    or another name for the same file (a hard link, a case-insensitive file system)."""
    try:
        if item.resolve() == resolved:
            return True
    except (OSError, RuntimeError):
        return False
    try:
        return os.path.samefile(item, resolved)
    except OSError:  # one of them does not exist (yet): not the same file
        return False


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
