"""tvmc.cli.fast: `tvmc --help` and a TAB in a --config value under bash, answered without click and
typer. The generated tables are current; a real process prints exactly what click prints, byte for
byte and with the same exit code; and click is imported only where the fast path declines."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from testkit import cli_env, load_script
from tvmc.cli import fast, fast_tables
from tvmc.cli.fast_tables import CONFIG_COMMANDS, HELP_CLICK
from tvmc.cli.fast_tables import ROOT_HELP as HELP_ROOT

SLOW = "import sys; sys.argv = ['tvmc', *sys.argv[1:]]; from tvmc.cli.app import main; main()"


def _run(args: list[str], env: dict[str, str], *, slow: bool = False) -> subprocess.CompletedProcess[str]:
    head = ["-c", SLOW] if slow else ["-X", "importtime", "-m", "tvmc"]
    return subprocess.run([sys.executable, *head, *args], capture_output=True, text=True, env=env, timeout=60)


def _same_as_click(args: list[str], env: dict[str, str]) -> bool:
    """Whether the real command prints what click's path prints; True when it did without click."""
    fast, slow = _run(args, env), _run(args, env, slow=True)
    stderr = "".join(line + "\n" for line in fast.stderr.splitlines() if not line.startswith("import time:"))
    assert (fast.returncode, fast.stdout, stderr) == (slow.returncode, slow.stdout, slow.stderr)
    imported = {line.split("|")[-1].strip() for line in fast.stderr.splitlines() if line.startswith("import time:")}
    assert ("click" in imported) == ("typer" in imported)
    return "click" not in imported


def _env(**extra: str) -> dict[str, str]:
    env = cli_env(TYPER_USE_RICH="0", NO_COLOR="1", **extra)
    env.pop("COLUMNS", None)
    env.update(extra)
    return env


SAME_CLICK = version("click") == HELP_CLICK  # else the fast --help declines: its text is another click's


def test_the_generated_tables_are_current() -> None:
    module = load_script("gen_cli_tables")
    assert module.config_commands() == CONFIG_COMMANDS, "run scripts/gen_cli_tables.py"
    if SAME_CLICK:  # the help as this click lays it out
        assert module.main(["--check"]) == 0, "run scripts/gen_cli_tables.py"


@pytest.mark.parametrize("package", ["click", "typer"])
def test_installed_version_is_importlib_metadatas(package: str) -> None:
    assert fast.installed_version(package) == version(package)
    assert fast.installed_version("no_such_package_here") is None


def test_the_help_of_another_click_is_not_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    printed: list[str] = []
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setattr(fast, "_print", printed.append)
    fast._root_help()
    assert printed == ([HELP_ROOT] if SAME_CLICK else [])
    monkeypatch.setattr(fast_tables, "HELP_CLICK", "0.0")
    printed.clear()
    fast._root_help()
    assert printed == []


def test_the_check_mode_finds_a_stale_module(tmp_path: Path) -> None:
    module = load_script("gen_cli_tables")
    stale = tmp_path / "fast_tables.py"
    stale.write_text('HELP_COLUMNS = 80\nROOT_HELP = "Usage: tvmc\\n"\n', encoding="utf-8")
    assert module.main(["--check", "--module", str(stale)]) == 1
    assert module.main(["--module", str(stale)]) == 0
    assert module.main(["--check", "--module", str(stale)]) == 0


def test_the_table_names_the_commands_with_a_config_option() -> None:
    assert {"config show", "config get", "config explain", "config validate", "compile"} == set(CONFIG_COMMANDS)
    values, flags, search, isolated = CONFIG_COMMANDS["config show"]
    assert {"--config", "-c", "--set", "--format", "-O"} <= set(values) and {"--origin", "--hash", "-h"} <= set(flags)
    assert not any(name.startswith("--target-llvm") for name in values)  # generated flags: click's to read
    assert (search, isolated) == (("--search-path",), ("--isolated",))


@pytest.mark.parametrize("columns", [None, "80", "200", "79", "60", "x"])
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_root_help_is_clicks_and_needs_click_only_when_narrow(flag: str, columns: str | None) -> None:
    env = _env() if columns is None else _env(COLUMNS=columns)
    narrow = columns is not None and columns.isdigit() and int(columns) < 80
    assert _same_as_click([flag], env) == (SAME_CLICK and not narrow)


@pytest.mark.parametrize("args", [["--help", "config"], ["config", "--help"], ["--version"], ["-h", "-h"]])
def test_other_argument_lists_take_the_ordinary_path(args: list[str]) -> None:
    assert not _same_as_click(args, _env(COLUMNS="120"))


def test_a_full_disk_is_one_line_and_exit_1() -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "tvmc", "--help"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(COLUMNS="120"),
            timeout=60,
        )
    assert done.returncode == 1 and done.stderr == "tvmc: error: cannot write the output: No space left on device\n"


@pytest.mark.parametrize(
    ("line", "fast"),
    [
        ("tvmc config show --config aws/", True),
        ("tvmc config show -c ", True),
        ("tvmc compile m.onnx -c nvidia/jet", True),
        ("tvmc config get --isolated -c aws/", True),
        ("tvmc config validate --strict -O 3 -c ho", True),
        ("tvmc config explain targets -c aws/c5 -c aws/c", True),
        ("tvmc config show --set --config aws/", True),  # --set takes `--config`; click completes the name too
        ("tvmc config show -c ../", True),
        ("tvmc config show --search-path {sp} -c te", True),
        ("tvmc config show --search-path {sp} --isolated -c ", True),
        ("tvmc config show --target-llvm-mcpu x -c aws/", False),  # a generated flag
        ("tvmc config show --format=json -c aws/", False),
        ("tvmc config show -- -c aws/", False),
        ("tvmc config show -c aws/c5:", False),  # NAME:PART resolves the config
        ("tvmc config show -c aws/c5 : ", False),  # bash split the word at ':'
        ("tvmc config show -c 'aws/", False),  # quotes are shlex's to read
        ("tvmc config show -c", False),  # completing the option's name
        ("tvmc tune m.onnx -c aws/", False),  # `tune db` makes tune a group of sorts
        ("tvmc --version config show -c aws/", False),
        ("tvmc config show --origin aws/", False),
    ],
)
@pytest.mark.parametrize("variables", [{}, {"TVMC_ISOLATED": "1"}, {"TVMC_CONFIG_PATH": "{sp}"}])
def test_a_tab_in_a_config_value_is_clicks_answer(
    line: str, fast: bool, variables: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "a.toml").write_text("")
    (tmp_path / "aws.toml").write_text("")
    line = line.format(sp=tmp_path)
    words = line.split()
    cword = len(words) if line.endswith(" ") else len(words) - 1
    env = _env(
        _TVMC_COMPLETE="complete_bash",
        COMP_WORDS=line,
        COMP_CWORD=str(cword),
        **{k: v.format(sp=tmp_path) for k, v in variables.items()},
    )
    assert _same_as_click([], env) == fast


def test_other_shells_take_the_ordinary_path() -> None:
    line = "tvmc config show --config aws/"
    env = _env(_TVMC_COMPLETE="complete_zsh", _TYPER_COMPLETE_ARGS=line, COMP_WORDS=line, COMP_CWORD="4")
    assert not _same_as_click([], env)


# `main` ends the process itself (see `exit_now`), running the exit handlers first.
MODULES = """
import atexit, json, sys
sys.argv = ["tvmc"]
atexit.register(lambda: print("\\n" + json.dumps(sorted(sys.modules)), file=sys.stderr))
from tvmc.cli.entry import main
main()
"""


def test_a_tab_loads_no_dataclasses_errors_registry_or_toml_parser() -> None:
    """A keystroke waits for it: the search path, the file names and the tag names, nothing else
    (tvmc.errors brings typing and the records, host/native platform, the loader a TOML parser)."""
    line = "tvmc config show --config aws/"
    env = _env(_TVMC_COMPLETE="complete_bash", COMP_WORDS=line, COMP_CWORD="4")
    done = subprocess.run([sys.executable, "-c", MODULES], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0 and "aws/c5\n" in done.stdout
    modules = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert "tvmc.sources.search" in modules  # it did list the search path
    loaded = modules & {"click", "typer", "dataclasses", "inspect", "platform", "tomli", "tomllib"}
    assert not loaded and not {m for m in modules if m.startswith(("tvmc.errors", "tvmc.registry", "tvmc.sources.l"))}


def test_the_tag_names_a_tab_reads_are_the_registrys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Completion and the registry read the tag table through one reader (`tvmc.datafiles`, which
    does not import the registry): what it gives is what both list (completion had a reader of its
    own, that could have drifted from the registry's)."""
    from tvmc import datafiles, registry
    from tvmc.cli.config_names import tag_names

    real = registry.tag_names()
    assert tag_names() == real and "nvidia/jetson-nano" in real
    table = {"zz/one": {"kind": "llvm"}, "zz/two": {"kind": "cuda"}}
    monkeypatch.setattr(datafiles, "load", lambda name: {"tags": table} if name == "tags.json" else pytest.fail(name))
    datafiles.tags.cache_clear()
    try:
        assert tag_names() == registry.tag_names() == ["zz/one", "zz/two"]
    finally:
        datafiles.tags.cache_clear()  # the next reader reads the real table again
