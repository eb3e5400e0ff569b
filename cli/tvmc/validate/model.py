"""What a config may contain, derived once from the registry and `keys.TOP_LEVEL`/`BUILD_OPTIONS`.

This is the single source of both the JSON Schema (`schema.py`) and the fast structural checks
(`checks.py`): each reads the same per-kind option tables, enums and value types, so the two
cannot drift apart (a test runs both on the corpus and compares).
"""

from __future__ import annotations

import re
from functools import cache

from tvmc import registry
from tvmc.keys import BUILD_OPTIONS, INTERNAL_DEFAULTS, MAX_EXTENDS_FANOUT, TOP_LEVEL, KeySpec
from tvmc.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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

# A byte alignment (the AOT executor's and the c target's `workspace-byte-alignment`, ...) is a
# power of two: the generated C declares its buffers `__attribute__((aligned(N)))`, which C
# compilers refuse otherwise, and TVM rounds sizes up to a multiple of it. TVM's Integer is 32-bit.
ALIGNMENT_SUFFIX = "-byte-alignment"
POWERS_OF_TWO = tuple(1 << i for i in range(31))


def alignment_problem(option: str, value: int) -> str | None:
    """What is wrong with `value` for the option `option` when it is a byte alignment, else None."""
    if not option.endswith(ALIGNMENT_SUFFIX) or value in POWERS_OF_TWO:
        return None
    return f"{value} is not a power of two from 1 to 2**30: a byte alignment, which C's aligned(N) needs"


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
    """Strings that are not tags: a legacy target string starting with a kind name — or with a tag
    name followed by options (`nvidia/nvidia-a100 -l2_cache_size_bytes=5`, the tvmc extension
    `targets.parse_target` reads), or JSON text."""
    # Kind names are [A-Za-z0-9_-]: no escaping (re.escape's "\\-" is not a valid ECMA-262 escape);
    # tag names also hold '/', ',' and '.', of which only '.' is escaped.
    kinds = "|".join(sorted(registry.all_kinds(), key=lambda k: (-len(k), k)))
    assert re.fullmatch(r"[\w|-]+", kinds), kinds
    tags = "|".join(t.replace(".", "\\.") for t in sorted(tag_kinds(), key=lambda t: (-len(t), t)))
    assert re.fullmatch(r"[\w|/,\\.-]+", tags), tags
    return rf"^(?:(?:{kinds})(?:\s.*)?|(?:{tags})\s.*|\s*\{{.*)$"


@cache
def target_string_re() -> re.Pattern[str]:
    return re.compile(target_string_pattern(), re.DOTALL)


@record(slots=True, frozen=True)
class ComponentOption:
    name: str
    type: str
    description: str
    default: Any
    enum: tuple[str, ...]
    owners: tuple[str, ...]  # the executor/runtime kinds that have it
    minimum: int | None = None


@cache
def component_union(section: str) -> dict[str, ComponentOption]:
    """Every option of any executor (or runtime) kind: what a table without `kind` may set."""
    out: dict[str, ComponentOption] = {}
    for comp in registry.components(section).values():
        for name, opt in comp.options.items():
            prev = out.get(name)
            owners = (*prev.owners, comp.name) if prev else (comp.name,)
            out[name] = ComponentOption(name, opt.type, opt.description, opt.default, opt.enum, owners, opt.minimum)
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
