"""Help that fits on a screen (issue 15): every command's --help, the generated flags hidden but
named, `tvmc target show KIND` listing a kind's flags, TVM's internal test kinds never offered."""

from __future__ import annotations

import json

import pytest
import typer
from testkit import commands
from tvmc import registry
from tvmc.cli.app import app
from tvmc.flag_docs import flag_help, kind_flags
from tvmc.rewrites import ENV_FLAGS, generated_flags
from typer.testing import CliRunner

MAX_LINES = 60
runner = CliRunner()


COMMANDS = [path for path, _ in commands(typer.main.get_command(app))]


def test_the_walk_finds_every_command() -> None:
    assert {("config", "show"), ("config", "validate"), ("compile",), ("target", "show"), ("run",)} <= set(COMMANDS)
    assert len(COMMANDS) >= 15


@pytest.mark.parametrize("columns", ["80", "120"])
@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "tvmc")
def test_every_help_fits_on_a_screen(path: tuple[str, ...], columns: str) -> None:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": columns})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) <= MAX_LINES, f"{' '.join(path)} --help: {len(lines)} lines"
    assert max(map(len, lines)) <= int(columns)


@pytest.mark.parametrize("path", [("config", "show"), ("compile",), ("config", "validate")])
def test_resolving_commands_name_the_generated_flags_in_one_row(path: tuple[str, ...]) -> None:
    out = runner.invoke(app, [*path, "--help"]).stdout
    rows = [line for line in out.splitlines() if line.lstrip().startswith("--target-KIND-ATTR")]
    assert len(rows) == 1 and "every" in out and "tvmc target show KIND" in " ".join(out.split())
    assert "--target-llvm-mcpu " not in out and "--target-test" not in out and "example_target_hook" not in out


@pytest.mark.parametrize("path", [("config", "show"), ("compile",)])
def test_config_show_and_compile_name_the_environment_and_search_path(path: tuple[str, ...]) -> None:
    out = " ".join(runner.invoke(app, [*path, "--help"]).stdout.split())
    for variable in ("TVMC_CONFIG", "TVMC_CONFIG_PATH", *ENV_FLAGS):
        assert variable in out
    assert "~/.config/" in out and "$XDG_CONFIG_HOME/tvmc/configs" in out and "shipped" in out


def test_hidden_flags_keep_working() -> None:
    result = runner.invoke(
        app, ["config", "show", "--target", "cuda", "--target-cuda-max_num_threads", "512", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["targets"][0]["max_num_threads"] == 512
    wrong = runner.invoke(app, ["config", "show", "--target-llvm-mcpx", "x"])
    assert wrong.exit_code == 2 and "--target-llvm-mcpu" in wrong.output  # click's did-you-mean knows them


def test_no_flag_help_merely_restates_its_name() -> None:
    for spec in generated_flags().values():
        if spec.owner in registry.INTERNAL_KINDS:
            continue
        text = flag_help(spec)
        assert not text.startswith(("Set option", f"{spec.option} of")), (spec.name, text)
        assert spec.type in text, spec.name


def test_target_show_lists_a_kinds_flags_with_type_default_and_description() -> None:
    result = runner.invoke(app, ["target", "show", "cuda"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "--target-cuda-max-num-threads VALUE  (option max_num_threads, int, default 1024)" in out
    assert "--target-cuda-arch VALUE  (str)" in out and "compute capability" in out
    assert "--target-cuda-{keys,tag,device" in out
    data = json.loads(runner.invoke(app, ["target", "show", "cuda", "--format", "json"]).stdout)
    flags = {f["flag"]: f for f in data["flags"]}
    assert flags["--target-cuda-max-num-threads"] == {
        "flag": "--target-cuda-max-num-threads",
        "aliases": ["--target-cuda-max_num_threads"],
        "option": "max_num_threads",
        "type": "int",
        "default": 1024,
        "description": "The maximum number of threads in a block that schedules generate.",
    }
    assert set(flags) == {f.flag for f in kind_flags("cuda")}


def test_target_show_unknown_kind_is_one_line_with_a_suggestion() -> None:
    result = runner.invoke(app, ["target", "show", "lvm"])
    assert result.exit_code == 1  # an unknown kind or tag is invalid input, as `target list --kind` says
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "tvmc: error: NAME: 'lvm' is neither a target kind nor a tag (did you mean 'llvm'?)"
    ]
    internal = runner.invoke(app, ["target", "show", "tesst"])
    assert "'test'" not in internal.stderr  # never suggested


def test_internal_test_kinds_are_never_listed() -> None:
    for fmt in ("text", "json"):
        out = runner.invoke(app, ["target", "list", "--kinds", "--format", fmt]).stdout
        assert "example_target_hook" not in out and '"test"' not in out
        assert not any(line.split()[0] == "test" for line in out.splitlines() if fmt == "text")
    assert "test" not in registry.public_kinds() and "llvm" in registry.public_kinds()
