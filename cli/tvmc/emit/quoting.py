"""Quoting for emitted code: every value goes through one of these, never through an f-string alone.

Python values are written as literals built from `repr` (which escapes quotes, backslashes,
newlines and non-printable characters), so `ast.literal_eval` of the text gives the value back.
Shell words go through `shlex.quote`. Comments never contain user values.
"""

from __future__ import annotations

import math
import pprint
import shlex
from collections.abc import Sequence
from typing import Any

PY_WIDTH = 100


def py(value: Any, indent: int = 0) -> str:
    """A Python literal for JSON-like data (dict, list, tuple, str, int, float, bool, None)."""
    _check(value)
    text = pprint.pformat(value, width=PY_WIDTH - indent, sort_dicts=False)
    return text.replace("\n", "\n" + " " * indent) if indent else text


def _check(value: Any) -> None:
    """Only plain data may be written: anything else could print as arbitrary code."""
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value!r} as a Python literal")
        return
    if isinstance(value, list | tuple):
        for item in value:
            _check(item)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            _check(key)
            _check(item)
        return
    raise TypeError(f"cannot write a {type(value).__name__} as a Python literal")


def identifier_path(dotted: str) -> tuple[str, str]:
    """`a.b.f` → (`a.b`, `f`) for `from a.b import f`, after checking every part is an identifier."""
    module, _, name = dotted.rpartition(".")
    if not module or not all(part.isidentifier() for part in dotted.split(".")):
        raise ValueError(f"not a dotted Python name: {dotted!r}")
    return module, name


def sh(argv: Sequence[str]) -> str:
    """One shell command line; `shlex.split` of it gives `argv` back."""
    return shlex.join(argv)
