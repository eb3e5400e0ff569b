"""`tvmc config show` and `tvmc config list` through typer's CliRunner, with golden files."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from tvmc.cli.app import app
from typer.testing import CliRunner

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "config_show"
runner = CliRunner()

CASES = {
    "aws-c5.toml": ["config", "show", "--config", "aws/c5"],
    "aws-c5.json": ["config", "show", "--config", "aws/c5", "--format", "json"],
    "aws-c5-cascadelake-origin.json": [
        "config",
        "show",
        "--config",
        "aws/c5",
        "--format",
        "json",
        "--target-llvm-mcpu=cascadelake",
        "--origin",
    ],
    "aws-c5-origin.txt": ["config", "show", "--config", "aws/c5", "--origin"],
    "default.toml": ["config", "show"],
    "a100-aot-rewrites.toml": [
        "config",
        "show",
        "--target",
        "nvidia/nvidia-a100",
        "--target-host",
        "llvm",
        "--executor",
        "vm",
        "--pass-config",
        "tir.disable_vectorize=true",
        "-O",
        "2",
        "--set",
        "build.module-name=net",
    ],
}


def run(args: list[str]) -> tuple[int, str, str]:
    result = runner.invoke(app, args)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("name", sorted(CASES))
def test_config_show_golden(name: str) -> None:
    code, out, err = run(CASES[name])
    assert code == 0, err
    golden = GOLDEN / name
    if os.environ.get("TVMC_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(out, encoding="utf-8")
    assert out == golden.read_text(encoding="utf-8")


def test_done_when_aws_c5_mcpu_flag_and_origins() -> None:
    code, out, _ = run(CASES["aws-c5-cascadelake-origin.json"])
    assert code == 0
    doc = json.loads(out)
    assert [t["kind"] for t in doc["targets"]] == ["llvm"]
    assert doc["targets"][0]["mcpu"] == "cascadelake"
    origins = doc["origins"]
    assert origins["/targets/0/mcpu"] == "--target-llvm-mcpu=cascadelake"
    assert origins["/targets/0/mtriple"].startswith("configs/aws/c5.toml:") or origins["/targets/0/mtriple"].endswith(
        tuple(f"c5.toml:{n}:1" for n in range(1, 30))
    )


def test_output_is_byte_identical_across_runs(tmp_path: Path) -> None:
    first = run(CASES["a100-aot-rewrites.toml"])[1]
    assert run(CASES["a100-aot-rewrites.toml"])[1] == first


def test_output_file_written_atomically_and_inputs_protected(tmp_path: Path) -> None:
    out = tmp_path / "out.toml"
    code, stdout, _ = run(["config", "show", "--config", "aws/c5", "-o", str(out)])
    assert code == 0 and stdout == "" and out.read_text().startswith("description")
    config = tmp_path / "mine.toml"
    config.write_text('targets = ["llvm"]\n')
    code, _, err = run(["config", "show", "--config", str(config), "-o", str(config)])
    assert code == 2 and "refusing to overwrite" in err
    assert config.read_text() == 'targets = ["llvm"]\n'
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (["config", "show", "--config", "aws/c55"], 1, "aws/c5"),
        (["config", "show", "--target-llvm-num-cores", "four"], 2, "--target-llvm-num-cores"),
        (["config", "show", "--set", "nope=1"], 2, "unknown config key"),
        (["config", "show", "--target", "llvm -mcpu='x"], 1, "quote"),
        (["config", "show", "--no-such-flag"], 2, "No such option"),
    ],
)
def test_errors_are_one_line_with_exit_codes(args: list[str], code: int, needle: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.output
    assert needle in result.stderr
    assert "Traceback" not in result.output
    assert len([line for line in result.stderr.splitlines() if line.startswith("tvmc: error")]) <= 1


def test_help_names_the_generated_flags_without_listing_them() -> None:
    result = runner.invoke(app, ["config", "show", "--help"])
    assert result.exit_code == 0
    out = result.stdout
    assert "--target-KIND-ATTR" in out and "tvmc target show KIND" in out and "--executor-NAME-OPT" in out
    assert "--target-llvm-mcpu " not in out and "--target-aocl" not in out and "Target llvm options" not in out
    for needle in ("TVMC_CONFIG ", "TVMC_CONFIG_PATH", "TVMC_TARGET,", "TVMC_OPT_LEVEL", "~/.config/"):
        assert needle in out
    # hidden, not gone: the flags still work
    shown = runner.invoke(app, ["config", "show", "--target", "llvm", "--target-llvm-mcpu", "znver3"])
    assert shown.exit_code == 0 and 'mcpu = "znver3"' in shown.stdout


def test_config_list_shows_shipped_configs() -> None:
    code, out, _ = run(["config", "list", "--format", "json"])
    assert code == 0
    doc = json.loads(out)
    names = {c["name"] for c in doc["configs"]}
    assert {"aws/c5", "host/default"} <= names
    assert [d["origin"] for d in doc["search_path"]][-1] == "shipped"


def test_version_and_help() -> None:
    assert runner.invoke(app, ["--version"]).stdout.startswith("tvmc ")
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0 and "config" in result.stdout and "target" in result.stdout


def test_show_as_tvm_target_reports_what_a_target_cannot_hold() -> None:
    result = runner.invoke(
        app,
        [
            "config",
            "show",
            "--target",
            "cuda -arch=sm_80",
            "--target-host",
            "llvm",
            "--pass-config",
            "tir.disable_vectorize=true",
            "--as",
            "tvm-target",
        ],
    )
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["kind"] == "cuda" and doc["arch"] == "sm_80" and doc["host"]["kind"] == "llvm"
    assert "pass-config" in result.stderr


def test_json_config_may_name_its_schema(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('{"$schema": "../schemas/compilation-config.schema.json", "targets": ["llvm"]}')
    code, out, err = run(["config", "show", "--config", str(path), "--format", "json"])
    assert code == 0, err and "$schema" not in out


def test_legacy_options_in_target_flags_are_lifted_with_a_note() -> None:
    code, out, err = run(["config", "show", "--target", "c -link-params=0", "--format", "json"])
    assert code == 0, err
    assert json.loads(out)["executor"] == {"kind": "graph", "link-params": False}
    assert "link-params moved to executor.link-params" in err


def test_config_list_shows_tag_configs_apart_from_files() -> None:
    code, out, _ = run(["config", "list"])
    assert code == 0 and out.rstrip().endswith("(and 287 TVM tags, usable as config names: tvmc config list --tags)")
    code, out, _ = run(["config", "list", "--tags"])
    lines = out.splitlines()
    tags_at = lines.index("TVM tags (usable as config names):")
    assert "  nvidia/geforce-rtx-4090" in lines[tags_at:] and all("aws/c5 " not in x for x in lines[tags_at:])
    doc = json.loads(run(["config", "list", "--format", "json"])[1])
    assert len(doc["tags"]) == 287 and "nvidia/nvidia-a100" in doc["tags"]


def test_detect_without_tvm_says_what_it_needs(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "tvm", None)
    result = CliRunner().invoke(app, ["config", "detect"])
    assert result.exit_code == 1
    assert re.search(r"needs the Python packages? 'apache-tvm'", result.stderr), result.stderr
    assert "pip install 'apache-tvm==0.27.0.post1'" in result.stderr


@pytest.mark.parametrize(
    ("flags", "first", "second"),
    [
        (["--hash", "--origin"], "--hash", "--origin"),
        (["--hash", "--as", "tvm-target"], "--hash", "--as tvm-target"),
        (["--as", "tvm-target", "--format", "toml"], "--as tvm-target", "--format toml"),
        (["--as", "tvm-target", "-f", "toml"], "--as tvm-target", "--format toml"),
        (["--origin", "--as", "tvm-target"], "--as tvm-target", "--origin"),
        (["--format", "json", "--hash"], "--hash", "--format json"),
    ],
)
def test_conflicting_show_options_are_refused(flags: list[str], first: str, second: str) -> None:
    result = runner.invoke(app, ["config", "show", "--config", "aws/c5", *flags])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    errors = result.stderr.splitlines()
    assert errors == [f"tvmc: error: {first} and {second} cannot be used together"]


@pytest.mark.parametrize(
    "flags", [["--hash"], ["--hash", "--as", "config"], ["--as", "tvm-target", "--format", "json"], ["--origin"]]
)
def test_options_that_agree_are_accepted(flags: list[str]) -> None:
    result = runner.invoke(app, ["config", "show", "--config", "aws/c5", *flags])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("value", [-8, 0])
def test_a_byte_alignment_below_one_is_refused(value: int, tmp_path: Path) -> None:
    """A negative (or zero) executor byte alignment was accepted and reached TVM, which rounds
    buffer sizes up to a multiple of it: the rule engine's invalid-value rule refuses it, given with
    --set or in a file, in one line naming where."""
    table = f'{{kind="aot", workspace-byte-alignment={value}}}'
    config = tmp_path / "aot.toml"
    config.write_text(
        f'tvm-version = "<=0.19"\ntargets = ["c"]\n\n[executor]\nkind = "aot"\nconstant-byte-alignment = {value}\n'
    )
    runner = CliRunner()
    given = runner.invoke(app, ["config", "show", "--set", 'tvm-version="<=0.19"', "--set", f"executor={table}"])
    in_file = runner.invoke(app, ["config", "show", "-c", str(config)])
    for result, where, option in ((given, f"--set=executor={table}", "executor.workspace"), (in_file, config, "6:1")):
        assert result.exit_code == 1, result.output
        assert len(result.output.splitlines()) == 1 and f"{where}" in result.output, result.output
        assert f"{value} is less than 1, the least" in result.output and option in result.output
    fine = runner.invoke(app, ["config", "show", "--set", 'tvm-version="<=0.19"', "--set", "executor={kind='aot'}"])
    assert fine.exit_code == 0 and "workspace-byte-alignment = 16" in fine.output, fine.output
