"""Facts that must exist once, checked over the source (issue 13: "did you mean" was formatted in
five places, each a little differently)."""

from __future__ import annotations

from pathlib import Path

from tvmc.errors import TvmcError, suggestion_text

PACKAGE = Path(__file__).resolve().parents[2] / "cli" / "tvmc"


def test_did_you_mean_is_spelt_in_errors_only() -> None:
    spelt = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "(did you mean " in path.read_text(encoding="utf-8")
    )
    assert spelt == ["errors.py"]


def test_one_spelling_for_messages_and_reports() -> None:
    assert suggestion_text([]) == ""
    assert suggestion_text(["a"]) == " (did you mean 'a'?)"
    assert TvmcError("bad", "f.toml", suggestions=["a", "b"]).one_line() == "f.toml: bad (did you mean 'a' or 'b'?)"
