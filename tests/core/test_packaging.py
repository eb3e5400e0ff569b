"""The distribution ships every package and the config catalogue."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT / "cli").parts) for p in (ROOT / "cli" / "tvmc").rglob("__init__.py")}
    assert found | {"tvmc.configs"} == listed


def test_shipped_configs_are_found() -> None:
    from tvmc import sources

    shipped = sources.shipped_config_dir()
    assert shipped is not None and (shipped / "aws" / "c5.toml").is_file()
