"""`tvmc.targets` exports its names on first use; every exported name is there, and the same object
as in the submodule that defines it."""

from __future__ import annotations

import importlib

import pytest
import tvmc.targets


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
