"""Validating on several processes: the same report as a serial run, in order, whatever happens to a worker."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import BinaryIO

import pytest
from corpus_expect import Invoke
from tvmc.validate import parallel
from tvmc.validate.diagnostics import Diagnostic, FileResult

needs_fork = pytest.mark.skipif(not parallel.can_fork(), reason="this platform has no os.fork")


@needs_fork
@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_same_report_as_serial(tvmc: Invoke, in_corpus: Path, fmt: str) -> None:
    # The corpus three times over: enough files to fork, with every rule, syntax errors, extends chains.
    inputs = [".", ".", "."]
    serial = tvmc("validate", "--format", fmt, "--jobs", "1", *inputs)
    forked = tvmc("validate", "--format", fmt, "--jobs", "2", *inputs)
    assert serial.exit_code == forked.exit_code == 1
    assert forked.stdout == serial.stdout
    assert forked.stderr == serial.stderr
    assert serial.stdout.count("syntax") >= 3


def test_few_files_and_one_job_never_fork(tvmc: Invoke, in_corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork() -> int:
        raise AssertionError("forked")

    monkeypatch.setattr(os, "fork", no_fork)
    assert tvmc("validate", "--jobs", "1", ".", ".", ".").exit_code == 1
    assert tvmc("validate", "--jobs", "4", "ok/full.toml").exit_code == 0
    assert parallel.workers_for(parallel.MIN_FILES - 1, 8) == 1
    assert parallel.workers_for(10_000, 1) == 1


def test_jobs_must_be_positive(tvmc: Invoke, in_corpus: Path) -> None:
    result = tvmc("validate", "--jobs", "0", "ok/full.toml")
    assert result.exit_code == 2 and "Traceback" not in result.stdout + result.stderr


def test_stdin_among_many_files_is_read_once(tvmc: Invoke, in_corpus: Path) -> None:
    text = (in_corpus / "ok" / "full.toml").read_text()
    result = tvmc("validate", "--format", "json", "--jobs", "2", ".", "-", ".", input=text)
    assert result.exit_code == 1
    assert result.stdout.count('"<stdin>"') == 1


def _result(path: str) -> FileResult:
    return FileResult(path, [Diagnostic("syntax", "error", "/a~1b", f"broken: {path}", path, 3, 7, "x")])


@needs_fork
def test_results_cross_the_pipe_intact_and_in_order() -> None:
    paths = [f"f{i}.toml" for i in range(parallel.MIN_FILES * 2 + 5)]
    got = list(parallel.run(paths, _result, 3))
    assert got == [_result(p) for p in paths]


@needs_fork
def test_a_dead_worker_leaves_its_files_to_the_parent() -> None:
    parent = os.getpid()

    def validate(path: str) -> FileResult:
        if os.getpid() != parent and path == "f100.toml":
            os._exit(9)  # a worker killed in the middle of its chunk
        return _result(path)

    paths = [f"f{i}.toml" for i in range(parallel.MIN_FILES * 2)]
    assert [r.name for r in parallel.run(paths, validate, 2)] == paths


@needs_fork
def test_a_worker_dying_before_it_says_what_it_took_leaves_that_to_the_parent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parent = os.getpid()
    announce = parallel._announce

    def die_on_the_third(out: BinaryIO, index: int) -> None:
        if os.getpid() != parent and index == 2:
            os._exit(9)  # the chunk number is taken from the pipe, and nobody is told; the other worker lives on
        announce(out, index)

    def validate(path: str) -> FileResult:
        if os.getpid() == parent:
            time.sleep(0.001)  # the parent is slow: the workers take chunks
        return _result(path)

    monkeypatch.setattr(parallel, "_announce", die_on_the_third)
    paths = [f"f{i}.toml" for i in range(parallel.MIN_FILES * 16)]
    assert len(list(parallel._chunks(paths, 3))) > parallel.WINDOW  # not every number is in the pipe at once
    assert list(parallel.run(paths, validate, 3)) == [_result(p) for p in paths]
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


@needs_fork
def test_no_pipe_to_be_had_means_a_serial_run(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pipe() -> tuple[int, int]:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(os, "pipe", no_pipe)
    paths = [f"f{i}.toml" for i in range(parallel.MIN_FILES * 2)]
    assert list(parallel.run(paths, _result, 2)) == [_result(p) for p in paths]
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # nothing was forked


@needs_fork
def test_stopping_early_leaves_no_worker_behind() -> None:
    paths = [f"f{i}.toml" for i in range(parallel.MIN_FILES * 4)]
    stream = parallel.run(paths, _result, 2)
    assert next(stream).name == "f0.toml"
    next(stream)
    for _ in range(parallel.CHUNK):  # into the workers' chunks
        next(stream)
    stream.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # every worker was reaped


@pytest.mark.parametrize("siblings", [1, 20])  # stat'ed one by one, or read from a directory listing
def test_directories_among_arguments(tmp_path: Path, siblings: int) -> None:
    from tvmc.validate.runner import directories_among

    files = [tmp_path / f"c{i}.toml" for i in range(siblings)]
    for f in files:
        f.write_text("")
    (tmp_path / "sub").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "sub")
    (tmp_path / "broken.toml").symlink_to(tmp_path / "nowhere.toml")
    given = [
        *map(str, files),
        str(tmp_path / "sub"),
        str(tmp_path / "link"),
        f"{tmp_path}/sub/",
        str(tmp_path / "broken.toml"),
        str(tmp_path / "missing.toml"),
        "-",
    ]
    dirs, missing = directories_among(given)
    assert dirs == {str(tmp_path / "sub"), str(tmp_path / "link"), f"{tmp_path}/sub/"}
    assert missing == [str(tmp_path / "broken.toml"), str(tmp_path / "missing.toml")]


@needs_fork
def test_a_slow_chunk_holds_back_at_most_a_window_of_results() -> None:
    started = multiprocessing.get_context("fork").Value("i", 0)  # the highest file number begun, anywhere

    def validate(path: str) -> FileResult:
        number = int(path[1:-5])
        with started.get_lock():
            started.value = max(started.value, number)
        if number == 1:  # the first file of the first chunk
            time.sleep(0.5)
        return _result(path)

    paths = [f"f{i}.toml" for i in range(parallel.MAX_CHUNK * parallel.WINDOW * 2)]
    sizes = [len(chunk) for chunk in parallel._chunks(paths, 2)]
    assert len(sizes) > 2 * parallel.WINDOW
    stream = parallel.run(paths, validate, 2)
    try:
        assert next(stream).name == "f0.toml"
        assert next(stream).name == "f1.toml"
        # The other worker ran ahead while the first chunk was slow, but only within the window.
        assert sizes[0] < started.value <= sum(sizes[: parallel.WINDOW])
        assert [r.name for r in stream] == paths[2:]
    finally:
        stream.close()


@needs_fork
def test_a_worker_sending_garbage_leaves_its_files_to_the_parent(monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()
    encode = parallel._encode
    monkeypatch.setattr(parallel, "_encode", lambda results: b"garbage" if os.getpid() != parent else encode(results))
    paths = [f"f{i}.toml" for i in range(parallel.MIN_FILES * 2)]
    assert list(parallel.run(paths, _result, 2)) == [_result(p) for p in paths]
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # every worker was reaped


@needs_fork
def test_the_parent_validates_chunks_too() -> None:
    parent = os.getpid()
    here: list[str] = []

    def validate(path: str) -> FileResult:
        if os.getpid() == parent:
            here.append(path)
        else:
            time.sleep(0.001)  # the worker is busy: the parent finds nothing to take in, and works
        return _result(path)

    paths = [f"f{i}.toml" for i in range(parallel.MIN_FILES * 4)]
    assert list(parallel.run(paths, validate, 2)) == [_result(p) for p in paths]
    assert len(here) > 1 + parallel.CHUNK  # the first file, and at least one chunk rather than waiting


@needs_fork
def test_a_fork_that_fails_leaves_the_files_to_the_parent(monkeypatch: pytest.MonkeyPatch) -> None:
    fork = os.fork
    forks: list[int] = []

    def second_fork_fails() -> int:
        forks.append(1)
        if len(forks) == 2:
            raise BlockingIOError(11, "Resource temporarily unavailable")
        return fork()

    monkeypatch.setattr(os, "fork", second_fork_fails)
    paths = [f"f{i}.toml" for i in range(parallel.MIN_FILES * 2)]
    assert list(parallel.run(paths, _result, 3)) == [_result(p) for p in paths]
    assert len(forks) == 2
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # the worker that was forked was stopped and reaped


@needs_fork
def test_workers_leave_ctrl_c_to_the_parent(capfd: pytest.CaptureFixture[str]) -> None:
    parent = os.getpid()

    def validate(path: str) -> FileResult:
        if os.getpid() != parent and path == "f40.toml":
            os.kill(os.getpid(), signal.SIGINT)  # as a Ctrl-C reaches the whole process group
        return _result(path)

    paths = [f"f{i}.toml" for i in range(parallel.MIN_FILES * 2)]
    try:
        results = list(parallel.run(paths, validate, 2))
    except KeyboardInterrupt:
        pytest.fail("a worker's Ctrl-C reached the parent as its result")
    assert results == [_result(p) for p in paths]
    assert "Traceback" not in capfd.readouterr().err


@needs_fork
def test_an_interrupted_parent_stops_every_worker() -> None:
    def validate(path: str) -> FileResult:
        time.sleep(0.001)
        return _result(path)

    paths = [f"f{i}.toml" for i in range(parallel.MIN_FILES * 4)]
    stream = parallel.run(paths, validate, 2)
    next(stream)
    next(stream)
    with pytest.raises(KeyboardInterrupt):
        stream.throw(KeyboardInterrupt)  # Ctrl-C lands while the parent waits for a result
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


_KILLED_PARENT = """
import os, sys, time
from tvmc.validate import parallel
from tvmc.validate.diagnostics import FileResult

def validate(path):
    if os.getpid() != parent:
        os.write(1, f"{os.getpid()}\\n".encode())  # one write: the two workers' lines do not mix
        time.sleep(60)
    time.sleep(0.05)  # the parent is slow too: it takes the first chunk, the workers the next ones
    return FileResult(path, [])

parent = os.getpid()
for result in parallel.run([f"f{i}.toml" for i in range(parallel.MIN_FILES)], validate, 3):  # two forked
    pass
"""


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@needs_fork
@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads process states from /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_workers_end_with_their_parent(sig: signal.Signals) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(parallel.__file__).parents[2])}
    argv = [sys.executable, "-c", _KILLED_PARENT]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        lines = [proc.stdout.readline(), proc.stdout.readline()]  # both workers are validating
        if not all(line.strip().isdigit() for line in lines):
            proc.kill()
            pytest.fail(f"the workers did not start: {lines} {proc.stderr.read()}")
        workers = {int(line) for line in lines}
        proc.send_signal(sig)
        assert proc.wait(timeout=30) == -sig
    deadline = time.monotonic() + 10
    while any(_running(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_running(pid) for pid in workers)


@needs_fork
def test_output_written_before_the_fork_is_written_once(tmp_path: Path) -> None:
    # A pipe: stdout is block-buffered, so the report's start (the JSON reporter writes it as it
    # goes) is still in the buffer when the workers are forked; none of them may write it again.
    for i in range(parallel.MIN_FILES + 1):
        (tmp_path / f"c{i:03d}.toml").write_text('targets = ["llvm"]\n')
    env = {**os.environ, "PYTHONPATH": str(Path(parallel.__file__).parents[2]), "TVMC_CONFIG_PATH": str(tmp_path)}
    env.pop("PYTHONUNBUFFERED", None)
    argv = [sys.executable, "-m", "tvmc", "config", "validate", "--format", "json", "--jobs", "2", "."]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr
    names = [entry["file"] for entry in json.loads(done.stdout)["files"]]
    assert names == [f"c{i:03d}.toml" for i in range(parallel.MIN_FILES + 1)]


@pytest.mark.parametrize(("files", "workers"), [(parallel.MIN_FILES, 2), (2003, 2), (10_000, 8), (100_000, 2)])
def test_tasks_shrink_toward_the_end_and_cover_every_file_once(files: int, workers: int) -> None:
    paths = [f"f{i}.toml" for i in range(files)]
    chunks = list(parallel._chunks(paths, workers))
    assert [p for chunk in chunks for p in chunk] == paths[1:]  # the first is validated before forking
    sizes = [len(chunk) for chunk in chunks]
    assert all(parallel.CHUNK <= size <= parallel.MAX_CHUNK for size in sizes[:-1])
    assert sizes[:-1] == sorted(sizes[:-1], reverse=True)
    assert sizes[-2] == parallel.CHUNK  # the last tasks are small: the workers finish together
