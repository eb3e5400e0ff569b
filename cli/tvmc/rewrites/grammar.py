"""Rewrites and their path grammar: `opt-level`, `targets[0].mcpu`, `targets[kind=llvm].mattr`,
`pass-config."tir.disable_vectorize"`; `PATH=VALUE`, `PATH+=VALUE`, `PATH`."""

from __future__ import annotations

import re
from functools import cache

from tvmc.errors import UsageError
from tvmc.provenance import Origin
from tvmc.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    Op = Literal["set", "append", "unset", "default"]  # default: set only if absent

MAX_REWRITES = 10_000
MAX_PATH_LENGTH = 1_000


@record(slots=True, frozen=True)
class Key:
    name: str


@record(slots=True, frozen=True)
class Index:
    index: int


@record(slots=True, frozen=True)
class Select:
    key: str
    value: str


Segment = Key | Index | Select


@record(slots=True, frozen=True)
class Rewrite:
    """One edit of the config tree. `text` values are typed at apply time from the registry."""

    op: Op
    path: tuple[Segment, ...]
    origin: Origin
    value: Any = None
    text: str | None = None  # raw flag text, typed from the registry where the type is known
    hint: str | None = None  # said when the path matches nothing (e.g. "pass --executor aot first")
    notes: tuple[str, ...] = ()  # conversions the flag implied, reported with the result


# ---- path grammar ------------------------------------------------------------------------------


@cache
def _path_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """A bare key, a quoted key, `[N]`, `[KEY=VALUE]`: compiled on the first path (`config show`
    without --set/--unset parses none)."""
    return (
        re.compile(r"[A-Za-z0-9_\-]+"),
        re.compile(r'"((?:[^"\\]|\\.)*)"'),
        re.compile(r"\[(-?\d+)\]"),
        re.compile(r"\[([A-Za-z0-9_\-]+)=([^\]]*)\]"),
    )


def parse_path(text: str, flag: str) -> tuple[tuple[Segment, ...], str]:
    """Parse a path at the start of `text`; returns the path and the unparsed rest (`=VALUE`...)."""
    bare, quoted, index, select = _path_patterns()
    segments: list[Segment] = []
    pos = 0
    while True:
        if m := bare.match(text, pos):
            segments.append(Key(m.group(0)))
        elif m := quoted.match(text, pos):
            segments.append(Key(m.group(1).replace('\\"', '"').replace("\\\\", "\\")))
        else:
            raise UsageError(f"expected a key at column {pos + 1} of {text!r}", flag)
        pos = m.end()
        while m := (index.match(text, pos) or select.match(text, pos)):
            segments.append(Index(int(m.group(1))) if m.re is index else Select(m.group(1), _unquoted(m.group(2))))
            pos = m.end()
        if pos > MAX_PATH_LENGTH:  # the path only: the value after it may be longer
            raise UsageError(f"path longer than {MAX_PATH_LENGTH} characters", flag)
        if text.startswith(".", pos):
            pos += 1
            continue
        return tuple(segments), text[pos:]


def _unquoted(value: str) -> str:
    """A selector's value as written, without quotes around it: `[kind="llvm"]` is `[kind=llvm]`."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def parse_set(expr: str, flag: str, origin: Origin) -> Rewrite:
    """`PATH=VALUE` or `PATH+=VALUE` (from --set)."""
    path, rest = parse_path(expr, flag)
    if rest[:1].isspace() and rest.lstrip().startswith(("=", "+=")):
        raise UsageError(f"no spaces between the path and '=' in PATH=VALUE, got {expr!r}", flag)
    if rest.startswith("+="):
        return Rewrite("append", path, origin, text=rest[2:])
    if rest.startswith("="):
        return Rewrite("set", path, origin, text=rest[1:])
    raise UsageError(f"expected PATH=VALUE or PATH+=VALUE, got {expr!r}", flag)


def parse_unset(expr: str, flag: str, origin: Origin) -> Rewrite:
    path, rest = parse_path(expr, flag)
    if rest:
        raise UsageError(f"unexpected {rest!r} after the path", flag)
    return Rewrite("unset", path, origin)
