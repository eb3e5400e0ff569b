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


def _fast(data: dict[str, Any]) -> set[str]:
    """The fast engine's errors of what the schema also decides: its structural checks, and the
    pass-config names no release registers (a semantic rule there, `additionalProperties` here)."""
    own = check_document(data)
    names = [f for f in semantic_findings(data, own) if f.rule == "unknown-pass-config"]
    return _errors([*own, *names])


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
    assert _fast(data) == _errors(schema_findings(data))


def test_generated_configs_agree(tmp_path: Path) -> None:
    paths = load_script("bench_validate").generate(tmp_path, 300, seed=7)
    compared = invalid = 0
    for path in paths:
        try:
            data = sources.load_file(path).data
        except TvmcError:
            continue
        fast, slow = _fast(data), _errors(schema_findings(data))
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
