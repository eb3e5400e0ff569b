"""Property tests: positions of generated configs, and robustness on arbitrary input."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from typing import Any

import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tvmc.errors import ConfigSyntaxError, LimitError
from tvmc.sources import Layer, load_bytes, split_pointer
from tvmc.sources.limits import INT_MAX, INT_MIN, MAX_STRING, OversizedInt, check_values, first_problem

from .helpers import all_pointers
from .toml_render import toml_chars, toml_documents

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Keys full of characters that matter to a scanner: quotes, dots, brackets, '#', '=', spaces,
# escapes, non-ASCII; plus plain identifiers, which TOML writes bare.
tricky_chars = st.characters(codec="utf-8", exclude_characters="\x00")  # NUL is refused, even escaped
keys = st.one_of(
    st.from_regex(r"[A-Za-z0-9_-]{1,8}", fullmatch=True),
    st.text(alphabet=st.sampled_from([*list("ab.#[]{}=\"' \\\t\n,é€"), "\u2028"]), max_size=6),
    st.text(alphabet=tricky_chars, max_size=6),
)
strings = st.text(alphabet=tricky_chars, max_size=12) | st.sampled_from(['"""', "'''", "a # b", "[x]", "{", "="])
scalars = st.one_of(
    st.booleans(),
    st.integers(INT_MIN, INT_MAX),
    st.floats(allow_nan=False, allow_infinity=False),
    strings,
)


def documents(
    leaves: st.SearchStrategy[Any], names: st.SearchStrategy[str] = keys
) -> st.SearchStrategy[dict[str, Any]]:
    values = st.recursive(
        leaves,
        lambda children: st.lists(children, max_size=4) | st.dictionaries(names, children, max_size=4),
        max_leaves=16,
    )
    return st.dictionaries(names, values, max_size=6)


def offset_of(text: str, line: int | None, col: int | None) -> int:
    assert line is not None and col is not None
    lines = text.split("\n")  # lines end at "\n" only, for the parsers and for us
    return sum(len(x) + 1 for x in lines[: line - 1]) + col - 1


_BARE = re.compile(r"[A-Za-z0-9_-]+")
_BASIC = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_LITERAL = re.compile(r"'[^'\n]*'")


def toml_key_at(text: str, offset: int) -> str | None:
    """The key written at `offset`, decoded, or None if no key starts there."""
    for pattern in (_BASIC, _LITERAL, _BARE):
        m = pattern.match(text, offset)
        if m:
            return str(next(iter(tomllib.loads(m.group() + " = 0"))))
    return None


def member_pointers(layer: Layer) -> list[tuple[str, str]]:
    """(pointer, key) of every object member."""
    result = []
    for pointer in all_pointers(layer.data):
        parent: Any = layer.data
        tokens = split_pointer(pointer)
        for token in tokens[:-1]:
            parent = parent[int(token)] if isinstance(parent, list) else parent[token]
        if isinstance(parent, dict):
            result.append((pointer, tokens[-1]))
    return result


@SETTINGS
@given(documents(scalars), st.booleans(), st.integers(0, 8))
def test_toml_keys_are_located_at_their_text(data: dict[str, Any], multiline: bool, indent: int) -> None:
    text = tomli_w.dumps(data, multiline_strings=multiline, indent=indent)
    layer = load_bytes(text.encode(), source="g.toml", format="toml")
    assert layer.data == data
    assert set(all_pointers(data)) <= set(layer.positions)  # every key and element is located
    for pointer, key in member_pointers(layer):
        loc = layer.locate(pointer)
        assert toml_key_at(text, offset_of(text, loc.line, loc.col)) == key, (pointer, loc)


toml_keys = keys.filter(lambda k: "\x7f" not in k)
toml_scalars = st.one_of(
    st.booleans(),
    st.integers(INT_MIN, INT_MAX),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=toml_chars, max_size=12),
    st.sampled_from(['"""', "'''", "a # b", "[x]", "{", "=", "\n", "x\ny\n"]),
)


@SETTINGS
@given(toml_documents(documents(toml_scalars, toml_keys)))
def test_toml_in_every_style_is_located_completely(document: tuple[dict[str, Any], str]) -> None:
    data, text = document
    layer = load_bytes(text.encode(), source="g.toml", format="toml")
    assert layer.data == data
    assert set(all_pointers(data)) <= set(layer.positions)
    for pointer, key in member_pointers(layer):
        loc = layer.locate(pointer)
        assert toml_key_at(text, offset_of(text, loc.line, loc.col)) == key, (pointer, loc)


@SETTINGS
@given(documents(scalars | st.none()), st.sampled_from([None, 0, 1, 2, 4, "\t"]), st.booleans())
def test_json_keys_and_elements_are_located_exactly(
    data: dict[str, Any], indent: int | str | None, ascii_only: bool
) -> None:
    text = json.dumps(data, indent=indent, ensure_ascii=ascii_only)
    layer = load_bytes(text.encode(), source="g.json")
    assert layer.data == data
    decoder = json.JSONDecoder()
    for pointer in all_pointers(data):
        loc = layer.locate(pointer)
        offset = offset_of(text, loc.line, loc.col)
        tokens = split_pointer(pointer)
        parent: Any = data
        for token in tokens[:-1]:
            parent = parent[int(token)] if isinstance(parent, list) else parent[token]
        if isinstance(parent, dict):
            written = json.dumps(tokens[-1], ensure_ascii=ascii_only)
            assert text.startswith(written, offset), (pointer, loc)
        else:
            assert decoder.raw_decode(text, offset)[0] == parent[int(tokens[-1])], (pointer, loc)


def check_only_tvmc_errors(data: bytes, fmt: str | None) -> None:
    try:
        layer = load_bytes(data, source="x", format=fmt)
    except (ConfigSyntaxError, LimitError) as e:
        assert e.location is not None and e.location.source == "x"
        assert "\n" not in e.one_line()
        return
    # Whatever the parsers accept, the indexers locate completely.
    assert set(all_pointers(layer.data)) <= set(layer.positions)


formats = st.sampled_from([None, "toml", "json"])
syntax_soup = st.lists(
    st.sampled_from([*"[]{}\"'#=.,\n \t\\abc019-+:eE_x", '"""', "'''", "[[", "]]", "inf", "\r\n"]), max_size=120
).map("".join)


@SETTINGS
@given(st.binary(max_size=400), formats)
def test_arbitrary_bytes_raise_only_tvmc_errors(data: bytes, fmt: str | None) -> None:
    check_only_tvmc_errors(data, fmt)


@SETTINGS
@given(syntax_soup, formats)
def test_syntax_soup_raises_only_tvmc_errors(text: str, fmt: str | None) -> None:
    check_only_tvmc_errors(text.encode(), fmt)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["[", "{", '{"a":', "a = [", "[{", "x = {y = "]), st.integers(0, 5000), formats)
def test_deep_nesting_is_a_limit_error_never_a_recursion_error(prefix: str, depth: int, fmt: str | None) -> None:
    check_only_tvmc_errors((prefix * depth).encode(), fmt)


@settings(max_examples=100, deadline=None)
@given(
    st.integers(-(10**4200), 10**4200) | st.integers(INT_MIN - 3, INT_MAX + 3) | st.integers(0, 2**60_000),
    st.sampled_from(["toml", "hex", "oct", "bin", "json"]),
)
def test_integers_of_any_size_load_or_are_limit_errors(n: int, style: str) -> None:
    if style in ("hex", "oct", "bin"):
        n = abs(n)  # TOML has no signed hex/octal/binary
        literal = {"hex": hex, "oct": oct, "bin": bin}[style](n)
    elif n.bit_length() > 14_000:
        return  # str() of it is beyond Python's 4300-digit limit; covered by unit tests
    else:
        literal = str(n)
    data = (f'{{"a": {literal}}}' if style == "json" else f"a = {literal}").encode()
    if INT_MIN <= n <= INT_MAX:
        assert load_bytes(data, source="x").data == {"a": n}
    else:
        try:
            load_bytes(data, source="x")
        except LimitError as e:
            assert e.location is not None and (e.location.line, e.location.col) == (1, 1 if style != "json" else 2)
        else:
            raise AssertionError("accepted an integer beyond int64")


# Values beyond every limit: the quick pre-check of `check_values` must never pass one of them.
hostile = st.one_of(
    scalars,
    st.integers(min_value=INT_MAX + 1) | st.integers(max_value=INT_MIN - 1),
    st.sampled_from([float("nan"), float("inf"), "\ud800", "x" * (MAX_STRING + 1)]),
    st.dates(),
    st.builds(OversizedInt, st.from_regex(r"[0-9]{21,30}", fullmatch=True)),
)


@SETTINGS
@given(documents(hostile, names=keys | st.sampled_from(["\udfff", "k" * (MAX_STRING + 1)])))
def test_quick_value_check_agrees_with_the_full_walk(data: dict[str, Any]) -> None:
    layer = Layer(source="x.toml", path=None, data=data, format="toml")
    assert _verdict(check_values, layer.data, layer.locate) == _verdict(first_problem, layer.data, layer.locate)


@SETTINGS
@given(documents(hostile, names=keys | st.sampled_from(["\udfff", "k" * (MAX_STRING + 1)])))
def test_the_texts_word_on_its_strings_changes_no_verdict(data: dict[str, Any]) -> None:
    # `check_values` skips the strings when the text shows they all fit (ASCII, no backslash, short):
    # given the JSON text of any document, it raises exactly what the full walk raises.
    try:
        text = json.dumps(data, default=str)
    except ValueError:  # a lone surrogate or a number json cannot write
        return
    layer = Layer(source="x.json", path=None, data=data, format="json")
    assert _verdict(check_values, layer.data, layer.locate, text) == _verdict(first_problem, layer.data, layer.locate)


def _verdict(check: Callable[..., None], *args: Any) -> type[Exception] | None:
    """The kind of error `check(*args)` raises for a document, or None when it accepts it."""
    try:
        check(*args)
    except (LimitError, ConfigSyntaxError) as err:
        return type(err)
    return None
