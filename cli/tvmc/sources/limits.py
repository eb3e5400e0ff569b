"""Documented input limits, and the check of parsed values against them.

Size and bracket nesting are checked before parsing (see `loader`) so that hostile input is
refused quickly with bounded memory; what can only be seen in the parsed values (string
lengths, integer range, non-finite floats, TOML dates, nesting through dotted keys and table
headers) is checked here, in one iterative walk.
"""

from __future__ import annotations

from tvmc.errors import ConfigSyntaxError, LimitError, Location, TvmcError
from tvmc.pointers import make_pointer
from tvmc.text import has_surrogate
from tvmc.values import INT64_MAX, INT64_MIN

# typing is not imported at run time: every command would pay for it at start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_FILE_BYTES = 1_000_000
"""Largest config document accepted, in bytes (files are stat'ed first; stdin is read up to
this plus one byte). Real configs are a few kB."""

MAX_DEPTH = 64
"""Deepest nesting of tables/arrays; the document itself is level 1, so `{"a": [1]}` is 2."""

MAX_STRING = 65_536
"""Longest string, in characters, for every string value and every key."""

MAX_LIST_ENTRIES = 20_000
"""Most directory entries walked per search directory when listing configs, so that a
mistaken `TVMC_CONFIG_PATH=/` fails fast instead of walking the whole disk."""


def toml_may_nest_deeper(text: str, limit: int) -> bool:
    """Whether TOML text could nest deeper than `limit`: only if it holds that many brackets and
    dots (each level needs one). The scan that finds where (toml_positions) runs only then."""
    return text.count("[") + text.count("{") + text.count(".") >= limit - 1


def json_may_nest_deeper(text: str, limit: int) -> bool:
    """Whether JSON text could nest deeper than `limit` (more brackets than levels allowed)."""
    return text.count("[") + text.count("{") > limit


INT_MIN = INT64_MIN
INT_MAX = INT64_MAX
"""TVM stores integer attributes as int64 (the one definition is in tvmc.values)."""


class OversizedInt(str):
    """A JSON integer literal too long to convert safely (Python caps int() at 4300 digits);
    stands in for the number until the value check reports it with its position."""


def parse_json_int(text: str) -> int | OversizedInt:
    """`parse_int` hook for `json.loads`: anything longer than int64's 20 characters is out of
    range anyway, so it is not converted at all."""
    return OversizedInt(text) if len(text) > 20 else int(text)


def _shorten(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:10]}…{text[-10:]} ({len(text)} digits)"


def _string_error(text: str, what: str) -> tuple[type[TvmcError], str] | None:
    if len(text) > MAX_STRING:
        return LimitError, f"{what} of {len(text)} characters is longer than {MAX_STRING}"
    if "\x00" in text:  # an escape ("\u0000") can write what a raw NUL byte in the file cannot
        return ConfigSyntaxError, f"{what} with a NUL character (\\u0000) is not allowed"
    if has_surrogate(text):
        # JSON's "\ud800" decodes to a lone surrogate, which no UTF-8 output can hold.
        return ConfigSyntaxError, f"{what} with an unpaired surrogate escape (\\ud800-\\udfff) is not valid Unicode"
    return None


def _finite(number: float) -> bool:
    # math.isfinite without importing math at start-up: inf - inf and nan - nan are nan.
    return number - number == 0.0


def _value_error(value: Any) -> tuple[type[TvmcError], str] | None:
    if isinstance(value, str):
        if isinstance(value, OversizedInt):
            return LimitError, f"integer {_shorten(value)} is outside the 64-bit range TVM stores"
        return _string_error(value, "string")
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        if not INT_MIN <= value <= INT_MAX:
            # str() of an int beyond 4300 digits raises (a hex literal can get there): say its size.
            shown = _shorten(str(value)) if value.bit_length() <= 1024 else f"of {value.bit_length()} bits"
            return LimitError, f"integer {shown} is outside the 64-bit range TVM stores"
        return None
    if isinstance(value, float):
        if not _finite(value):
            # JSON has no NaN/Infinity (Python accepts them), 1e400 overflows to inf, and TOML's
            # nan/inf have no JSON form and no use in a compilation config.
            return ConfigSyntaxError, f"non-finite number {value} is not allowed"
        return None
    import datetime  # here, not at the top: `tvmc target` commands import this module for MAX_STRING only

    if isinstance(value, datetime.date | datetime.time):
        return ConfigSyntaxError, "TOML dates and times are not supported; quote the value as a string"
    return None


def _plain(value: Any, depth: int, strings_fit: bool = False) -> bool:
    """True when nothing below `value` can break a limit: the quick yes that lets valid files skip
    the walk that finds (and locates) the first problem. Plain strings, bools, int64s and finite
    floats are fine; anything else (a subclass such as `OversizedInt`, a date) is left to the walk.
    `strings_fit`: every string and key is known to be within the limits (see `_strings_fit`)."""
    if depth > MAX_DEPTH:
        return False
    items = value.items() if type(value) is dict else enumerate(value)
    for key, child in items:
        if not strings_fit and type(key) is str and (len(key) > MAX_STRING or not key.isascii() or "\x00" in key):
            return False
        kind = type(child)
        if kind is str:
            if not strings_fit and (len(child) > MAX_STRING or not child.isascii() or "\x00" in child):
                return False
        elif kind is bool:
            continue
        elif kind is int:
            if not INT_MIN <= child <= INT_MAX:
                return False
        elif kind is float:
            if not _finite(child):
                return False
        elif kind is dict or kind is list:
            if not _plain(child, depth + 1, strings_fit):
                return False
        else:
            return False
    return True


def _strings_fit(text: str) -> bool:
    """Whether every string and key parsed from `text` (TOML or JSON) is within the limits, seen from
    the text alone: without a backslash no escape can make a character the text does not have, so
    each string is a piece of the text — ASCII, without NUL (`loader` refuses a raw one) and no
    longer than it. Checking the text once spares checking every string."""
    return len(text) <= MAX_STRING and text.isascii() and "\\" not in text


def check_values(data: Any, locate: Callable[[str], Location], text: str | None = None) -> None:
    """Raise for the first value of a document (in document order) beyond a limit or of an
    unsupported kind, located (by `locate`, a pointer's place: `Layer.locate`) at its key or
    array element. `text`, the document's text (NUL-free), lets the check skip the strings when
    the text shows they all fit."""
    if not _plain(data, 1, text is not None and _strings_fit(text)):
        first_problem(data, locate)


def first_problem(data: Any, locate: Callable[[str], Location]) -> None:
    """The walk behind `check_values`: raises for the first problem, in document order."""
    # Iterative: the depth being checked is the input's to choose. Paths stay tuples and become
    # pointers only for the value reported, which keeps this walk cheap for valid files.
    stack: list[tuple[tuple[str | int, ...], Any, int]] = [((), data, 1)]
    while stack:
        path, value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                pointer = make_pointer(path)
                raise LimitError(f"nesting deeper than {MAX_DEPTH} levels", locate(pointer), pointer=pointer)
            if isinstance(value, dict):
                children: list[tuple[tuple[str | int, ...], Any, int]] = []
                for key, child in value.items():
                    problem = _string_error(key, "key")
                    if problem is not None:
                        raise problem[0](problem[1], locate(make_pointer((*path, key))))
                    children.append(((*path, key), child, depth + 1))
            else:
                children = [((*path, i), child, depth + 1) for i, child in enumerate(value)]
            stack.extend(reversed(children))
            continue
        problem = _value_error(value)
        if problem is not None:
            error_type, message = problem
            pointer = make_pointer(path)
            raise error_type(message, locate(pointer), pointer=pointer)
