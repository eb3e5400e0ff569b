"""Validating many files on several cores: forked workers, results streamed back in input order.

Files are cut into chunks, validated by the parent and `jobs - 1` forked workers. The parent hands
out chunk numbers as workers finish (each holds at most `AHEAD`, so none idles while its next one
is on the way); a worker writes each chunk's results (marshalled, length-prefixed) to its own pipe.
Handing out work on demand keeps every core busy to the end, even when some files cost much more
than others. The parent reports the chunks in input order, so the report is exactly what a serial
run gives. While the chunk it is to report is not in, it validates the next chunk itself rather
than wait; no chunk is started more than `WINDOW` chunks ahead of the one being reported, which
bounds what the parent holds while a slow chunk is awaited. A worker that dies (or sends garbage)
leaves its chunks to the parent.

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
from collections import deque
from collections.abc import Callable, Iterator, Sequence

from tvmc.validate.diagnostics import Diagnostic, FileResult

CHUNK = 32  # files per message: small enough to balance the workers, large enough to be cheap
MIN_FILES = 4 * CHUNK  # below this a fork costs more than it saves
MAX_JOBS = 8
AHEAD = 2  # chunks a worker holds: the one it validates and the next
WINDOW = 16  # chunks started beyond the one being reported, at most
_TASK = struct.Struct("<I")  # parent → worker: a chunk number
_HEADER = struct.Struct("<IQ")  # worker → parent: chunk number, payload size

Validate = Callable[[str], FileResult]
_FIELDS = Diagnostic.__slots__  # plain str/int/None values: marshal carries them, fast and import-free


def _encode(results: list[FileResult]) -> bytes:
    return marshal.dumps([(r.name, [tuple(getattr(d, f) for f in _FIELDS) for d in r.diagnostics]) for r in results])


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
    """`validate(path)` for every path, in order, computed by `workers` processes: this one and
    `workers - 1` forked ones.

    The first file is validated here, before forking: it fills the lazily built tables (registry,
    checks) once, for every worker to inherit. What only some files need (a did-you-mean over all
    tags, a listing of the search path) is left to the workers, where it runs in parallel."""
    if not paths:
        return
    yield validate(paths[0])
    chunks = [paths[i : i + CHUNK] for i in range(1, len(paths), CHUNK)]
    pool = _Pool(chunks, validate)
    finished = False
    try:
        pool.start(workers - 1)  # and the parent
        for index in range(len(chunks)):
            yield from pool.result(index)
        finished = True
    finally:  # also when the reader stops early (`| head`): no worker outlives the run
        pool.close(kill=not finished)


class _Worker:
    def __init__(self, pid: int, tasks: int, results: int) -> None:
        self.pid = pid
        self.tasks: int | None = tasks  # write end of its chunk numbers; None once closed
        self.results: int | None = results  # read end of its results; None once it ended
        self.received = bytearray()
        self.held: deque[int] = deque()  # chunk numbers handed out, in order, not yet returned


class _Pool:
    def __init__(self, chunks: Sequence[Sequence[str]], validate: Validate) -> None:
        self.chunks = chunks
        self.validate = validate
        self.workers: list[_Worker] = []
        self.done: dict[int, list[FileResult]] = {}
        self.next_task = 0  # the first chunk not handed out yet
        self.reporting = 0  # the chunk being reported

    def start(self, count: int) -> None:
        for _ in range(count):
            task_read, task_write = os.pipe()
            result_read, result_write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: never returns
                # Only its own ends stay open, so that every pipe ends when its one writer does.
                for fd in (task_write, result_read, *self._parent_fds()):
                    os.close(fd)
                _work(self.chunks, self.validate, task_read, result_write)
            os.close(task_read)
            os.close(result_write)
            self.workers.append(_Worker(pid, task_write, result_read))
        self._fill()

    def result(self, index: int) -> list[FileResult]:
        """Chunk `index`'s results: taken in from a worker, or validated here."""
        self.reporting = index
        self._fill()
        while index not in self.done:
            if self._receive(wait=False):
                continue
            if self.next_task < min(len(self.chunks), index + WINDOW):
                self._validate_next()  # rather than wait
            elif any(w.results is not None for w in self.workers):
                self._receive(wait=True)  # `index` is a worker's: it is validating it now
            else:  # defensive: a lost worker's chunks are validated as it is found lost
                self.done[index] = self._validate_here(index)
        return self.done.pop(index)

    def close(self, *, kill: bool) -> None:
        for worker in self.workers:
            self._close_tasks(worker)
            self._close_results(worker)
        for worker in self.workers:
            _reap(worker.pid, kill=kill)

    # ---- the parent's side of the pipes -----------------------------------------------------------

    def _parent_fds(self) -> list[int]:
        return [fd for w in self.workers for fd in (w.tasks, w.results) if fd is not None]

    def _validate_next(self) -> None:
        task = self.next_task
        self.next_task += 1
        self._fill()  # first: the workers get their next chunks before this one takes a while
        self.done[task] = self._validate_here(task)

    def _fill(self) -> None:
        """Top every worker up to `AHEAD` chunks, within the window; end the tasks when all are out."""
        limit = min(len(self.chunks), self.reporting + WINDOW)
        for worker in self.workers:
            while worker.tasks is not None and len(worker.held) < AHEAD and self.next_task < limit:
                try:  # a few bytes into a pipe that holds at most AHEAD tasks: never waits
                    os.write(worker.tasks, _TASK.pack(self.next_task))
                except OSError:  # the worker is gone; its results pipe will say so
                    self._close_tasks(worker)
                    break
                worker.held.append(self.next_task)
                self.next_task += 1
        if self.next_task >= len(self.chunks):  # nothing left: each worker ends after what it holds
            for worker in self.workers:
                self._close_tasks(worker)

    def _close_tasks(self, worker: _Worker) -> None:
        if worker.tasks is not None:
            with contextlib.suppress(OSError):
                os.close(worker.tasks)
            worker.tasks = None

    def _close_results(self, worker: _Worker) -> None:
        if worker.results is not None:
            with contextlib.suppress(OSError):
                os.close(worker.results)
            worker.results = None

    def _receive(self, *, wait: bool) -> bool:
        """Take in every complete message some worker has written (waiting for one if `wait`);
        False if there was nothing to read."""
        import select

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
                data = os.read(fd, 1 << 16)
            except OSError:
                data = b""
            if not data:
                self._lost(worker)
                continue
            worker.received += data
            if not self._take_messages(worker):
                self._lost(worker)
        return bool(ready)

    def _take_messages(self, worker: _Worker) -> bool:
        """Move complete messages from `worker.received` to `done`; False if one is corrupt."""
        buffer = worker.received
        while len(buffer) >= _HEADER.size:
            index, size = _HEADER.unpack_from(buffer)
            end = _HEADER.size + size
            if len(buffer) < end:
                break
            if not worker.held or worker.held[0] != index:
                return False
            try:
                results = _decode(bytes(buffer[_HEADER.size : end]))
            except (EOFError, ValueError, TypeError):
                return False
            if len(results) != len(self.chunks[index]):
                return False
            del buffer[:end]
            worker.held.popleft()
            self.done[index] = results
        self._fill()
        return True

    def _lost(self, worker: _Worker) -> None:
        """A worker ended (or sent garbage): what it still held is validated here."""
        self._close_tasks(worker)
        self._close_results(worker)
        while worker.held:
            index = worker.held.popleft()
            self.done[index] = self._validate_here(index)

    def _validate_here(self, index: int) -> list[FileResult]:
        return [self.validate(path) for path in self.chunks[index]]


def _work(chunks: Sequence[Sequence[str]], validate: Validate, tasks: int, results: int) -> None:
    status = 0
    try:
        with os.fdopen(results, "wb") as out:
            while True:
                task = _read_exactly(tasks, _TASK.size)
                if task is None:  # the parent has no more work (or is gone)
                    break
                (index,) = _TASK.unpack(task)
                payload = _encode([validate(path) for path in chunks[index]])
                out.write(_HEADER.pack(index, len(payload)))
                out.write(payload)
                out.flush()
    except BaseException:  # the parent sees the pipe end and validates what this worker held
        status = 1
    finally:
        os._exit(status)  # no atexit handlers, no flushing of the parent's inherited buffers


def _read_exactly(fd: int, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        more = os.read(fd, size - len(data))
        if not more:
            return None
        data += more
    return data


def _reap(pid: int, *, kill: bool) -> None:
    """Wait for a worker; when the parent stopped early, one still running is killed first."""
    try:
        if kill and os.waitpid(pid, os.WNOHANG)[0] == 0:
            import signal

            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ChildProcessError, ProcessLookupError):
        pass
