"""Reporters: how results are written. Pluggable (check-jsonschema style) and streaming: each gets
one `FileResult` at a time and keeps only counters, so memory does not grow with the number of files.
`FORMATS` is the one list of them (`--format` takes its choices from it):

    text    FILE:LINE:COL: error: key.path: message [rule-id]   (colour only on a TTY, NO_COLOR wins)
    json    one document (schema: `REPORT_SCHEMA`): per file status, errors and warnings
    github  ::error/::warning annotations (first 10 per file) + a Markdown report in $GITHUB_STEP_SUMMARY
    sarif   SARIF 2.1.0: the rule table as tool.driver.rules, one result per problem
    gitlab  GitLab Code Quality: one issue per problem
    junit   JUnit XML: a testcase per file, a failure per error

Every reporter writes its report to `out` (stdout); the human summary line is the command's, on
stderr, whatever the format.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, Protocol, TextIO

from tvmc import __version__
from tvmc.text import one_line
from tvmc.validate.diagnostics import REGISTRY, RULES, Diagnostic, FileResult, Summary

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
        pass


# Sources that are not files: `<stdin>`/`<flags>`, a flag or `--config NAME`, `env TVMC_X`, a
# default, a TVM tag standing for a config (see errors.Location and sources.tag_layer).
_NOT_FILES = ("<", "-", "env ", "default", "tag:")


def is_file(source: str | None) -> bool:
    """Whether a diagnostic's (or an input's) source names a file."""
    return bool(source) and not str(source).startswith(_NOT_FILES)


def diagnostic_json(d: Diagnostic) -> dict[str, Any]:
    """One problem of the JSON report (see REPORT_SCHEMA): `file` when it is in a file, else
    `source`; `line`/`column` only when known."""
    entry: dict[str, Any] = {
        "rule": d.rule,
        "severity": d.severity,
        "message": d.message + d.hint_text,  # the hint is part of the message, the did-you-mean not
        "suggestion": d.suggestion,
        "pointer": d.pointer,
        "path": d.path,
    }
    entry["file" if is_file(d.source) else "source"] = d.source if d.source is not None else "<unknown>"
    if d.line is not None:
        entry["line"] = d.line
        if d.col is not None:
            entry["column"] = d.col
    return entry


def input_json(name: str) -> dict[str, str]:
    return {"file": name} if is_file(name) else {"source": name}


class JsonReporter:
    """Writes the document as it goes: a header, one entry per file, then summary and status."""

    def __init__(self, out: TextIO, err: TextIO, env: Mapping[str, str]) -> None:
        self.out = out
        self.first = True

    def start(self) -> None:
        self.out.write(
            '{\n  "version": '
            + str(REPORT_VERSION)
            + ',\n  "tool": '
            + json.dumps({"name": "tvmc", "version": __version__})
            + ',\n  "files": ['
        )

    def file(self, result: FileResult) -> None:
        entry = {
            **input_json(result.name),
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


REPORT_VERSION = 2  # 2: `file` only for files (else `source`); no null line/column (left out)

_PROBLEM = {
    "type": "object",
    "description": "One problem. Exactly one of `file` and `source` says where it is.",
    "required": ["rule", "severity", "message", "suggestion", "pointer", "path"],
    "properties": {
        "rule": {"type": "string", "description": "The rule id (`tvmc config validate --help` lists them)."},
        "severity": {"enum": ["error", "warning"]},
        "message": {"type": "string"},
        "suggestion": {"type": ["string", "null"], "description": "The did-you-mean, if any."},
        "pointer": {"type": "string", "description": "JSON pointer of the key in the config ('' for the file)."},
        "path": {"type": "string", "description": "The same key as a dotted path (targets[0].mcpu)."},
        "file": {"type": "string", "description": "The file that set the value (as given, or relative to the cwd)."},
        "source": {
            "type": "string",
            "description": "Where the value came from when it is not a file: a flag, `--config NAME`, "
            "`env TVMC_X`, `<stdin>`.",
        },
        "line": {"type": "integer", "minimum": 1, "description": "1-based; left out when the source has none."},
        "column": {"type": "integer", "minimum": 1, "description": "1-based, in characters; left out when unknown."},
    },
    "oneOf": [{"required": ["file"]}, {"required": ["source"]}],
    "dependentRequired": {"column": ["line"]},
    "additionalProperties": False,
}

REPORT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "tvmc config validate --format json report",
    "description": f"Version {REPORT_VERSION} of the report `tvmc config validate --format json` writes.",
    "type": "object",
    "required": ["version", "tool", "files", "summary", "status"],
    "properties": {
        "version": {"const": REPORT_VERSION},
        "tool": {
            "type": "object",
            "required": ["name", "version"],
            "properties": {"name": {"const": "tvmc"}, "version": {"type": "string"}},
            "additionalProperties": False,
        },
        "files": {
            "type": "array",
            "description": "One entry per input, in order.",
            "items": {
                "type": "object",
                "description": "An input: `file` for a file, `source` for `--config NAME`, `<flags>` or `<stdin>`.",
                "required": ["status", "errors", "warnings"],
                "properties": {
                    "file": {"type": "string"},
                    "source": {"type": "string"},
                    "status": {"enum": ["ok", "fail"]},
                    "errors": {"type": "array", "items": {"$ref": "#/$defs/problem"}},
                    "warnings": {"type": "array", "items": {"$ref": "#/$defs/problem"}},
                },
                "oneOf": [{"required": ["file"]}, {"required": ["source"]}],
                "additionalProperties": False,
            },
        },
        "summary": {
            "type": "object",
            "required": ["files", "valid", "invalid", "errors", "warnings"],
            "properties": {
                key: {"type": "integer", "minimum": 0} for key in ("files", "valid", "invalid", "errors", "warnings")
            },
            "additionalProperties": False,
        },
        "status": {"enum": ["ok", "fail"], "description": "fail when an input has an error (exit code 1)."},
    },
    "additionalProperties": False,
    "$defs": {"problem": _PROBLEM},
}


def report_schema_text() -> str:
    return json.dumps(REPORT_SCHEMA, indent=2, ensure_ascii=False) + "\n"


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
    elif d.source == file_name and is_file(file_name):
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
        if len(ordered) > ANNOTATIONS_PER_FILE:  # a note for the human reading the log: stderr
            self.err.write(
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
        self._md(f"**{'Passed' if summary.ok else 'Failed'}**: {markdown(line)}\n\n")
        if self.md is not None:
            self.md.close()


LEVELS = {"error": "error", "warning": "warning"}  # SARIF result levels


def default_level(rule: str) -> str:
    """The severity the rule registry declares (the legacy-* warnings are errors with --strict)."""
    declared = REGISTRY.get(rule)
    return declared.severity if declared is not None else "error"


def _uri(path: str) -> tuple[str, str | None]:
    """A SARIF artifact URI for a path (and its base id): relative paths against %SRCROOT%."""
    from pathlib import PurePath
    from urllib.parse import quote

    pure = PurePath(path)
    if pure.is_absolute():
        return pure.as_uri(), None
    return quote(pure.as_posix()), "%SRCROOT%"


class SarifReporter:
    """SARIF 2.1.0 (what GitHub code scanning and other CI dashboards read): results streamed,
    then the tool with every rule of the rule table, each with its help text."""

    SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"

    def __init__(self, out: TextIO, err: TextIO, env: Mapping[str, str]) -> None:
        self.out = out
        self.rules = RULES
        self.index = {rule: i for i, rule in enumerate(RULES)}
        self.first = True

    def start(self) -> None:
        head = {"$schema": self.SCHEMA_URI, "version": "2.1.0"}
        self.out.write(json.dumps(head)[:-1] + ', "runs": [{"columnKind": "unicodeCodePoints", "results": [')

    def result(self, d: Diagnostic, input_name: str) -> dict[str, Any]:
        where = d.source or input_name
        text = d.full_message
        if d.path:
            text = f"{d.path}: {text}"
        location: dict[str, Any] = {}
        if is_file(where):
            uri, base = _uri(where)
            artifact: dict[str, Any] = {"uri": uri}
            if base:
                artifact["uriBaseId"] = base
            physical: dict[str, Any] = {"artifactLocation": artifact}
            if d.line is not None:
                physical["region"] = {"startLine": d.line, **({"startColumn": d.col} if d.col is not None else {})}
            location["physicalLocation"] = physical
        else:  # a flag, `--config NAME`, the environment: said in the message, no file to point at
            text = f"{where}: {text}"
        if d.pointer:
            location["logicalLocations"] = [{"fullyQualifiedName": d.path, "kind": "member"}]
        result: dict[str, Any] = {
            "ruleId": d.rule,
            "level": LEVELS[d.severity],
            "message": {"text": text},
            "locations": [location] if location else [],
        }
        if d.rule in self.index:
            result["ruleIndex"] = self.index[d.rule]
        if d.suggestion:
            result["properties"] = {"suggestion": d.suggestion}
        return result

    def file(self, result: FileResult) -> None:
        for d in result.diagnostics:
            text = json.dumps(self.result(d, result.name), ensure_ascii=False)
            self.out.write(("\n    " if self.first else ",\n    ") + text)
            self.first = False

    def finish(self, summary: Summary) -> None:
        rules = [
            {
                "id": rule,
                "name": "".join(part.capitalize() for part in rule.split("-")),
                "shortDescription": {"text": text},
                "fullDescription": {"text": text},
                "help": {"text": f"{text} (rule '{rule}' of tvmc config validate; see its --help.)"},
                "defaultConfiguration": {"level": default_level(rule)},
            }
            for rule, text in self.rules.items()
        ]
        driver = {"name": "tvmc", "version": __version__, "semanticVersion": __version__, "rules": rules}
        invocation = {"executionSuccessful": True, "exitCode": 0 if summary.ok else 1}
        self.out.write(
            ("\n  " if not self.first else "")
            + '], "tool": '
            + json.dumps({"driver": driver}, ensure_ascii=False)
            + ', "invocations": '
            + json.dumps([invocation])
            + "}]}\n"
        )


GITLAB_SEVERITY = {"error": "major", "warning": "minor"}


class GitlabReporter:
    """GitLab Code Quality (a JSON array of issues, `artifacts:reports:codequality`). Every issue
    needs a path: a problem set by a flag or a `--config` name is shown at the input it concerns."""

    def __init__(self, out: TextIO, err: TextIO, env: Mapping[str, str]) -> None:
        self.out = out
        self.first = True
        self.seen: dict[str, int] = {}

    def start(self) -> None:
        self.out.write("[")

    def issue(self, d: Diagnostic, input_name: str) -> dict[str, Any]:
        import hashlib

        where = d.source or input_name
        path = where if is_file(where) else input_name
        description = (f"{d.path}: " if d.path else "") + d.full_message
        if path != where:
            description = f"{where}: {description}"
        # Stable across edits that move the line: rule, file, key and message (GitLab compares
        # fingerprints between branches); a repeat of the same problem gets its own.
        key = "\0".join((d.rule, path, d.pointer, d.message + d.hint_text))
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
        self.seen[digest] = self.seen.get(digest, 0) + 1
        if self.seen[digest] > 1:
            digest = hashlib.sha256(f"{digest}\0{self.seen[digest]}".encode()).hexdigest()
        return {
            "type": "issue",
            "description": description,
            "check_name": d.rule,
            "categories": ["Bug Risk"] if d.severity == "error" else ["Compatibility"],
            "fingerprint": digest,
            "severity": GITLAB_SEVERITY[d.severity],
            "location": {"path": path, "lines": {"begin": d.line or 1}},
        }

    def file(self, result: FileResult) -> None:
        for d in result.diagnostics:
            text = json.dumps(self.issue(d, result.name), ensure_ascii=False)
            self.out.write(("\n  " if self.first else ",\n  ") + text)
            self.first = False

    def finish(self, summary: Summary) -> None:
        self.out.write(("\n" if not self.first else "") + "]\n")


def xml_text(text: str) -> str:
    """Text for XML 1.0 content or an attribute value: escaped, and the characters XML cannot
    hold at all (control characters, lone surrogates) written as \\xNN / \\uNNNN."""
    from xml.sax.saxutils import escape

    out = []
    for ch in text:
        code = ord(ch)
        if code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or code >= 0x10000:
            out.append(ch)
        else:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    return escape("".join(out), {'"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


class JunitReporter:
    """JUnit XML (GitLab `artifacts:reports:junit`, Jenkins, Azure): one testcase per input, a
    failure per error, warnings in the testcase's system-out. The counts head the document, so
    the testcases wait in a spooled file (in memory while small), not in a list."""

    SUITE = "tvmc config validate"

    def __init__(self, out: TextIO, err: TextIO, env: Mapping[str, str]) -> None:
        import tempfile

        self.out = out
        self.cases = tempfile.SpooledTemporaryFile(max_size=1 << 20, mode="w+", encoding="utf-8")  # noqa: SIM115

    def start(self) -> None:
        pass

    def file(self, result: FileResult) -> None:
        name = xml_text(result.name)
        parts = [
            f'    <testcase classname="tvmc.validate" name="{name}"'
            + (f' file="{name}"' if is_file(result.name) else "")
        ]
        body = []
        for d in result.errors:
            message = (f"{d.path}: " if d.path else "") + d.full_message
            body.append(
                f'      <failure type="{xml_text(d.rule)}" message="{xml_text(message)}">'
                f"{xml_text(text_line(d))}</failure>\n"
            )
        if result.warnings:
            lines = "".join(text_line(d) + "\n" for d in result.warnings)
            body.append(f"      <system-out>{xml_text(lines)}</system-out>\n")
        parts.append(">\n" + "".join(body) + "    </testcase>\n" if body else "/>\n")
        self.cases.write("".join(parts))

    def finish(self, summary: Summary) -> None:
        counts = f'tests="{summary.files}" failures="{summary.invalid}" errors="0" skipped="0"'
        self.out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        self.out.write(f'<testsuites name="{self.SUITE}" {counts}>\n')
        self.out.write(f'  <testsuite name="{self.SUITE}" {counts}>\n')
        self.cases.seek(0)
        while chunk := self.cases.read(1 << 16):
            self.out.write(chunk)
        self.cases.close()
        self.out.write("  </testsuite>\n</testsuites>\n")


class Format(NamedTuple):
    """A report format: its reporter and the one line `--help` and the README say of it."""

    reporter: Callable[[TextIO, TextIO, Mapping[str, str]], Reporter]
    help: str


FORMATS: dict[str, Format] = {
    "text": Format(TextReporter, "FILE:LINE:COL: error: key.path: message [rule-id], one problem a line"),
    "json": Format(JsonReporter, "one JSON document (its JSON Schema: --report-schema)"),
    "github": Format(GithubReporter, "GitHub Actions annotations, and a Markdown report in $GITHUB_STEP_SUMMARY"),
    "sarif": Format(SarifReporter, "SARIF 2.1.0 (GitHub code scanning and other dashboards)"),
    "gitlab": Format(GitlabReporter, "GitLab Code Quality JSON (artifacts:reports:codequality)"),
    "junit": Format(JunitReporter, "JUnit XML: a testcase per file, a failure per error"),
}


def make_reporter(name: str, out: TextIO, err: TextIO, env: Mapping[str, str]) -> Reporter:
    return FORMATS[name].reporter(out, err, env)
