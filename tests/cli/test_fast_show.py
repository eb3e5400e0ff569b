"""The fast path of `tvmc config show` (tvmc.cli.fast.config_show, no click): over generated command
lines and TVMC_* variables it prints what the typer command prints, to stdout and stderr, with the
same exit code; it reads in full the command lines scripts run, leaves every other one to click,
and a real process takes it without importing click and typer."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from unittest import mock

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from testkit import cli_env
from tvmc.cli import fast
from tvmc.cli.app import app
from typer.testing import CliRunner

_RUNNER = CliRunner()

CONFIGS = ["aws/c5", "aws/c6g", "arm/rasp4b64", "base/aarch64-linux", "nvidia/geforce-rtx-4090", "aws/c55", "x86_64"]
TARGETS = ["llvm", "llvm -mcpu=skylake", "cuda", "nvidia/jetson-nano", '{"kind": "llvm", "mcpu": "znver3"}', "bogus"]
SETS = [
    "opt-level=2",
    'description="d"',
    "targets[kind=llvm].mattr+=+avx2",
    "host.mcpu=skylake",
    "executor={kind=aot}",
    "nosuch=1",
    "opt-level=",
]
UNSETS = ["description", "targets[0].mcpu", "executor", "nosuch"]
PASS_CONFIGS = ["tir.disable_vectorize=true", "tirx.disable_vectorize=false", "relax.x=1", "tir.UnrollLoop=3"]
CPUS = ["skylake", "znver3", "cortex-a72", "notacpu"]


def _valued(names: list[str], values: list[str]) -> st.SearchStrategy[list[str]]:
    """One option with a value, in the forms click reads: `--opt VALUE`, then `--opt=VALUE` for a
    long name and `-oVALUE` for a short one."""

    def write(attached: bool, name: str, value: str) -> list[str]:
        if not attached:
            return [name, value]
        return [f"{name}={value}"] if name.startswith("--") else [name + value]

    return st.builds(write, st.booleans(), st.sampled_from(names), st.sampled_from(values))


WORDS = st.one_of(
    _valued(["--config", "-c"], CONFIGS),
    _valued(["--format", "-f"], ["toml", "json", "yaml", "JSON"]),
    st.sampled_from([["--origin"], ["--hash"], ["--isolated"]]),
    st.sampled_from([["--origin"], ["--hash"]]),  # more often: they conflict with each other and --format
    _valued(["--set"], SETS),
    _valued(["--unset"], UNSETS),
    _valued(["--target"], TARGETS),
    _valued(["--target-host"], ["llvm", "llvm -mcpu=znver3"]),
    _valued(["--target-llvm-mcpu", "--target-llvm-mattr"], CPUS),
    _valued(["--pass-config"], PASS_CONFIGS),
    _valued(["-O", "--opt-level"], ["0", "3", "9", "x"]),
    _valued(["--executor"], ["graph", "aot", "vm", "nosuch"]),
    _valued(["--runtime"], ["cpp", "crt"]),
    # what the fast path leaves to click: an argument, `--`, help, unknown or unhandled options,
    # a flag given a value, an option at the end without its value
    st.sampled_from(
        [["extra"], ["--"], ["-h"], ["--bogus"], ["--origin=1"], ["--as", "tvm-target"], ["-o", "-"], ["--config"]]
    ),
)
ENV = st.dictionaries(
    st.sampled_from(["TVMC_OPT_LEVEL", "TVMC_TARGET", "TVMC_TARGET_HOST", "TVMC_ISOLATED", "TVMC_EXECUTOR"]),
    st.sampled_from(["1", "llvm", "nvidia/jetson-nano", "aot", "", "x"]),
    max_size=2,
)


def fast_path(args: list[str]) -> tuple[int, str, str] | None:
    """(exit code, stdout, stderr) of the fast path, or None where it leaves the line to click."""
    show = fast.config_show(args)
    if show is None:
        return None
    out, err = io.BytesIO(), io.BytesIO()
    stdout, stderr = io.TextIOWrapper(out, encoding="utf-8"), io.TextIOWrapper(err, encoding="utf-8")
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = show()
    stdout.flush()
    stderr.flush()
    return code, out.getvalue().decode("utf-8"), err.getvalue().decode("utf-8")


def typer_path(args: list[str]) -> tuple[int, str, str]:
    result = _RUNNER.invoke(app, ["config", "show", *args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=st.lists(WORDS, max_size=5).map(lambda ws: [w for word in ws for w in word]), env=ENV)
def test_the_fast_path_prints_what_the_typer_command_prints(words: list[str], env: dict[str, str]) -> None:
    with mock.patch.dict(os.environ, env):
        fast_result = fast_path(words)
        event("fast path" if fast_result is not None else "left to click")
        if fast_result is None:
            return
        assert fast_result == typer_path(words), words


COMMON = [
    [],
    ["--config", "aws/c5"],
    ["--config", "aws/c5", "--format", "json"],
    ["-c", "aws/c5", "-f", "json", "--origin"],
    ["-c", "aws/c5", "--hash"],
    ["-c", "aws/c5", "--target-llvm-mcpu", "znver3", "-O3"],
    ["-c", "aws/c5", "--set", "opt-level=1", "--unset", "description", "--pass-config", "tir.disable_vectorize=1"],
    ["--config=aws/c5", "--isolated", "--target", "llvm -mcpu=skylake", "--target-host=llvm"],
    ["-c", "aws/c55"],  # errors: the fast path reports them as the command does
    ["-c", "aws/c5", "--hash", "-f", "json"],
]


@pytest.mark.parametrize("args", COMMON)
def test_the_command_lines_scripts_run_take_the_fast_path(args: list[str]) -> None:
    found = fast_path(args)
    assert found is not None and found == typer_path(args)


@pytest.mark.parametrize(
    "args",
    [
        ["extra"],
        ["--"],
        ["-h"],
        ["--help"],
        ["-c"],
        ["--format", "yaml"],
        ["--format", "json", "-f", "toml"],
        ["--as", "tvm-target"],
        ["--search-path", "."],
        ["-o", "out.toml"],
        ["--from", "lib"],
        ["--origin=yes"],
        ["--target-nosuchkind-x", "1"],
        ["--no-such-option"],
    ],
)
def test_other_command_lines_are_left_to_click(args: list[str]) -> None:
    assert fast.config_show(["-c", "aws/c5", *args]) is None


# A real process: main() through the console script's entry (fast) and the app's own main (click).
MODULES = """
import atexit, json, sys
sys.argv = ["tvmc", *json.loads(sys.argv[1])]
atexit.register(lambda: print("\\n" + json.dumps(sorted(sys.modules)), file=sys.stderr))
from tvmc.cli.{module} import main
main()
"""


def _process(args: list[str], module: str, **env: str) -> tuple[int, str, str, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", MODULES.format(module=module), json.dumps(["config", "show", *args])],
        capture_output=True,
        text=True,
        env=cli_env(TYPER_USE_RICH="0", NO_COLOR="1", **env),
        timeout=120,
    )
    *lines, modules = done.stderr.rstrip("\n").split("\n")
    stderr = "".join(line + "\n" for line in lines if line)  # the atexit line starts with a blank line
    return done.returncode, done.stdout, stderr, set(json.loads(modules))


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["--config", "aws/c5", "--format", "json"], {}),
        (["-c", "aws/c5", "--origin", "--target-llvm-mcpu", "znver3"], {"TVMC_OPT_LEVEL": "2"}),
        (["-c", "aws/c55"], {}),
        (["-c", "aws/c5", "--hash", "--origin"], {}),
        (["-c", "aws/c5"], {"TVMC_TARGET": "bogus"}),
    ],
)
def test_a_real_process_prints_the_same_without_click(args: list[str], env: dict[str, str]) -> None:
    code, out, err, modules = _process(args, "entry", **env)
    assert (code, out, err) == _process(args, "app", **env)[:3]
    assert not {"click", "typer"} & modules


# click, typer and what they bring; the typer app; host/native's detection
SLOW_MODULES = ("click", "typer", "tvmc.cli.app", "tvmc.sources.native", "platform", "subprocess", "shutil", "uuid")
SLOW_MODULES += ("difflib", "gettext", "traceback", "threading")


def test_config_show_loads_none_of_the_modules_the_typer_path_needs() -> None:
    """`config show` loads neither click and typer nor what they bring (platform, subprocess,
    shutil, uuid, difflib), nor host/native's detection: a test of sys.modules, not of time."""
    code, out, _, modules = _process(["--config", "aws/c5", "--format", "json"], "entry")
    assert code == 0 and json.loads(out)["targets"]
    assert "tvmc.api" in modules and not set(SLOW_MODULES) & modules


# Standard-library modules no module on `config show`'s path imports at run time: each costs every
# start-up (scripts/bench_startup.py): typing ~2.5 ms (and ~70 µs per NamedTuple class), pathlib
# ~3.3 ms (with urllib.parse and ipaddress), copy ~0.9 ms (with weakref), dataclasses ~9 ms (inspect).
# Nor a TOML parser (tomli imports datetime, ~2.5 ms in all; tomllib, typing): a shipped config, as
# shipped, is read from the parse made when it was generated (tvmc.sources.preparsed).
START_UP_STDLIB = ("typing", "pathlib", "copy", "weakref", "dataclasses", "inspect", "bisect")
START_UP_STDLIB += ("tomli", "tomllib", "datetime")


def _json_modules() -> set[str]:
    """What json loads by itself: not tvmc's to avoid."""
    code = "import json, sys; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    return set(json.loads(done.stdout))


def test_config_show_loads_none_of_the_start_up_costly_stdlib_modules() -> None:
    code, out, _, modules = _process(["--config", "aws/c5", "--format", "json"], "entry")
    assert code == 0 and json.loads(out)["targets"]
    assert "tvmc.api" in modules and not set(START_UP_STDLIB) & (modules - _json_modules())


def test_ctrl_c_in_the_fast_path_is_the_commands() -> None:
    """A KeyboardInterrupt while the config resolves: one line, exit 130, as the typer command."""
    with mock.patch("tvmc.api.resolve", side_effect=KeyboardInterrupt):
        assert fast_path(["-c", "aws/c5"]) == (130, "", "tvmc: interrupted\n") == typer_path(["-c", "aws/c5"])


GC_STATE = """
import atexit, gc, json, sys
sys.argv = ["tvmc", *json.loads(sys.argv[1])]
at_start = gc.get_freeze_count()
state = lambda: f"gc enabled={gc.isenabled()} frozen={gc.get_freeze_count() > at_start}"
atexit.register(lambda: print("\\n" + state(), file=sys.stderr))
from tvmc.cli.entry import main
main()
"""


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["config", "show", "-c", "aws/c5", "--format", "json"], "gc enabled=False frozen=False"),  # the fast path
        (["config", "show", "-c", "aws/c5", "--as", "tvm-target"], "gc enabled=True frozen=True"),  # click's
    ],
)
def test_garbage_collection_is_off_only_while_starting(args: list[str], expected: str) -> None:
    """Start-up runs without the cyclic collector; a command left to click gets it back, with what
    start-up made frozen out of it (a long command, the language server, collects as usual)."""
    done = subprocess.run(
        [sys.executable, "-c", GC_STATE, json.dumps(args)],
        capture_output=True,
        text=True,
        env=cli_env(TYPER_USE_RICH="0", NO_COLOR="1"),
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout
    assert done.stderr.rstrip("\n").split("\n")[-1] == expected
