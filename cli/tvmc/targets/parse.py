"""One entry point for every target form: tag, JSON text, dict/TOML table, legacy string.

Parsing types the values (legacy strings carry only text) and converts what legacy TVM allowed
but TVM 0.27 does not: options that became executor/runtime settings are *lifted* out of the
target, renamed tags/kinds/options are renamed. Every conversion leaves a human note.
Validation against TVM's rules is `canonicalize`'s job.
"""

from __future__ import annotations

from collections.abc import Mapping

from tvmc import registry
from tvmc.errors import LimitError, Location, TargetError, did_you_mean
from tvmc.records import record
from tvmc.sources.limits import MAX_STRING
from tvmc.targets import tables as T
from tvmc.targets.spec import Spec, as_location, load_json_object, tag_base, unknown_options
from tvmc.text import has_surrogate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tvmc.targets.legacy import TypeOf

# Legacy runtime names (target attr `runtime=`) → Runtime registry names (TVM 0.9 python/tvm/relay/build_module.py,
# `_reconstruct_from_deprecated_options`).
_RUNTIME_NAMES = {"c": "crt", "c++": "cpp"}


@record(slots=True, frozen=True)
class ParsedTarget:
    """A parsed target: the spec (values typed), settings lifted out of it, and notes."""

    spec: Spec
    lifted: dict[str, Any]
    notes: tuple[str, ...]


class _Ctx:
    """What one parse collects: the settings lifted out of the target(s), and the notes. A plain class:
    nothing compares or prints one, so it needs none of a Record's `==`/`repr`."""

    __slots__ = ("lifted", "notes")

    def __init__(self) -> None:
        self.lifted: dict[str, dict[str, Any]] = {}
        self.notes: list[str] = []

    def lift(self, section: str, key: str, value: Any, loc: Location | None) -> None:
        entries = self.lifted.setdefault(section, {})
        if key in entries and entries[key] != value:
            raise TargetError(
                f"conflicting legacy settings: {section}.{key} is both {entries[key]!r} and {value!r}", loc
            )
        entries[key] = value


def parse_target(value: str | Mapping[str, Any], *, source: str | Location | None = None) -> ParsedTarget:
    """Parse any target form into a spec, lifting legacy-only options out of it.

    Accepted: a tag name; JSON object text; a dict/TOML table (`{"kind": ...}` or
    `{"tag": ..., <overrides>}`); a legacy string in TVM's v0.10+ grammar (single quotes,
    `\\` escapes, `-k=v`, `--k=v`, `-k v`, bare flags, comma arrays, `-host='llvm -mcpu=x'`,
    tags as host values) with old tvmc's double quotes (`-k="a, b"` is `-k='a, b'`), one grammar
    wherever the string comes from. tvmc extensions: a tag followed by options (`nvidia/nvidia-a100
    -l2_cache_size_bytes=5` → tag with overrides) and `-compiler=<byoc>`.

    A bare tag name gives the tag's registered config, so it canonicalizes with `tag: ""`
    exactly as TVM's `Target("<tag>")` does; `{"tag": name}` keeps the tag as a label.
    """
    loc = as_location(source)
    ctx = _Ctx()
    if isinstance(value, str):
        if has_surrogate(value):  # Python's stand-in for undecodable argv bytes; files refuse them too
            raise TargetError("the target is not valid UTF-8 text", loc)
        if len(value) > MAX_STRING:  # the limit of every string in a config file
            raise LimitError(f"a target string of {len(value)} characters is longer than {MAX_STRING}", loc)
        spec = _parse_top_str(value, loc, ctx)
    elif isinstance(value, Mapping):
        spec = _convert_dict(value, loc, ctx, legacy_text=False)
    else:
        raise TargetError(f"a target is a string or a table, got {T.type_name(value)}", loc)
    return ParsedTarget(spec, ctx.lifted, tuple(ctx.notes))


def parse_legacy_strict(text: str, loc: Location | None, where: str = "") -> Spec:
    """A legacy string for `canonicalize`: options that would be lifted are errors there."""
    if registry.renamed_tag(text) is not None:
        tag_base(text, loc, where)  # raises with the new name
    ctx = _Ctx()
    try:
        spec = _parse_top_str(text, loc, ctx)
    except TargetError as err:
        raise TargetError(where + err.message, err.location, suggestions=err.suggestions, hint=err.hint) from None
    if ctx.lifted:
        moved = ", ".join(f"{s}.{k}" for s, entries in ctx.lifted.items() for k in entries)
        raise TargetError(
            f"{where}{text!r} sets {moved}, which TVM no longer keeps in a target",
            loc,
            hint="parse_target() (and `tvmc target canonicalize`) move them to the config",
        )
    return spec


def _parse_top_str(text: str, loc: Location | None, ctx: _Ctx) -> Spec:
    # A tag alone, also between spaces (as TVMC_TARGET's value is stripped): the tag, not a tag
    # with no options (`{"tag": …}`, which keeps a label).
    base = registry.tag_config(text.strip(" "))
    if base is not None:
        return base
    renamed = _renamed_tag(text.strip(" "), ctx)
    if renamed is not None:
        return registry.tag_config(renamed) or {}
    if text.startswith("{"):
        return _convert_dict(load_json_object(text, loc), loc, ctx, legacy_text=False)
    if not text.strip(" "):
        raise TargetError(
            'Target kind "" is not defined: the target string is empty',
            loc,
            hint="give a kind, a tag, or JSON, e.g. llvm",
        )
    return _parse_legacy(text, loc, ctx)


def _renamed_tag(name: str, ctx: _Ctx) -> str | None:
    """The new name of a renamed tag, noting the rename; None if `name` was not renamed."""
    new = registry.renamed_tag(name)
    if new is not None:
        ctx.notes.append(f"tag {name!r} was renamed to {new!r}")
    return new


def _parse_nested(text: str, loc: Location | None, ctx: _Ctx) -> Any:
    """A host or composite device given as text: tags stay names, the rest becomes a spec."""
    if registry.is_tag(text):
        return text
    renamed = _renamed_tag(text, ctx)
    if renamed is not None:
        return renamed
    nested = Location(loc.source, loc.line) if loc is not None else None  # no columns inside values
    return _parse_top_str(text, nested, ctx)


def _parse_legacy(text: str, loc: Location | None, ctx: _Ctx) -> Spec:
    # The legacy grammar is loaded for the first legacy string: a config of tables never needs it.
    from tvmc.targets.legacy import ValueContext, double_quotes_as_single, parse_pairs

    spec: Spec = {}
    kinds = registry.all_kinds()
    unknown: list[tuple[str, Location | None]] = []
    first_kind: list[registry.Kind] = []

    def begin(first: str, first_loc: Location | None) -> TypeOf:
        if first in kinds:
            kind = kinds[first]
            spec["kind"] = first
        else:
            # Not _renamed_tag: the note below, which names the old spelling, is the only one here.
            tag = first if registry.is_tag(first) else registry.renamed_tag(first)
            config = registry.tag_config(tag) if tag is not None else None
            if tag is None or config is None:
                raise T.unknown_start(first, first_loc)
            kind = kinds[config["kind"]]
            spec["tag"] = tag
            ctx.notes.append(
                f"{first!r} with options read as {{'tag': {tag!r}, ...}} (a tvmc extension; "
                "legacy TVM accepted a tag only on its own)"
            )

        first_kind.append(kind)

        def type_of(key: str, key_loc: Location | None) -> tuple[int, str]:
            if key in kind.codes:
                return kind.codes[key], kind.accepted[key]
            if key == "compiler":
                return T.STR, "str"
            legacy = kind.legacy_options.get(key)
            if legacy is not None:
                return T.TYPE_CODES.get(legacy.type, T.ANY), legacy.type
            renamed = registry.renamed_options().get(kind.name, {}).get(key)
            if renamed is not None and renamed in kind.codes:
                return kind.codes[renamed], kind.accepted[renamed]
            if kind.open_options:
                return T.ANY, "str"
            unknown.append((key, key_loc))  # reported together once the whole string is read
            return T.ANY, "str"

        return type_of

    values = ValueContext(parse_target=lambda text, at: _parse_nested(text, at, ctx), notes=ctx.notes)
    _, pairs = parse_pairs(double_quotes_as_single(text), loc, begin, values)
    if unknown:
        raise unknown_options(first_kind[0], [key for key, _ in unknown], unknown[0][1], "")
    for key, value in pairs:
        spec[key] = value
    return _convert_dict(spec, loc, ctx, legacy_text=True)


def _kind_name(spec: Mapping[str, Any]) -> str | None:
    kind = spec.get("kind")
    if isinstance(kind, str):
        return kind
    tag = spec.get("tag")
    if isinstance(tag, str):
        config = registry.tag_config(tag)
        if config is not None:
            return str(config["kind"])
    return None


def _convert_dict(value: Mapping[str, Any], loc: Location | None, ctx: _Ctx, *, legacy_text: bool) -> Spec:
    spec: Spec = T.own_json(value)  # plain dicts and lists, never the caller's objects
    tag = spec.get("tag")
    if "kind" not in spec and isinstance(tag, str):
        renamed = _renamed_tag(tag, ctx)
        if renamed is not None:
            spec["tag"] = renamed
    kind = _kind_name(spec)
    found = registry.kind(kind) if kind is not None else None
    if found is not None and found.renamed_to is not None and spec.get("kind") == kind:
        ctx.notes.append(f"kind {kind!r} was renamed to {found.renamed_to!r}")
        spec["kind"] = found.renamed_to
    if kind is not None:
        _lift_legacy_options(kind, spec, loc, ctx)
    libs = spec.get("libs")
    if legacy_text and isinstance(libs, list) and "mkldnn" in libs:
        spec["libs"] = ["dnnl" if lib == "mkldnn" else lib for lib in libs]
        ctx.notes.append("-libs=mkldnn renamed to dnnl (as TVM 0.9–0.23 did)")
    host = spec.get("host")
    if isinstance(host, str):
        spec["host"] = _parse_nested(host, loc, ctx)
    elif isinstance(host, Mapping):
        spec["host"] = _convert_dict(host, loc, ctx, legacy_text=legacy_text)
    devices = spec.get("devices")
    if kind == "composite" and isinstance(devices, list):
        spec["devices"] = [
            _parse_nested(d, loc, ctx)
            if isinstance(d, str)
            else _convert_dict(d, loc, ctx, legacy_text=legacy_text)
            if isinstance(d, Mapping)
            else d
            for d in devices
        ]
    return spec


def _lift_legacy_options(kind: str, spec: Spec, loc: Location | None, ctx: _Ctx) -> None:
    found = registry.kind(kind)
    legacy = found.legacy_options if found is not None else {}
    renamed = registry.renamed_options().get(kind, {})
    for key in [k for k in spec if k in legacy or k in renamed]:
        value = spec.pop(key)
        if key in renamed:
            new = renamed[key]
            if new in spec:
                raise TargetError(f"both {key!r} and its new name {new!r} are given", loc, option=key)
            spec[new] = value
            ctx.notes.append(f"option {key!r} was renamed to {new!r}")
            continue
        option = legacy[key]
        if option.lifts_to is None:
            raise TargetError(
                f"option {key!r} of {kind!r} was removed after TVM {option.versions[-1]} and has no equivalent",
                loc,
                option=key,
            )
        section, setting = option.lifts_to.split(".", 1)
        if setting == "kind":
            name = _component_name(section, value, loc)
            ctx.lift(section, setting, name, loc)
            ctx.notes.append(f"-{key}={_show(value)} moved to {option.lifts_to} = {name!r}")
        else:
            ctx.lift(section, setting, value, loc)
            ctx.notes.append(f"-{key} moved to {option.lifts_to}")


def _component_name(section: str, value: Any, loc: Location | None) -> str:
    name = _RUNTIME_NAMES.get(value, value) if section == "runtime" else value
    known = registry.runtimes() if section == "runtime" else registry.executors()
    if not isinstance(name, str) or name not in known:
        raise TargetError(f"unknown {section} {value!r}", loc, suggestions=did_you_mean(str(value), list(known)))
    return name


def _show(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
