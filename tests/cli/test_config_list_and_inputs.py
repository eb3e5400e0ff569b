"""`config list` and `config validate` inputs: one line per config, ambiguous and unnameable files
reported, empty directories and missing files invalid (issue 15)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tvmc.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def search(tmp_path: Path) -> dict[str, str]:
    root = tmp_path / "search"
    (root / "x").mkdir(parents=True)
    (root / "x" / "both.toml").write_text('targets = ["llvm"]\n', encoding="utf-8")
    (root / "x" / "both.json").write_text('{"targets": ["cuda"]}', encoding="utf-8")
    (root / "multi.toml").write_text('description = """first line\n   second\tline"""\n', encoding="utf-8")
    if os.name != "nt":
        (root / "a:b.toml").write_text('targets = ["llvm"]\n', encoding="utf-8")
    return {"TVMC_CONFIG_PATH": str(root), "TVMC_ISOLATED": ""}


def test_a_multi_line_description_is_one_line(search: dict[str, str]) -> None:
    code, out, _ = run("config", "list", env=search)
    assert code == 0
    (line,) = [line for line in out.splitlines() if line.startswith("multi ")]
    assert "first line second line  [TVMC_CONFIG_PATH:" in line


def test_toml_beside_json_is_an_ambiguity_naming_both(search: dict[str, str]) -> None:
    out = run("config", "list", env=search)[1]
    both = [line for line in out.splitlines() if line.startswith("x/both ")]
    assert len(both) == 2
    assert all("[error: ambiguous: both x/both.toml and x/both.json are in " in line for line in both)
    code, out, err = run("config", "show", "-c", "x/both", env=search)
    assert (code, out) == (1, "")
    assert "config 'x/both' is ambiguous: both x/both.toml and x/both.json" in err and err.count("\n") == 1
    doc = json.loads(run("config", "list", "--format", "json", env=search)[1])
    errors = [c["error"] for c in doc["configs"] if c["name"] == "x/both"]
    assert len(errors) == 2 and all(e.startswith("ambiguous: ") for e in errors)


@pytest.mark.skipif(os.name == "nt", reason="':' cannot be in a Windows file name")
def test_a_file_no_name_can_reach_is_reported(search: dict[str, str]) -> None:
    out = run("config", "list", env=search)[1]
    (line,) = [line for line in out.splitlines() if line.startswith("a:b ")]
    assert "[error: no config name can ask for this file (':' and '\\' are not allowed in names)" in line
    doc = json.loads(run("config", "list", "--format", "json", env=search)[1])
    (entry,) = [c for c in doc["configs"] if c["name"] == "a:b"]
    assert entry["path"].endswith("a:b.toml") and "rename it" in entry["error"]


def test_validate_an_empty_directory_says_no_config_was_found(tmp_path: Path) -> None:
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    (tmp_path / "empty" / "notes.txt").write_text("not a config", encoding="utf-8")
    code, out, err = run("config", "validate", str(tmp_path / "empty"))
    assert code == 1
    message = "no config found: the directory holds no *.toml or *.json file [config-not-found]"
    assert out == f"{tmp_path / 'empty'}: error: {message}\n"
    assert "1 invalid" in err


def test_validate_a_missing_file_exits_1_and_checks_the_others(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text('targets = ["llvm"]\n', encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text('targets = ["nope"]\n', encoding="utf-8")
    code, out, _ = run("config", "validate", str(tmp_path / "missing.toml"), str(good), str(bad), "-f", "json")
    assert code == 1
    doc = json.loads(out)
    assert [(Path(f["file"]).name, f["status"]) for f in doc["files"]] == [
        ("missing.toml", "fail"),
        ("good.toml", "ok"),
        ("bad.toml", "fail"),
    ]
    assert doc["files"][0]["errors"][0]["message"] == "no such config file"


def test_host_native_is_listed_though_no_file_holds_it(tmp_path: Path) -> None:
    """host/native is detected on first use: `config list` names it with what it is and the cache
    file it will be read from, without detecting anything (no TVM needed to list)."""
    from tvmc.sources import native

    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = run("config", "list", env=env)[1]
    (line,) = [line for line in out.splitlines() if line.startswith("host/native ")]
    assert "detected on first use (needs TVM)" in line and f"[detected: {tmp_path / 'cache' / 'tvmc'}]" in line
    doc = json.loads(run("config", "list", "--format", "json", env=env)[1])
    (entry,) = [e for e in doc["configs"] if e["name"] == "host/native"]
    assert entry["origin"] == "detected" and entry["description"] == native.DESCRIPTION
    assert entry["path"] == str(native.cache_path(env, ask=False))  # as far as known without TVM
    assert entry["shadowed"] is False
    assert not (tmp_path / "cache").exists()  # listed, not detected


def test_a_host_native_file_on_the_search_path_shadows_the_detected_one(tmp_path: Path) -> None:
    (tmp_path / "host").mkdir()
    (tmp_path / "host" / "native.toml").write_text('description = "pinned"\ntargets = ["llvm"]\n', encoding="utf-8")
    doc = json.loads(run("config", "list", "--format", "json", env={"TVMC_CONFIG_PATH": str(tmp_path)})[1])
    entries = [(e["origin"], e["description"], e["shadowed"]) for e in doc["configs"] if e["name"] == "host/native"]
    assert entries == [("TVMC_CONFIG_PATH", "pinned", False), ("detected", entries[1][1], True)]
