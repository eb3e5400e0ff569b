"""Writing files atomically: a failure leaves the previous file untouched and no temporary behind."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from tvmc.errors import TvmcError, UsageError


def write_atomic(
    path: str | Path, data: str | bytes, *, inputs: Iterable[Path | str | None] = (), flag: str = "-o"
) -> Path:
    """Write `data` to `path` via a temporary file in the same directory and an atomic rename.

    Refuses to overwrite any of `inputs` (tvmc never modifies its inputs).
    """
    target = Path(path)
    resolved = target.resolve()
    for item in inputs:
        if item is not None and _same(Path(item), resolved):
            raise UsageError(f"refusing to overwrite the input file {target}", f"{flag} {path}")
    if target.is_dir():
        raise UsageError(f"{target} is a directory", f"{flag} {path}")
    payload = data.encode("utf-8") if isinstance(data, str) else data
    directory = resolved.parent
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as err:
        raise TvmcError(f"cannot write {target}: {err.strerror}", f"{flag} {path}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        if resolved.exists():
            os.chmod(tmp, resolved.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, resolved)
    except BaseException as err:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise TvmcError(f"cannot write {target}: {err.strerror}", f"{flag} {path}") from None
        raise
    return target


def _same(item: Path, resolved: Path) -> bool:
    """Whether `item` is the file at `resolved`: the same path once symlinks and `..` are resolved,
    or another name for the same file (a hard link, a case-insensitive file system)."""
    if item.resolve() == resolved:
        return True
    try:
        return os.path.samefile(item, resolved)
    except OSError:  # one of them does not exist (yet): not the same file
        return False


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
