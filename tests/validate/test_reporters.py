"""Reporters: text colour rules, GitHub escaping/limits/summary, the JSON document."""

from __future__ import annotations

import io
import json
from pathlib import Path

from corpus_expect import Invoke
from tvmc.validate.diagnostics import Diagnostic, FileResult, Summary
from tvmc.validate.reporters import (
    GithubReporter,
    JsonReporter,
    TextReporter,
    annotation,
    escape_data,
    escape_property,
    markdown,
    use_colour,
)


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _diag(rule: str = "unknown-key", severity: str = "error", line: int | None = 3) -> Diagnostic:
    return Diagnostic(
        rule,
        severity,
        "/opt_level",
        "unknown key",
        "a.toml",
        line,
        1 if line else None,  # type: ignore[arg-type]
        "opt-level",
    )


def test_colour_only_on_a_tty_and_no_color_wins() -> None:
    assert use_colour(_Tty(), {}) is True
    assert use_colour(io.StringIO(), {}) is False
    assert use_colour(_Tty(), {"NO_COLOR": "1"}) is False
    assert use_colour(_Tty(), {"NO_COLOR": ""}) is True  # NO_COLOR counts only when non-empty
    assert use_colour(io.StringIO(), {"FORCE_COLOR": "1"}) is True
    assert use_colour(_Tty(), {"FORCE_COLOR": "1", "NO_COLOR": "1"}) is False
    out = _Tty()
    reporter = TextReporter(out, io.StringIO(), {})
    reporter.file(FileResult("a.toml", [_diag()]))
    assert "\x1b[1;31merror\x1b[0m" in out.getvalue()
    plain = _Tty()
    TextReporter(plain, io.StringIO(), {"NO_COLOR": "1"}).file(FileResult("a.toml", [_diag()]))
    assert plain.getvalue() == "a.toml:3:1: error: opt_level: unknown key (did you mean 'opt-level'?) [unknown-key]\n"


def test_cli_output_has_no_colour_when_piped(tvmc: Invoke, in_corpus: Path) -> None:
    result = tvmc("validate", "schema/unknown-key.toml", env={"NO_COLOR": "", "FORCE_COLOR": ""})
    assert "\x1b[" not in result.stdout and result.exit_code == 1


def test_github_escaping() -> None:
    assert escape_data("50% a\r\nb") == "50%25 a%0D%0Ab"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    d = Diagnostic("wrong-type", "error", "/x", "bad: 1,2\nnext", "dir,1/a:b.toml", 4, 2)
    assert annotation(d, "dir,1/a:b.toml") == (
        "::error file=dir%2C1/a%3Ab.toml,line=4,col=2,title=tvmc wrong-type::x: bad: 1,2%0Anext"
    )
    flag = Diagnostic("invalid-value", "error", "/opt-level", "5 is not in 0..3", "--opt-level=5")
    assert annotation(flag, "a.toml") == "::error title=tvmc invalid-value::--opt-level=5: opt-level: 5 is not in 0..3"
    assert markdown("a|b <stdin> `x` *y*") == "a\\|b \\<stdin\\> \\`x\\` \\*y\\*"


def test_github_limits_annotations_and_writes_the_summary(tmp_path: Path) -> None:
    summary_file = tmp_path / "summary.md"
    summary_file.write_text("earlier step\n")
    out, err = io.StringIO(), io.StringIO()
    reporter = GithubReporter(out, err, {"GITHUB_STEP_SUMMARY": str(summary_file)})
    many = [Diagnostic("unknown-key", "error", f"/k{i}", "unknown key", "big.toml", i + 1, 1) for i in range(12)]
    warning = Diagnostic("legacy-kind", "warning", "/targets/0/kind", "legacy | old", "big.toml", 20, 5)
    totals = Summary()
    reporter.start()
    for result in (FileResult("big.toml", [*many, warning]), FileResult("fine.toml")):
        totals.add(result)
        reporter.file(result)
    reporter.finish(totals)
    lines = out.getvalue().splitlines()
    assert sum(line.startswith("::error ") for line in lines) == 10
    assert not any(line.startswith("::warning ") for line in lines)  # errors first, then the cut
    assert err.getvalue() == "tvmc: big.toml: 3 more not annotated (see the job summary)\n"  # for humans: stderr
    assert all(line.startswith("::error ") for line in lines)  # stdout holds the annotations alone
    md = summary_file.read_text()
    assert md.startswith("earlier step\n## tvmc config validate")  # appended, not replaced
    assert md.count("| big.toml:") == 13 and "legacy \\| old" in md
    assert "**Failed**" in md and "fine.toml" not in md


def test_json_document_streams_one_entry_per_file() -> None:
    out = io.StringIO()
    reporter = JsonReporter(out, io.StringIO(), {})
    totals = Summary()
    reporter.start()
    for result in (FileResult("a.toml", [_diag(), _diag("legacy-kind", "warning")]), FileResult("b.toml")):
        totals.add(result)
        reporter.file(result)
    reporter.finish(totals)
    doc = json.loads(out.getvalue())
    assert doc["version"] == 2 and doc["tool"]["name"] == "tvmc" and doc["status"] == "fail"
    assert doc["summary"] == {"files": 2, "valid": 1, "invalid": 1, "errors": 1, "warnings": 1}
    a, b = doc["files"]
    assert a["status"] == "fail" and b == {"file": "b.toml", "status": "ok", "errors": [], "warnings": []}
    assert a["errors"] == [
        {
            "rule": "unknown-key",
            "severity": "error",
            "message": "unknown key",
            "suggestion": "opt-level",
            "pointer": "/opt_level",
            "path": "opt_level",
            "file": "a.toml",
            "line": 3,
            "column": 1,
        }
    ]
    assert [w["rule"] for w in a["warnings"]] == ["legacy-kind"]
