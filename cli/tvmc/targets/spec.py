"""A target as written, before parsing or canonicalization: the `Spec` type, the tags, target JSON
text, and the error for options a kind does not have. Shared by `parse` (which converts) and
`canonical` (which checks and normalizes, and parses a legacy string first).
"""

from __future__ import annotations

import json

from tvmc import registry
from tvmc.errors import Location, TargetError, did_you_mean, suggestion_text
from tvmc.sources.limits import MAX_DEPTH
from tvmc.targets import tables as T

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Any quoted: `typing` is only imported for type checking (start-up time, scripts/bench_startup.py)
Spec = dict[str, "Any"]


def as_location(source: str | Location | None) -> Location | None:
    return Location(source) if isinstance(source, str) else source


def tag_base(name: str, loc: Location | None, where: str = "") -> dict[str, Any]:
    """The registered config of a tag (shared, never mutated), or a TargetError."""
    config = tag_configs().get(name)
    if config is not None:
        return config
    renamed = registry.renamed_tag(name)
    if renamed is not None:
        raise TargetError(
            f"{where}Unknown target tag: {T.shown(name)}",
            loc,
            suggestions=[renamed],
            hint=f"TVM renamed it to {renamed!r}",
        )
    raise TargetError(
        f"{where}Unknown target tag: {T.shown(name)}", loc, suggestions=did_you_mean(name, registry.tag_names())
    )


_TAGS: dict[str, dict[str, Any]] = {}


def tag_configs() -> dict[str, dict[str, Any]]:
    if not _TAGS:
        _TAGS.update({name: registry.tag_config(name) or {} for name in registry.tag_names()})
    return _TAGS


def load_json_object(text: str, loc: Location | None, where: str = "") -> dict[str, Any]:
    from tvmc.sources.json_positions import too_deep  # lazy: only a target given as JSON text needs it

    if too_deep(text, MAX_DEPTH) is not None:  # json.loads recurses: bound it like config files
        raise TargetError(f"{where}target JSON nested deeper than {MAX_DEPTH} levels", loc)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        at = Location(loc.source, (loc.line or 1) + err.lineno - 1, err.colno) if loc and loc.line else loc
        raise TargetError(
            f"{where}Failed to parse target JSON config: {err.msg} (line {err.lineno}, column {err.colno})", at
        ) from None
    except ValueError:  # int()'s 4300-digit limit
        raise TargetError(f"{where}target JSON has an integer too long to fit in 64 bits", loc) from None
    if not isinstance(value, dict):
        raise TargetError(f"{where}Target JSON config must be a dict, got {T.type_name(value)}", loc)
    return value


def unknown_options(kind: registry.Kind, opts: list[str], loc: Location | None, where: str) -> TargetError:
    """The error for options a kind does not have: every one at once, each with its did-you-mean."""
    if len(opts) == 1:
        return unknown_option(kind, opts[0], loc, where)
    named = ", ".join(f"'{opt}'" + suggestion_text(did_you_mean(opt, kind.order)) for opt in opts)
    return TargetError(
        f"{where}Unknown config options of target kind '{kind.name}': {named}",
        loc,
        option=T.top_option(where, opts[0]),
    )


def unknown_option(kind: registry.Kind, opt: str, loc: Location | None, where: str) -> TargetError:
    known = ", ".join(repr(o) for o in kind.order)
    hint = None
    legacy = kind.legacy_options.get(opt)
    renamed = registry.renamed_options().get(kind.name, {}).get(opt)
    if renamed is not None:
        hint = f"TVM renamed it to {renamed!r}"
    elif legacy is not None:
        last = legacy.versions[-1]
        hint = f"it was removed after TVM {last}"
        if legacy.lifts_to:
            hint += f"; it is now {legacy.lifts_to}"
    suggestions = [renamed] if renamed else did_you_mean(opt, kind.order)
    known = "" if suggestions else f". Known options: {known}"  # a did-you-mean says enough
    return TargetError(
        f"{where}Unknown config option '{opt}'{known}",
        loc,
        suggestions=suggestions,
        hint=hint,
        option=T.top_option(where, opt),
        rule="unknown-option",  # as the same option written in a target table
    )
