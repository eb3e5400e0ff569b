"""The generated JSON Schema: checked in and current, valid 2020-12, documented, and printable."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from corpus_expect import ROOT, Invoke
from tvmc import registry
from tvmc.validate import model, schema

CHECKED_IN = ROOT / schema.SCHEMA_PATH


def _properties(node: Any) -> Iterator[tuple[str, Any]]:
    """Every declared (name, subschema) under `properties`/`patternProperties` (not the conditions of
    `if`, which only discriminate)."""
    if isinstance(node, dict):
        for key in ("properties", "patternProperties"):
            yield from (node.get(key) or {}).items()
        for key, value in node.items():
            # A condition and the constraints a rule adds under it document no key: the key's own
            # definition does.
            if key not in ("if", "then", "else", "not"):
                yield from _properties(value)
    elif isinstance(node, list):
        for value in node:
            yield from _properties(value)


def test_checked_in_schema_is_current() -> None:
    assert CHECKED_IN.read_text(encoding="utf-8") == schema.schema_text(), "stale: run python scripts/gen_schema.py"


def test_gen_schema_check_mode_detects_staleness(tmp_path: Path) -> None:
    script = ROOT / "scripts" / "gen_schema.py"
    stale = tmp_path / "schema.json"
    stale.write_text("{}\n")
    check = [sys.executable, str(script), "--check", "-o", str(stale)]
    assert subprocess.run(check, capture_output=True).returncode == 1
    assert subprocess.run([sys.executable, str(script), "-o", str(stale)], capture_output=True).returncode == 0
    assert stale.read_text(encoding="utf-8") == schema.schema_text()
    assert subprocess.run(check, capture_output=True).returncode == 0


def test_schema_is_valid_2020_12() -> None:
    doc = json.loads(CHECKED_IN.read_text(encoding="utf-8"))
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(doc)


def test_every_property_has_a_description() -> None:
    missing = [
        name
        for name, sub in _properties(schema.build_schema())
        if isinstance(sub, dict) and "$ref" not in sub and not sub.get("description")
    ]
    assert not missing


def test_top_level_keys_and_editor_markers() -> None:
    doc = schema.build_schema()
    assert set(doc["properties"]) == set(model.TOP_LEVEL_KEYS) and "$schema" in doc["properties"]
    assert doc["additionalProperties"] is False
    assert doc["properties"]["opt-level"]["default"] == 3
    validator = jsonschema.Draft202012Validator(doc)
    assert validator.is_valid({"$schema": "x.json", "targets": ["llvm"]})
    assert validator.is_valid({"extends": "aws/c5"}) and validator.is_valid({"extends": ["a", "b"]})
    assert not validator.is_valid({"extends": [1]})


def test_enums_kinds_components_and_defaults() -> None:
    defs = schema.build_schema()["$defs"]
    kind_enum = defs["target-table"]["properties"]["kind"]["enum"]
    assert set(registry.kinds()) | set(registry.legacy_kinds()) == set(kind_enum)
    assert set(defs["executor"]["anyOf"][1]["properties"]["kind"]["enum"]) == set(registry.executors())
    assert set(defs["runtime"]["anyOf"][1]["properties"]["kind"]["enum"]) == set(registry.runtimes())
    assert set(defs["executor"]["anyOf"][0]["enum"]) == set(registry.executors())  # `executor = "vm"`
    assert set(registry.tag_names()) <= set(defs["tag-name"]["enum"])
    # Defaults where TVM declares them: target kinds, executor/runtime options.
    assert defs["kind-cuda"]["properties"]["max_num_threads"]["default"] == 1024
    assert defs["executor-aot"]["properties"]["link-params"]["default"] is True
    assert defs["executor-graph"]["properties"]["link-params"]["default"] is False
    assert defs["executor-aot"]["properties"]["interface-api"]["enum"] == ["packed", "c"]
    assert defs["kind-llvm"]["properties"]["system-lib"]["deprecated"] is True
    modern = defs["pass-config-modern"]["properties"]
    assert modern["tirx.UnrollLoop"]["type"] == "object" and modern["tirx.disable_vectorize"]["type"] == "boolean"
    assert modern["tir.disable_vectorize"]["type"] == "boolean"  # the old spelling, typed as the new name
    legacy = defs["pass-config-legacy"]["properties"]
    assert legacy["tir.disable_vectorize"] == {  # old TVM registered its bools as IntImm
        "description": "PassContext config 'tir.disable_vectorize'.",
        "anyOf": [{"type": "integer"}, {"type": "boolean"}],
    }
    assert "relay.FuseOps.max_depth" in legacy and "relay.FuseOps.max_depth" not in modern


@pytest.mark.parametrize(
    ("doc", "valid"),
    [
        ({"targets": [{"kind": "llvm", "mcpu": "skylake"}]}, True),
        ({"targets": [{"kind": "llvm", "mcpu": "x"}]}, False),  # unknown-cpu
        ({"targets": [{"kind": "llvm", "mcpu": "x"}], "tvm-version": "0.18"}, True),  # old TVM's LLVM: unchecked
        ({"targets": [{"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mcpu": "skylake"}]}, False),
        ({"targets": [{"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mcpu": "cortex-a72"}]}, True),
        ({"targets": [{"kind": "llvm", "mattr": ["+avx2", "-sse4.1,+fma"]}]}, True),
        ({"targets": [{"kind": "llvm", "mattr": ["avx2"]}]}, False),  # no sign: LLVM ignores it
        ({"targets": [{"kind": "llvm", "mattr": ["+avx2, fma"]}]}, False),
        ({"targets": [{"kind": "cuda", "arch": "sm_800"}]}, False),
        ({"targets": [{"kind": "cuda", "arch": "sm_80", "host": {"kind": "llvm", "mcpu": "skylak"}}]}, False),
        ({"targets": ["cuda"], "host": {"kind": "cuda"}}, False),  # host-not-cpu
        ({"targets": ["cuda"], "host": "nvidia/nvidia-a100"}, False),
        ({"targets": ["cuda"], "host": "llvm -mcpu=skylake"}, True),
        ({"targets": ["cuda"], "host": {"tag": "aws/cpu/c5.large"}}, True),
        ({"targets": [{"kind": "cuda", "host": "vulkan"}]}, False),
        ({"executor": {"kind": "aot", "interface-api": "c"}}, False),  # aot-interface-api
        ({"executor": {"kind": "aot", "interface-api": "c", "unpacked-api": True}}, True),
        ({"executor": {"kind": "aot", "interface-api": "c"}, "extends": ["base"]}, True),  # a parent may set it
        ({"targets": [{"kind": "llvm", "mcpux": "x"}]}, False),
        ({"targets": [{"tag": "nvidia/nvidia-a100", "arch": "sm_80"}]}, True),
        ({"targets": [{"tag": "nvidia/nvidia-a100", "mtriple": "x"}]}, False),  # overrides: the tag's kind
        ({"targets": ["nvidia/nvidia-a100", "llvm -mcpu=skylake", '{"kind": "cuda"}']}, True),
        ({"targets": ["nvidia/nvidia-a1000"]}, False),
        ({"executor": {"kind": "aot", "unpacked-api": True}}, True),
        ({"executor": {"kind": "graph", "unpacked-api": True}}, False),
        ({"executor": {"unpacked-api": True}}, True),  # a layer may leave the kind to a parent
        ({"pass-config": {"some.unknown": 1}}, False),  # unknown-pass-config
        ({"pass-config": {"tirx.noalias": "yes"}}, False),
        ({"pass-config": {"tir.disable_vectorize": 1}}, False),  # TVM >= 0.25's bool, in any spelling
        ({"pass-config": {"tir.disable_vectorize": 1}, "tvm-version": "<=0.19"}, True),  # old TVM: IntImm
        ({"pass-config": {"tirx": {"disable_vectorize": True}}}, True),  # a nested table is a dotted name
        ({"pass-config": {"tirx": {"disable_vectorise": True}}}, False),
        ({"pass-config": {"tirx": {}}}, False),
        ({"pass-config": {"relay.FuseOps.max_depth": 3}, "tvm-version": ">=0.25"}, False),  # Relay is gone
        ({"pass-config": {"relay": {"FuseOps": {"max_depth": 3}}}, "tvm-version": "0.19"}, True),
        ({"pass-config": {"tir.disable_vectorize": 1}, "tvm-version": ">=0.18, <0.20"}, True),  # not recognised: loose
    ],
)
def test_schema_decisions(doc: dict[str, Any], valid: bool) -> None:
    assert jsonschema.Draft202012Validator(schema.build_schema()).is_valid(doc) is valid


def test_config_schema_command(tvmc: Invoke, tmp_path: Path) -> None:
    printed = tvmc("schema")
    assert printed.exit_code == 0 and printed.stdout == schema.schema_text()
    assert tvmc("schema", "-o", "-").stdout == schema.schema_text()
    out = tmp_path / "s.json"
    out.write_text("old")
    written = tvmc("schema", "-o", str(out))
    assert written.exit_code == 0 and written.stdout == ""
    assert out.read_text(encoding="utf-8") == schema.schema_text()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # atomic: no temporary left
    assert tvmc("schema", "-o", str(tmp_path)).exit_code == 2  # a directory is a usage error
