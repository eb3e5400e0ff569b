"""`errors.did_you_mean` skips the candidates that cannot match before difflib compares the rest:
its answers stay exactly difflib's."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st
from tvmc import registry
from tvmc.errors import did_you_mean

_names = st.text(alphabet="abcdeflmnosuvx/-_.0189", max_size=24)


@settings(max_examples=400)
@given(word=_names, candidates=st.lists(_names, max_size=40), n=st.integers(1, 4))
def test_the_same_answers_as_difflib(word: str, candidates: list[str], n: int) -> None:
    assert did_you_mean(word, candidates, n) == difflib.get_close_matches(word, candidates, n=n, cutoff=0.6)


@settings(max_examples=200)
@given(tag=st.sampled_from(sorted(registry.tag_names())), cut=st.integers(0, 6), extra=_names, n=st.integers(1, 3))
def test_the_same_answers_for_misspelt_tags(tag: str, cut: int, extra: str, n: int) -> None:
    word = tag[cut:] + extra  # near many tags: most candidates pass the quick bounds, difflib decides
    tags = sorted(registry.tag_names())
    assert did_you_mean(word, tags, n) == difflib.get_close_matches(word, tags, n=n, cutoff=0.6)


def test_the_bounds_leave_out_what_cannot_match() -> None:
    far = [f"group{i:02d}/config{i:05d}" for i in range(2000)]
    assert did_you_mean("bases/no-such-base", [*far, "bases/no-such-bass"], 3) == ["bases/no-such-bass"]
    assert did_you_mean("", ["", "a"]) == [""]  # difflib: two empty strings are equal


def test_a_ratio_of_exactly_the_cutoff_still_matches() -> None:
    # 2·3 matches / 10 characters = 0.6: at the bounds (shared characters, shorter length) exactly.
    for word, candidate in (("abcde", "abcxy"), ("abc", "abcwxyz")):
        assert difflib.get_close_matches(word, [candidate], cutoff=0.6) == [candidate]
        assert did_you_mean(word, [candidate]) == [candidate]
