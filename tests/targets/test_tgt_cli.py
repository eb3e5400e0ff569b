"""`tvmc target canonicalize | list | show` through the real CLI app."""

from __future__ import annotations

import json

import pytest
from tvmc.cli.app import app
from tvmc.targets import canonicalize, to_legacy
from typer.testing import CliRunner


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def _compact(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def test_canonicalize_prints_one_compact_json_line_per_input(runner: CliRunner) -> None:
    result = runner.invoke(app, ["target", "canonicalize", "llvm", "nvidia/jetson-nano", '{"kind": "c"}'])
    assert result.exit_code == 0, result.output
    expected = [_compact(canonicalize(t)) for t in ["llvm", "nvidia/jetson-nano", "c"]]
    assert result.stdout.splitlines() == expected


def test_canonicalize_legacy_format(runner: CliRunner) -> None:
    args = ["target", "canonicalize", "--format", "legacy", "llvm -mcpu=skylake -mattr=+avx2"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0
    assert result.stdout == "llvm -keys=cpu -mattr=+avx2 -mcpu=skylake\n"


def test_invalid_inputs_keep_their_line_and_exit_1(runner: CliRunner) -> None:
    args = ["target", "canonicalize", "llvm", '{"kind": "llvm", "mcpu": 5}', "cuda -arch=sm_80"]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    assert json.loads(lines[1]) == {"error": "<arg2>:1:1: Option 'mcpu': expected type 'str' but got 'int'"}
    assert json.loads(lines[2])["arch"] == "sm_80"
    assert "tvmc: error: <arg2>:1:1: Option 'mcpu'" in result.stderr


def test_stdin_one_output_line_per_input_line(runner: CliRunner) -> None:
    """Split on "\n" only, blank lines kept (each an error line), so output line N is input line N."""
    stdin = "cuda -arch=sm_80\n\n  \nbogus\nllvm\x0cx\u2028\nllvm\r\n"
    result = runner.invoke(app, ["target", "canonicalize", "-"], input=stdin)
    assert result.exit_code == 1
    lines = result.stdout.split("\n")
    assert lines[-1] == "" and len(lines[:-1]) == 6
    assert json.loads(lines[0]) == canonicalize("cuda -arch=sm_80")
    assert all("error" in json.loads(line) for line in lines[1:5])
    assert json.loads(lines[3]) == {"error": '<stdin>:4:1: Target kind "bogus" is not defined'}
    assert json.loads(lines[5]) == canonicalize("llvm")


def test_legacy_output_stays_one_line(runner: CliRunner) -> None:
    result = runner.invoke(app, ["target", "canonicalize", "--format", "legacy", '{"kind": "llvm", "mcpu": "a\\nb"}'])
    assert result.exit_code == 1 and len(result.stdout.splitlines()) == 1
    assert "line break" in json.loads(result.stdout)["error"]


def test_lifted_legacy_options_are_warnings(runner: CliRunner) -> None:
    result = runner.invoke(app, ["target", "canonicalize", "c -system-lib -runtime=c"])
    assert result.exit_code == 0
    assert json.loads(result.stdout) == canonicalize("c")
    assert "-system-lib moved to runtime.system-lib" in result.stderr


def test_canonicalize_usage_errors(runner: CliRunner) -> None:
    assert runner.invoke(app, ["target", "canonicalize"]).exit_code == 2
    assert runner.invoke(app, ["target", "canonicalize", "--format", "xml", "llvm"]).exit_code == 2


@pytest.mark.tvm
def test_fill_from_machine_uses_tvm(runner: CliRunner) -> None:
    pytest.importorskip("tvm", reason="apache-tvm not installed")
    result = runner.invoke(app, ["target", "canonicalize", "--fill-from-machine", "cuda"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["arch"].startswith("sm_")


def test_list_kinds_and_tags(runner: CliRunner) -> None:
    result = runner.invoke(app, ["target", "list", "--format", "json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert len(data["tags"]) == 287
    names = [k["name"] for k in data["kinds"]]
    assert "llvm" in names and "stackvm" in names
    stackvm = next(k for k in data["kinds"] if k["name"] == "stackvm")
    assert stackvm["legacy"] is True and stackvm["last_version"] == "0.19"


def test_list_filters(runner: CliRunner) -> None:
    result = runner.invoke(app, ["target", "list", "--tags", "--kind", "metal"])
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.stdout.splitlines()] == [
        "apple/m1-gpu",
        "apple/m1-gpu-restricted",
        "apple/m2-gpu",
    ]
    kinds = runner.invoke(app, ["target", "list", "--kinds"])
    assert "cmsis-nn" in kinds.stdout and "BYOC" in kinds.stdout and "nvidia/" not in kinds.stdout
    bad = runner.invoke(app, ["target", "list", "--kind", "lvm"])
    assert bad.exit_code == 1 and "did you mean 'llvm'" in bad.stderr


def test_show_kind(runner: CliRunner) -> None:
    result = runner.invoke(app, ["target", "show", "cuda"])
    assert result.exit_code == 0
    out = result.stdout
    assert "device type:  2 (cuda)" in out and "default keys: cuda, gpu" in out
    assert "thread_warp_size" in out and "default 32" in out and "tensorrt" in out
    legacy = runner.invoke(app, ["target", "show", "stackvm"]).stdout
    assert "removed after TVM 0.19" in legacy
    llvm = json.loads(runner.invoke(app, ["target", "show", "llvm", "--format", "json"]).stdout)
    assert llvm["options"]["mattr"] == {"type": "Array<str>"}
    assert llvm["legacy_options"]["system-lib"]["now"] == "runtime.system-lib"


def test_show_tag(runner: CliRunner) -> None:
    result = runner.invoke(app, ["target", "show", "nvidia/jetson-agx-xavier", "--format", "json"])
    assert result.exit_code == 0
    info = json.loads(result.stdout)
    assert info["kind"] == "cuda" and info["config"]["arch"] == "sm_72"
    assert info["canonical"] == canonicalize("nvidia/jetson-agx-xavier")
    assert info["legacy"] == to_legacy(info["canonical"])
    text = runner.invoke(app, ["target", "show", "nvidia/jetson-agx-xavier"]).stdout
    assert "registered config" in text and "host.feature.is_aarch64" in text


def test_show_unknown_name(runner: CliRunner) -> None:
    result = runner.invoke(app, ["target", "show", "nvidia/gtx1080ti"])
    assert result.exit_code == 1
    assert "nvidia/geforce-gtx-1080-ti" in result.stderr
