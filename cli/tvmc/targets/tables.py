"""The option codes the canonicalizer dispatches on, and the value type rules of TVM 0.27.

Canonicalization runs in a hot loop (every config load, the benchmark): each option's type is
reduced to a small integer code once, when the registry builds its `Kind` (`Kind.codes`), and
the canonicalizer dispatches on it. A kind is the registry's own `Kind` (`registry.kind(name)`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from tvmc import registry
from tvmc.errors import Location, TargetError, did_you_mean

# Re-exported: targets modules use T.STR, T.KIND, ... (tvmc.registry.codes defines them).
from tvmc.registry import TYPE_CODES as TYPE_CODES
from tvmc.registry.codes import ANY as ANY
from tvmc.registry.codes import BOOL as BOOL
from tvmc.registry.codes import FROM_DEVICE as FROM_DEVICE
from tvmc.registry.codes import HOST as HOST
from tvmc.registry.codes import INT as INT
from tvmc.registry.codes import INT_ARRAY as INT_ARRAY
from tvmc.registry.codes import KEYS as KEYS
from tvmc.registry.codes import KIND as KIND
from tvmc.registry.codes import STR as STR
from tvmc.registry.codes import STR_ARRAY as STR_ARRAY
from tvmc.registry.codes import TAG as TAG
from tvmc.registry.codes import TARGET as TARGET
from tvmc.registry.codes import TARGET_ARRAY as TARGET_ARRAY
from tvmc.text import one_line

# Re-exported: targets modules use T.INT64_MIN, T.INT64_MAX and T.type_name.
from tvmc.values import INT64_MAX as INT64_MAX
from tvmc.values import INT64_MIN as INT64_MIN
from tvmc.values import type_name as type_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def shown(text: str) -> str:
    """User text inside a TVM-style message: escaped when it holds line breaks or other
    unprintable characters, so that the message stays one line, and cut short when long."""
    if len(text) > 80:
        text = f"{text[:40]}…{text[-20:]} ({len(text)} characters)"
    return one_line(text)


# The rule refusing a target string that starts with neither a kind nor a tag: a file's string and
# the same string in `--target` or `TVMC_TARGET` are refused by one rule.
STRING_START_RULE = "unknown-tag"


def in_another_case(name: str, kinds: Iterable[str]) -> str | None:
    """The kind of `kinds` that `name` spells in another case (`LLVM`: llvm), if any."""
    return next((kind for kind in kinds if kind.lower() == name.lower()), None)


def kind_suggestions(name: str) -> list[str]:
    """The kind a misspelt kind name most likely means: the same name in another case first."""
    names = list(registry.all_kinds())
    same = in_another_case(name, names)
    return [same] if same is not None else did_you_mean(name, names)


def unknown_kind(name: str, loc: Location | None) -> TargetError:
    """TVM's error for a kind it lacks."""
    hint = f"{name!r} is a tag: write {{'tag': {name!r}}}" if registry.is_tag(name) else None
    return TargetError(
        f'Target kind "{shown(name)}" is not defined', loc, suggestions=kind_suggestions(name), hint=hint
    )


def start_suggestions(word: str) -> list[str]:
    """What the first word of a target string that is neither a kind nor a tag most likely means:
    a kind in another case (`LLVM`), a tag whose last part holds the word's (`nvidia/a100`:
    nvidia/nvidia-a100), else the closest kind or tag. The rule engine suggests the same for the
    same string in a file (`validate.checks`)."""
    kinds = list(registry.all_kinds())
    same = in_another_case(word, kinds)
    if same is not None:
        return [same]
    tags = registry.tag_names()
    last = word.rsplit("/", 1)[-1].lower()
    if "/" in word and last:
        containing = [tag for tag in tags if last in tag.rsplit("/", 1)[-1].lower()]
        if containing:
            return did_you_mean(word, containing) or [min(containing, key=len)]
    return did_you_mean(word, [*kinds, *tags])


def unknown_start(word: str, loc: Location | None) -> TargetError:
    """A target string starting with neither a kind nor a tag: TVM's message, the rule (and the
    did-you-mean) the rule engine gives the same string in a file."""
    return TargetError(
        f'Target kind "{shown(word)}" is not defined', loc, suggestions=start_suggestions(word), rule=STRING_START_RULE
    )


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
