"""Only regular files are read as configs (issue 14): a FIFO, a device or /dev/stdin named as a
config, in `extends`, or inside a validated directory is refused or passed over — never read, so
never a hang. Each case runs as a real process with a timeout: a hang fails the test."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import cli_env

from .harness import MODEL

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")


def tvmc(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tvmc", *argv],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=30,
        check=False,
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    os.mkfifo(tmp_path / "f.toml")
    (tmp_path / "extends-fifo.toml").write_text('extends = ["f.toml"]\n')
    (tmp_path / "extends-stdin.toml").write_text('extends = ["/dev/stdin"]\n')
    (tmp_path / "extends-fd0.toml").write_text('extends = ["/proc/self/fd/0"]\n')
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "dir" / "pipe.toml")
    (tmp_path / "dir" / "ok.toml").write_text('targets = ["llvm"]\n')
    return tmp_path


@pytest.mark.parametrize(
    "argv",
    [
        ("config", "show", "--config", "./f.toml"),
        ("config", "validate", "f.toml"),
        ("config", "show", "--config", "./extends-fifo.toml"),
        ("config", "validate", "extends-fifo.toml"),
        ("compile", str(MODEL), "--config", "./f.toml", "--emit", "plan"),
        ("config", "migrate", "f.toml"),
    ],
)
def test_a_fifo_is_refused_without_reading_it(tree: Path, argv: tuple[str, ...]) -> None:
    proc = tvmc(tree, *argv)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "is a FIFO (named pipe), not a config file" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("name", ["extends-stdin.toml", "extends-fd0.toml"])
def test_stdin_is_read_only_where_the_user_wrote_a_dash(tree: Path, name: str) -> None:
    def piped(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tvmc", *argv],
            cwd=tree,
            input='targets = ["c"]\n',
            capture_output=True,
            text=True,
            env=cli_env(),
            timeout=30,
            check=False,
        )

    proc = piped("config", "show", "--config", f"./{name}")
    assert proc.returncode == 1 and "not a config file" in proc.stderr, proc.stderr
    assert 'kind = "c"' not in proc.stdout
    dash = piped("config", "validate", "-")  # where the user wrote `-`, the same text is read
    assert dash.returncode == 0 and "1 valid" in dash.stderr + dash.stdout


def test_a_directory_walk_passes_over_what_is_not_a_regular_file(tree: Path) -> None:
    proc = tvmc(tree, "config", "validate", "dir")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "checked 1 file: 1 valid" in proc.stderr + proc.stdout


def test_a_device_is_not_a_config(tree: Path) -> None:
    proc = tvmc(tree, "config", "show", "--config", "/dev/zero")
    assert proc.returncode == 1 and "/dev/zero: is a device, not a config file" in proc.stderr
