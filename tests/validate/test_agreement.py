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
from tvmc.validate.checks import check_document
from tvmc.validate.jsonschema_engine import schema_findings
from tvmc.validate.rules import semantic_findings


def _errors(findings: list[Any]) -> set[str]:
    return {f.pointer for f in findings if f.severity == "error"}


# The semantic rules the schema also says (schema.py names each in a `$comment`). Of unknown-cpu it
# says the names of mcpu and cuda's arch, and the sign of an mattr feature, not the feature's name.
SCHEMA_RULES = {"unknown-pass-config", "unknown-cpu", "host-not-cpu", "aot-interface-api"}


def _says(finding: Any) -> bool:
    if finding.pointer.endswith(("/mcpu", "/arch")) and finding.rule == "invalid-target":
        return True  # a CPU name TVM's target parser refuses (rocm's "gfx"): not a CPU LLVM knows either
    if finding.rule not in SCHEMA_RULES:
        return False
    if finding.rule == "unknown-cpu" and not finding.pointer.endswith(("/mcpu", "/arch")):
        # Of an mattr feature, the schema says the sign, not the name; a legacy string it cannot read.
        return "/mattr/" in finding.pointer and "has no sign" in finding.message
    return True


def _fast(data: dict[str, Any]) -> set[str]:
    """The fast engine's errors of what the schema also decides: its structural checks, and the
    semantic rules the schema can say too."""
    own = check_document(data)
    return _errors([*own, *(f for f in semantic_findings(data, own) if _says(f))])


def _slow(data: dict[str, Any]) -> set[str]:
    """The schema's errors, less those of a feature without a sign whose name LLVM does not know
    either: the fast engine reports the unknown name there (the schema cannot know it)."""
    own = check_document(data)
    unsigned_and_unknown = {
        f.pointer for f in semantic_findings(data, own) if f.rule == "unknown-cpu" and "knows no feature" in f.message
    }
    return {p for p in _errors(schema_findings(data)) if p not in unsigned_and_unknown}


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
