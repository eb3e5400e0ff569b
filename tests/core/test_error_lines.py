"""Every error tvmc reports is one printable line, whatever user text a raiser put in it: a target
tag, a key or a file name holding a line break must not forge a second report line (GitHub Actions
runs `::error` lines as workflow commands)."""

from __future__ import annotations

import pytest
import tvmc.targets as tg
from hypothesis import given, settings
from hypothesis import strategies as st
from tvmc.errors import ConfigLayerError, Location, TargetError, TvmcError, UsageError

FORGED = "\n::error file=x.py::forged"


def test_an_unknown_tag_with_a_line_break_is_reported_on_one_line() -> None:
    with pytest.raises(TargetError) as caught:
        tg.canonicalize({"tag": FORGED}, source="fuzz-target")
    text = caught.value.one_line()
    assert "\n" not in text
    assert text == "fuzz-target: Unknown target tag: \\n::error file=x.py::forged"


@settings(max_examples=200, deadline=None, database=None)
@given(
    kind=st.sampled_from([TvmcError, ConfigLayerError, TargetError, UsageError]),
    message=st.text(),
    source=st.none() | st.text(),
    line=st.none() | st.integers(1, 10**6),
    suggestions=st.lists(st.text(), max_size=3),
    hint=st.none() | st.text(),
    pointer=st.none() | st.text(),
)
def test_any_error_is_one_printable_line(
    kind: type[TvmcError],
    message: str,
    source: str | None,
    line: int | None,
    suggestions: list[str],
    hint: str | None,
    pointer: str | None,
) -> None:
    location = None if source is None else Location(source, line)
    text = kind(message, location, suggestions=suggestions, hint=hint, pointer=pointer).one_line()
    assert text.isprintable(), repr(text)
    if message.isprintable() and (source is None or source.isprintable()):
        assert message in text  # printable text is shown as written, never escaped twice
