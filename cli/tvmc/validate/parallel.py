"""Validating many files on several cores: forked workers, results streamed back in input order.

Files are cut into chunks; worker `w` of `n` validates chunks w, w+n, w+2n, ... and writes each
chunk's results (marshalled, length-prefixed) to its own pipe as soon as it is done. The parent reads
the chunks in order, one pipe after the other, so the report is exactly what a serial run gives,
starts with the first chunk, and holds at most a pipe's worth of results per worker (a worker that
runs ahead blocks on its full pipe). A worker that dies leaves its chunks to the parent.

Forking (not spawning) keeps this cheap: the workers inherit the imported modules and the
validator's settings and search path. Where `os.fork` does not exist, or for few files, the run
is serial.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import struct
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import BinaryIO

from tvmc.validate.diagnostics import Diagnostic, FileResult

CHUNK = 32  # files per message: small enough to balance two workers, large enough to be cheap
MIN_FILES = 4 * CHUNK  # below this a fork costs more than it saves
MAX_JOBS = 8
_HEADER = struct.Struct("<Q")

Validate = Callable[[str], FileResult]
_FIELDS = Diagnostic.__slots__  # plain str/int/None values: marshal carries them, fast and import-free


def _encode(results: list[FileResult]) -> bytes:
    return marshal.dumps(
        [(r.name, [tuple(getattr(d, f) for f in _FIELDS) for d in r.diagnostics]) for r in results]
    )


def _decode(payload: bytes) -> list[FileResult]:
    return [
        FileResult(name, [Diagnostic(*fields) for fields in diagnostics])
        for name, diagnostics in marshal.loads(payload)
    ]


def default_jobs() -> int:
    """The cores this process may use (its CPU affinity where the OS tells), at most `MAX_JOBS`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_JOBS))


def can_fork() -> bool:
    return hasattr(os, "fork") and sys.platform != "win32"


def workers_for(files: int, jobs: int) -> int:
    """How many workers `files` files are worth with `jobs` allowed (1: validate serially)."""
    if jobs <= 1 or files < MIN_FILES or not can_fork():
        return 1
    return min(jobs, -(-files // CHUNK))


def run(paths: Sequence[str], validate: Validate, workers: int) -> Iterator[FileResult]:
    """`validate(path)` for every path, in order, computed by `workers` forked processes.

    The first file is validated here, before forking: it fills the lazily built tables (registry,
    checks) once, for every worker to inherit. What only some files need (a did-you-mean over all
    tags, a listing of the search path) is left to the workers, where it runs in parallel."""
    if not paths:
        return
    yield validate(paths[0])
    chunks = [paths[i : i + CHUNK] for i in range(1, len(paths), CHUNK)]
    pipes: list[BinaryIO | None] = []
    pids: list[int] = []
    finished = False
    try:
        for worker in range(workers):
            read_fd, write_fd = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: never returns
                os.close(read_fd)
                _work(chunks[worker::workers], validate, write_fd)
            os.close(write_fd)
            pids.append(pid)
            pipes.append(os.fdopen(read_fd, "rb"))
        for index, chunk in enumerate(chunks):
            worker = index % workers
            results = _receive(pipes[worker], len(chunk))
            if results is None:  # the worker died (killed, out of memory): its chunks are ours
                _close(pipes[worker])
                pipes[worker] = None
                results = [validate(path) for path in chunk]
            yield from results
        finished = True
    finally:  # also when the reader stops early (`| head`): no worker outlives the run
        for pipe in pipes:
            _close(pipe)
        for pid in pids:
            _reap(pid, kill=not finished)


def _work(chunks: Sequence[Sequence[str]], validate: Validate, fd: int) -> None:
    status = 0
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                payload = _encode([validate(path) for path in chunk])
                out.write(_HEADER.pack(len(payload)))
                out.write(payload)
                out.flush()
    except BaseException:  # the parent sees the pipe end early and validates the rest itself
        status = 1
    finally:
        os._exit(status)  # no atexit handlers, no flushing of the parent's inherited buffers


def _receive(pipe: BinaryIO | None, count: int) -> list[FileResult] | None:
    if pipe is None:
        return None
    try:
        header = pipe.read(_HEADER.size)
        if len(header) != _HEADER.size:
            return None
        (size,) = _HEADER.unpack(header)
        payload = pipe.read(size)
        if len(payload) != size:
            return None
        results = _decode(payload)
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return results if len(results) == count else None


def _close(pipe: BinaryIO | None) -> None:
    if pipe is not None:
        with contextlib.suppress(OSError):
            pipe.close()


def _reap(pid: int, *, kill: bool) -> None:
    """Wait for a worker; when the parent stopped early, one still running is killed first."""
    try:
        if kill and os.waitpid(pid, os.WNOHANG)[0] == 0:
            import signal

            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ChildProcessError, ProcessLookupError):
        pass
