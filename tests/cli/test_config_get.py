"""`tvmc config get PATH [--origin]`: one value of the resolved config, like `git config --get` (issue 15)."""

from __future__ import annotations

import json
import tomllib

import pytest
from tvmc.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["config", "get", *args])
    return result.exit_code, result.stdout, result.stderr


def test_a_string_prints_as_it_is() -> None:
    assert run("targets[0].mcpu", "-c", "aws/c5") == (0, "skylake-avx512\n", "")


def test_a_selector_and_a_rewrite_apply_as_in_config_show() -> None:
    code, out, _ = run("targets[kind=llvm].mcpu", "-c", "aws/c5", "--target-llvm-mcpu", "znver3")
    assert (code, out) == (0, "znver3\n")


def test_other_scalars_and_lists_print_in_toml_syntax() -> None:
    assert run("opt-level", "-c", "aws/c5", "-O", "1")[:2] == (0, "1\n")
    assert run("targets[0].keys", "-c", "aws/c5")[:2] == (0, '["x86", "cpu"]\n')
    assert run("runtime.system-lib", "--set", "runtime.system-lib=true")[:2] == (0, "true\n")


def test_a_table_prints_as_toml_and_as_json() -> None:
    code, out, _ = run("host", "-c", "aws/c5")
    assert code == 0
    assert tomllib.loads(out)["mcpu"] == "skylake-avx512"
    code, out, _ = run("host", "-c", "aws/c5", "--format", "json")
    assert code == 0
    assert json.loads(out)["mtriple"] == "x86_64-linux-gnu"


def test_a_list_of_tables_prints_as_toml_array_of_tables() -> None:
    code, out, _ = run("targets", "--target", "cuda", "--target", "llvm")
    assert code == 0
    assert [t["kind"] for t in tomllib.loads(out)["targets"]] == ["cuda", "llvm"]


def test_origin_is_prefixed_like_git_config_show_origin() -> None:
    code, out, _ = run("targets[0].mcpu", "-c", "aws/c5", "--origin")
    assert code == 0
    origin, value = out.rstrip("\n").split("\t")
    assert value == "skylake-avx512"
    assert origin.startswith("configs/aws/c5.toml:") and origin.endswith("(via --config aws/c5)")
    assert run("targets[0].mcpu", "-c", "aws/c5", "--target-llvm-mcpu=znver3", "--origin")[1] == (
        "--target-llvm-mcpu=znver3\tznver3\n"
    )


def test_origin_of_a_table_is_one_line_per_value() -> None:
    code, out, _ = run("host", "-c", "aws/c5", "--origin")
    assert code == 0
    lines = out.splitlines()
    assert any(line.endswith('\thost.mcpu = "skylake-avx512"') for line in lines)
    assert all("\thost." in line for line in lines)


def test_origin_in_json() -> None:
    code, out, _ = run("executor.kind", "--executor", "aot", "--origin", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc == {
        "path": "executor.kind",
        "value": "aot",
        "origin": "--executor=aot",
        "origins": {"/executor/kind": "--executor=aot"},
    }


def test_unset_exits_1_with_one_line() -> None:
    code, out, err = run("executor.kind", "-c", "aws/c5")
    assert (code, out) == (1, "")
    assert err == "tvmc: executor.kind is not set\n"
    assert run("targets[3]", "-c", "aws/c5")[0] == 1
    assert run("targets[kind=cuda].arch", "-c", "aws/c5")[0] == 1


def test_an_unset_value_after_unset_rewrite() -> None:
    assert run("targets[0].mcpu", "-c", "aws/c5", "--unset", "targets[0].mcpu")[0] == 1


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("targts", "unknown config key 'targts' (did you mean 'targets'?)"),
        ("targets[0].mcpu=x", "unexpected '=x' after the path"),
        (".mcpu", "expected a key at column 1"),
    ],
)
def test_a_malformed_path_is_a_usage_error(path: str, message: str) -> None:
    code, out, err = run(path, "-c", "aws/c5")
    assert (code, out) == (2, "")
    assert message in err and err.count("\n") == 1


def test_a_path_reaching_several_values_asks_for_an_index() -> None:
    byoc = '{"kind": "c", "compiler": "cmsis-nn"}'
    code, _, err = run("targets[kind=c].kind", "--target", byoc, "--target", "c")
    assert code == 2
    assert "matches 2 values (targets[0].kind, targets[1].kind); give an index" in err


def test_a_bad_config_is_one_line_exit_1() -> None:
    code, _, err = run("targets", "-c", "no/such-config")
    assert code == 1 and err.startswith("tvmc: error: ") and err.count("\n") == 1
