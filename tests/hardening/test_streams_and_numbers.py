"""Tracebacks found by the fault campaign (issue 14, item 4), as properties over every command:
closed standard streams, a non-UTF-8 output encoding, integers too long for int(), Ctrl-C at any
moment, and a file's non-list `targets` under a selector."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testkit import cli_env

from .harness import MODEL, run_cli

BIG = "9" * 5000
COMMANDS = [
    ["config", "show", "--config", "aws/c5"],
    ["config", "show", "--config", "aws/c5", "--format", "json", "--origin"],
    ["config", "validate", "CONFIG"],
    ["config", "list"],
    ["config", "schema"],
    ["config", "migrate", "tvmc compile --target llvm m.onnx"],
    ["target", "canonicalize", "cuda"],
    ["compile", str(MODEL), "--emit", "plan"],
    ["--help"],
]


def shell(line: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", line], cwd=cwd, capture_output=True, text=True, env=cli_env(**env), timeout=60, check=False
    )


def argv(command: list[str], config: Path) -> str:
    import shlex

    return " ".join(shlex.quote(str(config) if a == "CONFIG" else a) for a in command)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "é-config.toml"
    path.write_text('targets = ["llvm"]\n[pass-config]\n"é.unknown" = 1\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
@pytest.mark.parametrize("closed", [">&-", "2>&-", "<&-", ">&- 2>&-"])
def test_closed_standard_streams(command: list[str], closed: str, config: Path, tmp_path: Path) -> None:
    proc = shell(f"{sys.executable} -m tvmc {argv(command, config)} {closed}", tmp_path)
    assert "Traceback" not in proc.stderr and "Error:" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1), proc.stderr
    if closed.startswith(">&-") and "2>&-" not in closed and command != ["--help"]:
        assert proc.returncode == 1 and "cannot write the output" in proc.stderr


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
@pytest.mark.parametrize("encoding", [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "LANG": "C"}])
def test_output_is_utf8_whatever_the_locale(command: list[str], encoding: dict[str, str], config: Path) -> None:
    line = f"{sys.executable} -m tvmc {argv(command, config)}"
    proc = subprocess.run(["bash", "-c", line], capture_output=True, env=cli_env(**encoding), timeout=60, check=False)
    assert b"Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1), proc.stderr
    proc.stdout.decode("utf-8")  # UTF-8 bytes, never the locale's encoding
    if "validate" in command:
        for fmt in ("text", "json", "github"):
            report = subprocess.run(
                [sys.executable, "-m", "tvmc", "config", "validate", "--format", fmt, str(config)],
                capture_output=True,
                env=cli_env(**encoding),
                timeout=60,
                check=False,
            )
            # An unknown pass config is an error, reported with its name in UTF-8.
            assert report.returncode == 1 and "é".encode() in report.stdout, report.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["config", "show", "--target", "llvm", "-O", BIG],
        ["config", "show", "--target", "llvm", "--set", f"opt-level={BIG}"],
        ["config", "show", "--target", "llvm", "--pass-config", f"tir.x={BIG}"],
        ["config", "show", "--target", "llvm", "--target-llvm-num-cores", BIG],
        ["config", "show", "--target", f"llvm -num-cores={BIG}"],
        ["config", "migrate", f"tvmc compile --target llvm -O {BIG} m.onnx"],
        ["config", "migrate", '{"pass-config": {"a": ' + BIG + "}}"],
        ["target", "canonicalize", '{"kind": "llvm", "num-cores": ' + BIG + "}"],
        ["compile", str(MODEL), "--input-shapes", f"x:[{BIG},8]", "--emit", "plan"],
    ],
    ids=[
        "-O",
        "--set",
        "--pass-config",
        "--target-llvm",
        "target-string",
        "migrate-line",
        "migrate-json",
        "json",
        "shapes",
    ],
)
def test_an_integer_too_long_for_int_is_a_one_line_error(args: list[str]) -> None:
    result = run_cli(args)  # also checks: one `tvmc: error:` line, no traceback
    assert result.exit_code in (1, 2), result.stderr[-300:]


def test_an_integer_too_long_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TVMC_OPT_LEVEL", BIG)
    result = run_cli(["config", "show", "--target", "llvm"])
    assert result.exit_code in (1, 2) and "TVMC_OPT_LEVEL" in result.stderr


def test_a_selector_over_a_files_non_list_targets(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text("targets = 1\n")
    for flags in (["--set", "targets[kind=llvm].mcpu=x"], ["--target-llvm-mcpu", "x"]):
        result = run_cli(["config", "show", "--config", str(tmp_path / "t.toml"), *flags])
        assert result.exit_code in (1, 2) and "targets is not a list" in result.stderr


def _handler_line() -> int:
    """The line of `tvmc/cli/entry.py` that puts the Ctrl-C handler in force."""
    source = (Path(__file__).parents[2] / "cli" / "tvmc" / "cli" / "entry.py").read_text().splitlines()
    return next(n for n, line in enumerate(source, 1) if line.startswith("_signal.signal("))


def _before_the_handler(frame: str) -> bool:
    """A traceback frame of tvmc code that runs before the handler: the package's docstring-only
    `__init__`s, `__main__`'s import line, and `entry.py` up to the handler (a signal there is
    Python's default KeyboardInterrupt; nothing of tvmc can catch it yet)."""
    match = re.search(r'File "([^"]+)", line (\d+)', frame)
    if match is None:
        return False
    path, line = match.group(1), int(match.group(2))
    if path.endswith(("/tvmc/__init__.py", "/tvmc/cli/__init__.py")):
        return True
    if path.endswith("/tvmc/__main__.py"):
        return line == 1
    return path.endswith("/tvmc/cli/entry.py") and line <= _handler_line()


def test_ctrl_c_at_any_moment_is_quiet(tmp_path: Path) -> None:
    """SIGINT at random points of start-up and work: exit 130 (or killed before Python's handler is
    in place), never a KeyboardInterrupt traceback."""
    for delay in [0.0, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.15, 0.2, 0.3]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tvmc", "config", "show", "--config", "aws/c5", "--origin"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=cli_env(),
            cwd=tmp_path,
        )
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        text = err.decode(errors="replace")
        frames = [line for line in text.splitlines() if line.strip().startswith('File "')]
        ours = [f for f in frames if "/tvmc/" in f and not _before_the_handler(f)]
        if "Traceback" in text and not ours:  # Python starting `-m tvmc`: the handler is not in place yet
            continue
        if text.startswith("Fatal Python error: init_import_site"):  # interrupted in `site`: before tvmc too
            continue
        assert "Traceback" not in text, (delay, text)
        assert proc.returncode in (0, 130, -signal.SIGINT), (delay, proc.returncode)
    assert os.listdir(tmp_path) == []
