"""The corpus: every file, in every reporter, gives exactly the diagnostics it declares."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from corpus_expect import Case, Expected, Invoke, corpus_files, load_case

_TEXT = re.compile(
    r"^(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning): .+ "
    r"\[(?P<rule>[a-z-]+)\]$"
)
_ANNOTATION = re.compile(r"^::(?P<severity>error|warning) (?P<props>[^:]*)::(?P<message>.+)$")


def from_text(stdout: str) -> set[Expected]:
    found = set()
    for line in stdout.splitlines():
        m = _TEXT.match(line)
        assert m, f"not a diagnostic line: {line!r}"
        found.add((m["file"], int(m["line"]), int(m["col"]), m["severity"], m["rule"]))
    return found


def from_json(stdout: str) -> set[Expected]:
    doc = json.loads(stdout)
    assert len(doc["files"]) == 1
    entry = doc["files"][0]
    assert entry["status"] == ("fail" if entry["errors"] else "ok")
    return {
        (d["file"], d["line"], d["column"], d["severity"], d["rule"]) for d in [*entry["errors"], *entry["warnings"]]
    }


def from_github(stdout: str) -> set[Expected]:
    found = set()
    for line in stdout.splitlines():
        m = _ANNOTATION.match(line)
        if m is None:
            assert line.startswith("tvmc: checked "), line
            continue
        props = dict(p.split("=", 1) for p in m["props"].split(","))
        title = props["title"]
        assert title.startswith("tvmc "), title
        found.add((props["file"], int(props["line"]), int(props["col"]), m["severity"], title[5:]))
    return found


PARSERS = {"text": from_text, "json": from_json, "github": from_github}


@pytest.mark.parametrize("fmt", list(PARSERS))
@pytest.mark.parametrize("rel", corpus_files())
def test_corpus_file(rel: str, fmt: str, tvmc: Invoke, in_corpus: Path) -> None:
    case: Case = load_case(rel)
    result = tvmc("validate", "--format", fmt, *case.args, rel)
    found = PARSERS[fmt](result.stdout)
    assert found == set(case.expected), result.stdout
    assert result.exit_code == (1 if case.has_errors else 0), result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_the_corpus_covers_every_rule() -> None:
    """One corpus file (at least) per rule that a file can trigger, and per reader error kind."""
    from tvmc.validate.diagnostics import REGISTRY

    seen = {e[4] for rel in corpus_files() for e in load_case(rel).expected}
    not_from_files = {"unreadable", "config-not-found", "rewrite", "internal"}  # tested in test_cli
    # Rules about an input that is not a config (migrate's, a legacy output's, a manifest's):
    # test_rule_checks.py reports each through its check.
    not_from_files |= {rule.id for rule in REGISTRY.values() if rule.outside is not None}
    assert set(REGISTRY) - not_from_files <= seen, sorted(set(REGISTRY) - not_from_files - seen)
    syntax_files = [rel for rel in corpus_files() if rel.startswith("syntax/")]
    assert sum(rel.endswith(".toml") for rel in syntax_files) >= 6
    assert sum(rel.endswith(".json") for rel in syntax_files) >= 4


def test_the_whole_corpus_in_one_run(tvmc: Invoke, in_corpus: Path) -> None:
    """All files at once (a directory argument): the same diagnostics as one by one, one JSON entry each."""
    result = tvmc("validate", "--format", "json", ".")
    doc = json.loads(result.stdout)
    by_file = {entry["file"]: entry for entry in doc["files"]}
    plain = [rel for rel in corpus_files() if not load_case(rel).args]
    assert set(plain) <= set(by_file)
    for rel in plain:
        entry = by_file[rel]
        got = {
            (d["file"], d["line"], d["column"], d["severity"], d["rule"])
            for d in [*entry["errors"], *entry["warnings"]]
        }
        assert got == set(load_case(rel).expected), rel
    assert doc["status"] == "fail" and result.exit_code == 1
    assert doc["summary"]["files"] == len(corpus_files())
