"""`tvmc config explain PATH`: every layer that set a value, the winner last (issue 15)."""

from __future__ import annotations

import json
from pathlib import Path

from tvmc.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, ["config", "explain", *args], env=env)
    return result.exit_code, result.stdout, result.stderr


def test_each_layer_then_the_canonical_value() -> None:
    code, out, err = run("targets[0].mcpu", "-c", "aws/c5", "--target-llvm-mcpu", "znver3")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("configs/aws/c5.toml:") and lines[0].endswith('\ttargets[0].mcpu = "skylake-avx512"')
    assert lines[1:] == [
        '--target-llvm-mcpu=znver3\ttargets[0].mcpu = "znver3"',
        'canonical\ttargets[0].mcpu = "znver3"',
    ]


def test_environment_before_flags() -> None:
    code, out, _ = run("opt-level", "-c", "aws/c5", "-O", "2", env={"TVMC_OPT_LEVEL": "1"})
    assert code == 0
    assert out.splitlines() == [
        "default\topt-level = 3",
        "env TVMC_OPT_LEVEL\topt-level = 1",
        "-O 2\topt-level = 2",
        "canonical\topt-level = 2",
    ]


def test_a_removed_value_exits_1_after_its_history() -> None:
    code, out, err = run("targets[0].mcpu", "-c", "aws/c5", "--target", "cuda")
    assert code == 1
    assert out.splitlines()[-1] == "--target=cuda\ttargets[0].mcpu unset"
    assert err == "tvmc: targets[0].mcpu is not set\n"


def test_a_value_from_a_tag_names_it_and_a_derived_host_says_so() -> None:
    code, out, _ = run("host.mcpu", "-c", "nvidia/jetson-agx-orin-64gb")
    assert code == 0
    assert '(expanded from "nvidia/jetson-agx-orin-64gb")' in out
    code, out, _ = run("host.mcpu", "-c", "aws/c5")
    assert code == 0
    assert out.splitlines()[0] == "# host.mcpu is targets[0].mcpu as written (the host is derived from it)"


def test_json() -> None:
    code, out, _ = run("executor.kind", "--executor", "aot", "--executor", "graph", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert [(s["origin"], s["value"]) for s in doc["steps"]] == [
        ("--executor=aot", "aot"),
        ("--executor=graph", "graph"),
    ]
    assert (doc["value"], doc["origin"], doc["set"]) == ("graph", "--executor=graph", True)


def test_a_config_error_after_the_history_is_one_line_exit_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('targets = ["llvm"]\nopt-level = 9\n', encoding="utf-8")
    code, out, err = run("opt-level", "-c", str(bad))
    assert code == 1
    assert out.splitlines()[-1].endswith("\topt-level = 9")
    assert err.startswith("tvmc: error: ") and err.count("\n") == 1


def test_a_bad_path_is_a_usage_error() -> None:
    code, out, err = run("opt-levl", "-c", "aws/c5")
    assert (code, out) == (2, "")
    assert "did you mean 'opt-level'" in err
