"""Hostile command lines: each bug the hardening properties found, and real-process behaviour
(undecodable argv bytes, a strict UTF-8 stdout, a full disk, a closed pipe) that CliRunner cannot show."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import cli_env
from tvmc import api, targets
from tvmc.errors import LimitError, TargetError, UsageError

from .harness import MODEL, check_output, run_cli

DEEP = "[" * 300 + "]" * 300


def tvmc(
    *args: str | bytes,
    stdout: int | None = subprocess.PIPE,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    input: bytes | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[bytes]:
    """A real `python -m tvmc` process; stdout is strict UTF-8, as under an en_US.UTF-8 locale."""
    return subprocess.run(
        [sys.executable, "-m", "tvmc", *args],
        input=input,
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=cli_env(**{"PYTHONIOENCODING": "utf-8", "TYPER_USE_RICH": "0", **(env or {})}),
        cwd=cwd,
        timeout=timeout,
        check=False,
    )


def checked(proc: subprocess.CompletedProcess[bytes], args: tuple[str | bytes, ...]) -> tuple[str, str]:
    stdout = (proc.stdout or b"").decode("utf-8", "replace")
    stderr = proc.stderr.decode("utf-8", "replace")
    check_output(proc.returncode, stdout, stderr, [str(a) for a in args])
    return stdout, stderr


@pytest.mark.parametrize(
    "args",
    [
        ("config", "show", "--config", "aws/c5", b"--set=description=\xff"),
        ("config", "show", "--config", "aws/c5", "--target", b"llvm -mcpu=\xff"),
        ("config", "show", "--config", b"\xff"),
        ("target", "canonicalize", "--format", "legacy", b"llvm -mcpu=\xfe"),
        ("compile", str(MODEL), "--emit", "tvmc", b"--target-llvm-mcpu=\xff"),
    ],
)
def test_undecodable_argv_bytes_are_reported_not_crashed_on(args: tuple[str | bytes, ...]) -> None:
    proc = tvmc(*args)
    _, stderr = checked(proc, args)
    assert proc.returncode in (1, 2)
    assert stderr.count("\n") == 1 and stderr.startswith("tvmc: error: ")


def test_a_config_file_with_an_undecodable_name_loads_and_shows_its_origin(tmp_path: Path) -> None:
    (tmp_path / os.fsdecode(b"\xff.toml")).write_text('targets = ["llvm"]\n')
    proc = tvmc("config", "show", "--config", b"./\xff.toml", "--origin", cwd=tmp_path)
    stdout, _ = checked(proc, ())
    assert proc.returncode == 0 and "\\udcff.toml" in stdout


@pytest.mark.parametrize("value", ["a\nb", "x\r\n-y", "a\u2028b", "tab\there", "\x85"])
def test_line_breaks_in_flags_stay_on_one_line(value: str) -> None:
    result = run_cli(["config", "show", "--config", "aws/c5", f"--target=llvm -mcpu=x {value}"])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    shown = run_cli(["config", "show", "--config", "aws/c5", f"--set=description={value}", "--origin"])
    header, *lines = shown.stdout.splitlines()  # also splits at U+2028, U+0085, ...
    assert header.startswith("# ")  # which user/env inputs took part
    assert all("\t" in line for line in lines), "an origin or value broke its line"
    assert len(lines) + 1 == len(shown.stdout.split("\n")) - 1


def test_a_missing_config_with_a_line_break_in_its_name_is_one_line() -> None:
    with pytest.raises(Exception) as info:
        api.resolve(["a\nb"], env={})
    assert "\n" not in info.value.args[0]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("args", [("config", "show", "--config", "aws/c5"), ("--help",), ("target", "list")])
def test_a_full_disk_is_an_error_not_a_traceback(args: tuple[str, ...]) -> None:
    with open("/dev/full", "wb") as full:
        proc = tvmc(*args, stdout=full.fileno())
    _, stderr = checked(proc, args)
    assert proc.returncode == 1 and "No space left on device" in stderr


def test_a_closed_pipe_ends_quietly() -> None:
    cmd = [sys.executable, "-m", "tvmc", "target", "list"]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(TYPER_USE_RICH="0")) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.read(10)
        proc.stdout.close()  # like `| head -c 10`
        stderr = proc.stderr.read().decode()
        proc.wait(timeout=60)
    assert proc.returncode in (0, 1) and "Traceback" not in stderr and "Exception ignored" not in stderr


@pytest.mark.parametrize(
    "flag", ["--set=pass-config.x=" + DEEP, "--set=build.module-name=" + DEEP, "--set=pass-config" + ".a" * 70 + "=1"]
)
def test_deeply_nested_flag_values_are_refused_like_deep_files(flag: str) -> None:
    result = run_cli(["config", "show", "--config", "aws/c5", flag])
    assert result.exit_code in (0, 2)  # build.module-name is a string: the text itself is the value
    if "pass-config" in flag:
        assert "deeper than 64 levels" in result.stderr


@pytest.mark.parametrize("depth", [65, 1000, 100_000])
def test_deep_json_targets_are_refused(depth: int, tmp_path: Path) -> None:
    text = '{"kind": "llvm", "mattr": ' + "[" * depth + "]" * depth + "}"
    with pytest.raises((TargetError, LimitError), match=r"nested deeper than 64 levels|longer than 65536"):
        targets.parse_target(text)
    config = tmp_path / "deep.json"
    config.write_text('{"targets": [' + repr(text).replace("'", '"') + "]}")
    result = run_cli(["config", "show", "--config", str(config)])
    assert result.exit_code == 1


def test_the_path_limit_is_on_the_path_not_the_value() -> None:
    long = "x" * 5000
    assert api.resolve(["aws/c5"], [("--set", f"description={long}")], env={}).config.description == long
    with pytest.raises(UsageError, match="path longer than 1000"):
        api.resolve(["aws/c5"], [("--set", "pass-config." + "a." * 600 + "b=1")], env={})


def test_flag_values_have_the_string_limit_of_files() -> None:
    with pytest.raises(UsageError, match="longer than 65536"):
        api.resolve(["aws/c5"], [("--set", "description=" + "x" * 70_000)], env={})


def test_to_legacy_refuses_values_an_undeclared_option_cannot_round_trip() -> None:
    canonical = targets.canonicalize({"kind": "mrvl", "devices": True})
    with pytest.raises(TargetError, match="does not declare the option"):
        targets.to_legacy(canonical)
    text = targets.to_legacy(targets.canonicalize({"kind": "mrvl", "devices": "x"}))
    assert targets.canonicalize(targets.parse_target(text).spec)["devices"] == "x"


def test_a_few_hostile_command_lines_in_real_processes() -> None:
    for args in [
        ("config", "show", "--set", "targets[kind=llvm].mcpu==x"),
        ("config", "show", "--config", "aws/c5", "-O", "[" * 5000),
        ("config", "show", "--unset", "targets[-9]"),
        ("target", "canonicalize", "--", "llvm -mcpu='unterminated", "{", "nvidia/no-such"),
        ("compile", str(MODEL), "--emit", "relay", "--input-shapes", "x:[1,", "--config", "aws/c5"),
    ]:
        checked(tvmc(*args), args)  # exit 0, 1 or 2, one `tvmc:` line per message, no traceback


def test_target_stdin_is_read_like_a_config_file() -> None:
    proc = tvmc("target", "canonicalize", "-", input=b"llvm\n\xff\n")
    _, stderr = checked(proc, ("target", "canonicalize", "-"))
    assert proc.returncode == 1 and "<stdin>:2: invalid UTF-8 (byte 0xff)" in stderr
    huge = run_cli(["target", "canonicalize", "-"], stdin="llvm\n" * 300_000)
    assert huge.exit_code == 1 and "larger than 1000000 bytes" in huge.stderr


def test_long_targets_are_refused_and_never_echoed_whole() -> None:
    result = run_cli(["target", "canonicalize", "--", "x" * 70_000, "y" * 3_000])
    assert result.exit_code == 1 and "longer than 65536" in result.stderr
    assert "(3000 characters)" in result.stderr and len(result.stderr) < 1_000


@pytest.mark.parametrize("what", ["invalid-utf8", "oversized", "long-token"])
def test_migrate_reads_stdin_like_a_config_file(what: str) -> None:
    data = {
        "invalid-utf8": b"tvmc compile --target llvm \xff m.onnx\n",
        "oversized": b"\0" * 1_000_001,
        "long-token": b"tvmc compile --target 'llvm " + b"x" * 900_000 + b"' m.onnx\n",
    }[what]
    proc = tvmc("config", "migrate", "-", input=data, timeout=5)
    checked(proc, ("config", "migrate", "-"))
    assert proc.returncode == 1
