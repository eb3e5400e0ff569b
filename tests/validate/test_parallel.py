"""Validating on several processes: the same report as a serial run, in order, whatever happens to a worker."""

from __future__ import annotations

import os
import time
from pathlib import Path

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
    parent = os.getpid()

    def validate(path: str) -> FileResult:
        if os.getpid() != parent and path == "f1.toml":  # the first file of the first chunk
            time.sleep(0.5)
        return _result(path)

    paths = [f"f{i}.toml" for i in range(1, parallel.CHUNK * (parallel.WINDOW * 3) + 1)]
    chunks = [paths[i : i + parallel.CHUNK] for i in range(0, len(paths), parallel.CHUNK)]
    pool = parallel._Pool(chunks, validate)
    try:
        pool.start(2)
        assert [r.name for r in pool.result(0)] == chunks[0]
        # The other worker ran ahead while chunk 0 was slow, but only within the window.
        assert 0 < len(pool.done) <= parallel.WINDOW
        for index in range(1, len(chunks)):
            assert [r.name for r in pool.result(index)] == chunks[index]
    finally:
        pool.close(kill=False)


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
