"""Validating many files on several cores: a process pool, results streamed back in input order.

The first file is validated here, before any fork: it fills the lazily built tables (registry,
checks) once, for every worker to inherit. The other files are cut into chunks (large while much is
left, `CHUNK` files toward the end) and handed to a `concurrent.futures.ProcessPoolExecutor` of
`workers - 1` forked workers, each holding at most `AHEAD` (the one it validates and the next), so
that the cores stay busy to the end even when some files cost much more than others. This process
is the last worker: while the chunk it is to report is not in, it validates the next chunk itself
rather than wait (its tables are warm, and it has no copy-on-write pages to fault in). It reports
the chunks in input order, so the report is exactly what a serial run gives; at most `WINDOW`
chunks are in flight, which bounds what is held while a slow chunk is awaited.

Results cross as plain tuples (marshal: fast, and independent of how the record classes pickle).
A worker that dies breaks the pool: every chunk not returned yet is validated here instead, as is
a chunk whose result does not decode. Workers ignore Ctrl-C (this process stops the pool and
reports the interrupt) and end with this process, however it ends.

Forking (not spawning) keeps this cheap: the workers inherit the imported modules and the
validator's settings and search path. Where `os.fork` does not exist, or for few files, the run
is serial."""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import TYPE_CHECKING

from tvmc.validate.diagnostics import Diagnostic, FileResult

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

CHUNK = 32  # files per task at least: the last ones, so that the workers finish together
MAX_CHUNK = 256  # files per task at most: what a result holds, and the wait for the first one
MIN_FILES = 4 * CHUNK  # below this a fork costs more than it saves
MAX_JOBS = 8
WINDOW = 16  # chunks in flight (the one being reported included), at most
AHEAD = 2  # chunks a worker holds: the one it validates and the next

Validate = Callable[[str], FileResult]
_FIELDS = Diagnostic.__match_args__  # plain str/int/None values: marshal carries them


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


class _Chunk:
    """Files handed to a worker (`future`; None once the pool is broken) or validated here."""

    __slots__ = ("future", "paths", "results")

    def __init__(
        self, paths: Sequence[str], future: Future[bytes] | None, results: list[FileResult] | None = None
    ) -> None:
        self.paths = paths
        self.future = future
        self.results = results


def run(paths: Sequence[str], validate: Validate, workers: int) -> Generator[FileResult, None, None]:
    """`validate(path)` for every path, in order, computed by `workers` processes: this one and
    `workers - 1` forked ones."""
    if not paths:
        return
    yield validate(paths[0])
    chunks = _chunks(paths, workers)
    pending: deque[_Chunk] = deque()  # the chunk being reported and those after it: at most WINDOW
    with _pool(validate, workers - 1) as pool:
        while True:
            pool.feed(pending, chunks)
            if not pending:
                return
            head = pending[0]
            while head.results is None:
                busy = head.future is not None and not head.future.done()
                if busy and len(pending) < WINDOW and (spare := next(chunks, None)) is not None:
                    pending.append(_Chunk(spare, None, [validate(path) for path in spare]))  # rather than wait
                    pool.feed(pending, chunks)
                else:
                    head.results = _results(head.paths, head.future, validate)
            pending.popleft()
            yield from head.results


def _chunks(paths: Sequence[str], workers: int) -> Iterator[Sequence[str]]:
    """`paths` but the first, cut into tasks: large while much is left (each task costs a round
    trip through the pool), smaller toward the end (a worker handed the last big one would be
    left working alone)."""
    start = 1
    while start < len(paths):
        size = max(CHUNK, min(MAX_CHUNK, (len(paths) - start) // (2 * workers)))
        yield paths[start : start + size]
        start += size


def _results(chunk: Sequence[str], future: Future[bytes] | None, validate: Validate) -> list[FileResult]:
    """A worker's results for `chunk` (waiting for them); validated here if no worker took it, one
    died, or what it sent does not decode to one result per file."""
    if future is not None:
        try:
            results = _decode(future.result())
        except Exception:  # BrokenProcessPool, or a payload that is not what _encode writes
            results = []
        if len(results) == len(chunk):
            return results
    return [validate(path) for path in chunk]


class _Pool:
    """A process pool of forked workers; once it is broken (a worker died, or could not be
    forked), chunks are left to this process."""

    def __init__(self, executor: ProcessPoolExecutor, workers: int) -> None:
        self.executor: ProcessPoolExecutor | None = executor
        self.limit = AHEAD * workers
        self.forked = False

    def feed(self, pending: deque[_Chunk], chunks: Iterator[Sequence[str]]) -> None:
        """Hand out chunks until every worker holds `AHEAD`, within the window (once the pool is
        broken, every chunk is queued to be validated here)."""
        held = sum(1 for c in pending if c.future is not None and not c.future.done())
        while len(pending) < WINDOW and (self.executor is None or held < self.limit):
            chunk = next(chunks, None)
            if chunk is None:
                return
            pending.append(_Chunk(chunk, self.submit(chunk)))
            held += 1

    def submit(self, chunk: Sequence[str]) -> Future[bytes] | None:
        import signal
        from concurrent.futures.process import BrokenProcessPool

        executor = self.executor
        if executor is None:
            return None
        if self.forked:
            try:
                return executor.submit(_validate_chunk, chunk)
            except BrokenProcessPool:
                self.executor = None
                return None
        # The first submit forks the workers; a Ctrl-C waits (pending here) until they ignore it.
        self.forked = True
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return executor.submit(_validate_chunk, chunk)
        except OSError:  # a fork failed (a process limit): the workers forked so far are stopped
            for process in list((getattr(executor, "_processes", None) or {}).values()):
                process.kill()
                process.join()
            self.executor = None
            return None
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


@contextlib.contextmanager
def _pool(validate: Validate, workers: int) -> Iterator[_Pool]:
    """`workers` forked processes that validate with `validate`; all of them ended on the way out
    (also when the reader stops early, `| head`, or on Ctrl-C)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # (multiprocessing flushes stdout and stderr before it forks: what they buffer is written once.)
    context = multiprocessing.get_context("fork")
    executor = ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker, initargs=(validate,))
    try:
        yield _Pool(executor, workers)
    finally:
        # What no worker took yet is dropped; a worker finishes the chunk it holds (milliseconds).
        executor.shutdown(wait=True, cancel_futures=True)


# ---- in a worker ------------------------------------------------------------------------------------

_validate: Validate | None = None  # the parent's validator, inherited through the fork


def _start_worker(validate: Validate) -> None:
    import signal
    import threading

    global _validate
    _validate = validate
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it stops the pool
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    threading.Thread(target=_end_with_parent, daemon=True).start()


def _end_with_parent() -> None:
    """A parent that ends without stopping the pool (SIGTERM, SIGKILL) takes the worker with it."""
    import multiprocessing

    parent = multiprocessing.parent_process()
    if parent is not None:
        parent.join()
    os._exit(1)


def _validate_chunk(paths: Sequence[str]) -> bytes:
    assert _validate is not None
    return _encode([_validate(path) for path in paths])
