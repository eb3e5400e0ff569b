"""Typing of values: flag text → typed value, and type checks of values read from files.

Types use TVM's spellings (`str`, `int`, `bool`, `Array<str>`, `Array<int>`). Flags are typed
from the registry: booleans accept true/false/1/0/yes/no/on/off (old tvmc read `=0` as True —
never again), integers are checked, arrays take a TOML array or a comma list.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

BOOL_WORDS = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False, "on": True, "off": False}
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
"""TVM stores integer attributes as int64; every range check in tvmc uses these two."""
_INT_TEXT_MAX = 80  # longer than any int64 can be written (64 binary digits, sign, prefix, spaces)


class IntTooLong(ValueError):
    """Digits too many for any int64: refused before converting (Python's int() raises past 4300
    digits, and its cost grows quadratically long before)."""


def parse_int(text: str, base: int = 10) -> int:
    """`int(text, base)` for user text, with `IntTooLong` for a number no int64 can hold."""
    if len(text) > _INT_TEXT_MAX and len(text.strip().lstrip("+-").lstrip("0_")) > _INT_TEXT_MAX:
        raise IntTooLong(f"integer of {len(text)} characters does not fit in 64 bits")
    return int(text, base)


def plain_copy(value: Any) -> Any:
    """A deep copy of config data (dicts, lists and immutable scalars), several times faster than
    `copy.deepcopy` or a JSON round trip; anything else goes through deepcopy."""
    kind = type(value)
    if kind is dict:
        return {k: plain_copy(v) for k, v in value.items()}
    if kind is list:
        return [plain_copy(v) for v in value]
    if kind is str or kind is int or kind is bool or kind is float or value is None:
        return value
    import copy

    return copy.deepcopy(value)


class ValueTypeError(ValueError):
    """A value that does not fit its declared type; the caller adds where it came from."""


_TOML_START = ("[", "{", '"', "'")


def parse_literal(text: str) -> Any:
    """A flag value read as one TOML value (`3`, `true`, `"x"`, `[1, 2]`, `{ kind = "llvm" }`),
    surrounding whitespace stripped; a bare word is a string. Text that looks like TOML (starts with
    a bracket, a brace or a quote) but is not one TOML value is an error, not a string."""
    import tomllib  # here: only flags with values need it, and the loader may use compiled tomli

    text = text.strip()
    try:
        document = tomllib.loads(f"v = {text}")
    except tomllib.TOMLDecodeError:
        document = None
    except RecursionError:
        raise ValueTypeError("value is nested too deeply") from None
    except ValueError:  # tomllib lets int()'s 4300-digit limit escape as a plain ValueError
        raise ValueTypeError("an integer too long to fit in 64 bits") from None
    if document is not None and len(document) == 1:
        return document["v"]
    if text.startswith(_TOML_START):
        raise ValueTypeError(f"{text!r} is not a valid TOML value (check its quotes and brackets)")
    return text


def _unquote(text: str) -> str:
    literal = parse_literal(text)
    return literal if isinstance(literal, str) else text.strip()


def _split_list(text: str) -> list[str]:
    """An array option's value: a TOML array, or a comma list (bare or as one TOML string)."""
    literal = parse_literal(text)
    if isinstance(literal, list):
        return [str(x) if not isinstance(x, str) else x for x in literal]
    words = literal if isinstance(literal, str) else text
    return [part.strip() for part in words.split(",") if part.strip()]


def coerce_text(text: str, type_: str) -> Any:
    """Flag text → a value of `type_`; raises ValueTypeError with what was expected."""
    if type_ == "bool":
        word = _unquote(text).strip().lower()
        if word not in BOOL_WORDS:
            raise ValueTypeError(f"expected a boolean (true/false/1/0/yes/no), got {text!r}")
        return BOOL_WORDS[word]
    if type_ == "int":
        word = _unquote(text).strip()
        try:
            number = parse_int(word, 0) if word.lower().startswith(("0x", "0o", "0b")) else parse_int(word)
        except IntTooLong as err:
            raise ValueTypeError(str(err)) from None
        except ValueError:
            raise ValueTypeError(f"expected an integer, got {text!r}") from None
        if not INT64_MIN <= number <= INT64_MAX:
            raise ValueTypeError(f"integer {number} does not fit in 64 bits")
        return number
    if type_ == "str":
        return _unquote(text)
    if type_ == "Array<str>":
        return _split_list(text)
    if type_ == "Array<int>":
        return [coerce_text(x, "int") for x in _split_list(text)]
    return parse_literal(text)


def type_name(value: Any) -> str:
    """A JSON/Python-level name for the type of a bad value (TVM prints its FFI type key)."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int" if INT64_MIN <= value <= INT64_MAX else "int outside the 64-bit range"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, Mapping):
        return "dict"
    if isinstance(value, list | tuple):
        return "list"
    return type(value).__name__


def json_type(tvm_type: str) -> str:
    """The JSON type of a value of a TVM type (structured `*Config` pass-config types are tables)."""
    if tvm_type == "bool":
        return "boolean"
    if tvm_type in ("int", "ir.IntImm"):
        return "integer"
    if tvm_type == "str":
        return "string"
    if tvm_type.startswith(("ffi.Array", "Array<")):
        return "array"
    return "object"


_JSON_CLASSES: dict[str, type] = {"boolean": bool, "integer": int, "string": str, "array": list, "object": dict}


@cache
def _python_class(tvm_type: str) -> type:
    """The class of a value of a TVM type as read from a file (memoised: checked for every value)."""
    return _JSON_CLASSES[json_type(tvm_type)]


def type_matches(value: Any, tvm_type: str) -> bool:
    """Strict TVM typing of a value read from a file: no bool for int, no int for bool, no float for
    int. The one type rule of resolution and validation. `IntImm` (old TVM's bool configs) takes both."""
    if tvm_type == "IntImm":
        return type(value) is int or type(value) is bool
    return type(value) is _python_class(tvm_type)


def check_value(value: Any, type_: str) -> Any:
    """Check a value read from a file against its TVM type (`type_matches`, elements of arrays too);
    raises ValueTypeError saying what was expected."""
    if not type_matches(value, type_):
        raise ValueTypeError(f"expected type '{type_}' but got '{type_name(value)}'")
    if type_.startswith("Array<"):
        inner = type_[6:-1]
        for item in value:
            if not type_matches(item, inner):
                raise ValueTypeError(f"expected type '{type_}' but an element is '{type_name(item)}'")
    return value
