"""Issue 27, point 8: outputs that cannot be hijacked or lost.

In a shared directory (sticky and writable by all, like /tmp), `-o` never follows a symbolic link
and never replaces a file that belongs to another user (the kernel's protected_symlinks and
protected_regular rules, which the write-then-rename path used to bypass); tvmc never copies
setuid, setgid or world-writable bits; a temporary is judged abandoned by its lock, not by the PID
in its name. "Another user" is uid 65534 (nobody): the tests chown planted files to it, so the
ones that plant need root (they run as root in CI)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tvmc.errors import TvmcError
from tvmc.fileio import write_atomic

from .harness import MODEL, run_cli

OTHER_UID = 65534
as_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another uid needs root")

WRITERS = [
    ["config", "show", "--config", "aws/c5"],
    ["config", "migrate", "tvmc compile --target llvm m.onnx"],
    ["compile", str(MODEL), "--emit", "plan"],
]


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """A directory like /tmp: sticky and world-writable (owned by us)."""
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o1777)
    return folder


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """What a planted link points to: must never change."""
    path = tmp_path / "private" / "secret.txt"
    path.parent.mkdir()
    path.write_text("untouched\n")
    return path


def _planted_link(link: Path, to: Path) -> None:
    link.symlink_to(to)
    os.lchown(link, OTHER_UID, OTHER_UID)


@as_root
@pytest.mark.parametrize("command", WRITERS, ids=lambda c: " ".join(c[:2]))
def test_another_users_link_in_a_shared_directory_is_refused(shared: Path, secret: Path, command: list[str]) -> None:
    out = shared / "out.txt"
    _planted_link(out, secret)
    result = run_cli([*command, "-o", str(out)])
    assert result.exit_code == 1, result.output
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("tvmc: error")]
    assert str(out) in line and "symbolic link owned by another user" in line
    assert secret.read_text() == "untouched\n" and out.is_symlink()
    assert sorted(p.name for p in shared.iterdir()) == ["out.txt"]  # no temporary left


@as_root
def test_a_planted_link_to_a_directory_on_the_way_is_refused(shared: Path, secret: Path) -> None:
    _planted_link(shared / "d", secret.parent)
    with pytest.raises(TvmcError, match="symbolic link owned by another user"):
        write_atomic(shared / "d" / "secret.txt", "x\n")
    assert secret.read_text() == "untouched\n"


@as_root
@pytest.mark.parametrize("kind", ["file", "fifo"])
def test_another_users_file_in_a_shared_directory_is_refused(shared: Path, kind: str) -> None:
    out = shared / "out.txt"
    if kind == "file":
        out.write_text("theirs\n")
    else:
        os.mkfifo(out)
    os.chown(out, OTHER_UID, OTHER_UID)
    result = run_cli(["config", "show", "--config", "aws/c5", "-o", str(out)])
    assert result.exit_code == 1 and "owned by another user (uid 65534)" in result.stderr, result.output
    assert str(out) in result.stderr
    assert os.stat(out).st_uid == OTHER_UID
    if kind == "file":
        assert out.read_text() == "theirs\n"


@as_root
def test_what_is_ours_or_outside_a_shared_directory_is_written_as_before(
    tmp_path: Path, shared: Path, secret: Path
) -> None:
    # Our own link in a shared directory is followed, as the kernel follows it.
    mine = shared / "mine.txt"
    mine.symlink_to(secret)
    write_atomic(mine, "one\n")
    assert secret.read_text() == "one\n" and mine.is_symlink()
    # Another user's link or file in a directory that is not shared (only they or we could write it).
    plain = tmp_path / "plain"
    plain.mkdir()
    _planted_link(plain / "link.txt", secret)
    write_atomic(plain / "link.txt", "two\n")
    assert secret.read_text() == "two\n"
    (plain / "theirs.txt").write_text("old\n")
    os.chown(plain / "theirs.txt", OTHER_UID, OTHER_UID)
    write_atomic(plain / "theirs.txt", "new\n")
    assert (plain / "theirs.txt").read_text() == "new\n"


def test_setuid_and_world_writable_bits_are_never_copied(shared: Path) -> None:
    out = shared / "lib.so"
    out.write_bytes(b"old")
    out.chmod(0o4777)
    result = run_cli(["config", "show", "--config", "aws/c5", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "targets" in out.read_text()
    assert stat.S_IMODE(out.stat().st_mode) == 0o775  # the file's mode, less setuid and world-write
    out.chmod(0o6757)
    write_atomic(out, "x\n")
    assert stat.S_IMODE(out.stat().st_mode) == 0o755


def test_a_new_file_is_not_world_writable_even_with_umask_0(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        write_atomic(tmp_path / "new.txt", "x\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o664


def _dead_pid() -> int:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(gone.stdout)


@pytest.fixture
def held(tmp_path: Path) -> Iterator[Path]:
    """A temporary named after a PID that is gone here (as a writer in another PID namespace looks),
    locked by a live child process, as a writer holds its temporary until the rename."""
    temporary = tmp_path / f".a.toml.tvmc-{_dead_pid()}-0badcafe.tmp"
    temporary.write_text("being written")
    os.utime(temporary, (time.time() - 3600, time.time() - 3600))
    code = (
        "import fcntl, os, sys\n"
        f"fd = os.open({str(temporary)!r}, os.O_RDWR)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('locked', flush=True)\n"
        "sys.stdin.read()\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "locked\n"
        yield temporary
    finally:
        child.communicate(timeout=30)  # closing stdin ends it


def test_a_locked_temporary_is_kept_though_its_pid_looks_dead(tmp_path: Path, held: Path) -> None:
    stale = tmp_path / f".a.toml.tvmc-{_dead_pid()}-0deadbee.tmp"  # unlocked: abandoned
    stale.write_text("half")
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    write_atomic(tmp_path / "a.toml", "x = 1\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["a.toml", held.name])
    assert held.read_text() == "being written"


def test_the_writer_holds_its_temporary_locked_until_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While tvmc writes, another process cannot take its temporary's lock (so it is not removed)."""
    import fcntl

    seen: list[bool] = []
    real_fsync = os.fsync

    def probe(fd: int) -> None:
        real_fsync(fd)
        (temporary,) = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
        other = os.open(temporary, os.O_RDONLY)  # another open file description: as another process
        try:
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            seen.append(False)
        except BlockingIOError:
            seen.append(True)
        finally:
            os.close(other)

    monkeypatch.setattr(os, "fsync", probe)
    write_atomic(tmp_path / "a.toml", "x = 1\n")
    assert seen == [True]
    assert [p.name for p in tmp_path.iterdir()] == ["a.toml"]


@as_root
def test_another_users_temporary_is_never_removed(shared: Path) -> None:
    theirs = shared / f".a.toml.tvmc-{_dead_pid()}-0badcafe.tmp"
    theirs.write_text("theirs")
    os.chown(theirs, OTHER_UID, OTHER_UID)
    os.utime(theirs, (time.time() - 3600, time.time() - 3600))
    write_atomic(shared / "a.toml", "x = 1\n")
    assert theirs.exists()


@settings(max_examples=60, deadline=None)
@given(mode=st.integers(min_value=0, max_value=0o7777), umask=st.integers(min_value=0, max_value=0o777))
def test_the_mode_written_is_the_old_one_without_unsafe_bits(mode: int, umask: int) -> None:
    """Property: a replaced file keeps its mode less setuid, setgid, sticky and world-write; a new
    file gets 0o666 less the umask, never world-writable."""
    with tempfile.TemporaryDirectory() as folder:
        old, new = Path(folder) / "old", Path(folder) / "new"
        old.write_text("x")
        old.chmod(mode)
        saved = os.umask(umask)
        try:
            write_atomic(old, "y")
            write_atomic(new, "y")
        finally:
            os.umask(saved)
        assert stat.S_IMODE(old.stat().st_mode) == mode & 0o775
        assert stat.S_IMODE(new.stat().st_mode) == 0o664 & ~umask
