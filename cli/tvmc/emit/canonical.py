"""Canonical config text: byte-identical for identical inputs (sorted keys, fixed formatting)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from tvmc.config import sort_keys
from tvmc.pointers import display_path
from tvmc.provenance import Origin, walk

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def to_json(
    data: Mapping[str, Any], origins: Mapping[str, Origin] | None = None, environment: Mapping[str, Any] | None = None
) -> str:
    """Indented JSON with sorted keys; with `origins`, an `origins` map keyed by JSON pointer;
    with `environment`, which user/env inputs took part (`config show --origin`)."""
    doc: dict[str, Any] = dict(data)
    if environment is not None:
        doc["environment"] = dict(environment)
    if origins is not None:
        doc["origins"] = {p: str(origins[p]) for p, node in walk(data) if p and _is_leaf(node) and p in origins}
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def to_compact_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def to_toml(data: Mapping[str, Any]) -> str:
    import tomli_w  # only the TOML paths pay for it

    return tomli_w.dumps(sort_keys(data), multiline_strings=False)


def _is_leaf(node: Any) -> bool:
    """A scalar, or an empty table or list (shown as a value of its own)."""
    return not isinstance(node, dict | list) or not node


def origin_view(data: Any, origins: Mapping[str, Origin], pointer: str = "") -> str:
    """One line per value, like `git config --show-origin`: `ORIGIN<TAB>path = value`; `data` is
    the whole config, or the node at `pointer` (paths are shown in full either way)."""
    lines = []
    for at, value in walk(data, pointer):
        if not at or not _is_leaf(value):
            continue
        origin = origins.get(at)
        lines.append(f"{origin or 'default'}\t{display_path(at)} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


def value_text(value: Any, name: str) -> str:
    """One value as `tvmc config get` prints it, like `git config --get`: a string as it is, another
    scalar or a list of scalars in TOML syntax, a table as a TOML document, a list of tables as
    `[[name]]` tables."""
    if isinstance(value, str):
        return _one_line(value) + "\n"
    if isinstance(value, dict):
        return to_toml(value) if value else "{}\n"
    if isinstance(value, list) and any(isinstance(item, dict) for item in value):
        return to_toml({name: value})
    return toml_value(value) + "\n"


def toml_value(value: Any) -> str:
    """A value on one line in TOML syntax (strings quoted, tables and lists inline)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _one_line(json.dumps(value, ensure_ascii=False))
    if isinstance(value, list | dict):
        return _one_line(json.dumps(value, ensure_ascii=False, sort_keys=True))
    return str(value)


def _one_line(text: str) -> str:
    # JSON leaves U+2028, U+2029 and C1 controls raw; a line-per-value view must escape them.
    return text if text.isprintable() else "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in text)
