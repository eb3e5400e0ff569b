"""`tvmc.diff` and `tvmc config diff A B`: key paths, origins, exit status."""

from __future__ import annotations

import json
import re
from pathlib import Path

import typer
from tvmc import api
from tvmc.diff import ABSENT, diff, format_text
from typer.testing import CliRunner

runner = CliRunner()


def test_equal_configs_have_no_difference() -> None:
    assert diff(api.resolve(["aws/c5"]), api.resolve(["aws/c5"])) == []


def test_differences_key_by_key_with_origins() -> None:
    left = api.resolve(["aws/c5"])
    right = api.resolve(["aws/c5"], [("--target-llvm-mcpu", "cascadelake"), ("-O", "2")])
    found = {d.path: d for d in diff(left, right)}
    assert set(found) == {"targets[0].mcpu", "host.mcpu", "opt-level"}
    mcpu = found["targets[0].mcpu"]
    assert (mcpu.left, mcpu.right, mcpu.change) == ("skylake-avx512", "cascadelake", "changed")
    assert "configs/aws/c5.toml:" in str(mcpu.left_origin)
    assert str(mcpu.right_origin) == "--target-llvm-mcpu=cascadelake"
    assert str(found["opt-level"].left_origin) == "default" and found["opt-level"].right == 2


def test_added_and_removed_tables() -> None:
    found = {d.path: d for d in diff(api.resolve(["host/default"]), api.resolve(["boards/stm32f746-disco"]))}
    executor = found["executor"]
    assert executor.left is ABSENT and executor.change == "added" and executor.left_origin is None
    assert executor.right["kind"] == "aot" and "microcontroller-aot.toml" in str(executor.right_origin)
    assert "description" not in found  # like the fingerprint, diff ignores the description


def test_target_lists_are_compared_element_by_element() -> None:
    one = api.resolve([], [("--target", "llvm")])
    two = api.resolve([], [("--target", "llvm"), ("--target", "cuda -arch=sm_80")])
    found = {d.path: d for d in diff(one, two)}
    assert found["targets[1]"].change == "added" and found["targets[1]"].right["arch"] == "sm_80"
    assert "targets[0]" not in found


def test_text_format() -> None:
    left = api.resolve(["aws/c5"])
    right = api.resolve(["aws/c5"], [("--target-llvm-mcpu", "cascadelake")])
    text = format_text(diff(left, right), "aws/c5", "aws/c5 (cascadelake)")
    lines = text.splitlines()
    assert lines[:2] == ["--- aws/c5", "+++ aws/c5 (cascadelake)"]
    index = lines.index("targets[0].mcpu")
    origin = r"\[\S*configs/aws/c5\.toml:\d+:\d+ \(via --config aws/c5\)\]"
    assert re.fullmatch(r'  - "skylake-avx512"    ' + origin, lines[index + 1])
    assert lines[index + 2] == '  + "cascadelake"    [--target-llvm-mcpu=cascadelake]'
    assert format_text([], "a", "b") == ""


def test_cli_exit_status_and_side_rewrites(app: typer.Typer) -> None:
    same = runner.invoke(app, ["config", "diff", "aws/c5", "aws/c5"])
    assert (same.exit_code, same.stdout) == (0, "")
    changed = runner.invoke(app, ["config", "diff", "aws/c5", "aws/c5", "--right-set", "targets[0].mcpu=cascadelake"])
    assert changed.exit_code == 1
    assert '  + "cascadelake"    [--right-set=targets[0].mcpu=cascadelake]' in changed.stdout
    both = runner.invoke(
        app,
        [
            "config",
            "diff",
            "aws/c5",
            "aws/c5",
            "--set",
            "opt-level=1",
            "--left-set",
            "opt-level=2",
            "--right-set",
            "opt-level=2",
        ],
    )
    assert both.exit_code == 0  # the shared rewrite is applied first, then each side's own


def test_cli_json_and_refs(app: typer.Typer, tmp_path: Path) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text('targets = ["nvidia/jetson-nano"]\n', encoding="utf-8")
    result = runner.invoke(app, ["config", "diff", "nvidia/jetson-nano:cuda", str(mine), "--format", "json"])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["equal"] is False and doc["left"]["config"] == "nvidia/jetson-nano:cuda"
    paths = {d["path"]: d for d in doc["differences"]}
    # The tag's own host is the host either way: written once, at the config level, on both sides.
    assert "targets[0].host" not in paths and "host" not in paths
    assert paths["build"]["right"] is None and paths["build"]["left"]["value"] == {
        "cross-compiler": "aarch64-linux-gnu-gcc"
    }
    equal = json.loads(runner.invoke(app, ["config", "diff", "aws/c5", "aws/c5", "-f", "json"]).stdout)
    assert equal["equal"] is True and equal["left"]["fingerprint"] == equal["right"]["fingerprint"]


def test_cli_errors_are_exit_2_not_different(app: typer.Typer) -> None:
    missing = runner.invoke(app, ["config", "diff", "aws/c5", "aws/c55"])
    assert missing.exit_code == 2 and "aws/c5" in missing.stderr
    bad = runner.invoke(app, ["config", "diff", "aws/c5", "aws/c5", "--left-set", "nope=1"])
    assert bad.exit_code == 2 and "unknown config key" in bad.stderr


def test_origins_name_the_sides_as_typed_not_a_config_flag(app: typer.Typer) -> None:
    # The user typed `config diff aws/c5 aws/c5.large`, no --config: origins said "(via --config aws/c5.large)".
    result = runner.invoke(app, ["config", "diff", "aws/c5", "aws/c5.large"])
    assert result.exit_code == 1 and "(via aws/c5.large)]" in result.stdout
    assert "--config" not in result.stdout + result.stderr
    stdin = runner.invoke(app, ["config", "diff", "-", "aws/c5"], input='targets = ["llvm"]\n')
    assert stdin.exit_code == 1 and "<stdin>:1:12 (via -)]" in stdin.stdout and "--config" not in stdin.stdout


def test_stdin_on_both_sides_is_one_usage_error(app: typer.Typer) -> None:
    # The second side read an exhausted stdin: "standard input is empty (--config - reads ...)".
    result = runner.invoke(app, ["config", "diff", "-", "-"], input='targets = ["llvm"]\n')
    assert result.exit_code == 2
    assert result.stderr == "tvmc: error: A and B are both '-': standard input can be read once\n"
