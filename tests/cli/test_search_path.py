"""`--search-path DIR`: a repository's own configs extend each other by name, with or without
--isolated, on every command that resolves configs (issue 28)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tvmc import sources
from tvmc.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A consumer repository with configs/ (team/a100 over the shipped nvidia/nvidia-a100), a user
    directory whose team/a100 would win without the flag, and TVMC_CONFIG_PATH naming another."""
    for name in ("TVMC_CONFIG", "TVMC_CONFIG_PATH", "TVMC_ISOLATED", "TVMC_OPT_LEVEL", "TVMC_TARGET"):
        monkeypatch.delenv(name, raising=False)
    configs = tmp_path / "repo" / "configs"
    (configs / "team").mkdir(parents=True)
    (configs / "team" / "a100.toml").write_text('extends = ["nvidia/nvidia-a100"]\nopt-level = 1\n', encoding="utf-8")
    (configs / "prod.toml").write_text('extends = ["team/a100"]\n', encoding="utf-8")
    user = tmp_path / "xdg" / "tvmc" / "configs" / "team"
    user.mkdir(parents=True)
    (user / "a100.toml").write_text('extends = ["aws/c5"]\nopt-level = 0\n', encoding="utf-8")
    (user.parent / "only-mine.toml").write_text('extends = ["aws/c5"]\nopt-level = 0\n', encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(configs.parent)
    return configs


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


def test_names_resolve_in_the_given_directory_first(repo: Path) -> None:
    assert run("config", "get", "opt-level", "-c", "team/a100")[1] == "0\n"  # the user's copy
    for isolated in ((), ("--isolated",)):
        got = run("config", "get", "opt-level", "-c", "prod", "--search-path", "configs", *isolated)
        assert got[:2] == (0, "1\n"), got
        kind = run("config", "get", "targets[0].kind", "-c", "prod", "--search-path", "configs", *isolated)
        assert kind[1] == "cuda\n"  # through the shipped nvidia/nvidia-a100


def test_isolated_keeps_the_flag_and_drops_the_environment(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "prod.toml").write_text('extends = ["aws/c5"]\nopt-level = 0\n', encoding="utf-8")
    env = {"TVMC_CONFIG_PATH": str(other)}
    assert run("config", "get", "opt-level", "-c", "prod", "--search-path", "configs", env=env)[1] == "1\n"
    assert run("config", "get", "opt-level", "-c", "only-mine", "--search-path", "configs")[:2] == (0, "0\n")
    assert run("config", "get", "opt-level", "-c", "only-mine", "--isolated", "--search-path", "configs")[0] == 1
    dirs = sources.search_path({"TVMC_CONFIG_PATH": str(other)}, isolated=True, extra=["configs"])
    assert [d.origin for d in dirs] == ["--search-path", "shipped"]
    dirs = sources.search_path({"TVMC_CONFIG_PATH": str(other)}, extra=["configs", "configs/team"])
    assert [d.origin for d in dirs][:3] == ["--search-path", "--search-path", "TVMC_CONFIG_PATH"]
    assert dirs[0].path == repo and dirs[1].path == repo / "team"


def test_repeatable_in_order(repo: Path, tmp_path: Path) -> None:
    first = tmp_path / "first"
    first.mkdir()
    (first / "prod.toml").write_text('extends = ["aws/c5"]\nopt-level = 2\n', encoding="utf-8")
    assert (
        run("config", "get", "opt-level", "-c", "prod", "--search-path", str(first), "--search-path", "configs")[1]
        == "2\n"
    )
    assert (
        run("config", "get", "opt-level", "-c", "prod", "--search-path", "configs", "--search-path", str(first))[1]
        == "1\n"
    )


def test_every_command_that_resolves_configs(repo: Path) -> None:
    flag = ["--search-path", "configs", "--isolated"]
    code, out, err = run("config", "validate", *flag, "configs/prod.toml")
    assert code == 0, out + err
    assert run("config", "validate", *flag, "-c", "prod")[0] == 0
    assert run("config", "show", *flag, "-c", "prod", "--format", "json")[0] == 0
    explained = run("config", "explain", "opt-level", *flag, "-c", "prod")
    assert explained[0] == 0 and "team/a100.toml" in explained[1]
    listed = json.loads(run("config", "list", *flag, "--format", "json")[1])
    assert listed["search_path"][0] == {"path": str(repo), "origin": "--search-path"}
    assert {"prod", "team/a100"} <= {c["name"] for c in listed["configs"]}
    assert run("config", "diff", "prod", "aws/c5", *flag)[0] == 1  # different (2: not found)
    emitted = run("compile", "m.onnx", "-c", "prod", *flag, "--emit", "tvmc")
    assert emitted[0] == 0 and "--opt-level=1" in emitted[1]
    tuned = run("tune", "m.onnx", "-c", "prod", *flag, "--database", "db")  # resolves, then finds no model
    assert tuned[0] == 1 and "m.onnx does not exist" in tuned[2]


def test_a_missing_directory_is_a_usage_error(repo: Path) -> None:
    code, _, err = run("config", "show", "-c", "prod", "--search-path", "nope")
    assert code == 2 and err.strip().splitlines()[-1].endswith("'nope': no such directory")
    code, _, err = run("config", "validate", "--search-path", "configs/prod.toml", "configs/prod.toml")
    assert code == 2 and "not a directory" in err
