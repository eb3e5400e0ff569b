"""`--input-shapes`: old tvmc's syntax, with the bugs its regex had fixed (python/tvm/driver/tvmc/shape_parser.py at
v0.19.0)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tvmc.errors import UsageError
from tvmc.shapes import format_input_shapes, legacy_format, legacy_problem, parse_input_shapes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x:[1,3,224,224]", {"x": (1, 3, 224, 224)}),
        ("a:[1] b:[2,3]", {"a": (1,), "b": (2, 3)}),
        ("a:[1],b:[2]", {"a": (1,), "b": (2,)}),  # commas between entries, as before
        ("  a:[ 1 , 2 ]  ", {"a": (1, 2)}),
        ("x: [4]", {"x": (4,)}),
        # Fixed: names with any number of '/', ':' and '.' (#8481, #9080, #9294); old tvmc gave "b/c".
        ("a/b/c:[1]", {"a/b/c": (1,)}),
        ("serving_default_x:0:[1,2]", {"serving_default_x:0": (1, 2)}),
        ("model.input.0:[3]", {"model.input.0": (3,)}),
        # Fixed: scalars and '?' dimensions; -1 stays dynamic.
        ("x:[]", {"x": ()}),
        ("x:[?,8] y:[-1]", {"x": (None, 8), "y": (None,)}),
        ("x:[0]", {"x": (0,)}),  # an empty dimension is 0, not dynamic
        # Names with spaces or commas are quoted (old tvmc turned "my input" into "input").
        ('"my input":[1,2]', {"my input": (1, 2)}),
        (r'"a \"b\", c":[1]', {'a "b", c': (1,)}),
    ],
)
def test_parses(text: str, expected: dict[str, tuple[int | None, ...]]) -> None:
    assert parse_input_shapes(text) == expected


def test_keeps_order() -> None:
    assert list(parse_input_shapes("b:[1] a:[2] c:[3]")) == ["b", "a", "c"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty input shapes"),
        (" , ", "empty input shapes"),
        ("x:[1] junk", "cannot parse 'junk' at column 7"),  # old tvmc dropped this silently
        ("x:[1]y:[2]", "separate entries"),
        ("my input:[1]", "cannot parse 'my input:[1]' at column 1"),
        ("x:[a]", "bad dimension 'a'"),
        ("x:[1,]", "bad dimension ''"),
        ("x:[-2]", "bad dimension -2"),
        ("x:[1.5]", "bad dimension '1.5'"),
        ("x:[1] x:[2]", "given twice"),
        ("x:[1", "cannot parse"),
        ("x : [1]", "cannot parse"),
    ],
)
def test_rejects_with_column(text: str, message: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_input_shapes(text)
    assert message in str(err.value)
    assert err.value.exit_code == 2
    assert str(err.value).startswith("--input-shapes: ")


names = st.text(min_size=1, max_size=20)
dims = st.lists(st.one_of(st.none(), st.integers(0, 10**6)), max_size=5).map(tuple)


@given(st.dictionaries(names, dims, min_size=1, max_size=5))
def test_format_round_trips(shapes: dict[str, tuple[int | None, ...]]) -> None:
    assert parse_input_shapes(format_input_shapes(shapes)) == shapes


def test_legacy_dialect() -> None:
    shapes = parse_input_shapes("input_1:0:[?,3] a/b:[2]")
    assert legacy_problem(shapes) is None
    assert legacy_format(shapes) == "input_1:0:[-1,3] a/b:[2]"
    assert "a/b/c" in str(legacy_problem({"a/b/c": (1,)}))
    assert "scalar" in str(legacy_problem({"x": ()}))
    assert "dimension 0" in str(legacy_problem({"x": (0,)}))
    assert "my input" in str(legacy_problem({"my input": (1,)}))
