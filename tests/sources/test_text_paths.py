"""The string and path helpers that stand in for `re`, `pathlib` and `math` on the start-up path
(scripts/bench_startup.py) answer as those do, over generated inputs; and what start-up no longer
works out eagerly (origins, kinds) is still what it was when it is read."""

from __future__ import annotations

import math
import os
import pickle
import re
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tvmc import api, registry
from tvmc.sources import SearchDir, is_within, lexical_path
from tvmc.sources import limits as limits_module
from tvmc.sources import search as search_module
from tvmc.text import has_surrogate

POSIX = os.sep == "/"
PATH_TEXT = st.lists(st.sampled_from(["", ".", "..", "a", "b.toml", "c d", "~"]), max_size=6).map("/".join)


@given(st.text())
def test_has_surrogate_is_the_pattern_it_replaced(text: str) -> None:
    assert has_surrogate(text) == (re.search("[\ud800-\udfff]", text) is not None)


@given(st.text(max_size=4))
def test_a_drive_is_what_the_pattern_found(text: str) -> None:
    assert search_module._has_drive(text) == (re.match(r"[A-Za-z]:", text) is not None)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_finite_is_math_isfinite(number: float) -> None:
    assert limits_module._finite(number) == math.isfinite(number)


@pytest.mark.skipif(not POSIX, reason="pathlib's own spelling on Windows is used there")
@given(st.sampled_from(["", "/", "//", "///"]), PATH_TEXT)
def test_lexical_path_is_str_of_a_path(root: str, rest: str) -> None:
    text = root + rest
    assert lexical_path(text) == str(PurePosixPath(text))


# What os.path.realpath gives: absolute, no empty, '.' or '..' parts.
REAL_PATH = st.lists(st.sampled_from(["a", "ab", "b", "a b"]), max_size=4).map(lambda parts: "/" + "/".join(parts))


@pytest.mark.skipif(not POSIX, reason="POSIX paths")
@given(REAL_PATH, REAL_PATH)
def test_is_within_is_is_relative_to(path: str, root: str) -> None:
    assert is_within(path, root) == PurePosixPath(path).is_relative_to(root)
    assert is_within(root, root)


def test_a_search_dir_is_its_path_however_given(tmp_path: Path) -> None:
    """`text` for searching, a Path made on first use for callers, equal whether given as text or Path."""
    given_text, given_path = SearchDir(f"{tmp_path}/", "user"), SearchDir(tmp_path, "user")
    assert given_text == given_path and hash(given_text) == hash(given_path)
    assert given_text.text == str(tmp_path) and given_text.path == tmp_path and isinstance(given_text.path, Path)
    assert given_path.path is given_path.path  # made once
    assert str(given_text) == f"{tmp_path} (user)"
    assert pickle.loads(pickle.dumps(given_text)) == given_text


def test_a_directory_listed_twice_is_searched_once(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    env = {
        "TVMC_CONFIG_PATH": os.pathsep.join([str(tmp_path / "real"), str(tmp_path / "link"), "/nowhere", "/nowhere"])
    }
    dirs = search_module.search_path(env)
    assert [d.text for d in dirs if d.origin == "TVMC_CONFIG_PATH"] == [str(tmp_path / "real"), "/nowhere"]


def test_origins_are_worked_out_when_first_read(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    worked_out = api.canonical_origins

    def counted(*args: object) -> object:
        calls.append(1)
        return worked_out(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(api, "canonical_origins", counted)
    resolved = api.resolve(["aws/c5"], [("--target-llvm-mcpu", "znver3")], env={})
    assert calls == []  # `config show` without --origin never reads them
    assert str(resolved.origin("/targets/0/mcpu")) == "--target-llvm-mcpu=znver3"
    assert calls == [1] and len(resolved.origins) == len(dict(resolved.origins))
    assert resolved.origins == dict(resolved.origins) and calls == [1]  # worked out once
    assert pickle.loads(pickle.dumps(resolved.origins)) == dict(resolved.origins)


def test_every_kind_looked_up_lazily_is_the_one_built_eagerly() -> None:
    for name, kind in registry.all_kinds().items():
        entries = registry._data()["legacy" if kind.legacy else "kinds"]
        entry = (entries["kinds"] if kind.legacy else entries)[name]
        assert kind == registry._kind(name, entry, legacy=kind.legacy)
