"""The JSON Schema (2020-12) of a config file, generated from the registry via `model`.

`scripts/gen_schema.py` writes it to `schemas/compilation-config.schema.json` and
`tvmc config schema` prints it; a test fails when the checked-in file is stale. The schema describes
one file on its own (a layer): it cannot know what an `extends` parent supplies, so nothing that a
parent could provide is required, and cross-key rules live in `rules.py`.

Targets dispatch on `kind` with one `if/then` per kind (and, for `{tag = ...}` tables without a kind,
per kind of the tag) rather than a `oneOf`, so validators report the errors of the one branch that
applies instead of one per kind.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from tvmc import registry, versions
from tvmc.keys import KeySpec
from tvmc.targets.canonical import CPU_SIDE
from tvmc.targets.llvm_names import CPU_TARGETS, NATIVE
from tvmc.validate import model
from tvmc.values import json_type

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_PATH = "schemas/compilation-config.schema.json"

_PLAIN_TYPES: dict[str, dict[str, Any]] = {
    "str": {"type": "string"},
    "int": {"type": "integer"},
    "bool": {"type": "boolean"},
    "IntImm": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},  # old TVM's int/bool attrs fields
    "Array<str>": {"type": "array", "items": {"type": "string"}},
    "Array<int>": {"type": "array", "items": {"type": "integer"}},
    "target": {"$ref": "#/$defs/target"},
    registry.TARGET: {"$ref": "#/$defs/target"},
    registry.TARGET_ARRAY: {"type": "array", "items": {"$ref": "#/$defs/target"}},
}


def type_schema(tvm_type: str) -> dict[str, Any]:
    """The schema of a value of a TVM type (a fresh dict: callers add description/default)."""
    known = _PLAIN_TYPES.get(tvm_type)
    if known is not None:
        return json.loads(json.dumps(known))  # type: ignore[no-any-return]
    return {"type": json_type(tvm_type)}


def _keyspec(spec: KeySpec, default: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"description": spec.description}
    if spec.type == "targets":
        out.update(type="array", minItems=1, items={"$ref": "#/$defs/target"})
    elif spec.type == "table":
        out["type"] = "object"
    else:
        out.update(type_schema(spec.type))
    if spec.enum:
        (out["items"] if out.get("type") == "array" else out)["enum"] = list(spec.enum)
    if spec.minimum is not None:
        out["minimum"] = spec.minimum
    if spec.maximum is not None:
        out["maximum"] = spec.maximum
    if default is not None:
        out["default"] = default
    return out


def _kind_def(kind: registry.Kind) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for opt, tvm_type in kind.accepted.items():
        legacy = kind.legacy_options.get(opt)
        if opt in model.COMMON_DESCRIPTIONS:
            text = model.COMMON_DESCRIPTIONS[opt]
        elif legacy is not None:
            moved = f"; tvmc moves it to {legacy.lifts_to}" if legacy.lifts_to else ""
            text = f"Legacy TVM ({', '.join(legacy.versions)}) only{moved}."
        else:
            text = f"Option '{opt}' of the {kind.name} target ({tvm_type})."
        entry = {"description": text, **type_schema(tvm_type)}
        if opt == "kind":
            entry = {"description": text, "const": kind.name}
        elif opt == "host" and tvm_type in (registry.TARGET, "target"):
            entry = {"description": text, "allOf": [{"$ref": "#/$defs/target"}, {"$ref": "#/$defs/host-cpu"}]}
        elif opt == "compiler":
            entry["enum"] = sorted(registry.compilers())
        if opt.endswith(model.ALIGNMENT_SUFFIX) and tvm_type == "int":
            entry["enum"] = list(model.POWERS_OF_TWO)
        if opt in kind.defaults:
            entry["default"] = kind.defaults[opt]
        if legacy is not None:
            entry["deprecated"] = True
        props[opt] = entry
    device = registry.DEVICE_NAMES.get(kind.device_type, str(kind.device_type))
    about = f"Target kind '{kind.name}' (device type {device})"
    if kind.legacy:
        about += f"; legacy TVM only, last in {kind.last_version}"
        if kind.renamed_to:
            about += f", renamed to '{kind.renamed_to}'"
    # Only ever applied to a table (from `target-table`); the type is said again for strict
    # validators (ajv's strictTypes), which compile each definition on its own.
    return {
        "type": "object",
        "description": about + ".",
        "properties": props,
        "patternProperties": {model.FEATURE_PATTERN: {"description": "A target feature (kept as given)."}},
        "additionalProperties": kind.open_options,
    }


def _target_defs() -> dict[str, Any]:
    kinds = registry.all_kinds()
    by_kind: dict[str, list[str]] = {}
    for tag, kind in model.tag_kinds().items():
        by_kind.setdefault(kind, []).append(tag)
    defs: dict[str, Any] = {
        "target": {
            "description": "A target: a TVM tag name, a legacy target string ('llvm -mcpu=skylake'), JSON "
            "text, or a table with 'kind' (or 'tag') and the kind's options.",
            "anyOf": [{"$ref": "#/$defs/target-string"}, {"$ref": "#/$defs/target-table"}],
        },
        "target-string": {
            "type": "string",
            "description": "A TVM tag name, or a legacy target string / JSON text starting with a kind.",
            "anyOf": [
                {"$ref": "#/$defs/tag-name"},
                {
                    "pattern": model.target_string_pattern(),
                    "description": "A legacy target string starting with a kind name (or a tag name "
                    "followed by options), or JSON text.",
                },
            ],
        },
        "tag-name": {
            "description": f"A TVM {registry.tvm_version()} target tag (or the old name of a renamed "
            "one, which tvmc accepts with a warning).",
            "enum": list(model.tag_kinds()),
        },
        "target-table": {
            "type": "object",
            "description": "A target as a table: 'kind' and its options, or 'tag' plus overrides.",
            # The kind's own definition (below) decides which keys it takes; said explicitly so that
            # strict editors (tombi) do not read the missing keyword as "no other key".
            "additionalProperties": True,
            "properties": {
                "kind": {"description": model.COMMON_DESCRIPTIONS["kind"], "enum": list(kinds)},
                "tag": {"description": model.COMMON_DESCRIPTIONS["tag"], "type": "string"},
            },
            "if": {"properties": {"kind": True}, "required": ["kind"], "additionalProperties": True},
            "then": {
                "additionalProperties": True,
                "allOf": [
                    {
                        "if": {"properties": {"kind": {"const": name}}, "additionalProperties": True},
                        "then": {"$ref": f"#/$defs/kind-{name}"},
                    }
                    for name in kinds
                ],
            },
            "else": {
                "additionalProperties": True,
                "required": ["tag"],
                "properties": {"tag": {"$ref": "#/$defs/tag-name"}},
                "allOf": [
                    {
                        "if": {
                            "required": ["tag"],
                            "properties": {"tag": {"enum": sorted(tags)}},
                            "additionalProperties": True,
                        },
                        "then": {"$ref": f"#/$defs/kind-{k}"},
                    }
                    for k, tags in sorted(by_kind.items())
                    if k in kinds
                ],
            },
        },
    }
    for name, described in kinds.items():
        defs[f"kind-{name}"] = _kind_def(described)
    return defs


def _component_defs(section: str) -> dict[str, Any]:
    comps = registry.components(section)
    union = model.component_union(section)
    kinds_text = "; ".join(f"{name}: {c.description}" for name, c in comps.items())
    props: dict[str, Any] = {"kind": {"description": f"The {section}: {kinds_text}", "enum": list(comps)}}
    for name, opt in union.items():
        entry = {
            "description": f"{opt.description} ({section} {', '.join(opt.owners)})",
            **type_schema(opt.type),
        }
        if opt.enum:
            entry["enum"] = list(opt.enum)
        if name.endswith(model.ALIGNMENT_SUFFIX) and opt.type == "int":
            entry["enum"] = list(model.POWERS_OF_TWO)  # its least value too
        elif opt.minimum is not None:
            entry["minimum"] = opt.minimum
        props[name] = entry
    defs: dict[str, Any] = {
        section: {
            # `executor = "vm"` is the shorthand of { kind = "vm" } (keys.component_table); anyOf,
            # not a type union, which strict validators (ajv's strictTypes) refuse.
            "description": model.TOP_LEVEL_KEYS[section].description,
            "anyOf": [
                {"type": "string", "enum": list(comps)},
                {
                    "type": "object",
                    "properties": props,
                    "additionalProperties": False,
                    "allOf": [
                        {
                            "if": {"properties": {"kind": {"const": name}}, "required": ["kind"]},
                            "then": {"$ref": f"#/$defs/{section}-{name}"},
                        }
                        for name in comps
                    ],
                },
            ],
        }
    }
    for name, comp in comps.items():
        own: dict[str, Any] = {"kind": {"description": comp.description, "const": name}}
        for opt_name, own_opt in comp.options.items():
            entry = {
                "description": own_opt.description,
                **type_schema(own_opt.type),
                "default": own_opt.default,
            }
            if own_opt.enum:
                entry["enum"] = list(own_opt.enum)
            if opt_name.endswith(model.ALIGNMENT_SUFFIX) and own_opt.type == "int":
                entry["enum"] = list(model.POWERS_OF_TWO)  # its least value too
            elif own_opt.minimum is not None:
                entry["minimum"] = own_opt.minimum
            own[opt_name] = entry
        generations = " and ".join(comp.generations)
        defs[f"{section}-{name}"] = {
            "type": "object",
            "description": f"{comp.description} ({generations} TVM)",
            "properties": own,
            "additionalProperties": False,
        }
    return defs


# Which TVM generation a `tvm-version` admits decides the pass configs a file may name and their
# types (old TVM took any integer for a bool). A schema cannot run `versions.generation`; these
# patterns recognise its single-clause forms (a test holds them to it), and a specifier they do not
# recognise gets the union of both generations, so the schema is never stricter than tvmc.
_V = r"\s*0\.(?:{})(?:\.[0-9]+)?\s*"
_BEFORE_25 = "[0-9]|1[0-9]|2[0-4]"


def _below(minor: str) -> str:
    """`0.MINOR` or `0.MINOR.0` after a `<`: below it is below that minor; `<0.MINOR.1` also admits
    0.MINOR.0, which is another generation (or a supported release)."""
    return rf"\s*0\.{minor}(?:\.0)?\s*"


_FROM_25 = "2[5-9]|[3-9][0-9]|[1-9][0-9]{2,}"
LEGACY_VERSION_PATTERN = (
    rf"^\s*(?:(?:==|=)?{_V.format(_BEFORE_25)}|<={_V.format(_BEFORE_25)}"
    rf"|<{_V.format('[1-9]|1[0-9]|2[0-4]')}|<{_below('25')})$"
)
_ANY_MAJOR = r"(?:==|=|~=|>=|>)?\s*[1-9][0-9]*(?:\.[0-9]+){0,2}\s*"
_MODERN_CLAUSES = rf"(?:==|=|~=|>=)?{_V.format(_FROM_25)}|>{_V.format(_FROM_25)}|>\s*0\.24\s*|{_ANY_MAJOR}"
MODERN_VERSION_PATTERN = rf"^\s*(?:{_MODERN_CLAUSES})$"

# A single clause admitting no release tvmc supports (0.18, 0.19, >= 0.25): `unsupported-tvm-version`.
_UNSUPPORTED = "[0-9]|1[0-7]|2[0-4]"
UNSUPPORTED_VERSION_PATTERN = (
    rf"^\s*(?:(?:==|=)?{_V.format(_UNSUPPORTED)}|<={_V.format('[0-9]|1[0-7]')}"
    rf"|<{_V.format('[0-9]|1[0-7]')}|<{_below('18')})$"
)

_PASS_CONFIG_SCOPES: dict[str, str | None] = {"modern": "modern", "legacy": "legacy", "any": None}


_LEGACY_OBJECT = "pass-config-object-"  # + an old release's config type: its fields (`_pass_config_defs`)


def _pass_config_value(types: list[str]) -> dict[str, Any]:
    """A pass config's value as `values.type_matches` reads it (several types: any of them)."""
    if len(types) == 1 and registry.pass_config_fields(types[0]) is not None:
        if types[0] in registry.legacy_pass_config_fields():  # old TVM's: one definition for its spellings
            return {"$ref": f"#/$defs/{_LEGACY_OBJECT}{types[0]}"}
        return _config_type(types[0])  # an object-typed config: the fields TVM registers, and no others
    json_types: list[str] = []
    for tvm_type in types:
        for json_name in ("integer", "boolean") if tvm_type == "IntImm" else (json_type(tvm_type),):
            if json_name not in json_types:
                json_types.append(json_name)
    options = [{"type": t, **({"additionalProperties": True} if t == "object" else {})} for t in json_types]
    return options[0] if len(options) == 1 else {"anyOf": options}


def _pass_config_spellings() -> set[str]:
    """Every name a release registers, in each spelling tvmc accepts (`tir.X` = `tirx.X`/`s_tir.X`)."""
    names = set(registry.pass_configs()) | set(registry.legacy_pass_configs())
    out = set(names)
    for name in names:
        for old, new in (("tir.", "tirx."), ("tir.", "s_tir."), ("tirx.", "tir."), ("s_tir.", "tir.")):
            if name.startswith(old):
                out.add(new + name[len(old) :])
    return out


def _accepted_pass_configs(scope: str) -> dict[str, list[str]]:
    """Spelling → its TVM types, for a file of a generation ("modern", "legacy", "any": no
    tvm-version) or "loose" (a tvm-version the patterns do not recognise: both generations)."""
    generations = [None, "modern", "legacy"] if scope == "loose" else [_PASS_CONFIG_SCOPES[scope]]
    out: dict[str, list[str]] = {}
    for name in sorted(_pass_config_spellings()):
        for generation in generations:
            tvm_type = registry.pass_config_spec(name, generation)[1]
            if tvm_type is not None and tvm_type not in out.setdefault(name, []):
                out[name].append(tvm_type)
        if not out.get(name):
            out.pop(name, None)
    return out


def _pass_config_nodes(scope: str) -> dict[str, Any]:
    """The tables of the pass configs of a scope, as definitions: `pass-config-SCOPE` for the
    `pass-config` table, `pass-config-SCOPE:PREFIX` for a nested one. Each name may be written whole
    (`"tirx.disable_vectorize"`) or as nested tables split at any dot (`tirx = { … }`), as
    `keys.pass_config_entries` reads them; a name that is a config itself is never split."""
    accepted = _accepted_pass_configs(scope)
    defs: dict[str, Any] = {}

    def node(prefix: str) -> str:
        ref = f"pass-config-{scope}" + (f":{prefix[:-1]}" if prefix else "")
        if ref in defs:
            return ref
        defs[ref] = {}  # claimed before the children are built
        props: dict[str, Any] = {}
        for name in accepted:
            if not name.startswith(prefix):
                continue
            parts = name[len(prefix) :].split(".")
            for i in range(1, len(parts) + 1):
                key = ".".join(parts[:i])
                full = prefix + key
                if key in props:
                    continue
                if full in accepted:
                    props[key] = {"description": f"PassContext config '{full}'.", **_pass_config_value(accepted[full])}
                else:
                    props[key] = {"$ref": f"#/$defs/{node(full + '.')}"}
        defs[ref] = {"type": "object", "properties": dict(sorted(props.items())), "additionalProperties": False}
        if prefix:
            defs[ref]["minProperties"] = 1  # an empty nested table names nothing: an unknown config
        return ref

    node("")
    return defs


def _pass_config_defs() -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for scope in ("modern", "legacy", "any", "loose"):
        defs.update(_pass_config_nodes(scope))
    for tvm_type in registry.legacy_pass_config_fields():
        defs[_LEGACY_OBJECT + tvm_type] = _config_type(tvm_type)
    return dict(sorted(defs.items()))


def _pass_config_dispatch() -> list[dict[str, Any]]:
    """The root's `allOf`: the pass-config table of the file's generation."""
    version = {"tvm-version": {"type": "string"}}

    def when(condition: dict[str, Any], scope: str) -> dict[str, Any]:
        return {
            "if": {"additionalProperties": True, **condition},
            "then": {
                "additionalProperties": True,
                "properties": {"pass-config": {"$ref": f"#/$defs/pass-config-{scope}"}},
            },
        }

    legacy = {"pattern": LEGACY_VERSION_PATTERN}
    modern = {"pattern": MODERN_VERSION_PATTERN}
    return [
        when({"properties": {"tvm-version": {"type": "string", **legacy}}, "required": ["tvm-version"]}, "legacy"),
        when({"properties": {"tvm-version": {"type": "string", **modern}}, "required": ["tvm-version"]}, "modern"),
        when({"properties": version, "not": {"required": ["tvm-version"]}}, "any"),
        when(
            {
                "properties": {"tvm-version": {"type": "string", "not": {"anyOf": [legacy, modern]}}},
                "required": ["tvm-version"],
            },
            "loose",
        ),
    ]


def _pass_config() -> dict[str, Any]:
    # The names and their types depend on the file's tvm-version: the root's allOf applies the
    # table of its generation (`_pass_config_dispatch`).
    return {
        "type": "object",
        "description": model.TOP_LEVEL_KEYS["pass-config"].description + " A name no TVM release registers "
        "is an error (unknown-pass-config); the names and types are those of the TVM generation the "
        "file's tvm-version admits (old TVM took any integer for a bool).",
        "additionalProperties": True,
    }


# ---- rules of the rule engine that a schema can say too --------------------------------------
# Each constraint below names its rule in `$comment` ("tvmc rule RULE"), which the jsonschema engine
# reports as that rule. Every object schema inside a condition says `additionalProperties: true`:
# strict editors (tombi) read a missing keyword as "no other key".

RULE_COMMENT = "tvmc rule "
# `mattr` entries: every comma-separated part (empty ones skipped) starts with + or - (LLVM ignores a
# feature without a sign: `unknown-cpu`).
SIGNED_FEATURES_PATTERN = r"^\s*(?:[+-][^,]*)?(?:,\s*(?:[+-][^,]*)?)*$"
# `registry.llvm_target`'s reading of a triple's architecture (lower case; another spelling is left
# unchecked, never refused).
_TRIPLE_ARCH_PATTERNS = {
    "x86": r"^(?:x86_64|amd64|x86_64h|i[^-]86)(?:-|$)",
    "aarch64": r"^(?:aarch64|arm64)[^-]*(?:-|$)",
    "arm": r"^(?!aarch64|arm64)(?:arm|thumb|xscale)[^-]*(?:-|$)",
    "riscv": r"^riscv(?:32|64)(?:-|$)",
    "nvptx": r"^nvptx(?:64)?(?:-|$)",
    "amdgcn": r"^amdgcn(?:-|$)",
    "hexagon": r"^hexagon(?:-|$)",
}


def _rule(rule: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"$comment": RULE_COMMENT + rule, **schema}


def _open(schema: dict[str, Any]) -> dict[str, Any]:
    """A table schema that says nothing of other keys (only ever applied where a table is)."""
    return {"type": "object", "additionalProperties": True, **schema}


def _when_string(schema: dict[str, Any]) -> dict[str, Any]:
    return {"if": {"type": "string"}, "then": {"type": "string", **schema}}


_REGEX_SPECIAL = re.compile(r"([.^$*+?()\[\]{}|\\/])")


def _alternatives(names: Iterable[str]) -> str:
    """Names as one alternation, longest first, escaped for ECMA-262 in unicode mode (as ajv compiles
    it), which refuses escapes that need none (`\\-`)."""
    return "|".join(_REGEX_SPECIAL.sub(r"\\\1", n) for n in sorted(names, key=lambda n: (-len(n), n)))


def features_pattern(names: Iterable[str]) -> str:
    """An `mattr` entry whose every comma-separated part is a feature LLVM knows, with its sign
    (`targets.llvm_names`: LLVM ignores a feature without one, and an empty one is refused)."""
    part = rf"\s*[+-](?:{_alternatives(names)})\s*"
    return rf"^{part}(?:,{part})*$"


def _names_of(names: registry.LlvmNames | None, option: str, *, features: bool = False) -> dict[str, Any]:
    """The `then` that checks a target's `option` (mcpu, arch) and, with `features`, its mattr against
    the names of TVM's LLVM."""
    if names is None:
        return {}
    props: dict[str, Any] = {option: _when_string(_rule("unknown-cpu", {"enum": sorted({*names.cpus, NATIVE})}))}
    if features:
        known = _when_string(_rule("unknown-cpu", {"pattern": features_pattern(names.features)}))
        props["mattr"] = {"if": {"type": "array"}, "then": {"type": "array", "items": known}}
    return _open({"properties": props})


def _string_names(any_cpu: registry.LlvmNames, cuda: registry.LlvmNames | None) -> dict[str, Any]:
    """What the schema can tell of a legacy target string: an llvm `-mcpu=`/`-mattr=` value that no CPU
    target knows, a cuda `-arch=` LLVM does not know (an unquoted value; the triple's own names and
    everything else are tvmc's)."""
    value_end = r"(?:\s|$)"
    cpus = _alternatives({*any_cpu.cpus, NATIVE})
    part = rf"(?:[+-](?:{_alternatives(any_cpu.features)}))?"
    about = [
        "an llvm -mcpu no CPU target of TVM's LLVM knows",
        "an llvm -mattr feature TVM's LLVM does not know, or one without its +/- sign",
        "a cuda -arch TVM's LLVM does not know",
    ]
    checks = [
        rf"""^\s*llvm(?:\s[^'"]*)?\s-mcpu=(?!(?:{cpus}){value_end})[^\s'"]""",
        rf"""^\s*llvm(?:\s[^'"]*)?\s-mattr=(?!{part}(?:,{part})*{value_end})[^\s'"]""",
    ]
    if cuda is not None:
        checks.append(rf"""^\s*cuda(?:\s[^'"]*)?\s-arch=(?!(?:{_alternatives(cuda.cpus)}){value_end})[^\s'"]""")
    rules = [
        _rule("unknown-cpu", {"not": {"pattern": c}, "description": a}) for c, a in zip(checks, about, strict=False)
    ]
    return {"type": "string", "allOf": rules}


def _kind_is(kind: str, **extra: Any) -> dict[str, Any]:
    props = {"kind": {"const": kind}, **extra.pop("properties", {})}
    return _open({"properties": props, "required": ["kind", *extra.pop("required", [])], **extra})


def _target_names_def() -> dict[str, Any]:
    """The LLVM names of a target table, its host and a composite's devices (`targets.llvm_names`),
    for a file written for TVM >= 0.25 or for no generation (old TVM's LLVM has other names)."""
    cpu = [n for n in (registry.llvm_names(t) for t in CPU_TARGETS) if n is not None]
    any_cpu = registry.LlvmNames(
        "cpu", frozenset().union(*(n.cpus for n in cpu)), frozenset().union(*(n.features for n in cpu))
    )
    checks: list[dict[str, Any]] = [
        {
            "if": _kind_is("llvm", **{"not": {"properties": {"mtriple": True}, "required": ["mtriple"]}}),
            "then": _names_of(any_cpu, "mcpu", features=True),
        }
    ]
    for arch, pattern in _TRIPLE_ARCH_PATTERNS.items():
        if arch in (*CPU_TARGETS, "nvptx", "amdgcn", "hexagon"):
            triple = {"mtriple": {"type": "string", "pattern": pattern}}
            checks.append(
                {
                    "if": _kind_is("llvm", properties=triple, required=["mtriple"]),
                    "then": _names_of(registry.llvm_names(arch), "mcpu", features=True),
                }
            )
    for kind, arch in (("hexagon", "hexagon"), ("nvptx", "nvptx"), ("rocm", "amdgcn")):
        names = registry.llvm_names(arch)
        checks.append({"if": _kind_is(kind), "then": _names_of(names, "mcpu", features=kind == "hexagon")})
    cuda = registry.llvm_names("nvptx")
    if cuda is not None:
        arch_enum = _when_string(_rule("unknown-cpu", {"enum": sorted(cuda.cpus)}))
        checks.append({"if": _kind_is("cuda"), "then": _open({"properties": {"arch": arch_enum}})})
    nested = {"$ref": "#/$defs/target-names"}
    return {
        "anyOf": [
            _string_names(any_cpu, cuda),  # a tag or a legacy string: what a pattern can tell
            {
                "type": "object",
                "additionalProperties": True,
                "properties": {
                    "host": {"description": "The target's host: its names are checked as the target's.", **nested},
                    "devices": {
                        "description": "A composite target's devices: their names are checked as the target's.",
                        "if": {"type": "array"},
                        "then": {"type": "array", "items": nested},
                    },
                },
                "allOf": [c for c in checks if c["then"]],
            },
        ]
    }


def _host_cpu_def() -> dict[str, Any]:
    """A host runs on the CPU (`host-not-cpu`): a CPU kind, a CPU tag, or a string starting with one
    (JSON text is left to tvmc)."""
    kinds = [name for name, kind in registry.all_kinds().items() if kind.device_type in CPU_SIDE and not kind.byoc]
    cpu_tags = sorted(tag for tag, kind in model.tag_kinds().items() if kind in kinds)
    other_tags = sorted(tag for tag, kind in model.tag_kinds().items() if kind not in kinds)
    starts = "|".join(sorted(kinds, key=lambda k: (-len(k), k)))
    return {
        "description": "A host runs on the CPU: a CPU kind (device type cpu, or hexagon) or a CPU tag.",
        "anyOf": [
            {
                "type": "string",
                "anyOf": [
                    {"enum": cpu_tags},
                    _rule("host-not-cpu", {"pattern": rf"^\s*(?:\{{|(?:{starts})(?![A-Za-z0-9_/.-]))"}),
                ],
            },
            {
                "type": "object",
                "additionalProperties": True,
                "properties": {"kind": True, "tag": True},
                "if": {"properties": {"kind": True}, "required": ["kind"], "additionalProperties": True},
                "then": _open({"properties": {"kind": _rule("host-not-cpu", {"enum": kinds})}}),
                "else": _open({"properties": {"tag": _rule("host-not-cpu", {"not": {"enum": other_tags}})}}),
            },
        ],
    }


def _rule_dispatch() -> list[dict[str, Any]]:
    """The root's rules that depend on the rest of the file: LLVM names unless the file is for old
    TVM, and the AoT C interface of a file that extends nothing (a parent may set unpacked-api)."""
    names = {"$ref": "#/$defs/target-names"}
    not_legacy = {
        "anyOf": [
            {"not": {"properties": {"tvm-version": True}, "required": ["tvm-version"]}},
            {"properties": {"tvm-version": {"type": "string", "pattern": MODERN_VERSION_PATTERN}}},
        ]
    }
    aot_packed = {
        "type": "object",
        "additionalProperties": True,
        "properties": {"kind": {"const": "aot"}, "unpacked-api": {"not": {"const": True}}},
        "required": ["kind"],
    }
    return [
        {
            "if": _open(not_legacy),
            "then": _open({"properties": {"targets": {"type": "array", "items": names}, "host": names}}),
        },
        {
            "if": _open(
                {
                    "properties": {"executor": aot_packed},
                    "required": ["executor"],
                    "not": {"properties": {"extends": True}, "required": ["extends"]},
                }
            ),
            "then": _open(
                {
                    "properties": {
                        "executor": _open(
                            {
                                "properties": {
                                    "interface-api": _rule(
                                        "aot-interface-api",
                                        {
                                            "not": {"const": "c"},
                                            "description": "interface-api = 'c' needs unpacked-api = true",
                                        },
                                    )
                                }
                            }
                        )
                    }
                }
            ),
        },
    ]


def _config_type(tvm_type: str) -> dict[str, Any]:
    """A pass config's type; an object-typed one with the fields TVM registers, and no others."""
    fields = registry.pass_config_fields(tvm_type)
    if fields is None:
        return type_schema(tvm_type)
    return {
        "title": tvm_type,  # names the type in `--engine jsonschema`'s message of a field it lacks
        "type": "object",
        "properties": {
            name: {"description": f"{tvm_type} field {name!r} ({field}).", **type_schema(field)}
            for name, field in fields.items()
        },
        "additionalProperties": False,
    }


def build_schema() -> dict[str, Any]:
    """The whole schema document (deterministic for a given registry)."""
    properties: dict[str, Any] = {}
    for key, spec in model.TOP_LEVEL_KEYS.items():
        if key == "extends":
            # anyOf, not a type union: strict validators (ajv's strictTypes) refuse unions.
            properties[key] = {
                "description": spec.description,
                "anyOf": [
                    {"type": "string"},
                    {"type": "array", "items": {"type": "string"}, "maxItems": model.MAX_EXTENDS},
                ],
            }
        elif key == "tvm-version":
            properties[key] = {
                **_keyspec(spec),
                "pattern": versions.TVM_VERSION_PATTERN,
                "allOf": [
                    _rule(
                        "unsupported-tvm-version",
                        {
                            "not": {"pattern": UNSUPPORTED_VERSION_PATTERN},
                            "description": "admits no TVM release tvmc supports (0.18, 0.19, >= 0.25)",
                        },
                    )
                ],
            }
        elif key == "host":
            properties[key] = {
                "description": spec.description,
                "allOf": [{"$ref": "#/$defs/target"}, {"$ref": "#/$defs/host-cpu"}],
            }
        elif key in ("executor", "runtime"):
            properties[key] = {"description": spec.description, "$ref": f"#/$defs/{key}"}
        elif key == "pass-config":
            properties[key] = _pass_config()
        elif key == "build":
            properties[key] = {
                **_keyspec(spec),
                "additionalProperties": False,
                "properties": {k: _keyspec(s) for k, s in model.BUILD_KEYS.items()},
            }
        else:
            properties[key] = _keyspec(spec, model.TOP_LEVEL_DEFAULTS.get(key))
    return {
        "$schema": DRAFT,
        "title": "tvmc compilation config",
        "description": "A layered TVM compilation config (TOML or JSON). Generated from the TVM "
        f"{registry.tvm_version()} registry by scripts/gen_schema.py; do not edit.",
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "allOf": [*_pass_config_dispatch(), *_rule_dispatch()],
        "$defs": {
            **_target_defs(),
            "target-names": _target_names_def(),
            "host-cpu": _host_cpu_def(),
            **_component_defs("executor"),
            **_component_defs("runtime"),
            **_pass_config_defs(),
        },
    }


def schema_text() -> str:
    """The schema as written to disk: 2-space JSON, UTF-8, trailing newline."""
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"
