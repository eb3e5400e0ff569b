"""`--isolated` and `TVMC_ISOLATED=1`: no user config directory, no TVMC_* variable; `config show
--origin` says which user/env inputs took part (issue 15)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tvmc import api, sources
from tvmc.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()
ALL_TVMC = ("TVMC_CONFIG", "TVMC_CONFIG_PATH", "TVMC_TARGET", "TVMC_TARGET_HOST", "TVMC_EXECUTOR", "TVMC_RUNTIME")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user config directory holding `mine` (over aws/c5), and a clean TVMC_* environment."""
    for name in (*ALL_TVMC, "TVMC_OPT_LEVEL", "TVMC_ISOLATED", "TVMC_VERBOSE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    user = tmp_path / "xdg" / "tvmc" / "configs"
    user.mkdir(parents=True)
    (user / "mine.toml").write_text('extends = ["aws/c5"]\nopt-level = 1\n', encoding="utf-8")
    return user


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


def test_the_user_directory_is_ignored(home: Path) -> None:
    assert run("config", "get", "opt-level", "-c", "mine")[:2] == (0, "1\n")
    code, _, err = run("config", "get", "opt-level", "-c", "mine", "--isolated")
    assert code == 1 and "config 'mine' not found" in err and str(home) not in err
    assert run("config", "get", "opt-level", "-c", "mine", env={"TVMC_ISOLATED": "1"})[0] == 1
    assert run("config", "get", "opt-level", "-c", "mine", env={"TVMC_ISOLATED": "0"})[:2] == (0, "1\n")


@pytest.mark.parametrize(
    ("variable", "value", "path", "normal", "isolated"),
    [
        ("TVMC_CONFIG", "aws/c5", "targets[0].mcpu", "skylake-avx512\n", ""),
        ("TVMC_TARGET", "cuda", "targets[0].kind", "cuda\n", "llvm\n"),
        ("TVMC_OPT_LEVEL", "1", "opt-level", "1\n", "3\n"),
        ("TVMC_EXECUTOR", "aot", "executor.kind", "aot\n", ""),
    ],
)
def test_every_tvmc_variable_is_ignored(
    home: Path, variable: str, value: str, path: str, normal: str, isolated: str
) -> None:
    assert run("config", "get", path, env={variable: value})[1] == normal
    assert run("config", "get", path, "--isolated", env={variable: value})[1] == isolated
    assert run("config", "get", path, env={variable: value, "TVMC_ISOLATED": "1"})[1] == isolated


def test_tvmc_config_path_is_ignored(home: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "board.toml").write_text('targets = ["c"]\n', encoding="utf-8")
    env = {"TVMC_CONFIG_PATH": str(extra)}
    assert run("config", "get", "targets[0].kind", "-c", "board", env=env)[:2] == (0, "c\n")
    assert run("config", "get", "targets[0].kind", "-c", "board", "--isolated", env=env)[0] == 1


def test_show_origin_says_what_took_part(home: Path) -> None:
    code, out, _ = run("config", "show", "-c", "mine", "--origin", env={"TVMC_OPT_LEVEL": "2"})
    assert code == 0
    assert out.splitlines()[0] == f"# environment: TVMC_OPT_LEVEL=2; user configs: {home / 'mine.toml'}"
    code, out, _ = run("config", "show", "-c", "aws/c5", "--origin")
    assert out.splitlines()[0] == "# no user config and no TVMC_* variable took part"
    code, out, _ = run("config", "show", "-c", "aws/c5", "--origin", "--isolated", env={"TVMC_TARGET": "cuda"})
    assert code == 0
    assert out.splitlines()[0] == "# isolated: the user config directory and every TVMC_* variable were ignored"
    assert "cuda" not in out


def test_show_origin_json_has_an_environment_object(home: Path) -> None:
    code, out, _ = run("config", "show", "-c", "mine", "--origin", "-f", "json", env={"TVMC_OPT_LEVEL": "2"})
    assert code == 0
    assert json.loads(out)["environment"] == {
        "isolated": False,
        "variables": {"TVMC_OPT_LEVEL": "2"},
        "user-configs": [str(home / "mine.toml")],
    }
    assert "environment" not in json.loads(run("config", "show", "-c", "mine", "-f", "json")[1])
    isolated = json.loads(run("config", "show", "--origin", "-f", "json", env={"TVMC_ISOLATED": "yes"})[1])
    assert isolated["environment"] == {"isolated": True, "variables": {}, "user-configs": []}


def test_tvmc_config_only_takes_part_without_config(home: Path) -> None:
    out = run("config", "show", "-c", "aws/c5", "--origin", env={"TVMC_CONFIG": "mine"})[1]
    assert out.splitlines()[0] == "# no user config and no TVMC_* variable took part"
    out = run("config", "show", "--origin", env={"TVMC_CONFIG": "mine"})[1]
    assert out.splitlines()[0] == f"# environment: TVMC_CONFIG=mine; user configs: {home / 'mine.toml'}"


def test_explain_list_validate_diff_and_compile_are_isolated(home: Path, tmp_path: Path) -> None:
    env = {"TVMC_OPT_LEVEL": "0"}
    assert "env TVMC_OPT_LEVEL" in run("config", "explain", "opt-level", env=env)[1]
    assert "env TVMC_OPT_LEVEL" not in run("config", "explain", "opt-level", "--isolated", env=env)[1]
    assert "mine" in run("config", "list")[1]
    listed = run("config", "list", "--isolated")[1]
    assert "mine" not in listed and "[user:" not in listed
    assert "mine" not in run("config", "list", env={"TVMC_ISOLATED": "1"})[1]
    child = tmp_path / "child.toml"
    child.write_text('extends = ["mine"]\n', encoding="utf-8")
    assert run("config", "validate", str(child))[0] == 0
    assert run("config", "validate", str(child), "--isolated")[0] == 1
    assert run("config", "validate", "-c", "mine", "--isolated")[0] == 1
    assert run("config", "diff", "mine", "aws/c5")[0] == 1  # opt-level 1 against 3
    assert run("config", "diff", "mine", "aws/c5", "--isolated")[0] == 2  # mine is not found
    model = tmp_path / "net.onnx"
    model.write_bytes(b"not read by --emit")
    plan = run("compile", str(model), "--emit", "plan", env={"TVMC_OPT_LEVEL": "1"})[1]
    assert json.loads(plan)["config"]["opt-level"] == 1
    plan = run("compile", str(model), "--emit", "plan", "--isolated", env={"TVMC_OPT_LEVEL": "1"})[1]
    assert json.loads(plan)["config"]["opt-level"] == 3


def test_api_isolated(home: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(home.parent.parent), "TVMC_TARGET": "cuda"}
    assert api.resolve([], env=env).config.targets[0]["kind"] == "cuda"
    resolved = api.resolve([], env=env, isolated=True)
    assert resolved.config.targets[0]["kind"] == "llvm"
    assert resolved.participation.isolated
    assert api.resolve([], env={**env, "TVMC_ISOLATED": "on"}).config.targets[0]["kind"] == "llvm"
    assert [d.origin for d in sources.search_path(env, isolated=True)] == ["shipped"]
    with pytest.raises(TypeError, match="isolated: expected a bool"):
        api.resolve([], isolated="yes")  # type: ignore[arg-type]
