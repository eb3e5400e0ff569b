"""Positions for JSON: a pointer → offset index that also finds duplicate keys, and a cheap
bracket pre-scan that keeps deep nesting away from the (recursive) json parser."""

from __future__ import annotations

import contextlib
import json
import re
from typing import NamedTuple

from tvmc.pointers import join
from tvmc.records import field, record
from tvmc.sources.limits import json_may_nest_deeper

_WS = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
# A member's key with the blanks after it and its `:` (and the blanks after that); after a member or
# element, blanks and maybe a comma: one regex match per step, the indexer's main cost.
_MEMBER = re.compile(rf"({_STRING.pattern})[ \t\r\n]*(:[ \t\r\n]*)?")
_SEPARATOR = re.compile(r"[ \t\r\n]*(,[ \t\r\n]*)?")
_SCALAR = re.compile(r"-?(?:Infinity|[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)|true|false|null|NaN")
# Strings (unterminated ones run to the end: the pre-scan sees unvalidated text) and brackets.
_TOKENS = re.compile(r'"(?:[^"\\]|\\[\s\S])*+"?|[\[\]{}]')


def too_deep(text: str, limit: int) -> tuple[int, str] | None:
    """The first `[`/`{` outside strings nesting deeper than `limit` (the outermost bracket is
    level 1), as (offset, message), or None. Run before json.loads, which recurses."""
    if not json_may_nest_deeper(text, limit):
        return None  # even if every bracket nested, the limit would hold: skip the scan
    depth = 0
    for m in _TOKENS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > limit:
                return m.start(), f"nesting deeper than {limit} levels"
        elif c in "]}":
            depth = max(0, depth - 1)
    return None


class Duplicate(NamedTuple):
    """A key seen twice in one object: the pointer and offset of the second occurrence."""

    key: str
    pointer: str
    offset: int
    first_offset: int


@record(slots=True)
class JsonIndex:
    offsets: dict[str, int] = field(default_factory=dict)
    duplicate: Duplicate | None = None  # the first one in document order


class _Confused(Exception):
    pass


class _StopScan(Exception):
    pass


class _JsonIndexer:
    def __init__(self, text: str, stop_at_duplicate: bool, until: str | None) -> None:
        self.s = text
        self.stop_at_duplicate = stop_at_duplicate
        self.until = until  # stop after the member or element that locates this pointer
        self.index = JsonIndex()

    def _ws(self, i: int) -> int:
        m = _WS.match(self.s, i)
        return m.end() if m else i

    def _string(self, i: int) -> tuple[str, int]:
        m = _STRING.match(self.s, i)
        if m is None:
            raise _Confused(i)
        return _decoded(m.group()), m.end()

    def value(self, i: int, ptr: str) -> int:
        s = self.s
        c = s[i : i + 1]
        if c == "{":
            return self._object(i, ptr)
        if c == "[":
            return self._array(i, ptr)
        if c == '"':
            return self._string(i)[1]
        m = _SCALAR.match(s, i)
        if m is None:
            raise _Confused(i)
        return m.end()

    def _object(self, i: int, ptr: str) -> int:
        s = self.s
        seen: dict[str, int] = {}
        j = self._ws(i + 1)
        if s.startswith("}", j):
            return j + 1
        while True:
            m = _MEMBER.match(s, j)
            if m is None:
                raise _Confused(j)
            key = _decoded(m.group(1))
            member = join(ptr, key)
            if key in seen:
                if self.index.duplicate is None:
                    self.index.duplicate = Duplicate(key, member, j, seen[key])
                if self.stop_at_duplicate:
                    raise _StopScan
            else:
                seen[key] = j
                self.index.offsets.setdefault(member, j)
            if m.group(2) is None:  # no `:` after the key
                raise _Confused(m.end())
            j = self._separator(self.value(m.end(), member), "}")
            self._stop_once_located()
            if s.startswith("}", j):
                return j + 1

    def _array(self, i: int, ptr: str) -> int:
        s = self.s
        j = self._ws(i + 1)
        if s.startswith("]", j):
            return j + 1
        index = 0
        while True:
            element = f"{ptr}/{index}"
            self.index.offsets.setdefault(element, j)
            j = self._separator(self.value(j, element), "]")
            self._stop_once_located()
            index += 1
            if s.startswith("]", j):
                return j + 1

    def _stop_once_located(self) -> None:
        if self.until is not None and self.until in self.index.offsets:
            raise _StopScan

    def _separator(self, i: int, close: str) -> int:
        """Past the blanks and comma after a member or element; without a comma, `close` must follow."""
        m = _SEPARATOR.match(self.s, i)
        assert m is not None  # every part of the pattern is optional
        if m.group(1) is None and not self.s.startswith(close, m.end()):
            raise _Confused(m.end())
        return m.end()


def _decoded(quoted: str) -> str:
    """A JSON string literal's value; without escapes, the text between the quotes (json.loads
    costs more than scanning the whole key)."""
    if "\\" not in quoted:
        return quoted[1:-1]
    value = json.loads(quoted)
    assert isinstance(value, str)
    return value


def index_json(text: str, *, stop_at_duplicate: bool = False, until: str | None = None) -> JsonIndex:
    """Pointer → offset of every member key (its opening quote) and array element (its first
    character); the document is located at its first character. Stops quietly at malformed
    text, keeping what it indexed; with `until`, once that pointer is located (the offsets found
    by then are the same). Nesting must already be bounded (see `max_bracket_depth`)."""
    indexer = _JsonIndexer(text, stop_at_duplicate, until)
    start = indexer._ws(0)
    indexer.index.offsets[""] = start
    with contextlib.suppress(_Confused, _StopScan):
        indexer.value(start, "")
    return indexer.index
