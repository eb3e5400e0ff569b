"""`-o PATH` (issue 14): a regular file or a new path is replaced atomically; a device, a FIFO or the
standard streams are written in place and never renamed over; anything else is refused; a killed
run's temporary is recognised and removed by the next write."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from testkit import cli_env
from tvmc.errors import TvmcError, UsageError
from tvmc.fileio import write_atomic

from .harness import MODEL, run_cli

root_only = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="mknod needs root")


WRITERS = [
    ["config", "show", "--config", "aws/c5"],
    ["config", "schema"],
    ["config", "migrate", "tvmc compile --target llvm m.onnx"],
    ["compile", str(MODEL), "--emit", "plan"],
    ["compile", str(MODEL), "--emit", "python"],
]


@root_only
@pytest.mark.parametrize("command", WRITERS, ids=lambda c: " ".join(c[:2]))
def test_a_character_device_is_written_in_place_never_replaced(tmp_path: Path, command: list[str]) -> None:
    null = tmp_path / "null"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # the same device as /dev/null
    result = run_cli([*command, "-o", str(null)])
    assert result.exit_code == 0, result.output
    assert stat.S_ISCHR(os.stat(null).st_mode) and os.stat(null).st_rdev == os.makedev(1, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]  # no temporary left either


def test_a_fifo_with_a_reader_receives_the_output_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "out"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as handle:
            received.append(handle.read())

    reader = threading.Thread(target=read)
    reader.start()
    time.sleep(0.05)  # let the reader open its end (the writer fails fast without one)
    for _ in range(100):
        result = run_cli(["config", "show", "--config", "aws/c5", "-o", str(fifo)])
        if result.exit_code == 0:
            break
        time.sleep(0.05)
    reader.join(10)
    assert result.exit_code == 0, result.output
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert b'kind = "llvm"' in received[0]


@pytest.mark.parametrize("command", WRITERS, ids=lambda c: " ".join(c[:2]))
def test_a_fifo_nobody_reads_is_an_error_not_a_hang(tmp_path: Path, command: list[str]) -> None:
    fifo = tmp_path / "out"
    os.mkfifo(fifo)
    result = run_cli([*command, "-o", str(fifo)])
    assert result.exit_code == 1 and "a FIFO that no process reads" in result.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    with pytest.raises(TvmcError, match="a FIFO that no process reads"):
        write_atomic(fifo, "x")


def test_a_socket_or_a_directory_is_refused(tmp_path: Path) -> None:
    import socket

    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(UsageError, match="is not a regular file"):
            write_atomic(path, "x")
        assert stat.S_ISSOCK(os.stat(path).st_mode)
    with pytest.raises(UsageError, match="is a directory"):
        write_atomic(tmp_path, "x")


@pytest.mark.parametrize(("name", "fd"), [("/dev/stdout", 1), ("/dev/stderr", 2)])
def test_the_standard_streams_by_name(name: str, fd: int) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tvmc", "config", "show", "--config", "aws/c5", "-o", name],
        capture_output=True,
        env=cli_env(),
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert b'kind = "llvm"' in (proc.stdout if fd == 1 else proc.stderr)


def test_a_name_as_long_as_the_file_system_allows_is_written(tmp_path: Path) -> None:
    out = tmp_path / ("n" * 250 + ".toml")
    result = run_cli(["config", "show", "--config", "aws/c5", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("#") or "targets" in out.read_text()
    assert [p.name for p in tmp_path.iterdir()] == [out.name]


def test_a_symlink_loop_is_named_as_such(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(TvmcError, match="symbolic link loop"):
        write_atomic(loop / "x.toml", "x")


def test_a_missing_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(TvmcError, match="does not exist"):
        write_atomic(tmp_path / "no" / "x.toml", "x")


@pytest.mark.skipif(not os.path.isfile("/proc/version"), reason="no procfs")
def test_a_file_on_procfs_is_named_as_such_not_missing() -> None:
    """`-o /proc/version` said "No such file or directory" of a file that is there: the temporary
    that would replace it cannot be created in /proc."""
    result = run_cli(["config", "show", "--config", "aws/c5", "-o", "/proc/version"])
    assert result.exit_code == 1
    assert result.output == (
        "tvmc: error: -o /proc/version: cannot write /proc/version: /proc takes no new file (a kernel file "
        "system such as /proc or /sys), and tvmc replaces a file by writing a new one beside it\n"
    )


def test_a_directory_that_takes_no_new_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The directory, not the file, is what refuses (a read-only mount; root ignores mode bits, so
    the refusal is simulated); a directory removed while writing is said to be."""
    real = os.open
    errors = {"ro": OSError(errno.EROFS, os.strerror(errno.EROFS))}

    def create(path: str, flags: int, *args: int, **kwargs: int) -> int:
        if flags & os.O_EXCL and (tmp_path / "ro").exists():
            raise errors["ro"]
        if flags & os.O_EXCL:  # the temporary: its directory goes first
            os.rmdir(tmp_path / "gone")
        return real(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", create)
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro" / "x.toml").write_text("previous\n")
    for name, replacing in (("x.toml", ", and tvmc replaces a file by writing a new one beside it"), ("new.toml", "")):
        with pytest.raises(TvmcError) as refused:
            write_atomic(tmp_path / "ro" / name, "x")
        where = tmp_path / "ro"
        assert str(refused.value) == (
            f"-o {where / name}: cannot write {where / name}: {where} takes no new file (Read-only file system)"
            + replacing
        )
    assert (tmp_path / "ro" / "x.toml").read_text() == "previous\n"
    (tmp_path / "ro" / "x.toml").unlink()
    (tmp_path / "ro").rmdir()  # no temporary left in it
    (tmp_path / "gone").mkdir()
    with pytest.raises(TvmcError, match=f"its directory {tmp_path / 'gone'} was removed while tvmc wrote$"):
        write_atomic(tmp_path / "gone" / "x.toml", "x")


def test_a_killed_runs_temporary_is_removed_by_the_next_write(tmp_path: Path) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(gone.stdout)
    stale = tmp_path / f".a.toml.tvmc-{dead_pid}-0badcafe.tmp"
    stale.write_text("half")
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    foreign = tmp_path / ".a.toml.tmp"  # not ours: kept
    foreign.write_text("other")
    write_atomic(tmp_path / "a.toml", "x = 1\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["a.toml", foreign.name])


def test_an_interrupt_while_writing_leaves_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_fsync = os.fsync

    def interrupted(fd: int) -> None:
        real_fsync(fd)
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    (tmp_path / "a.toml").write_text("old\n")
    with pytest.raises(KeyboardInterrupt):
        write_atomic(tmp_path / "a.toml", "new\n")
    assert [p.name for p in tmp_path.iterdir()] == ["a.toml"]
    assert (tmp_path / "a.toml").read_text() == "old\n"


def test_low_items_of_the_campaign(tmp_path: Path) -> None:
    """Issue 14, item 9: each message says what is really wrong, and the same mistake exits alike."""
    loop = tmp_path / "loop.toml"
    loop.symlink_to(loop)
    assert "symbolic link loop" in run_cli(["config", "show", "--config", str(loop)]).stderr
    dangling = tmp_path / "dangling.toml"
    dangling.symlink_to(tmp_path / "gone.toml")
    assert "symbolic link to a missing file" in run_cli(["config", "show", "--config", str(dangling)]).stderr
    zero = run_cli(["compile", "/dev/zero", "--model-format", "onnx", "-o", str(tmp_path / "z.so")])
    assert zero.exit_code == 1 and "/dev/zero is a device, not a regular file" in zero.stderr
    # A missing -o directory: exit 1 and the same words for compile as for every other command.
    for argv in (["compile", str(MODEL)], ["config", "show", "--config", "aws/c5"], ["config", "schema"]):
        result = run_cli([*argv, "-o", str(tmp_path / "no" / "out")])
        assert result.exit_code == 1 and "directory" in result.stderr and "does not exist" in result.stderr, argv
    # The string limit is on the value, not on `PATH=` before it.
    value = "a" * 65536
    assert run_cli(["config", "show", "--target", "llvm", "--set", f"description={value}"]).exit_code == 0
    too_long = run_cli(["config", "show", "--target", "llvm", "--set", f"description={value}a"])
    assert too_long.exit_code == 2 and "65537 characters" in too_long.stderr


def test_both_streams_to_a_full_disk_exit_1(tmp_path: Path) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("needs /dev/full (Linux)")
    for extra in ({}, {"PYTHONUNBUFFERED": "1"}):
        proc = subprocess.run(
            f"{sys.executable} -m tvmc config show --config aws/c5 >/dev/full 2>/dev/full",
            shell=True,
            env=cli_env(**extra),
            timeout=60,
            check=False,
        )
        assert proc.returncode == 1, extra


def test_a_process_substitution_is_written_in_place() -> None:
    """`-o >(gzip > x.gz)` names /dev/fd/N, a link only the kernel can follow (to pipe:[…])."""
    read_end, write_end = os.pipe()
    try:
        write_atomic(f"/dev/fd/{write_end}", "x = 1\n")
        os.close(write_end)
        write_end = -1
        assert os.read(read_end, 100) == b"x = 1\n"
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)


def test_a_nul_byte_in_the_name_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="NUL byte"):
        write_atomic(f"{tmp_path}/a\0b", "x")
