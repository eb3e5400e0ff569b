"""Reporters: how results are written. Pluggable (check-jsonschema style) and streaming: each gets
one `FileResult` at a time and keeps only counters, so memory does not grow with the number of files.

    text    FILE:LINE:COL: error: key.path: message [rule-id]   (colour only on a TTY, NO_COLOR wins)
    json    one document: per file status, errors and warnings with rule, pointer, line, column
    github  ::error/::warning annotations (first 10 per file) + a Markdown report in $GITHUB_STEP_SUMMARY
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol, TextIO

from tvmc import __version__
from tvmc.text import one_line
from tvmc.validate.diagnostics import Diagnostic, FileResult, Summary

ANNOTATIONS_PER_FILE = 10  # GitHub shows at most 10 annotations of a type per step; the summary has all


class Reporter(Protocol):
    def start(self) -> None: ...

    def file(self, result: FileResult) -> None: ...

    def finish(self, summary: Summary) -> None: ...


def summary_line(summary: Summary) -> str:
    valid = summary.files - summary.invalid
    files = "1 file" if summary.files == 1 else f"{summary.files} files"
    return (
        f"checked {files}: {valid} valid, {summary.invalid} invalid; "
        f"{_count(summary.errors, 'error')}, {_count(summary.warnings, 'warning')}"
    )


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def use_colour(stream: TextIO, env: Mapping[str, str]) -> bool:
    """ANSI colour only on a terminal; NO_COLOR (non-empty) always wins, FORCE_COLOR forces it."""
    if env.get("NO_COLOR", ""):
        return False
    if env.get("FORCE_COLOR", ""):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def text_line(d: Diagnostic, colour: bool = False) -> str:
    # Everything but the severity and rule id comes from the config (file names, keys, values).
    where, severity, rule = one_line(d.where()), str(d.severity), f"[{d.rule}]"
    if colour:
        where = f"\x1b[1m{where}\x1b[0m"
        severity = f"\x1b[1;{31 if d.severity == 'error' else 33}m{severity}\x1b[0m"
        rule = f"\x1b[2m{rule}\x1b[0m"
    path = f"{one_line(d.path)}: " if d.path else ""
    return f"{where}: {severity}: {path}{one_line(d.full_message)} {rule}"


class TextReporter:
    def __init__(self, out: TextIO, err: TextIO, env: Mapping[str, str]) -> None:
        self.out, self.err = out, err
        self.colour = use_colour(out, env)

    def start(self) -> None:
        pass

    def file(self, result: FileResult) -> None:
        if result.diagnostics:
            self.out.write("".join(text_line(d, self.colour) + "\n" for d in result.diagnostics))
            self.out.flush()

    def finish(self, summary: Summary) -> None:
        self.err.write(f"tvmc: {summary_line(summary)}\n")


def diagnostic_json(d: Diagnostic) -> dict[str, Any]:
    return {
        "rule": d.rule,
        "severity": d.severity,
        "message": d.message,
        "suggestion": d.suggestion,
        "pointer": d.pointer,
        "path": d.path,
        "file": d.source,
        "line": d.line,
        "column": d.col,
    }


class JsonReporter:
    """Writes the document as it goes: a header, one entry per file, then summary and status."""

    def __init__(self, out: TextIO, err: TextIO, env: Mapping[str, str]) -> None:
        self.out = out
        self.first = True

    def start(self) -> None:
        self.out.write(
            '{\n  "version": 1,\n  "tool": ' + json.dumps({"name": "tvmc", "version": __version__}) + ',\n  "files": ['
        )

    def file(self, result: FileResult) -> None:
        entry = {
            "file": result.name,
            "status": "ok" if result.ok else "fail",
            "errors": [diagnostic_json(d) for d in result.errors],
            "warnings": [diagnostic_json(d) for d in result.warnings],
        }
        # One line per file: json's C encoder only runs without `indent`, and it is 5x faster.
        text = json.dumps(entry, ensure_ascii=False)
        self.out.write(("\n    " if self.first else ",\n    ") + text)
        self.first = False

    def finish(self, summary: Summary) -> None:
        totals = {
            "files": summary.files,
            "valid": summary.files - summary.invalid,
            "invalid": summary.invalid,
            "errors": summary.errors,
            "warnings": summary.warnings,
        }
        self.out.write(
            ("\n  " if not self.first else "")
            + '],\n  "summary": '
            + json.dumps(totals)
            + ',\n  "status": '
            + json.dumps("ok" if summary.ok else "fail")
            + "\n}\n"
        )


def escape_data(text: str) -> str:
    """GitHub workflow-command escaping of the message (actions/toolkit `escapeData`)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """GitHub workflow-command escaping of a property value (`escapeProperty`)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic, file_name: str) -> str:
    props = []
    if d.line is not None and d.source:
        props += [f"file={escape_property(d.source)}", f"line={d.line}"]
        if d.col is not None:
            props.append(f"col={d.col}")
    elif d.source == file_name and not file_name.startswith(("<", "--")):
        props.append(f"file={escape_property(file_name)}")
    props.append(f"title={escape_property(f'tvmc {d.rule}')}")
    where = "" if d.line is not None or d.source == file_name else f"{d.where()}: "
    path = f"{d.path}: " if d.path else ""
    message = where + path + d.full_message
    if not message.isprintable():  # line breaks become %0A (GitHub shows them); the rest escaped
        message = "".join(c if c in "\r\n" else one_line(c) for c in message)
    return f"::{d.severity} {','.join(props)}::{escape_data(message)}"


def markdown(text: str) -> str:
    """Text safe in a GitHub Markdown table cell: punctuation escaped, one line."""
    out = []
    for ch in text.replace("\r", " ").replace("\n", " "):
        out.append("\\" + ch if ch in "\\`*_[]<>|#&" else ch)
    return "".join(out)


class GithubReporter:
    """Annotations on stdout; the full report appended to $GITHUB_STEP_SUMMARY when it is set."""

    def __init__(self, out: TextIO, err: TextIO, env: Mapping[str, str]) -> None:
        self.out, self.err = out, err
        self.summary_path = env.get("GITHUB_STEP_SUMMARY") or None
        self.md: TextIO | None = None

    def _md(self, text: str) -> None:
        """Append to the step summary; a summary that cannot be written is a warning, not a failure."""
        if self.md is None:
            return
        try:
            self.md.write(text)
        except OSError as err:
            self.err.write(f"tvmc: warning: cannot write $GITHUB_STEP_SUMMARY: {err.strerror}\n")
            self.md.close()
            self.md = None

    def start(self) -> None:
        if self.summary_path:
            try:
                self.md = open(self.summary_path, "a", encoding="utf-8")  # noqa: SIM115 (kept for the run)
            except OSError as err:
                self.err.write(f"tvmc: warning: cannot write $GITHUB_STEP_SUMMARY: {err.strerror}\n")
            self._md("## tvmc config validate\n\n")

    def file(self, result: FileResult) -> None:
        ordered = [*result.errors, *result.warnings]
        for d in ordered[:ANNOTATIONS_PER_FILE]:
            self.out.write(annotation(d, result.name) + "\n")
        if len(ordered) > ANNOTATIONS_PER_FILE:
            self.out.write(
                f"tvmc: {result.name}: {len(ordered) - ANNOTATIONS_PER_FILE} more not annotated"
                f"{' (see the job summary)' if self.md else ''}\n"
            )
        if self.md is not None and ordered:
            rows = "".join(
                f"| {markdown(d.where())} | {d.severity} | {markdown(d.rule)} | {markdown(d.path)} "
                f"| {markdown(d.full_message)} |\n"
                for d in ordered
            )
            self._md(
                f"### {markdown(result.name)}: {_count(len(result.errors), 'error')}, "
                f"{_count(len(result.warnings), 'warning')}\n\n"
                f"| Location | Severity | Rule | Key | Message |\n|---|---|---|---|---|\n{rows}\n"
            )

    def finish(self, summary: Summary) -> None:
        line = summary_line(summary)
        self.out.write(f"tvmc: {line}\n")
        self._md(f"**{'Passed' if summary.ok else 'Failed'}**: {markdown(line)}\n\n")
        if self.md is not None:
            self.md.close()


REPORTERS: dict[str, type[TextReporter] | type[JsonReporter] | type[GithubReporter]] = {
    "text": TextReporter,
    "json": JsonReporter,
    "github": GithubReporter,
}


def make_reporter(name: str, out: TextIO, err: TextIO, env: Mapping[str, str]) -> Reporter:
    return REPORTERS[name](out, err, env)
