"""The broken-config corpus (tests/lsp/corpus/, 44 cases): `tvmc lsp` publishes each case's rule,
as an error with the rule id as its code, when the file is opened in an editor."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lspclient import session
from lsprotocol import types as lsp

CORPUS = Path(__file__).resolve().parent / "corpus"
_EXPECT = re.compile(r"expect-rule: ([a-z-]+)")


def cases() -> dict[Path, str]:
    found = {}
    for path in sorted([*CORPUS.glob("*.toml"), *CORPUS.glob("*.json")]):
        text = path.read_text(encoding="utf-8")
        match = _EXPECT.search(text)
        assert match is not None, f"{path.name}: no 'expect-rule: RULE' in its description"
        found[path] = match.group(1)
    return found


def test_the_corpus_has_44_cases_of_distinct_kinds() -> None:
    found = cases()
    assert len(found) == 44
    assert len(set(found.values())) >= 18


def test_lsp_reports_every_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TVMC_CONFIG_PATH", str(CORPUS))
    expected = cases()

    async def scenario() -> dict[str, list[tuple[str, lsp.DiagnosticSeverity | None]]]:
        published = {}
        async with session(CORPUS) as s:
            for path in expected:
                found = await s.open(path)
                published[path.name] = [(str(d.code), d.severity) for d in found]
        return published

    published = asyncio.run(scenario())
    caught = [p.name for p, rule in expected.items() if (rule, lsp.DiagnosticSeverity.Error) in published[p.name]]
    missed = {p.name: (rule, published[p.name]) for p, rule in expected.items() if p.name not in caught}
    assert not missed, json.dumps({k: [v[0], [list(map(str, d)) for d in v[1]]] for k, v in missed.items()}, indent=1)
    assert len(caught) == 44
