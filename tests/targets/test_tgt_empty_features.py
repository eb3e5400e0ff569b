"""An empty llvm `mattr` feature means nothing to LLVM. The command line's comma lists
(`--target-llvm-mattr +a,,+b`, `-mattr=+a,,+b`) drop it; a list that keeps one (a file, `--set`,
a TOML array flag) is refused by one rule (`unknown-cpu`, in the fast and the schema engine), so no
two accepted spellings of the same features give different canonical forms or fingerprints (the
list form kept "" and hashed differently from the comma form)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tvmc import api
from tvmc.errors import TvmcError
from tvmc.validate import runner

FEATURES = ["+avx2", "+fma", "-sse4.2", "+neon", "+crc"]


def _fingerprint(flags: list[tuple[str, str]]) -> str:
    return api.resolve([], [("--target", "llvm"), *flags], env={}).config.fingerprint()


def _refused(flags: list[tuple[str, str]]) -> TvmcError:
    with pytest.raises(TvmcError) as err:
        api.resolve([], [("--target", "llvm"), *flags], env={})
    assert err.value.rule == "unknown-cpu" and "empty feature" in err.value.message, err.value.one_line()
    return err.value


@settings(max_examples=30, deadline=None)
@given(
    features=st.lists(st.sampled_from(FEATURES), min_size=1, max_size=4, unique=True),
    empties=st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=3),
)
def test_an_empty_feature_is_dropped_or_refused(features: list[str], empties: list[int]) -> None:
    with_empty = list(features)
    for at in empties:
        with_empty.insert(min(at, len(with_empty)), "")
    plain = _fingerprint([("--target-llvm-mattr", ",".join(features))])
    # The comma forms drop it: the same target as without it.
    assert _fingerprint([("--target-llvm-mattr", ",".join(with_empty))]) == plain
    # In --target a comma at either end would be an empty target of the list: empties inside only.
    legacy = api.resolve([], [("--target", "llvm -mattr=" + ",".join(with_empty).strip(","))], env={})
    assert legacy.config.fingerprint() == plain
    # A list keeping it, from --set or a TOML array flag, is refused, as a file's is.
    _refused([("--set", "targets[0].mattr=" + json.dumps(with_empty))])
    _refused([("--target-llvm-mattr", json.dumps(with_empty))])


@pytest.mark.parametrize("mattr", [["+avx2", "", "+fma"], [" "], ["+avx2,"], [",+avx2"], ["+avx2,,+fma"]])
@pytest.mark.parametrize("engine", ["fast", "jsonschema"])
def test_a_file_with_an_empty_feature_is_refused_by_both_engines(tmp_path: Path, mattr: list[str], engine: str) -> None:

    path = tmp_path / "c.toml"
    path.write_text(f'targets = [{{ kind = "llvm", mattr = {json.dumps(mattr)} }}]\n', encoding="utf-8")
    found = runner.Validator(runner.Settings(engine=engine)).file(str(path)).diagnostics
    assert [(d.rule, d.severity) for d in found] == [("unknown-cpu", "error")], found
