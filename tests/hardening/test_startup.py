"""Start-up: each command imports only what it needs, the lazy group and the lazy rewrite options
behave like eager ones, and `config show` / `--help` stay within 5x a bare Python."""

from __future__ import annotations

import json
import subprocess
import sys

from testkit import cli_env
from tvmc.cli import app as app_module

from .harness import MODEL, ROOT, run_cli

HEAVY = ("jsonschema", "tvm", "tomli_w", "rich", "pydantic", "onnx", "numpy")
# `main` ends the process itself (see `exit_now`); it runs the exit handlers first.
IMPORTS = """
import atexit, json, sys
sys.argv = ["tvmc", *json.loads(sys.argv[1])]
atexit.register(lambda: print("\\n" + json.dumps(sorted(sys.modules)), file=sys.stderr))
from tvmc.cli.app import main
main()
"""


def imported(*argv: str) -> set[str]:
    """Every module a real `tvmc ARGV` process has imported when it ends."""
    proc = subprocess.run(
        [sys.executable, "-c", IMPORTS, json.dumps(argv)],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=120,
        check=False,
    )
    modules: list[str] = json.loads(proc.stderr.strip().splitlines()[-1])
    return set(modules)


def heavy(modules: set[str]) -> set[str]:
    """The heavy packages among `modules`, by top-level name."""
    return {m.split(".")[0] for m in modules} & set(HEAVY)


def test_config_show_json_imports_nothing_heavy() -> None:
    modules = imported("config", "show", "--config", "aws/c5", "--format", "json")
    assert "tvmc.api" in modules  # it did run
    assert not heavy(modules)
    assert not {"tvmc.cli.compile_cmd", "tvmc.cli.target_cmd", "tvmc.backend.plan", "tvmc.emit.python"} & modules


def test_each_command_imports_what_it_needs_only() -> None:
    toml = imported("config", "show", "--config", "aws/c5")
    assert heavy(toml) == {"tomli_w"}  # the TOML writer, for the TOML output only
    help_ = imported("--help")
    assert not heavy(help_) and not {
        m
        for m in help_
        if m.startswith(("tvmc.cli.", "tvmc.rewrites", "tvmc.registry"))
        and m not in ("tvmc.cli.app", "tvmc.cli.common", "tvmc.cli.exiting", "tvmc.cli.output")
    }
    emit = imported("compile", str(MODEL), "--config", "aws/c5", "--emit", "python")
    assert "tvmc.emit.python" in emit and not heavy(emit) and "tvmc.cli.config_cmd" not in emit
    validate = imported("config", "validate", str(ROOT / "configs" / "aws" / "c5.toml"), "--engine", "jsonschema")
    assert heavy(validate) == {"jsonschema"}  # only when asked for


def test_config_validate_imports_what_it_needs_only() -> None:
    validate = imported("config", "validate", str(ROOT / "configs" / "aws" / "c5.toml"))
    assert "tvmc.validate.runner" in validate and not heavy(validate)
    # tvmc.targets exports its names lazily: validating parses and canonicalizes targets, nothing else
    assert {"tvmc.targets.parse", "tvmc.targets.canonical"} <= validate
    assert (
        not {
            "tvmc.targets.printer",
            "tvmc.targets.queries",
            "tvmc.targets.system",
            "tvmc.targets.tvmc_list",
            "tvmc.api",
            "tvmc.cli.target_cmd",
        }
        & validate
    )


def test_config_show_leaves_the_other_config_commands_unloaded() -> None:
    modules = imported("config", "show", "--config", "aws/c5", "--format", "json")
    unloaded = {"tvmc.cli.validate_cmd", "tvmc.cli.tooling_cmd", "tvmc.validate.reporters"}
    assert "tvmc.cli.config_cmd" in modules and not unloaded & modules
    assert "tvmc.cli.validate_cmd" in imported("config", "validate", "--help")


def test_the_config_commands_other_modules_register_are_named_in_order() -> None:
    import importlib

    import typer

    for module, names in app_module.CONFIG_REGISTERED.items():
        holder = typer.Typer()
        importlib.import_module(f"tvmc.cli.{module}_cmd").register(holder)
        assert tuple(info.name for info in holder.registered_commands) == names, module


def test_static_summaries_match_the_commands() -> None:
    for name, (summary, load) in app_module.COMMANDS.items():
        command = load()
        assert command.get_short_help_str(limit=300) == summary, name
    result = run_cli(["--help"])
    assert all(name in result.stdout for name in app_module.COMMANDS)


def test_running_commands_in_process_does_not_register_them_again() -> None:
    from tvmc.cli import config_cmd

    for _ in range(3):
        assert run_cli(["config", "show", "--config", "aws/c5", "--hash"]).exit_code == 0
    names = [
        info.name or (info.callback.__name__ if info.callback else "") for info in config_cmd.app.registered_commands
    ]
    assert len(names) == len(set(names))


def test_rewrite_options_are_built_only_for_the_command_that_runs() -> None:
    code = (
        "from tvmc.cli.app import _config; import click; g = _config(); ctx = click.Context(g); "
        "commands = [g.get_command(ctx, name) for name in g.list_commands(ctx)]; "
        "print(sum(len(c.params) for c in commands), "
        "len(g.commands['show'].get_params(click.Context(g.commands['show']))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=cli_env(), check=True).stdout
    built, show = map(int, out.split())
    assert built < 60 < show  # ~20 declared parameters in all; ~400 once `show` asks for its own
