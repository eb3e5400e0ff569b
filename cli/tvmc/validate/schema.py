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
    # No "type" here: `target-table` checks it once, and a string must not fail every kind's branch.
    return {
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
            "properties": {
                "kind": {"description": model.COMMON_DESCRIPTIONS["kind"], "enum": list(kinds)},
                "tag": {"description": model.COMMON_DESCRIPTIONS["tag"], "type": "string"},
            },
            "if": {"required": ["kind"]},
            "then": {
                "allOf": [
                    {
                        "if": {"properties": {"kind": {"const": name}}},
                        "then": {"$ref": f"#/$defs/kind-{name}"},
                    }
                    for name in kinds
                ]
            },
            "else": {
                "required": ["tag"],
                "properties": {"tag": {"$ref": "#/$defs/tag-name"}},
                "allOf": [
                    {
                        "if": {"required": ["tag"], "properties": {"tag": {"enum": sorted(tags)}}},
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
            # `executor = "vm"` is the shorthand of { kind = "vm" } (keys.component_table).
            "type": ["object", "string"],
            "description": model.TOP_LEVEL_KEYS[section].description,
            "if": {"type": "string"},
            "then": {"enum": list(comps)},
            "properties": props,
            "additionalProperties": False,
            "allOf": [
                {
                    "if": {"properties": {"kind": {"const": name}}, "required": ["kind"]},
                    "then": {"$ref": f"#/$defs/{section}-{name}"},
                }
                for name in comps
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
            "description": f"{comp.description} ({generations} TVM)",
            "properties": own,
            "additionalProperties": False,
        }
    return defs


def _pass_config() -> dict[str, Any]:
    props = {
        name: {"description": f"PassContext config '{name}' ({tvm_type}).", **_config_type(tvm_type)}
        for name, tvm_type in registry.pass_configs().items()
    }
    return {
        "type": "object",
        "description": model.TOP_LEVEL_KEYS["pass-config"].description + " Names TVM does not register are "
        "accepted (tvmc warns).",
        "properties": props,
        "additionalProperties": True,
    }


def _config_type(tvm_type: str) -> dict[str, Any]:
    """A pass config's type; an object-typed one with the fields TVM registers, and no others."""
    fields = registry.pass_config_fields(tvm_type)
    if fields is None:
        return type_schema(tvm_type)
    return {
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
            properties[key] = {
                "description": spec.description,
                "type": ["string", "array"],
                "items": {"type": "string"},
                "maxItems": model.MAX_EXTENDS,
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
        "$defs": {**_target_defs(), **_component_defs("executor"), **_component_defs("runtime")},
    }


def schema_text() -> str:
    """The schema as written to disk: 2-space JSON, UTF-8, trailing newline."""
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"
