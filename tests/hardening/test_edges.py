"""What tvmc builds, runs and stores, as hostile input and hostile places, found by the edges fault
campaign (the tuning database's files: tests/tune/test_db_edges.py). None of these needs TVM: each
is refused before a library is loaded."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import run_cli

np = pytest.importorskip("numpy")


@pytest.mark.parametrize("which", ["library", "inputs"])
def test_run_never_writes_its_outputs_over_an_input(tmp_path: Path, which: str) -> None:
    """`run lib.so --outputs lib.so` replaced the library with an npz of its outputs (and
    `--outputs in.npz` the inputs), after the run: now refused first, the file untouched."""
    library = tmp_path / "lib.so"
    library.write_bytes(b"\x7fELF not loaded: refused before")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, x=np.ones((1, 8), np.float32))
    before = {p: p.read_bytes() for p in (library, inputs)}
    target = library if which == "library" else inputs
    (tmp_path / "link.npz").symlink_to(target)  # another name for it, too
    for given in (target, tmp_path / "link.npz"):
        result = run_cli(["run", str(library), "--inputs", str(inputs), "--outputs", str(given)])
        assert result.exit_code == 2, result.output
        assert result.stderr == f"tvmc: error: --outputs: refusing to overwrite the input file {target}\n"
        assert {p: p.read_bytes() for p in (library, inputs)} == before


def test_run_outputs_in_a_missing_directory_is_refused_before_the_run(tmp_path: Path) -> None:
    library = tmp_path / "lib.so"
    library.write_bytes(b"\x7fELF not loaded: refused before")
    result = run_cli(["run", str(library), "--outputs", str(tmp_path / "gone" / "out.npz")])
    assert result.exit_code == 1  # as every command's -o into a missing directory (it exited 2)
    assert result.stderr == (
        f"tvmc: error: --outputs: cannot write {tmp_path / 'gone' / 'out.npz'}: "
        f"directory {tmp_path / 'gone'} does not exist\n"
    )


def test_an_older_libraries_build_info_is_read_mapped_and_as_anothers_bytes(tmp_path: Path) -> None:
    """`run` of a library without a manifest looks for the target an older tvmc linked in: it read
    the whole file into memory (8 GiB for an 8 GiB file, a minute), and JSON nested thousands deep
    there was a RecursionError reported as the library failing to load."""
    import tracemalloc

    from tvmc.backend.run import BUILD_INFO_MARK, build_info

    mark = BUILD_INFO_MARK.encode()
    big = tmp_path / "big.so"
    with big.open("wb") as handle:
        handle.truncate(256 << 20)  # sparse: no disk used
        handle.seek(200 << 20)
        handle.write(mark + b'{"target": {"kind": "llvm"}}\0')
    tracemalloc.start()
    try:
        assert build_info(big) == {"target": {"kind": "llvm"}}
        assert tracemalloc.get_traced_memory()[1] < 16 << 20
    finally:
        tracemalloc.stop()
    deep = tmp_path / "deep.so"
    deep.write_bytes(b"\x7fELF" + mark + b"[" * 100_000 + b"]" * 100_000 + b"\0")
    unterminated = tmp_path / "unterminated.so"
    unterminated.write_bytes(mark + b'{"target": {}}')
    empty = tmp_path / "empty.so"
    empty.write_bytes(b"")
    assert [build_info(p) for p in (deep, unterminated, empty)] == [None, None, None]


@pytest.mark.parametrize(
    "command",
    [["inspect", "{long}"], ["tune", "db", "list", "--database", "{long}"], ["config", "show", "--from", "{long}"]],
    ids=lambda c: " ".join(c[:3]),
)
def test_an_os_error_on_a_path_names_the_path_not_the_output(tmp_path: Path, command: list[str]) -> None:
    """An OSError no command turned into a tvmc error (a name longer than the system takes:
    ENAMETOOLONG from a stat that pathlib does not swallow) was reported as 'cannot write the
    output', blaming stdout; it names the file."""
    import subprocess
    import sys

    from testkit import cli_env

    long = str(tmp_path / ("a" * 5000))
    argv = [part.format(long=long) for part in command]
    done = subprocess.run(
        [sys.executable, "-m", "tvmc", *argv], env=cli_env(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    assert done.stderr.startswith(f"tvmc: error: {tmp_path / 'aaa'}") and done.stderr.count("\n") == 1, done.stderr
    assert "cannot write the output" not in done.stderr and "Traceback" not in done.stderr
