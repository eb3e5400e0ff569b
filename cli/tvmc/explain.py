"""One value of a resolved config, and the history behind it (`tvmc config get` / `config explain`).

A PATH uses the rewrite grammar (`tvmc.rewrites.parse_path`): `targets[0].mcpu`, `executor.kind`,
`targets[kind=llvm].mattr`, `pass-config."tir.disable_vectorize"`. `lookup` finds it in a
canonical config; `explain` replays the layering one layer at a time, then each rewrite
(environment, then flags), and records every step that set, changed or removed the value — the
winner last — with the value as that layer wrote it, and the final canonical value.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, Final

from tvmc.config import TOP_LEVEL
from tvmc.errors import FrozenRecord, TvmcError, UsageError, did_you_mean
from tvmc.provenance import Origin, display_path, is_within, join, origin_of, split
from tvmc.rewrites.grammar import Index, Key, Segment, Select, parse_path

PATH_SOURCE = "PATH"  # how a malformed PATH argument is named in messages


def parse(text: str) -> tuple[Segment, ...]:
    """A PATH as the rewrite grammar reads it; the whole text must be the path."""
    if not isinstance(text, str):
        raise TypeError(f"path: expected a str such as 'targets[0].mcpu', got {type(text).__name__}")
    segments, rest = parse_path(text, PATH_SOURCE)
    if rest:
        raise UsageError(f"unexpected {rest!r} after the path {text[: len(text) - len(rest)]!r}", PATH_SOURCE)
    first = segments[0]
    if isinstance(first, Key) and first.name not in TOP_LEVEL:
        raise UsageError(
            f"unknown config key {first.name!r}", PATH_SOURCE, suggestions=did_you_mean(first.name, list(TOP_LEVEL))
        )
    return segments


def _matches(node: Any, select: Select) -> bool:
    return isinstance(node, dict) and str(node.get(select.key)) == select.value


def lookup(data: Any, path: Sequence[Segment], expand: bool = False) -> list[tuple[str, Any]]:
    """Every (pointer, value) the path reaches in a plain tree; [] when it reaches nothing.

    With `expand`, a target written as a string or a tag table (in a merged, not yet canonical
    tree) is looked into as the target it stands for."""
    found: list[tuple[str, Any]] = [("", data)]
    for segment in path:
        step: list[tuple[str, Any]] = []
        for pointer, node in found:
            if expand and _is_target_slot(pointer):
                node = expand_target(node)
            if isinstance(segment, Key):
                if isinstance(node, dict) and segment.name in node:
                    step.append((join(pointer, segment.name), node[segment.name]))
            elif isinstance(segment, Index):
                if isinstance(node, list) and -len(node) <= segment.index < len(node):
                    index = segment.index % len(node)
                    step.append((join(pointer, index), node[index]))
            elif isinstance(node, list):
                for index, child in enumerate(node):
                    if _matches(expand_target(child) if expand and pointer == "/targets" else child, segment):
                        step.append((join(pointer, index), child))
            elif _matches(expand_target(node) if expand and _is_target_slot(pointer) else node, segment):
                step.append((pointer, node))
        found = step
    if expand:
        found = [(p, expand_target(v) if _is_target_slot(p) else v) for p, v in found]
    return found


def _is_target_slot(pointer: str) -> bool:
    tokens = split(pointer)
    return (len(tokens) == 2 and tokens[0] == "targets" and tokens[1].isdigit()) or tokens[-1:] == ["host"]


def expand_target(node: Any) -> Any:
    """A target written as a tag, legacy string or tag table, as the table it stands for (the
    node itself when it cannot be read: validation reports that, not an explanation)."""
    from tvmc import targets as tg

    if not (isinstance(node, str) or (isinstance(node, dict) and "tag" in node and "kind" not in node)):
        return node
    try:
        if isinstance(node, str):
            return tg.parse_target(node).spec
        expanded = dict(tg.parse_target(node["tag"]).spec) if isinstance(node["tag"], str) else {}
        expanded.update({k: v for k, v in node.items() if k != "tag"})
        return expanded
    except TvmcError:
        return node


class Found(FrozenRecord):
    """The value at a PATH of a resolved config, and its origin."""

    __match_args__ = ("pointer", "value", "origin", "origins")
    __slots__ = __match_args__
    pointer: Final[str]
    value: Final[Any]
    origin: Final[Origin]
    origins: Final[Mapping[str, Origin]]  # of the value's nodes (for a table or list)

    def __init__(self, pointer: str, value: Any, origin: Origin, origins: Mapping[str, Origin]) -> None:
        self.pointer = pointer
        self.value = value
        self.origin = origin
        self.origins = origins

    @property
    def path(self) -> str:
        return display_path(self.pointer)


def one_match(path_text: str, matches: list[tuple[str, Any]]) -> tuple[str, Any] | None:
    """The single match of a PATH, None for none; a PATH reaching several values is a usage error."""
    if len(matches) > 1:
        shown = ", ".join(display_path(p) for p, _ in matches[:4])
        raise UsageError(f"{path_text!r} matches {len(matches)} values ({shown}); give an index", PATH_SOURCE)
    return matches[0] if matches else None


def get(canonical: Mapping[str, Any], origins: Mapping[str, Origin], path_text: str) -> Found | None:
    """The value at `path_text` in a canonical config, or None when it is unset."""
    match = one_match(path_text, lookup(canonical, parse(path_text)))
    if match is None:
        return None
    pointer, value = match
    inside = {p: o for p, o in origins.items() if is_within(p, pointer)}
    return Found(pointer, copy.deepcopy(value), origin_of(origins, pointer) or Origin.default(), inside)


def unset_message(path_text: str) -> str:
    return f"{path_text} is not set"

