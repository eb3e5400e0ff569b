"""Canonical target → legacy string, v0.10 style (TVM 0.10 TargetNode::str, src/target/target.cc), made to round-trip.

TVM's own `str()` dropped the host and tag and could not print composites; here the host is
`-host='…'`, the tag `-tag=…`, composite devices are quoted array elements, and every value is
quoted so that parsing the string gives back the same canonical target.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tvmc import registry
from tvmc.errors import TargetError
from tvmc.targets import tables as T
from tvmc.targets.canonicalizers import cpu_profile
from tvmc.targets.legacy import QUOTE, uninterpret
from tvmc.targets.machine import APROFILE_FEATURES

# `"` too: an unquoted `-k="v"` reads as `-k='v'` (old tvmc's double quotes), so a value holding a
# double quote is single-quoted to keep it.
_UNSAFE_ELEM = frozenset(",'\\ \"")
_UNSAFE_VALUE = frozenset(" '\\\"")


def _recomputed(canonical: Mapping[str, Any], key: str) -> bool:
    """Whether parsing the string gives this `feature.*` entry back (the kind's canonicalizer sets it)."""
    kind = canonical["kind"]
    if key in ("feature.has_dsp", "feature.has_mve"):
        return cpu_profile(kind, canonical.get("mtriple"), canonical.get("mcpu")) == "M"
    if key in APROFILE_FEATURES:
        return cpu_profile(kind, canonical.get("mtriple"), canonical.get("mcpu")) == "A"
    return key == "feature.is_test" and kind == "test"


def quote(text: str) -> str:
    """Text whose `interpret` is `text` and that contains no unquoted space."""
    return QUOTE + uninterpret(text) + QUOTE


def _value_text(text: str) -> str:
    if not text or any(c in _UNSAFE_VALUE for c in text):
        return quote(text)
    return text


def _elem_text(text: str) -> str:
    if not text or any(c in _UNSAFE_ELEM for c in text):
        return quote(text)
    return text


def _scalar(key: str, value: Any, where: str) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        if value != value.strip(" "):
            raise TargetError(
                f"{where}cannot write '{key}' in the legacy string form: the value "
                f"{value!r} has leading or trailing spaces, which the legacy parser strips"
            )
        return value
    raise TargetError(
        f"{where}cannot write '{key}' in the legacy string form: unsupported value of type {T.type_name(value)}"
    )


def _array(key: str, values: list[Any], where: str) -> str:
    elems = []
    for i, v in enumerate(values):
        if isinstance(v, Mapping):
            elems.append(_elem_text(to_legacy(v, where=f"{where}{key}[{i}]: ")))
        else:
            elems.append(_elem_text(_scalar(key, v, where)))
    return _value_text(",".join(elems))


def to_legacy(canonical: Mapping[str, Any], *, where: str = "", implied_keys: bool = False) -> str:
    """The legacy string of a canonical target: kind, `-keys=` first, then the attrs sorted.

    Values are quoted per the v0.10 rules (enclosing `'…'`, `\\` escapes) wherever needed;
    bools print as 1/0 like TVM's `str()`; `feature.*` entries TVM recomputes are dropped.
    With `implied_keys`, a target without `keys` leaves them to the parser (the kind's defaults).
    Raises TargetError for what the string form cannot hold (user `feature.*` entries,
    strings with leading/trailing spaces).
    """
    kind = canonical["kind"]
    parts = [kind]
    table = registry.all_kinds().get(kind)
    keys = canonical.get("keys", [])
    if keys or ("keys" not in canonical and implied_keys):
        if keys:
            parts.append("-keys=" + _array("keys", list(keys), where))
    elif table is not None and table.default_keys:
        # An empty list is written as '' so that the kind's default keys do not come back.
        parts.append("-keys=" + _array("keys", list(keys), where))
    attrs = []
    for key in sorted(canonical):
        value = canonical[key]
        if key in ("kind", "keys"):
            continue
        if key == "tag":
            if value:
                attrs.append(f"-tag={_value_text(_scalar(key, value, where))}")
            continue
        if key.startswith("feature."):
            if _recomputed(canonical, key):
                continue
            raise TargetError(
                f"{where}cannot write {key!r} in the legacy string form: TVM does not "
                "recompute it from the other options"
            )
        if table is not None and key not in table.codes and key != "compiler" and not isinstance(value, str):
            # An option a kind with open options does not declare reads back as text (TVM 0.10 Interpret,
            # src/target/target.cc).
            raise TargetError(
                f"{where}cannot write '{key}' in the legacy string form: {kind!r} does not "
                f"declare the option, so the string would give back text, not {T.type_name(value)}"
            )
        if isinstance(value, Mapping):
            attrs.append(f"-{key}={_value_text(to_legacy(value, where=f'{where}{key}: '))}")
        elif isinstance(value, (list, tuple)):
            attrs.append(f"-{key}={_array(key, list(value), where)}")
        else:
            attrs.append(f"-{key}={_value_text(_scalar(key, value, where))}")
    return " ".join(parts + attrs)
