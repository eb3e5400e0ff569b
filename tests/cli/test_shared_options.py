"""Options several commands share are declared once (`tvmc.cli.options`): the same flag reads the
same in every command's help, and every command that resolves configs takes the same set."""

from __future__ import annotations

from pathlib import Path

import click
import typer
from testkit import commands
from tvmc.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()
SHARED = ("--config", "--isolated", "--search-path", "--model-format", "--input-shapes", "--rpc-tracker", "--rpc-key")


def _declarations() -> dict[str, dict[tuple[str, ...], tuple[object, ...]]]:
    found: dict[str, dict[tuple[str, ...], tuple[object, ...]]] = {}
    for path, command in commands(typer.main.get_command(app)):
        for param in command.params:
            for flag in set(param.opts) & set(SHARED):
                assert isinstance(param, click.Option)
                found.setdefault(flag, {})[path] = (tuple(param.opts), param.help, param.metavar, param.multiple)
    return found


def test_a_shared_option_is_the_same_wherever_it_appears() -> None:
    declarations = _declarations()
    assert set(declarations) == set(SHARED)
    for flag, where in declarations.items():
        assert len(set(where.values())) == 1, (flag, where)


def test_every_command_that_resolves_configs_takes_isolated() -> None:
    declarations = _declarations()
    assert set(declarations["--config"]) <= set(declarations["--isolated"])
    assert ("tune",) in declarations["--config"]
    assert set(declarations["--search-path"]) == set(declarations["--isolated"])


def test_tune_ignores_tvmc_variables_when_isolated(tmp_path: Path) -> None:
    # tune took no --isolated: a TVMC_* variable or user config it could not ignore made it fail.
    model = tmp_path / "m.onnx"
    model.write_bytes(b"not read: resolution fails first")
    env = {"TVMC_OPT_LEVEL": "high"}
    args = ["tune", str(model), "--target", "llvm"]
    plain = runner.invoke(app, args, env=env)
    assert plain.exit_code == 2 and "TVMC_OPT_LEVEL" in plain.output
    isolated = runner.invoke(app, [*args, "--isolated", "--opt-level", "7"], env=env)
    # 7 is an integer (the flag's type) the rule engine refuses: invalid input, exit 1
    assert isolated.exit_code == 1 and "--opt-level" in isolated.output and "TVMC_OPT_LEVEL" not in isolated.output


def test_rpc_flags_go_together_and_name_the_bad_one() -> None:
    for command in (["run", "lib.so"], ["tune", "m.onnx"]):
        alone = runner.invoke(app, [*command, "--rpc-key", "k"])
        assert alone.exit_code == 2 and "--rpc-tracker and --rpc-key go together" in alone.output
        bad = runner.invoke(app, [*command, "--rpc-tracker", "nohost", "--rpc-key", "k"])
        assert bad.exit_code == 2 and "'nohost' is not HOST:PORT" in bad.output
