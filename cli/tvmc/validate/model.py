"""What a config may contain, derived once from the registry and `keys.TOP_LEVEL`/`BUILD_OPTIONS`.

This is the single source of both the JSON Schema (`schema.py`) and the fast structural checks
(`checks.py`): each reads the same per-kind option tables, enums and value types, so the two
cannot drift apart (a test runs both on the corpus and compares).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Final

from tvmc import registry
from tvmc.errors import FrozenRecord
from tvmc.keys import BUILD_OPTIONS, INTERNAL_DEFAULTS, MAX_EXTENDS_FANOUT, TOP_LEVEL, KeySpec

SCHEMA_KEY = "$schema"  # editors' schema association in JSON files; ignored by tvmc
TARGET_TYPES = (registry.TARGET, registry.TARGET_ARRAY)

# Descriptions of the options every kind has (the registry only knows their types).
COMMON_DESCRIPTIONS = {
    "kind": "The target kind (TVM TargetKind name).",
    "keys": "Keys used to look up schedules/strategies; TVM derives defaults from the kind and device.",
    "tag": "A TVM target tag. Without 'kind' the target is the tag's registered config plus the other "
    "keys of this table as overrides; with 'kind' it is only a label.",
    "device": "Device name (adds a key, e.g. 'mali', 'arm_cpu').",
    "model": "Device model name.",
    "libs": "External libraries to use (e.g. 'cudnn', 'cublas').",
    "host": "The host target of this target (CPU-side code).",
    "from_device": "Query attributes from the device with this index (-1: do not query).",
    "target_device_type": "Override of the kind's device type (DLDeviceType).",
    "compiler": "tvmc: a BYOC codegen that refines this target (partitions offloadable operators to it).",
}
FEATURE_PREFIX = "feature."
FEATURE_PATTERN = r"^feature\..+$"


class KindModel(FrozenRecord):
    """A target kind as a config may write it: every accepted key and its TVM type."""

    __match_args__ = (
        "name",
        "options",
        "defaults",
        "device_type",
        "legacy",
        "byoc",
        "open_options",
        "legacy_options",
        "last_version",
        "renamed_to",
    )
    __slots__ = __match_args__
    name: Final[str]
    options: Final[dict[str, str]]  # declared options, then `compiler`, then legacy-only options
    defaults: Final[dict[str, Any]]
    device_type: Final[int]
    legacy: Final[bool]  # the kind only exists in legacy TVM
    byoc: Final[bool]
    open_options: Final[bool]  # our option list is incomplete: unknown options are accepted
    legacy_options: Final[dict[str, registry.LegacyOption]]
    last_version: Final[str | None]
    renamed_to: Final[str | None]

    def __init__(
        self,
        name: str,
        options: dict[str, str],
        defaults: dict[str, Any],
        device_type: int,
        legacy: bool,
        byoc: bool,
        open_options: bool,
        legacy_options: dict[str, registry.LegacyOption],
        last_version: str | None,
        renamed_to: str | None,
    ) -> None:
        self.name = name
        self.options = options
        self.defaults = defaults
        self.device_type = device_type
        self.legacy = legacy
        self.byoc = byoc
        self.open_options = open_options
        self.legacy_options = legacy_options
        self.last_version = last_version
        self.renamed_to = renamed_to


@cache
def kinds() -> dict[str, KindModel]:
    """Every kind, modern ones winning over a legacy kind of the same name, sorted by name."""
    legacy_opts = registry.legacy_options()
    found: dict[str, registry.Kind] = {**registry.legacy_kinds(), **registry.kinds()}
    out: dict[str, KindModel] = {}
    for name in sorted(found):
        kind = found[name]
        extra = {k: v for k, v in legacy_opts.get(name, {}).items() if k not in kind.options}
        # Legacy kinds' option lists omit `kind` itself.
        options = {
            "kind": registry.STR,
            **kind.options,
            "compiler": registry.STR,
            **{k: v.type for k, v in extra.items()},
        }
        out[name] = KindModel(
            name,
            options,
            dict(kind.defaults),
            kind.device_type,
            kind.legacy,
            kind.byoc,
            kind.open_options,
            extra,
            kind.last_version,
            kind.renamed_to,
        )
    return out


@cache
def tag_kinds() -> dict[str, str]:
    """Tag name → the kind of its registered config, also for the old names of renamed tags (the
    pipeline accepts those with a note; `rules` warns about them)."""
    out = {}
    for name in registry.tag_names():
        config = registry.tag_config(name) or {}
        out[name] = str(config.get("kind", ""))
    for old, new in registry.renamed_tags().items():
        out.setdefault(old, out.get(new, ""))
    return dict(sorted(out.items()))


@cache
def target_string_pattern() -> str:
    """Strings that are not tags: a legacy target string starting with a kind name, or JSON text."""
    # Kind names are [A-Za-z0-9_-]: no escaping (re.escape's "\\-" is not a valid ECMA-262 escape).
    names = "|".join(sorted(kinds(), key=lambda k: (-len(k), k)))
    assert re.fullmatch(r"[\w|-]+", names), names
    return rf"^(?:(?:{names})(?:\s.*)?|\s*\{{.*)$"


@cache
def target_string_re() -> re.Pattern[str]:
    return re.compile(target_string_pattern(), re.DOTALL)


class ComponentOption(FrozenRecord):
    __match_args__ = ("name", "type", "description", "default", "enum", "owners")
    __slots__ = __match_args__
    name: Final[str]
    type: Final[str]
    description: Final[str]
    default: Final[Any]
    enum: Final[tuple[str, ...]]
    owners: Final[tuple[str, ...]]  # the executor/runtime kinds that have it

    def __init__(
        self, name: str, type: str, description: str, default: Any, enum: tuple[str, ...], owners: tuple[str, ...]
    ) -> None:
        self.name = name
        self.type = type
        self.description = description
        self.default = default
        self.enum = enum
        self.owners = owners


def components(section: str) -> dict[str, registry.Component]:
    return registry.executors() if section == "executor" else registry.runtimes()


@cache
def component_union(section: str) -> dict[str, ComponentOption]:
    """Every option of any executor (or runtime) kind: what a table without `kind` may set."""
    out: dict[str, ComponentOption] = {}
    for comp in components(section).values():
        for name, opt in comp.options.items():
            prev = out.get(name)
            owners = (*prev.owners, comp.name) if prev else (comp.name,)
            out[name] = ComponentOption(name, opt.type, opt.description, opt.default, opt.enum, owners)
    return out


TOP_LEVEL_KEYS: dict[str, KeySpec] = {
    SCHEMA_KEY: KeySpec(
        "str",
        "The JSON Schema of this file, for editors (ignored by tvmc). In TOML, "
        "write a '#:schema PATH-OR-URL' comment on the first line instead.",
    ),
    **TOP_LEVEL,
}
BUILD_KEYS = BUILD_OPTIONS
TOP_LEVEL_DEFAULTS = INTERNAL_DEFAULTS
MAX_EXTENDS = MAX_EXTENDS_FANOUT  # what layering enforces
