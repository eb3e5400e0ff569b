"""Differential tests: tvmc's canonicalize against the installed TVM's `Target(x).export()`.

For every input both must accept or both reject. When both accept, tvmc's result equals TVM's
export after removing the machine-filled keys tvmc leaves out (env_dependent_keys), and with
`fill_from_machine=True` it equals TVM's export exactly. When both reject, a message naming an
option, kind or tag names the same one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from tvmc import registry
from tvmc.targets import canonicalize, env_dependent_keys

from . import corpus
from .helpers import Outcome, ours, strip_paths

_KEYS = [
    re.compile(r"Option '([^']+)'"),
    re.compile(r"Unknown config option '([^']*)'"),
    re.compile(r'Target kind "([^"]*)" is not defined'),
    re.compile(r"Unknown target tag: (.+?)(?=\. Target creation| \(did you mean|; |$)"),
    re.compile(r"(invalid (?:CUDA arch|GFX version): -(?:arch|mcpu))="),
]


def _error_key(message: str) -> tuple[int, str] | None:
    for i, pattern in enumerate(_KEYS):
        m = pattern.search(message)
        if m:
            return i, m.group(1)
    return None


def check_same(spec: Any, tvm_export: Callable[[Any], Outcome]) -> None:
    theirs = tvm_export(spec)
    mine = ours(spec)
    assert mine[0] == theirs[0], f"{spec!r}: tvmc {mine} but TVM {theirs}"
    if theirs[0] == "error":
        expected = _error_key(theirs[1])
        if expected is not None:
            assert _error_key(mine[1]) == expected, f"{spec!r}: tvmc says {mine[1]!r}, TVM {theirs[1]!r}"
        return
    assert mine[1] == strip_paths(theirs[1], env_dependent_keys(mine[1])), spec
    filled = ours(spec, fill_from_machine=True)
    assert filled == theirs, f"{spec!r}: fill_from_machine gives {filled}, TVM {theirs}"


@pytest.mark.tvm
def test_all_tags_by_name_match_tvm(tvm_export: Callable[[Any], Outcome]) -> None:
    names = registry.tag_names()
    assert len(names) == 287
    for name in names:
        check_same(name, tvm_export)
        check_same({"tag": name}, tvm_export)


@pytest.mark.tvm
def test_tags_with_overrides_match_tvm(tvm_export: Callable[[Any], Outcome]) -> None:
    for spec in corpus.tag_corpus():
        check_same(spec, tvm_export)


@pytest.mark.tvm
def test_every_kind_option_and_value_matches_tvm(tvm_export: Callable[[Any], Outcome]) -> None:
    specs = corpus.option_corpus()
    assert len(specs) > 1000
    kinds = {s["kind"] for s in specs}
    assert kinds == set(registry.kinds())
    for spec in specs:
        check_same(spec, tvm_export)


@pytest.mark.tvm
def test_misc_cases_match_tvm(tvm_export: Callable[[Any], Outcome]) -> None:
    for spec in corpus.misc_corpus():
        check_same(spec, tvm_export)


@pytest.mark.tvm
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_combinations_match_tvm(seed: int, tvm_export: Callable[[Any], Outcome]) -> None:
    for spec in corpus.random_corpus(400, seed):
        check_same(spec, tvm_export)


@pytest.mark.tvm
def test_corpus_exercises_both_outcomes(tvm_export: Callable[[Any], Outcome]) -> None:
    outcomes = [tvm_export(s)[0] for s in corpus.option_corpus()]
    assert outcomes.count("ok") > 300 and outcomes.count("error") > 300


@pytest.mark.tvm
def test_known_differences_from_tvm(tvm_export: Callable[[Any], Outcome]) -> None:
    # TVM keeps a null Target for None in composite devices; tvmc rejects it.
    assert tvm_export({"kind": "composite", "devices": [None]})[0] == "ok"
    assert ours({"kind": "composite", "devices": [None]})[0] == "error"
    # Legacy strings: TVM 0.27 rejects them; tvmc reads them (also as host values).
    assert tvm_export("llvm -mcpu=skylake")[0] == "error"
    assert canonicalize("llvm -mcpu=skylake") == tvm_export({"kind": "llvm", "mcpu": "skylake"})[1]
    nested = {"kind": "cuda", "arch": "sm_80", "host": "llvm -mcpu=skylake"}
    assert canonicalize(nested)["host"] == canonicalize({"kind": "llvm", "mcpu": "skylake"})
    # Legacy kinds and `compiler` specialisations are tvmc's; TVM 0.27 has neither.
    assert tvm_export({"kind": "stackvm"})[0] == "error"
    assert ours({"kind": "stackvm"}) == ("ok", {"kind": "stackvm", "tag": "", "keys": []})
    spec = {"kind": "cuda", "arch": "sm_80", "compiler": "cutlass"}
    without = {k: v for k, v in spec.items() if k != "compiler"}
    assert canonicalize(spec) == {**tvm_export(without)[1], "compiler": "cutlass"}
