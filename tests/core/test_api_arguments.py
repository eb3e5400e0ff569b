"""The Python API checks its arguments on entry: a TypeError that says what was expected (issue 15)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tvmc import api, sources
from tvmc.layering import Tree

REPO = Path(__file__).resolve().parents[2]


def test_one_str_is_one_config_not_its_characters() -> None:
    assert api.resolve("aws/c5").to_dict() == api.resolve(["aws/c5"]).to_dict()
    assert api.resolve_tree("aws/c5").data == api.resolve_tree(["aws/c5"]).data


def test_a_path_object_is_a_file_never_a_name() -> None:
    path = REPO / "configs" / "aws" / "c5.toml"
    assert api.resolve(path).to_dict() == api.resolve(["aws/c5"]).to_dict()
    assert api.resolve([path]).to_dict() == api.resolve(["aws/c5"]).to_dict()


def test_a_non_str_rewrite_value_says_a_str_was_expected() -> None:
    with pytest.raises(TypeError, match=r"rewrites\[0\]: the value of -O must be a str.*\('-O', '2'\), got int"):
        api.resolve(["aws/c5"], [("-O", 2)])  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda: api.resolve(5), r"configs: expected a list of config names or paths, got int"),
        (lambda: api.resolve([b"aws/c5"]), r"configs\[0\]: expected a config name or path \(str\), got bytes"),
        (lambda: api.resolve(["aws/c5", None]), r"configs\[1\]: expected .*got NoneType"),
        (lambda: api.resolve([], "-O2"), r"rewrites: expected a list of \(flag, value\) pairs .*got str '-O2'"),
        (lambda: api.resolve([], ["-O"]), r"rewrites\[0\]: expected a \(flag, value\) pair or a Rewrite, got str"),
        (lambda: api.resolve([], [("-O", "2", "3")]), r"rewrites\[0\]: expected a \(flag, value\) pair"),
        (lambda: api.resolve([], [(2, "2")]), r"rewrites\[0\]: the flag must be a str"),
        (lambda: api.resolve([], env=["TVMC_TARGET"]), r"env: expected a mapping of str to str"),
        (lambda: api.resolve([], env={"TVMC_OPT_LEVEL": 2}), r"env: expected str keys and values"),
        (lambda: api.resolve([], search="configs"), r"search: expected a list of tvmc.sources.SearchDir, got str"),
        (lambda: api.resolve([], search=["configs"]), r"search\[0\]: expected a tvmc.sources.SearchDir"),
        (lambda: api.resolve_tree(7), r"configs: expected a list"),
        (lambda: api.resolve(["aws/c5"]).origin(0), r"pointer: expected a JSON pointer str"),
        (lambda: api.canonical_origins([], Tree({}, {})), r"canonical: expected the canonical config as a dict"),
        (lambda: api.canonical_origins({}, {}), r"tree: expected a tvmc.layering.Tree"),
    ],
)
def test_wrong_argument_types_are_a_type_error_naming_what_was_expected(call: Any, expected: str) -> None:
    with pytest.raises(TypeError, match=expected):
        call()


def test_search_dirs_are_used_as_given(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_text('targets = ["llvm -mcpu=znver3"]\n', encoding="utf-8")
    resolved = api.resolve("mine", search=[sources.SearchDir(tmp_path, "test")], env={})
    assert resolved.config.targets[0]["mcpu"] == "znver3"


_NOT_STR = st.one_of(st.integers(), st.floats(allow_nan=False), st.booleans(), st.none(), st.binary(max_size=4))


@settings(max_examples=40, deadline=None)
@given(value=_NOT_STR, flag=st.sampled_from(["-O", "--target", "--set", "--target-llvm-mcpu"]))
def test_any_non_str_flag_value_is_a_type_error(value: Any, flag: str) -> None:
    with pytest.raises(TypeError, match=f"the value of {flag} must be a str"):
        api.resolve([], [(flag, value)])


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda: api.build(["aws/c5"]), r"expected the tvmc.api.Inputs that tvmc.api.inputs\(...\) returns, got list"),
        (lambda: api.resolve_inputs("aws/c5"), r"expected the tvmc.api.Inputs .* got str"),
        (lambda: api.resolve([], isolated=1), r"isolated: expected a bool, got int"),
        (lambda: api.source_pointer({}, "/host"), r"source_pointer: expected a Resolved"),
        (lambda: api.explain("aws/c5", [], ""), r"path: expected a non-empty str"),
        (lambda: api.resolve("-", stdin="opt-level = 1"), r"stdin: expected a binary stream"),
    ],
)
def test_the_other_public_functions_check_too(call: Any, expected: str) -> None:
    with pytest.raises(TypeError, match=expected):
        call()


def test_inputs_then_resolve_inputs_is_resolve() -> None:
    given = api.inputs(["aws/c5"], [("-O", "1")], {}, None, None, False)
    assert api.resolve_inputs(given).to_dict() == api.resolve(["aws/c5"], [("-O", "1")], env={}).to_dict()
    tree = api.build(given)
    with pytest.raises(TypeError, match=r"tree: expected a tvmc\.layering\.Tree"):
        api.participation(given, tree.data)  # type: ignore[arg-type]
