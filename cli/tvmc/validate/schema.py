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
from typing import Any

from tvmc import registry, versions
from tvmc.keys import KeySpec
from tvmc.validate import model
from tvmc.values import json_type

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_PATH = "schemas/compilation-config.schema.json"

_PLAIN_TYPES: dict[str, dict[str, Any]] = {
    "str": {"type": "string"},
    "int": {"type": "integer"},
    "bool": {"type": "boolean"},
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
        elif opt == "compiler":
            entry["enum"] = sorted(registry.compilers())
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
                    "description": "A legacy target string starting with a kind name, or JSON text.",
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
_FROM_25 = "2[5-9]|[3-9][0-9]|[1-9][0-9]{2,}"
LEGACY_VERSION_PATTERN = (
    rf"^\s*(?:(?:==|=|~=)?{_V.format(_BEFORE_25)}|<={_V.format(_BEFORE_25)}|<{_V.format(_BEFORE_25 + '|25')})$"
)
_ANY_MAJOR = r"(?:==|=|~=|>=|>)?\s*[1-9][0-9]*(?:\.[0-9]+){0,2}\s*"
MODERN_VERSION_PATTERN = rf"^\s*(?:(?:==|=|~=|>=)?{_V.format(_FROM_25)}|>{_V.format('24|' + _FROM_25)}|{_ANY_MAJOR})$"

_PASS_CONFIG_SCOPES: dict[str, str | None] = {"modern": "modern", "legacy": "legacy", "any": None}


def _pass_config_value(types: list[str]) -> dict[str, Any]:
    """A pass config's value as `values.type_matches` reads it (several types: any of them)."""
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
            properties[key] = {**_keyspec(spec), "pattern": versions.TVM_VERSION_PATTERN}
        elif key == "host":
            properties[key] = {"description": spec.description, "$ref": "#/$defs/target"}
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
        "allOf": _pass_config_dispatch(),
        "$defs": {
            **_target_defs(),
            **_component_defs("executor"),
            **_component_defs("runtime"),
            **_pass_config_defs(),
        },
    }


def schema_text() -> str:
    """The schema as written to disk: 2-space JSON, UTF-8, trailing newline."""
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"
