"""`tvmc.targets` exports its names on first use; every exported name is there, and the same object
as in the submodule that defines it."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest
import tvmc.targets
from testkit import cli_env


@pytest.mark.parametrize("name", tvmc.targets.__all__)
def test_every_export_resolves(name: str) -> None:
    submodule = importlib.import_module(f"tvmc.targets.{tvmc.targets._SUBMODULE[name]}")
    assert getattr(tvmc.targets, name) is getattr(submodule, name)
    namespace: dict[str, object] = {}
    exec(f"from tvmc.targets import {name}", namespace)
    assert namespace[name] is getattr(submodule, name)


def test_exports_are_listed_once() -> None:
    assert sorted(tvmc.targets._SUBMODULE) == sorted(tvmc.targets.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        tvmc.targets.nothing  # type: ignore[attr-defined]  # noqa: B018


def test_parsing_targets_does_not_load_the_config_loader() -> None:
    # parse.py needs only tvmc.sources.limits; the package's lazy exports keep the loader (and tomli) out.
    code = "import sys, tvmc.targets.parse; print(*sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=cli_env(), check=True)
    modules = set(out.stdout.split())
    assert "tvmc.sources.limits" in modules
    assert not {"tvmc.sources.loader", "tvmc.sources.search", "tomli", "tomllib"} & modules
