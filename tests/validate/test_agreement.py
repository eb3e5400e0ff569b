"""The fast checks and python-jsonschema with the generated schema find errors at the same places.

Both derive from `tvmc.validate.model`; this is what keeps them from drifting apart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from corpus_expect import CORPUS, corpus_files
from testkit import load_script
from tvmc import sources
from tvmc.errors import TvmcError
from tvmc.pointers import split
from tvmc.validate.checks import check_document
from tvmc.validate.jsonschema_engine import schema_findings
from tvmc.validate.rules import semantic_findings


def _errors(findings: list[Any]) -> set[str]:
    return {f.pointer for f in findings if f.severity == "error"}


# The semantic rules the schema also says (schema.py names each in a `$comment`).
SCHEMA_RULES = {"unknown-pass-config", "unknown-cpu", "host-not-cpu", "aot-interface-api", "unsupported-tvm-version"}


def _in_a_string(data: dict[str, Any], finding: Any) -> bool:
    """A name inside a legacy target string: the schema tells only some of those (what no CPU
    target knows), so they are compared apart (`test_schema_is_never_stricter`)."""
    node: Any = data
    for token in split(finding.pointer):
        if isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        elif isinstance(node, dict) and token in node:
            node = node[token]
        else:
            return False
    return finding.rule == "unknown-cpu" and isinstance(node, str) and " " in node.strip()


def _fast(data: dict[str, Any]) -> set[str]:
    """The fast engine's errors of what the schema also decides: its structural checks, and the
    semantic rules the schema can say too."""
    own = check_document(data)
    said = [f for f in semantic_findings(data, own) if f.rule in SCHEMA_RULES or _refused_name(f)]
    if "," in str(data.get("tvm-version", "")):  # the schema reads single-clause specifiers only
        said = [f for f in said if f.rule != "unsupported-tvm-version"]
    return _errors([f for f in [*own, *said] if not _in_a_string(data, f)])


def _refused_name(finding: Any) -> bool:
    # A CPU name TVM's target parser refuses (rocm's "gfx") is not one LLVM knows either.
    return finding.rule == "invalid-target" and finding.pointer.endswith(("/mcpu", "/arch"))


def _slow(data: dict[str, Any]) -> set[str]:
    return _errors([f for f in schema_findings(data) if not _in_a_string(data, f)])


def _documents() -> list[tuple[str, dict[str, Any]]]:
    docs = []
    for rel in corpus_files():
        try:
            docs.append((rel, sources.load_file(CORPUS / rel).data))
        except TvmcError:
            continue  # syntax errors: nothing to compare
    return docs


@pytest.mark.parametrize(("name", "data"), _documents(), ids=lambda v: v if isinstance(v, str) else "")
def test_corpus_documents_agree(name: str, data: dict[str, Any]) -> None:
    assert _fast(data) == _slow(data)


def test_generated_configs_agree(tmp_path: Path) -> None:
    paths = load_script("bench_validate").generate(tmp_path, 300, seed=7)
    compared = invalid = 0
    for path in paths:
        try:
            data = sources.load_file(path).data
        except TvmcError:
            continue
        fast, slow = _fast(data), _slow(data)
        assert fast == slow, (path, json.dumps(data))
        compared += 1
        invalid += bool(fast)
    assert compared > 250 and invalid > 20  # the generator does produce both kinds


def test_one_headline_per_any_of() -> None:
    """A bad target under the schema's anyOf is one finding (the best match, with the count)."""
    findings = schema_findings({"targets": [{"kind": "llvm", "mcpux": "a"}, "nvidia/jetson-nanoo"]})
    assert [(f.pointer, f.rule) for f in findings] == [
        ("/targets/0/mcpux", "unknown-option"),
        ("/targets/1", "unknown-tag"),
    ]
    assert "alternatives" in findings[1].message and "287" not in findings[1].message
