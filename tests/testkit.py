"""Helpers shared across the test directories, imported as `from testkit import ...` (pytest puts
tests/ on sys.path for tests/conftest.py): the environment of a real `tvmc` process, and the
scripts in scripts/ loaded as modules."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


# .ci/run's wheel job runs tests against the installed wheel (TESTS_AGAINST_INSTALLED=1): children
# then import the tvmc installed in their Python, not the clone's cli/.
AGAINST_INSTALLED = os.environ.get("TESTS_AGAINST_INSTALLED") == "1"


def cli_env(**extra: str) -> dict[str, str]:
    """The environment for a `python -m tvmc` (or `python -c`) child that imports tvmc from cli/
    (or, against the installed wheel, the installed tvmc): os.environ as it is now (after the
    autouse isolation fixture), PYTHONPATH, then `extra`."""
    path = {} if AGAINST_INSTALLED else {"PYTHONPATH": str(ROOT / "cli")}
    return {**os.environ, **path, **extra}


def load_script(name: str) -> ModuleType:
    """scripts/NAME.py, executed as the module NAME and registered in sys.modules (which dataclasses
    and pickling in the script rely on)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(path, command) of every click command and group below `command` (itself included), built
    lazily as tvmc does."""
    import click

    yield path, command
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None, name
            yield from commands(sub, (*path, name))
