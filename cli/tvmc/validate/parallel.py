"""Validating many files on several cores: forked workers that take chunks as they go, results
streamed back in input order.

The first file is validated here, before any fork: it fills the lazily built tables (registry,
checks) once, for every worker to inherit. The other files are cut into chunks (large while much is
left, `CHUNK` files toward the end). Their numbers go into one pipe that every process reads from:
a worker takes the next chunk the moment it is free, with no round trip through this process, and
announces it before it starts. This process reads from the same pipe, so it never waits while there
is work: while the chunk it is to report is not in, it validates the next one itself. Nothing is
queued behind a busy worker, so the processes finish within one small chunk of each other. Chunk
numbers are put in the pipe at most `WINDOW` ahead of the chunk being reported, which bounds what
is held while a slow chunk is awaited.

Results cross a pipe per worker, marshalled (fast, and independent of how the record classes
pickle), and are reported in input order: the report is exactly what a serial run gives. A worker
that dies, or sends what does not decode, leaves the chunks it announced to this process. Workers
ignore Ctrl-C (this process stops them and reports the interrupt) and end with this process,
however it ends.

Forking (not spawning) keeps this cheap: the workers inherit the imported modules and the
validator's settings and search path. The pipes and `os.fork` are all it takes: no
`multiprocessing`, whose imports and helper threads cost more start-up than a 2,000-file run can
win back on two cores (`scripts/bench_validate.py`). Where `os.fork` does not exist, or for few
files, the run is serial."""

from __future__ import annotations

import contextlib
import marshal
import os
import select
import signal
import struct
import sys
from collections.abc import Callable, Generator, Iterator, Sequence
from operator import attrgetter
from typing import BinaryIO

from tvmc import records
from tvmc.validate.diagnostics import Diagnostic, FileResult

CHUNK = 32  # files per task at least: the last ones, so that the workers finish together
MAX_CHUNK = 256  # files per task at most: what a result holds, and the wait for the first one
MIN_FILES = 4 * CHUNK  # below this a fork costs more than it saves
MAX_JOBS = 8
WINDOW = 16  # chunks handed out (the one being reported included), at most

Validate = Callable[[str], FileResult]
_NUMBER = struct.Struct("<I")  # a chunk number, in the pipe every process takes work from
_HEADER = struct.Struct("<II")  # worker → parent: chunk number, payload size (0: "I took it")
_PIPE_SIZE = 1 << 20  # results pipes this large (where Linux allows) rarely make a worker wait
# A Diagnostic's fields, in order: plain str/int/None values, which marshal carries as a tuple.
_DIAGNOSTIC_FIELDS = attrgetter(*(each.name for each in records.fields(Diagnostic)))


def _encode(results: list[FileResult]) -> bytes:
    return marshal.dumps([(r.name, [_DIAGNOSTIC_FIELDS(d) for d in r.diagnostics]) for r in results])


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


def run(paths: Sequence[str], validate: Validate, workers: int) -> Generator[FileResult, None, None]:
    """`validate(path)` for every path, in order, computed by `workers` processes: this one and
    `workers - 1` forked ones."""
    if not paths:
        return
    yield validate(paths[0])
    pool = _Pool(list(_chunks(paths, workers)), validate)
    finished = False
    try:
        pool.start(workers - 1)
        for index in range(len(pool.chunks)):
            yield from pool.result(index)
        finished = True
    finally:  # also when the reader stops early (`| head`) or on Ctrl-C: no worker outlives the run
        pool.close(kill=not finished)


def _chunks(paths: Sequence[str], workers: int) -> Iterator[Sequence[str]]:
    """`paths` but the first, cut into tasks: large while much is left (each task costs a message
    each way), smaller toward the end (a worker that took the last big one would be left working
    alone)."""
    start = 1
    while start < len(paths):
        size = max(CHUNK, min(MAX_CHUNK, (len(paths) - start) // (2 * workers)))
        yield paths[start : start + size]
        start += size


class _Worker:
    def __init__(self, pid: int, results: int) -> None:
        self.pid = pid
        self.results: int | None = results  # read end of its messages; None once it is gone
        self.received = bytearray()
        self.taken: set[int] = set()  # chunks it announced and has not returned yet


class _Pool:
    def __init__(self, chunks: list[Sequence[str]], validate: Validate) -> None:
        self.chunks = chunks
        self.validate = validate
        self.workers: list[_Worker] = []
        self.done: dict[int, list[FileResult]] = {}
        self.reported = 0  # chunks before this one are reported (and forgotten)
        self.offered = 0  # chunk numbers put in the pipe so far
        self.lost_work = False  # a worker died: a chunk it took may never be announced
        self.tasks_read = -1
        self.tasks_write: int | None = None  # the pipe of chunk numbers every process takes from
        self.lifeline: int | None = None  # write end held here only: workers watch it to end with us

    # ---- setting up and tearing down ----------------------------------------------------------

    def start(self, count: int) -> None:
        """Fork `count` workers; as many as the system allows (none: this process does it all)."""
        try:
            self.tasks_read, self.tasks_write = os.pipe()
            lifeline_read, self.lifeline = os.pipe()
        except OSError:  # out of file descriptors: serial
            return
        self._offer()
        for _ in range(count):
            if not self._fork(lifeline_read):
                break
        os.close(lifeline_read)
        os.set_blocking(self.tasks_read, False)  # this process must never wait for a chunk number

    def _fork(self, lifeline: int) -> bool:
        try:
            results_read, results_write = os.pipe()
        except OSError:
            return False
        with contextlib.suppress(AttributeError, OSError):  # Linux only; a smaller pipe works too
            import fcntl

            fcntl.fcntl(results_write, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
        # A Ctrl-C between the fork and the worker's ignoring it would stop the worker with a
        # traceback: it waits (pending) until then.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            pid = os.fork()
        except OSError:  # a process limit: the workers forked so far (and this one) do the work
            pid = -1
        if pid == 0:  # the worker: never returns
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
            # Only its own ends stay open, so that every pipe ends when its one writer does.
            for fd in (results_read, self.tasks_write, self.lifeline, *self._parent_fds()):
                if fd is not None:
                    os.close(fd)
            _work(self.chunks, self.validate, self.tasks_read, results_write, lifeline)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        os.close(results_write)
        if pid < 0:
            os.close(results_read)
            return False
        self.workers.append(_Worker(pid, results_read))
        return True

    def close(self, *, kill: bool) -> None:
        for fd in (self.tasks_read, self.tasks_write, self.lifeline):
            if fd is not None and fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.tasks_write = self.lifeline = None
        for worker in self.workers:
            self._forget(worker)
            _reap(worker.pid, kill=kill)

    def _parent_fds(self) -> list[int]:
        return [w.results for w in self.workers if w.results is not None]

    # ---- the work -------------------------------------------------------------------------------

    def result(self, index: int) -> list[FileResult]:
        """Chunk `index`'s results: taken in from a worker, or validated here."""
        self.reported = index
        if self.tasks_read < 0:  # no pipes to be had: serial
            self._validate_here(index)
        self._offer()
        while index not in self.done:
            if self._receive(wait=False):
                continue
            mine = self._take()
            if mine is not None:  # rather than wait: the next chunk nobody has taken
                self._validate_here(mine)
            elif not any(index in w.taken for w in self.workers) and (self.lost_work or not self._alive()):
                # Taken by a worker that died before it said so (or no worker is left).
                self._validate_here(index)
            else:
                self._receive(wait=True)  # a worker is validating `index`
        return self.done.pop(index)

    def _validate_here(self, index: int) -> None:
        self.done[index] = [self.validate(path) for path in self.chunks[index]]

    def _offer(self) -> None:
        """Put chunk numbers in the pipe up to `WINDOW` ahead of the one being reported; close it
        once every chunk is offered (a worker then ends when it finds the pipe empty)."""
        if self.tasks_write is None:
            return
        limit = min(len(self.chunks), self.reported + WINDOW)
        if self.offered < limit:
            # At most WINDOW numbers, 4 bytes each: far below what a pipe holds, never waits.
            os.write(self.tasks_write, b"".join(_NUMBER.pack(i) for i in range(self.offered, limit)))
            self.offered = limit
        if self.offered == len(self.chunks):
            os.close(self.tasks_write)
            self.tasks_write = None

    def _take(self) -> int | None:
        """The next chunk number from the pipe, if there is one now."""
        try:
            data = os.read(self.tasks_read, _NUMBER.size)
        except BlockingIOError:
            return None
        # Every write and read is whole numbers of 4 bytes, and a pipe read takes what it asks for.
        return _NUMBER.unpack(data)[0] if len(data) == _NUMBER.size else None

    def _alive(self) -> bool:
        return any(w.results is not None for w in self.workers)

    def _receive(self, *, wait: bool) -> bool:
        """Take in every complete message a worker has written (waiting for one if `wait`); False
        if there was nothing to read."""
        by_fd = {w.results: w for w in self.workers if w.results is not None}
        if not by_fd:
            return False
        poller = select.poll()
        for fd in by_fd:
            poller.register(fd, select.POLLIN)
        ready = poller.poll(None if wait else 0)
        for fd, _ in ready:
            worker = by_fd[fd]
            try:
                data = os.read(fd, _PIPE_SIZE)
            except OSError:
                data = b""
            if not data or not self._take_messages(worker, data):
                self._lost(worker)
        return bool(ready)

    def _take_messages(self, worker: _Worker, data: bytes) -> bool:
        """Act on the complete messages received from `worker`; False if one is corrupt."""
        buffer = worker.received
        buffer += data
        start = 0
        while len(buffer) - start >= _HEADER.size:
            index, size = _HEADER.unpack_from(buffer, start)
            end = start + _HEADER.size + size
            if index >= len(self.chunks):
                return False
            if len(buffer) < end:
                break
            if size == 0:
                worker.taken.add(index)
            else:
                try:
                    results = _decode(bytes(buffer[start + _HEADER.size : end]))
                except (EOFError, ValueError, TypeError):
                    return False
                if index not in worker.taken or len(results) != len(self.chunks[index]):
                    return False
                worker.taken.discard(index)
                if index >= self.reported and index not in self.done:  # (else validated here meanwhile)
                    self.done[index] = results
            start = end
        del buffer[:start]
        return True

    def _lost(self, worker: _Worker) -> None:
        """A worker ended (or sent garbage): the chunks it took are validated here."""
        self.lost_work = True
        self._forget(worker)
        _reap(worker.pid, kill=True)
        for index in sorted(worker.taken):
            if index >= self.reported and index not in self.done:
                self._validate_here(index)
        worker.taken.clear()

    def _forget(self, worker: _Worker) -> None:
        if worker.results is not None:
            with contextlib.suppress(OSError):
                os.close(worker.results)
            worker.results = None


# ---- in a worker ------------------------------------------------------------------------------------


def _work(chunks: Sequence[Sequence[str]], validate: Validate, tasks: int, results: int, lifeline: int) -> None:
    status = 0
    try:
        _end_with_parent(lifeline)
        poller = select.poll()
        poller.register(tasks, select.POLLIN)
        with os.fdopen(results, "wb") as out:
            while True:
                try:
                    task = os.read(tasks, _NUMBER.size)
                except BlockingIOError:  # another process took the number: wait for the next
                    poller.poll()
                    continue
                if len(task) != _NUMBER.size:  # the pipe is closed and empty: every chunk is taken
                    break
                (index,) = _NUMBER.unpack(task)
                _announce(out, index)
                payload = _encode([validate(path) for path in chunks[index]])
                out.write(_HEADER.pack(index, len(payload)))
                out.write(payload)
                out.flush()
    except BaseException:  # the parent sees the pipe end and validates what this worker took
        status = 1
    finally:
        os._exit(status)  # no atexit handlers, no flushing of the parent's inherited buffers


def _announce(out: BinaryIO, index: int) -> None:
    """ "I took chunk `index`": should this worker die, the parent knows what to validate instead."""
    out.write(_HEADER.pack(index, 0))
    out.flush()


def _end_with_parent(lifeline: int) -> None:
    """A parent that ends without stopping its workers (SIGTERM, SIGKILL) takes them with it: the
    lifeline pipe ends with it, even while this worker is deep in a file."""
    import threading

    def watch() -> None:
        with contextlib.suppress(OSError):
            os.read(lifeline, 1)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _reap(pid: int, *, kill: bool) -> None:
    """Wait for a worker; when the parent stopped early, one still running is killed first."""
    try:
        if kill and os.waitpid(pid, os.WNOHANG)[0] == 0:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ChildProcessError, ProcessLookupError):
        pass
