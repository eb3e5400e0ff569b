"""Config-derived text never forges report lines or reaches the terminal raw (issue 14): keys,
values and file names with line breaks, ESC sequences or other control characters are escaped in
every human-readable output of `config validate` (text and github) and in error lines."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .harness import run_cli

FORGED = "x\n::error file=evil.py,line=1::PWNED"


def _printable_lines(text: str) -> list[str]:
    lines = text.split("\n")
    for line in lines:
        assert line.isprintable(), repr(line)
    return lines


def test_a_key_cannot_forge_a_github_workflow_command(tmp_path: Path) -> None:
    path = tmp_path / "evil.json"
    path.write_text(json.dumps({"targets": ["llvm"], "pass-config": {FORGED: 1, "\x1b[31mred": 2}}))
    for fmt in ("text", "github"):
        result = run_cli(["config", "validate", "--format", fmt, str(path)], report=True)
        lines = _printable_lines(result.stdout)
        assert not any(line.startswith("::error file=evil.py") for line in lines), lines
        newline = "%0A" if fmt == "github" else "\\n"  # GitHub shows %0A as a break inside the annotation
        assert f"{newline}::error file=evil.py" in result.stdout and "\\x1b[31mred" in result.stdout


def test_a_file_name_with_control_characters_is_escaped(tmp_path: Path) -> None:
    path = tmp_path / "a\x1b[2Jb\nc.toml"
    path.write_text("targets = 1\n")
    result = run_cli(["config", "validate", str(path)], report=True)
    assert result.exit_code == 1
    _printable_lines(result.stdout)
    shown = run_cli(["config", "show", "--config", str(path)])
    assert shown.exit_code == 1 and "\x1b" not in shown.stderr and "\\x1b[2J" in shown.stderr


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.text(min_size=1, max_size=12), value=st.text(max_size=12))
def test_no_config_text_reaches_a_report_unescaped(tmp_path: Path, key: str, value: str) -> None:
    path = tmp_path / "c.json"
    try:
        text = json.dumps({"targets": ["llvm", value], "pass-config": {key: value}, key: [value]})
        path.write_text(text, encoding="utf-8")
    except UnicodeEncodeError:  # a lone surrogate: not a file anyone can write as UTF-8
        return
    for fmt in ("text", "github"):
        result = run_cli(["config", "validate", "--format", fmt, str(path)], report=True)
        _printable_lines(result.stdout.rstrip("\n"))
    shown = run_cli(["config", "show", "--config", str(path)])
    _printable_lines(shown.stderr.rstrip("\n"))
