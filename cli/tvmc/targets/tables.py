"""Per-kind lookup tables built once from the registry, and the value type rules of TVM 0.27.

Canonicalization runs in a hot loop (every config load, the benchmark), so each option's type
is reduced to a small integer code here and the canonicalizer dispatches on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, Final

from tvmc import registry
from tvmc.errors import FrozenRecord, Location, TargetError, did_you_mean
from tvmc.text import one_line

# Re-exported: targets modules use T.INT64_MIN, T.INT64_MAX and T.type_name.
from tvmc.values import INT64_MAX as INT64_MAX
from tvmc.values import INT64_MIN as INT64_MIN
from tvmc.values import type_name as type_name

# Type codes. Keep the common ones small: the canonicalizer tests them in this order.
STR, INT, BOOL, STR_ARRAY, INT_ARRAY, TARGET, TARGET_ARRAY, ANY = range(8)
# Options with a role beyond their value (consumed by the canonicalizer itself).
KIND, KEYS, TAG, HOST, FROM_DEVICE = range(100, 105)

TYPE_CODES = {
    registry.STR: STR,
    registry.INT: INT,
    registry.BOOL: BOOL,
    registry.STR_ARRAY: STR_ARRAY,
    registry.INT_ARRAY: INT_ARRAY,
    registry.TARGET: TARGET,
    registry.TARGET_ARRAY: TARGET_ARRAY,
}
_ROLE_CODES = {"kind": KIND, "keys": KEYS, "tag": TAG, "host": HOST, "from_device": FROM_DEVICE}


class KindTable(FrozenRecord):
    """What canonicalization needs to know about one kind, precomputed."""

    __match_args__ = (
        "name",
        "codes",
        "types",
        "order",
        "defaults",
        "default_keys",
        "device_type",
        "legacy",
        "byoc",
        "open_options",
        "last_version",
        "renamed_to",
    )
    __slots__ = __match_args__
    name: Final[str]
    codes: Final[dict[str, int]]  # option → type/role code
    types: Final[dict[str, str]]  # option → TVM type string (for messages)
    order: Final[tuple[str, ...]]  # declaration order (TVM validates in this order)
    defaults: Final[tuple[tuple[str, Any], ...]]
    default_keys: Final[tuple[str, ...]]
    device_type: Final[int]
    legacy: Final[bool]
    byoc: Final[bool]
    open_options: Final[bool]
    last_version: Final[str | None]
    renamed_to: Final[str | None]

    def __init__(
        self,
        name: str,
        codes: dict[str, int],
        types: dict[str, str],
        order: tuple[str, ...],
        defaults: tuple[tuple[str, Any], ...],
        default_keys: tuple[str, ...],
        device_type: int,
        legacy: bool,
        byoc: bool,
        open_options: bool,
        last_version: str | None,
        renamed_to: str | None,
    ) -> None:
        self.name = name
        self.codes = codes
        self.types = types
        self.order = order
        self.defaults = defaults
        self.default_keys = default_keys
        self.device_type = device_type
        self.legacy = legacy
        self.byoc = byoc
        self.open_options = open_options
        self.last_version = last_version
        self.renamed_to = renamed_to


def _table(kind: registry.Kind) -> KindTable:
    codes = {"kind": KIND}  # legacy kinds do not declare it, but a config may still say it
    for opt, typ in kind.options.items():
        codes[opt] = _ROLE_CODES.get(opt, TYPE_CODES.get(typ, ANY))
    return KindTable(
        name=kind.name,
        codes=codes,
        types=dict(kind.options),
        order=tuple(kind.options),
        defaults=tuple(kind.defaults.items()),
        default_keys=kind.default_keys,
        device_type=kind.device_type,
        legacy=kind.legacy,
        byoc=kind.byoc,
        open_options=kind.open_options,
        last_version=kind.last_version,
        renamed_to=kind.renamed_to,
    )


@cache
def tables() -> dict[str, KindTable]:
    """Modern kinds first; a legacy kind never shadows a modern one."""
    out = {name: _table(k) for name, k in registry.legacy_kinds().items()}
    out.update({name: _table(k) for name, k in registry.kinds().items()})
    return out


@cache
def all_kind_names() -> tuple[str, ...]:
    return tuple(sorted(tables()))


def shown(text: str) -> str:
    """User text inside a TVM-style message: escaped when it holds line breaks or other
    unprintable characters, so that the message stays one line, and cut short when long."""
    if len(text) > 80:
        text = f"{text[:40]}…{text[-20:]} ({len(text)} characters)"
    return one_line(text)


def unknown_kind(name: str, loc: Location | None) -> TargetError:
    names = all_kind_names()
    lowered = [n for n in names if n.lower() == name.lower()]
    suggestions = lowered or did_you_mean(name, names)
    hint = f"{name!r} is a tag: write {{'tag': {name!r}}}" if registry.is_tag(name) else None
    return TargetError(f'Target kind "{shown(name)}" is not defined', loc, suggestions=suggestions, hint=hint)


def top_option(where: str, option: str) -> str | None:
    """`TargetError.option` for an error about `option` of the target `where` prefixes messages of:
    only a top-level target's ("" prefix) is a key of the table validation points into."""
    return None if where else option


def type_error(opt: str, typ: str, value: Any, loc: Location | None, where: str = "") -> TargetError:
    got = type_name(value)
    detail = ""
    if got == "list" and typ.startswith("Array<"):
        for i, elem in enumerate(value):
            if type_name(elem) != typ[6:-1]:
                detail = f" (element [{i}] is '{type_name(elem)}')"
                break
    return TargetError(
        f"{where}Option '{opt}': expected type '{typ}' but got '{got}'{detail}", loc, option=top_option(where, opt)
    )


def convert_scalar(code: int, value: Any) -> Any:
    """Apply TVM 0.27's coercions (bool↔int); return `_BAD` when the value is not accepted.

    Also normalizes str/int/list subclasses (e.g. TOML library types) to plain types.
    """
    if code == STR:
        return str(value) if isinstance(value, str) else _BAD
    if code == INT:
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, int) and INT64_MIN <= value <= INT64_MAX:
            return int(value)
        return _BAD
    if code == BOOL:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and INT64_MIN <= value <= INT64_MAX:
            return bool(value)
        return _BAD
    if code in (STR_ARRAY, INT_ARRAY, KEYS):
        if not isinstance(value, (list, tuple)):
            return _BAD
        elem = INT if code == INT_ARRAY else STR
        out = [convert_scalar(elem, e) for e in value]
        return _BAD if any(e is _BAD for e in out) else out
    if code == ANY:
        return value
    return _BAD


class _Bad:
    """Sentinel for a rejected value (never a legitimate option value)."""

    def __repr__(self) -> str:
        return "<bad>"


_BAD: Any = _Bad()
BAD = _BAD


def own_json(value: Any) -> Any:
    """A private copy of a JSON-like value: sequences become lists, mappings dicts."""
    if isinstance(value, Mapping):
        return {str(k): own_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [own_json(v) for v in value]
    return value


def copy_json(d: dict[str, Any]) -> dict[str, Any]:
    """Copy a canonical target (dicts and lists are copied, scalars shared)."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        t = type(v)
        if t is list:
            out[k] = copy_list(v)
        elif t is dict:
            out[k] = copy_json(v)
        else:
            out[k] = v
    return out


def copy_list(v: Sequence[Any]) -> list[Any]:
    out = list(v)
    for i, e in enumerate(out):
        t = type(e)
        if t is dict:
            out[i] = copy_json(e)
        elif t is list:
            out[i] = copy_list(e)
    return out
