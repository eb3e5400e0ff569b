"""`tvmc config migrate OLD [-o NEW]` through the CLI."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import typer
from tvmc.errors import TvmcError
from tvmc.migrate import migrate
from typer.testing import CliRunner

OLD = Path(__file__).resolve().parent / "old_tvmc"
runner = CliRunner()


def test_migrate_prints_toml_and_reports_what_is_not_carried(app: typer.Typer) -> None:
    result = runner.invoke(app, ["config", "migrate", str(OLD / "tune_config_test.json")])
    assert result.exit_code == 0, result.output
    assert tomllib.loads(result.stdout)["targets"] == [{"kind": "llvm"}]
    assert 'tvmc: warning: not carried: trials = "2"' in result.stderr
    assert "tvmc: warning" not in result.stdout and "#   - trials" in result.stdout


def test_migrate_writes_atomically_and_never_over_its_input(app: typer.Typer, tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    old.write_text((OLD / "compile_config_test.json").read_text(), encoding="utf-8")
    new = tmp_path / "new.toml"
    result = runner.invoke(app, ["config", "migrate", str(old), "-o", str(new)])
    assert result.exit_code == 0 and result.stdout == ""
    assert tomllib.loads(new.read_text())["executor"] == {"kind": "aot"}
    show = runner.invoke(app, ["config", "show", "--config", str(new), "--format", "json"])
    assert show.exit_code == 0 and '"kind": "cmsis-nn"' in show.stdout
    before = old.read_text()
    refused = runner.invoke(app, ["config", "migrate", str(old), "-o", str(old)])
    assert refused.exit_code == 2 and "refusing to overwrite" in refused.stderr
    assert old.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.toml", "old.json"]  # no temporary left


def test_migrate_reads_stdin_and_text(app: typer.Typer) -> None:
    command = "tvmc compile --target='llvm -mcpu=skylake' m.onnx"
    piped = runner.invoke(app, ["config", "migrate", "-"], input=command)
    assert piped.exit_code == 0 and 'mcpu = "skylake"' in piped.stdout
    assert "not carried: m.onnx" in piped.stderr
    text = runner.invoke(app, ["config", "migrate", "cmsis-nn, c"])
    assert text.exit_code == 0 and 'tvm-version = "<=0.18"' in text.stdout


def test_migrate_bad_input_is_exit_1(app: typer.Typer) -> None:
    result = runner.invoke(app, ["config", "migrate", "tvmc run --device cpu m.tar"])
    assert result.exit_code == 1
    assert result.stderr.startswith("tvmc: error: ") and "tvmc run" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize("text", ["~nobody-such-user/x.json", "~'0000", "~~$(", "~v8yz*"])
def test_a_tilde_of_an_unknown_user_is_text_not_a_crash(text: str) -> None:
    """Found by scripts/fuzz.py: Path.expanduser raised RuntimeError for `~name` of no user."""
    from tvmc.cli.app import app

    result = CliRunner().invoke(app, ["config", "migrate", "--", text])
    assert (result.exit_code == 1 and result.exception is None) or isinstance(result.exception, SystemExit)
    assert result.stderr.startswith("tvmc: error: ") and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("text", "where", "rule"),
    [
        ('{"target": "llvm", "opt_level": "9"}', "old.json:1:20", "invalid-value"),
        ('{"target": "llvm",\n "executor": {"kind": "aot", "interface-api": "c"}}', "old.json:2:", "aot-interface-api"),
    ],
)
def test_a_migrated_config_the_engine_refuses_names_the_old_file(
    app: typer.Typer, tmp_path: Path, text: str, where: str, rule: str
) -> None:
    """The rule engine's refusal of what migrate would write names the old file and the line the
    value came from (it named no source: `tvmc: error: opt-level: 9 is not in 0..3 ...`)."""
    (tmp_path / "old.json").write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["config", "migrate", str(tmp_path / "old.json")])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"tvmc: error: {tmp_path / where}")
    assert result.stderr.endswith("; the migrated config would not be valid\n")  # the hint, as a hint
    assert result.stderr.count("\n") == 1
    with pytest.raises(TvmcError) as refused:
        migrate(tmp_path / "old.json")
    assert refused.value.rule == rule  # on the problem record, not in the message


@pytest.mark.parametrize(
    ("old", "line"),
    [
        (
            "tvmc compile --target llvm --opt-level 7 m.onnx",
            "tvmc: error: --opt-level 7: opt-level: 7 is not in 0..3; the migrated config would not be valid\n",
        ),
        (
            "tvmc compile --target llvm --runtime crtt m.onnx",
            "tvmc: error: --runtime crtt: runtime.kind: unknown runtime 'crtt' (known: cpp, crt); "
            "the migrated config would not be valid (did you mean 'crt'?)\n",
        ),
    ],
)
def test_a_migrated_command_line_the_engine_refuses_reads_as_every_error(app: typer.Typer, old: str, line: str) -> None:
    """One voice: the old flag that set the value, the message, `; hint`, then the did-you-mean (it
    said `opt-level: 7 is not in 0..3 (the migrated config would not be valid) [invalid-value]`:
    no source, the hint in parentheses and the rule id inside the message, any did-you-mean after it)."""
    result = runner.invoke(app, ["config", "migrate", old])
    assert result.exit_code == 1
    assert result.stderr == line
