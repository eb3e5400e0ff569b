"""The opt-in structural engine (`--engine jsonschema`): python-jsonschema with the generated schema.

Slower than `checks` (about a millisecond per file) but it is the schema itself, so it backs the
test that the two agree. `anyOf`/`oneOf` failures become one finding, the best match, with the
number of alternatives; `additionalProperties` becomes one finding per unexpected key, at that key.
Only imported when this engine is chosen, so other commands never pay for importing jsonschema.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # no stubs installed
from jsonschema.exceptions import ValidationError, best_match  # type: ignore[import-untyped]

from tvmc.pointers import join, split
from tvmc.sources import make_pointer
from tvmc.validate import model, schema
from tvmc.validate.checks import check_document, suggest
from tvmc.validate.diagnostics import Finding

_ENUM_RULES = {"kind": "unknown-kind", "tag": "unknown-tag", "compiler": "unknown-compiler"}


@cache
def validator() -> Draft202012Validator:
    return Draft202012Validator(schema.build_schema())


def _rule(validator_name: str, pointer: str) -> str:
    tokens = split(pointer)
    last = tokens[-1] if tokens else ""
    in_target = bool(tokens) and tokens[0] in ("targets", "host")
    if tokens[:1] == ["pass-config"] and len(tokens) >= 2:
        return "unknown-pass-config" if validator_name == "minProperties" else "pass-config-type"
    if validator_name == "type":
        return "wrong-type"
    if validator_name == "required":
        return "missing-key"
    if validator_name in ("enum", "const", "pattern"):
        if tokens[:1] in (["executor"], ["runtime"]) and (last == "kind" or len(tokens) == 1):  # or its name alone
            return f"unknown-{tokens[0]}"
        if in_target and last in _ENUM_RULES:
            return _ENUM_RULES[last]
        if in_target and (last.isdigit() or last == "host"):
            return "unknown-tag"  # a target string that is no tag and starts with no kind
    return "invalid-value"


def _message(err: ValidationError) -> str:
    if err.validator == "not":  # a rule of schema.py says what it refuses in its description
        about = err.schema.get("description") if isinstance(err.schema, Mapping) else None
        return f"{err.instance!r}: {about}" if about else f"{err.instance!r} is not allowed here"
    if err.validator == "enum" and len(err.validator_value) > 8:  # no wall of 287 tag names
        return f"{err.instance!r} is not one of the {len(err.validator_value)} allowed values"
    return str(err.message)


def _suggestion(err: ValidationError) -> str | None:
    if err.validator == "enum" and isinstance(err.instance, str):
        return suggest(err.instance, [str(v) for v in err.validator_value])
    return None


def _unexpected(err: ValidationError, pointer: str) -> list[Finding]:
    props: Mapping[str, Any] = err.schema.get("properties", {})
    patterns = [re.compile(p) for p in err.schema.get("patternProperties", {})]
    tokens = split(pointer)
    out = []
    for key in err.instance:
        if key in props or any(p.search(key) for p in patterns):
            continue
        here = join(pointer, key)
        if tokens[:1] == ["pass-config"] and "title" in err.schema:  # a config object (schema._config_type)
            fields = ", ".join(props) or "none"
            message = f"{err.schema['title']} has no field {key!r} (fields: {fields})"
            out.append(Finding("pass-config-type", here, message, suggest(key, props)))
        elif tokens[:1] == ["pass-config"]:
            message = "TVM registers no PassContext config of this name"
            out.append(Finding("unknown-pass-config", here, message, suggest(key, props)))
        elif not tokens or tokens == ["build"]:
            out.append(Finding("unknown-key", here, "unknown key", suggest(key, props)))
        elif tokens[0] in ("executor", "runtime") and len(tokens) == 1 and key in model.component_union(tokens[0]):
            out.append(Finding("wrong-kind-option", here, f"not an option of this {tokens[0]} kind"))
        else:
            out.append(Finding("unknown-option", here, "not an option here", suggest(key, props)))
    return out


def heads(err: ValidationError) -> list[tuple[ValidationError, int]]:
    """The errors to report for one schema error, each with the number of alternatives it was chosen
    from (0: not a choice). For anyOf/oneOf: drop the branches whose type does not even match the value
    (a table "is not of type 'string'", with whatever else that branch says of it); if one branch is
    left, report its errors; else one headline, the deepest best match (the unknown compiler, not the
    table holding it), never every branch."""
    if err.validator not in ("anyOf", "oneOf") or not err.context:
        return [(err, 0)]
    here = list(err.absolute_path)
    mistyped = {
        c.relative_schema_path[0] for c in err.context if c.validator == "type" and list(c.absolute_path) == here
    }
    candidates = [c for c in err.context if c.relative_schema_path[0] not in mistyped]
    if not candidates:
        return [(best_match(err.context), len(err.validator_value))]
    if len({c.relative_schema_path[0] for c in candidates}) == 1:
        return [h for c in candidates for h in heads(c)]
    deepest = max(len(c.absolute_path) for c in candidates)
    head = best_match([c for c in candidates if len(c.absolute_path) == deepest])
    return [(h, n or len(err.validator_value)) for h, n in heads(head)]


def _named_rule(err: ValidationError) -> str | None:
    """The rule a constraint of the schema says it is (`"$comment": "tvmc rule RULE"`, schema.py)."""
    comment = err.schema.get("$comment") if isinstance(err.schema, Mapping) else None
    return (
        comment[len(schema.RULE_COMMENT) :]
        if isinstance(comment, str) and comment.startswith(schema.RULE_COMMENT)
        else None
    )


def findings_of(err: ValidationError) -> list[Finding]:
    out = []
    for head, choices in heads(err):
        note = f" (best match of {choices} alternatives)" if choices else ""
        pointer = make_pointer(head.absolute_path)
        if head.validator == "additionalProperties" and isinstance(head.instance, dict):
            out += _unexpected(head, pointer)
        else:
            rule = _named_rule(head) or _rule(str(head.validator), pointer)
            out.append(Finding(rule, pointer, _message(head) + note, _suggestion(head)))
    return out


def schema_findings(data: Mapping[str, Any]) -> list[Finding]:
    """Every schema error of a document as findings, plus the warnings a schema cannot express."""
    # A value the schema constrains twice (an executor option: in the table of every executor and
    # in its kind's own) fails twice, alike: reported once.
    out = list(dict.fromkeys(f for err in validator().iter_errors(data) for f in findings_of(err)))
    out += [f for f in check_document(data) if f.severity == "warning"]
    return out
