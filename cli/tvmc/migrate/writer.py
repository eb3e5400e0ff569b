"""The migrated config as TOML: a readable layout, and what was not carried as comments.

tomli_w breaks inline arrays across lines inside inline tables, which reads badly for targets,
so the few value shapes a config holds are written here; the result is checked by parsing it back.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

from tvmc.migrate.old_tvmc import Dropped
from tvmc.sources.installed import schema_directive
from tvmc.text import one_line

ORDER = (
    "description",
    "tvm-version",
    "targets",
    "host",
    "disabled-pass",
    "opt-level",
    "executor",
    "runtime",
    "pass-config",
    "build",
)
_BARE = re.compile(r"[A-Za-z0-9_-]+")


def key(name: str) -> str:
    return name if _BARE.fullmatch(name) else _string(name)


def _string(text: str) -> str:
    # JSON escapes are TOML escapes, except that TOML also forbids a raw DEL.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def value(item: Any) -> str:
    """One TOML value on one line (inline tables and arrays)."""
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int):
        return str(item)
    if isinstance(item, float):  # repr is valid TOML for finite floats ("3.0", "1e-07")
        if item != item:
            return "nan"
        return repr(item) if abs(item) != float("inf") else ("inf" if item > 0 else "-inf")
    if isinstance(item, str):
        return _string(item)
    if isinstance(item, list):
        return "[" + ", ".join(value(v) for v in item) + "]"
    if isinstance(item, Mapping):
        return "{ " + ", ".join(f"{key(k)} = {value(v)}" for k, v in item.items()) + " }" if item else "{}"
    raise TypeError(f"cannot write {type(item).__name__} as TOML")


def _comment_block(title: str, lines: Sequence[str]) -> list[str]:
    # A comment is one line: what the input carried (control characters, line breaks) is escaped.
    return [f"# {title}", *(f"#   - {one_line(line)}" for line in lines), "#"] if lines else []


def render(doc: Mapping[str, Any], *, origin: str, dropped: Sequence[Dropped], notes: Sequence[str]) -> str:
    """The whole file: schema line, provenance, what was not carried, notes, then the config."""
    schema = schema_directive()
    head = [*([schema] if schema else [])]
    head += [f"# Migrated from old tvmc by `tvmc config migrate` ({one_line(origin)}).", "#"]
    head += _comment_block("Not carried (no tvmc config equivalent):", [str(d) for d in dropped])
    head += _comment_block("Notes:", list(dict.fromkeys(notes)))
    body: list[str] = []
    tables: list[str] = []
    for name in ORDER:
        if name not in doc:
            continue
        item = doc[name]
        if name == "targets":
            body.append("targets = [")
            body += [f"  {value(t)}," for t in item]
            body.append("]")
        elif isinstance(item, Mapping) and name != "host":
            tables += ["", f"[{name}]", *(f"{key(k)} = {value(v)}" for k, v in item.items())]
        else:
            body.append(f"{key(name)} = {value(item)}")
    text = "\n".join(head + body + tables) + "\n"
    if tomllib.loads(text) != dict(doc):  # a writer bug must never produce a config that means something else
        raise AssertionError("the migrated TOML does not parse back to the config it was written from")
    return text
