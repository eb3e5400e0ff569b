"""`tvmc --help` without click and typer (tvmc.cli.entry): the generated text is current, and a real
process prints exactly what click prints, at every width and for -h alike; click is imported only
where it lays the help out differently (fewer than 80 columns)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from testkit import cli_env, load_script

SLOW = "import sys; sys.argv = ['tvmc', *sys.argv[1:]]; from tvmc.cli.app import main; main()"


def _run(args: list[str], columns: str | None, *, slow: bool = False) -> subprocess.CompletedProcess[str]:
    env = cli_env(TYPER_USE_RICH="0", NO_COLOR="1")
    env.pop("COLUMNS", None)
    if columns is not None:
        env["COLUMNS"] = columns
    head = ["-c", SLOW] if slow else ["-X", "importtime", "-m", "tvmc"]
    return subprocess.run([sys.executable, *head, *args], capture_output=True, text=True, env=env, timeout=60)


def test_the_generated_root_help_is_current() -> None:
    assert load_script("gen_root_help").main(["--check"]) == 0, "run scripts/gen_root_help.py"


def test_the_check_mode_finds_a_stale_module(tmp_path: Path) -> None:
    module = load_script("gen_root_help")
    stale = tmp_path / "root_help.py"
    stale.write_text('COLUMNS = 80\nTEXT = "Usage: tvmc\\n"\n', encoding="utf-8")
    assert module.main(["--check", "--module", str(stale)]) == 1
    assert module.main(["--module", str(stale)]) == 0
    assert module.main(["--check", "--module", str(stale)]) == 0


@pytest.mark.parametrize("columns", [None, "80", "200", "79", "60", "x"])
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_root_help_is_clicks_and_needs_click_only_when_narrow(flag: str, columns: str | None) -> None:
    fast, slow = _run([flag], columns), _run([flag], columns, slow=True)
    assert fast.returncode == slow.returncode == 0, fast.stderr[-2000:]
    assert fast.stdout == slow.stdout and fast.stdout.startswith("Usage: tvmc [OPTIONS] COMMAND")
    imported = {line.split("|")[-1].strip() for line in fast.stderr.splitlines() if line.startswith("import time:")}
    narrow = columns is not None and columns.isdigit() and int(columns) < 80
    assert ("click" in imported) == narrow and ("typer" in imported) == narrow


@pytest.mark.parametrize("args", [["--help", "config"], ["config", "--help"], ["--version"]])
def test_other_argument_lists_take_the_ordinary_path(args: list[str]) -> None:
    fast, slow = _run(args, "120"), _run(args, "120", slow=True)
    assert (fast.returncode, fast.stdout) == (slow.returncode, slow.stdout)
    assert any(line.split("|")[-1].strip() == "click" for line in fast.stderr.splitlines())


def test_a_full_disk_is_one_line_and_exit_1() -> None:
    env = cli_env(TYPER_USE_RICH="0", NO_COLOR="1", COLUMNS="120")
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "tvmc", "--help"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=60,
        )
    assert done.returncode == 1 and done.stderr == "tvmc: error: cannot write the output: No space left on device\n"
