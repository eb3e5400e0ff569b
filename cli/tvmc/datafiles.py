"""The registry's generated data files (`registry/data/*.json`), read without importing the registry.

`tvmc.registry` reads every file through `load`, and its tag table through `tags`; shell completion
(`tvmc.cli.config_names`) reads the tag names through `tags` too, without importing the registry
(its records and tables), which a TAB keystroke need not wait for. Only `os` and `json`.
"""

from __future__ import annotations

import json
import os
from functools import cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_DATA_DIR = os.path.join(os.path.dirname(__file__), "registry", "data")


def load(name: str) -> Any:
    """The JSON data file `name` (`kinds.json`, `tags.json`)."""
    path = os.path.join(_DATA_DIR, name)
    if os.path.isfile(path):  # a plain read: importlib.resources costs ms of start-up to import and set up
        with open(path, encoding="utf-8") as file:
            return json.loads(file.read())
    from importlib import resources  # tvmc imported from a zip archive

    return json.loads(resources.files("tvmc").joinpath("registry", "data", name).read_text(encoding="utf-8"))


@cache
def tags() -> dict[str, Any]:
    """The tag table: every registered tag's config, by name (sorted). Shared: never modify it."""
    table: dict[str, Any] = load("tags.json")["tags"]
    return table
