"""Writing output files: atomically for a regular file or a new path, in place for a stream.

Rules (README, "Limits, safety and determinism"):
- a regular file or a new path gets a temporary file in the same directory and an atomic rename,
  so a failure leaves the previous file untouched and no temporary behind;
- a character device, a FIFO, or `/dev/stdout`/`/dev/stderr` is opened and written in place, never
  renamed over (`-o /dev/null` must not replace the system's /dev/null);
- anything else that is not a regular file (a directory, a socket, a block device) is refused;
- in a shared directory (sticky and writable by others, like /tmp) a symbolic link or a file that
  belongs to another user (neither ours nor the directory owner's) is refused, never followed or
  replaced: the kernel's protected_symlinks/protected_regular rules, which a rename would bypass;
- setuid, setgid, sticky and world-writable bits are never copied onto what is written;
- a temporary is abandoned when no process holds its lock (not when the PID in its name looks
  dead: a writer in another PID namespace has a PID this one cannot see).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import stat
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

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
_GRACE_SECONDS = 10.0  # a temporary younger than this may be between its creation and its lock
# Never copied onto what tvmc writes: a planted 4777 file must not become a setuid, world-writable one.
_UNSAFE_BITS = stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | stat.S_IWOTH
_MAX_LINKS = 40  # as Linux's path walk
_MAGIC_LINK = re.compile(r"(pipe|socket):\[[0-9]+\]")
# O_PATH (Linux): a directory we may search but not list is still opened.
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def write_atomic(
    path: str | Path,
    data: str | bytes,
    *,
    inputs: Iterable[Path | str | None] = (),
    flag: str = "-o",
    mode: int | None = None,
) -> Path:
    """Write `data` to `path` (see the module's rules). Refuses to overwrite any of `inputs` (tvmc never
    modifies its inputs). `mode`: the file's permissions (default: the replaced file's, else 0o666
    less the umask); setuid, setgid, sticky and world-writable bits are always left out."""
    target = Path(path)
    where = f"{flag} {path}"
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if str(path) in _STREAMS:
        _write_fd(_STREAMS[str(path)], payload, target, where)
        return target
    place = _place(target, where)
    try:
        for item in inputs:
            if item is not None and _same(Path(item), place.resolved):
                raise UsageError(f"refusing to overwrite the input file {target}", where)
        try:
            info: os.stat_result | None = os.stat(place.name, dir_fd=place.fd, follow_symlinks=place.magic)
        except FileNotFoundError:
            info = None
        except OSError as err:
            raise TvmcError(f"cannot write {target}: {_reason(err)}", where) from None
        if info is not None:
            what = "a directory" if stat.S_ISDIR(info.st_mode) else "a file"
            _refuse_foreign(place, info, what, target, where)
        if info is not None and not stat.S_ISREG(info.st_mode):
            if stat.S_ISCHR(info.st_mode) or stat.S_ISFIFO(info.st_mode):
                _write_in_place(place, payload, target, where)
                return target
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise UsageError(f"{target} is {kind}", where)
        if mode is None:
            mode = stat.S_IMODE(info.st_mode) if info is not None else 0o666 & ~_umask()
        _replace(place, payload, mode & ~_UNSAFE_BITS, target, where, replacing=info is not None)
    finally:
        os.close(place.fd)
    return target


class _Place(NamedTuple):
    fd: int  # the directory that holds the file (opened, so nothing can swap it under us)
    info: os.stat_result  # that directory's
    name: str  # the file's name in it (after every symbolic link was followed)
    resolved: Path  # the file's absolute path, symbolic links resolved
    # `name` is a /proc "magic" link to an open pipe or socket (`-o >(gzip > x.gz)` is /dev/fd/63 ->
    # pipe:[123]): only the kernel can follow it, to what is written in place.
    magic: bool = False


def _shared(info: os.stat_result) -> bool:
    """A sticky directory others can write to (/tmp): anyone may plant a name in it."""
    return bool(info.st_mode & stat.S_ISVTX) and bool(info.st_mode & (stat.S_IWOTH | stat.S_IWGRP))


def _trusted_owner(owner: int, directory: os.stat_result) -> bool:
    # The kernel's protected_symlinks/protected_regular rule: ours, or the directory owner's.
    return owner in (_euid(), directory.st_uid)


def _refuse_foreign(place: _Place, info: os.stat_result, what: str, target: Path, where: str) -> None:
    if _shared(place.info) and not _trusted_owner(info.st_uid, place.info):
        raise TvmcError(
            f"refusing to write: {_it(str(place.resolved), target)} is {what} owned by another user "
            f"(uid {info.st_uid}) in the shared directory {place.resolved.parent}; remove it or write elsewhere",
            where,
        )


def _it(path: str, target: Path) -> str:
    """`it` when `path` is the one the user gave (the location names it already), else `path`."""
    return "it" if os.path.abspath(target) == path else path


def _place(target: Path, where: str) -> _Place:
    """Walk `target` one name at a time, as the kernel would, from an opened directory to the next:
    a symbolic link is followed only when it is not someone else's link in a shared directory
    (`resolve()` then a rename would follow any link, bypassing the kernel's protected_symlinks)."""
    text = os.fspath(target)
    if "\0" in text:
        raise UsageError(f"cannot write {text!r}: invalid file name (NUL byte)", where)
    absolute = text.startswith("/")
    try:
        parts = [] if absolute else [p for p in os.getcwd().split("/") if p]
        fd = os.open("/" if absolute else ".", _DIR_FLAGS)
    except OSError as err:
        raise TvmcError(f"cannot write {target}: {_reason(err)}", where) from None
    pending = [c for c in text.split("/") if c not in ("", ".")]
    pending.reverse()  # a stack: the next name is last
    links = 0
    try:
        if not pending:
            raise UsageError(f"{target} is a directory", where)
        while True:
            name = pending.pop()
            if name == "..":
                fd = _enter(fd, "..")
                if parts:
                    parts.pop()
                if not pending:
                    raise UsageError(f"{target} is a directory", where)
                continue
            here = os.fstat(fd)
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                if pending:
                    missing = "/" + "/".join([*parts, name])
                    raise TvmcError(f"cannot write {target}: directory {missing} does not exist", where) from None
                return _Place(fd, here, name, Path("/" + "/".join([*parts, name])))
            if stat.S_ISLNK(info.st_mode):
                links += 1
                if links > _MAX_LINKS:
                    raise OSError(errno.ELOOP, "too many symbolic links")
                if _shared(here) and not _trusted_owner(info.st_uid, here):
                    link = _it("/" + "/".join([*parts, name]), target)
                    raise TvmcError(
                        f"refusing to write: {link} is a symbolic link owned by another user (uid {info.st_uid}) "
                        f"in the shared directory {'/' + '/'.join(parts)}, which tvmc does not follow; "
                        "remove it or write elsewhere",
                        where,
                    )
                destination = os.readlink(name, dir_fd=fd)
                if not pending and _MAGIC_LINK.fullmatch(destination):
                    return _Place(fd, here, name, Path("/" + "/".join([*parts, name])), magic=True)
                if destination.startswith("/"):
                    fd = _enter(fd, "/")
                    parts = []
                pending.extend(reversed([c for c in destination.split("/") if c not in ("", ".")]))
                if not pending:  # a link to "/" or "."
                    raise UsageError(f"{target} is a directory", where)
                continue
            if not pending:
                return _Place(fd, here, name, Path("/" + "/".join([*parts, name])))
            if not stat.S_ISDIR(info.st_mode):
                raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
            fd = _enter(fd, name)
            parts.append(name)
    except BaseException as err:
        os.close(fd)
        if isinstance(err, OSError):
            raise TvmcError(f"cannot write {target}: {_reason(err)}", where) from None
        raise


def _enter(fd: int, name: str) -> int:
    """The directory `name` of the directory `fd` (closed once the other is open), opened without
    following a link."""
    entered = os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
    os.close(fd)
    return entered


def _replace(place: _Place, payload: bytes, mode: int, target: Path, where: str, *, replacing: bool) -> None:
    _remove_stale_temporaries(place.fd)
    tmp: str | None = None
    try:
        fd = -1
        for _ in range(100):
            # Named before it is created, inside the cleanup's scope: an interrupt at any point
            # leaves no temporary behind (and a SIGKILL leaves one a later run recognises).
            tmp = _temp_name(place.name)
            try:
                fd = os.open(tmp, _TEMP_FLAGS, 0o600, dir_fd=place.fd)
                break
            except FileExistsError:
                tmp = None  # someone else's: never removed
            except OSError as err:
                tmp = None  # not created
                raise TvmcError(_no_new_file(err, place, target, replacing), where) from None
        if tmp is None:
            raise OSError(errno.EEXIST, "no free temporary name")
        with os.fdopen(fd, "wb") as handle:
            # Held until the rename: a later run judges the temporary abandoned by this lock, not by
            # the PID in its name (a live writer in another PID namespace looks dead from here).
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
            os.fchmod(handle.fileno(), mode)
            os.replace(tmp, place.name, src_dir_fd=place.fd, dst_dir_fd=place.fd)
            tmp = None
    except OSError as err:
        raise TvmcError(f"cannot write {target}: {_reason(err)}", where) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=place.fd)


def _no_new_file(err: OSError, place: _Place, target: Path, replacing: bool) -> str:
    """Why `target` cannot be written when its directory takes no new file. The error alone misleads:
    `-o /proc/version` said "No such file or directory" of a file that exists (a kernel file system,
    /proc or /sys, creates no file a program names), and a file that may be written in a directory
    that may not is still not replaced (tvmc writes a new file beside it and renames it over)."""
    directory = place.resolved.parent
    if err.errno == errno.ENOENT:  # the directory is open (place.fd): it exists, or was just removed
        with contextlib.suppress(OSError):
            if os.fstat(place.fd).st_nlink == 0:
                return f"cannot write {target}: its directory {directory} was removed while tvmc wrote"
        why = "a kernel file system such as /proc or /sys"
    else:
        why = _reason(err)
    how = ", and tvmc replaces a file by writing a new one beside it" if replacing else ""
    return f"cannot write {target}: {directory} takes no new file ({why}){how}"


def _temp_name(name: str) -> str:
    prefix = f".{name}"
    tail = f"{_TEMP_MARK}{os.getpid()}-"
    budget = _NAME_MAX - len(tail.encode()) - len(_TEMP_SUFFIX) - 8  # 8: the random part
    encoded = prefix.encode("utf-8", "surrogateescape")
    if len(encoded) > budget:
        prefix = encoded[:budget].decode("utf-8", "ignore")
    return f"{prefix}{tail}{os.urandom(4).hex()}{_TEMP_SUFFIX}"


def _remove_stale_temporaries(directory: int) -> None:
    """Remove temporaries a killed tvmc left in the directory `directory` (a descriptor): ours by name,
    this user's, older than this process, and unlocked (a live writer holds its temporary locked
    until the rename, whatever PID namespace it runs in)."""
    try:
        listing = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=directory)
        try:
            names = [n for n in os.listdir(listing) if _TEMP_MARK in n and n.endswith(_TEMP_SUFFIX) and n[0] == "."]
        finally:
            os.close(listing)
    except OSError:
        return
    # Created by a writer before it took its lock a moment later: young files are left alone.
    cutoff = min(_STARTED, time.time() - _GRACE_SECONDS)
    for name in names:
        with contextlib.suppress(OSError):
            _remove_if_abandoned(directory, name, cutoff)


def _remove_if_abandoned(directory: int, name: str, cutoff: float) -> None:
    info = os.stat(name, dir_fd=directory, follow_symlinks=False)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != _euid() or info.st_mtime >= cutoff:
        return
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=directory)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # locked: its writer is alive
        held, now = os.fstat(fd), os.stat(name, dir_fd=directory, follow_symlinks=False)
        if (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino):
            os.unlink(name, dir_fd=directory)
    finally:
        os.close(fd)


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


def _write_in_place(place: _Place, payload: bytes, target: Path, where: str) -> None:
    # O_NONBLOCK: a FIFO without a reader fails at once (ENXIO) instead of hanging.
    flags = os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if place.magic else os.O_NOFOLLOW)
    try:
        fd = os.open(place.name, flags, dir_fd=place.fd)
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


def _euid() -> int:
    return os.geteuid()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
