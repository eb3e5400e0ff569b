"""Positions for TOML: a pointer → offset index, and a cheap nesting pre-scan.

tomllib returns plain dicts without positions (python/cpython#115516), so this is a small
scanner of its own. It runs only on text tomllib has already accepted (or, for the pre-scan,
before tomllib sees it), so it trusts the grammar and stops quietly if it is ever confused.
"""

from __future__ import annotations

import re
from functools import cache

from tvmc.pointers import escape, join
from tvmc.sources.limits import toml_may_nest_deeper

_WS = re.compile(r"[ \t]*")
_WS_NL = re.compile(r"(?:[ \t\r\n]|#[^\n]*+)*+")  # whitespace, newlines and comments
_BASIC = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_LITERAL = re.compile(r"'[^'\n]*'")
# The indexer's steps match a token together with the blanks around it: a regex match is its main
# cost, so one per key part, `=` or separator (not three) keeps locating an error cheap.
# One part of a (dotted) key: bare, "basic" (escapes decoded later) or 'literal'; then a dot?
_KEY_PART_STEP = re.compile(r"""(?:([A-Za-z0-9_-]+)|("(?:[^"\\\n]|\\.)*")|'([^'\n]*)')[ \t]*(\.[ \t]*)?""")
_EQUALS = re.compile(r"=[ \t]*")
# After an array element or inline-table entry: blanks, newlines and comments, maybe a comma and more.
_SEPARATOR = re.compile(r"(?:[ \t\r\n]|#[^\n]*+)*+(,(?:[ \t\r\n]|#[^\n]*+)*+)?")
# A multi-line string ends at the first `"""` and may be followed by up to two more quotes
# that belong to the content (`"""a""""` is `a"`).
_ML_BASIC = re.compile(r'"""(?:[^"\\]|\\[\s\S]|"(?!""))*"{3,5}')
_ML_LITERAL = re.compile(r"'''[\s\S]*?'{3,5}")
_SCALAR = re.compile(r"[^,\]}#\n]*")  # numbers, booleans, dates (which may contain a space)

# The pre-scan's tokens. Strings and comments are matched so that what is inside them is
# skipped; they are matched leniently (unterminated ones run to the end of the line or text)
# because the pre-scan sees text tomllib has not validated yet. Possessive quantifiers keep
# every attempt linear, so hostile text cannot make the scan quadratic.
_PART = r"""(?:[A-Za-z0-9_-]++|"(?:[^"\\\n]|\\.)*+"|'[^'\n]*+')"""


# The pre-scan's and the duplicate-key finder's patterns are compiled on first use: they run only
# for a file whose brackets may nest too deep and on a file TOML refused, not for every file read.
@cache
def _tokens() -> re.Pattern[str]:
    return re.compile(
        r'"""(?:[^"\\]|\\[\s\S]|"(?!""))*+(?:"{3,5}|\Z)'
        r"|'''[\s\S]*?(?:'{3,5}|\Z)"
        # A dotted key (in a header or before `=`; numbers like 1.5 match too, harmlessly).
        rf"|(?P<key>(?<![A-Za-z0-9_-]){_PART}(?:[ \t]*+\.[ \t]*+{_PART})++)"
        r'|"(?:[^"\\\n]|\\.)*+"?'
        r"|'[^'\n]*+'?"
        r"|#[^\n]*+"
        r"|(?P<bracket>[\[\]{}])"
        # A long run of digits: only looked at when tomllib failed on a number too long for int().
        r"|(?P<number>(?<![\w.+-])[+-]?[0-9][0-9_]{99,})"
    )


@cache
def _key_parts() -> re.Pattern[str]:
    return re.compile(_PART)


class _Confused(Exception):
    """The scanner met something it does not understand; keep what was indexed so far."""


def _end(pattern: re.Pattern[str], s: str, i: int) -> int:
    m = pattern.match(s, i)
    if m is None:
        raise _Confused(i)
    return m.end()


def too_deep(text: str, limit: int) -> tuple[int, str] | None:
    """The first bracket or dotted key nesting deeper than `limit`, as (offset, message), or
    None. Run before tomllib, which recurses on brackets (RecursionError at ~1000 levels) and
    is quadratic in the parts of a dotted key. The document counts as level 1, like in the
    data; key parts are counted per key (the exact depth is checked after parsing)."""
    if not toml_may_nest_deeper(text, limit):
        return None  # every bracket and dot nested still stays within the limit: skip the scan
    depth = 1
    for m in _tokens().finditer(text):
        kind = m.lastgroup
        if kind == "bracket":
            if m.group() in "[{":
                depth += 1
                if depth > limit:
                    return m.start(), f"nesting deeper than {limit} levels"
            else:
                depth = max(1, depth - 1)
        elif kind == "key":
            # A header's table is one level below its last part; a key's last part may be a scalar.
            j = m.start() - 1
            while j >= 0 and text[j] in " \t":
                j -= 1
            header = j >= 0 and text[j] == "["
            parts = len(_key_parts().findall(m.group())) + header
            if parts > limit:
                return m.start(), f"dotted key with too many parts (nesting deeper than {limit} levels)"
    return None


def find_long_number(text: str) -> int | None:
    """Offset of the first run of 100+ digits outside strings and comments, or None."""
    for m in _tokens().finditer(text):
        if m.lastgroup == "number":
            return m.start()
    return None


def _decode_key(raw: str) -> str:
    # Escapes in quoted keys are rare; let tomllib decode them exactly (imported only then).
    if "\\" not in raw:
        return raw[1:-1]
    import tomllib

    return next(iter(tomllib.loads(f"{raw} = 0")))


class _TomlIndexer:
    def __init__(self, text: str, until: str | None = None) -> None:
        self.s = text
        self.until = until  # stop after the statement that locates this pointer
        self.offsets: dict[str, int] = {"": 0}
        self.aot_counts: dict[str, int] = {}  # array-of-tables pointer → elements seen so far

    def _ws(self, i: int) -> int:
        return _end(_WS, self.s, i)

    def _ws_nl(self, i: int) -> int:
        return _end(_WS_NL, self.s, i)

    def _expect(self, i: int, token: str) -> int:
        if not self.s.startswith(token, i):
            raise _Confused(i)
        return i + len(token)

    def run(self) -> dict[str, int]:
        s = self.s
        table = ""
        i = self._ws_nl(0)
        try:
            while i < len(s):
                if s.startswith("[[", i):
                    keys, j = self._key_path(self._ws(i + 2))
                    table = self._header(keys, aot_offset=i)
                    i = self._expect(self._ws(j), "]]")
                elif s[i] == "[":
                    keys, j = self._key_path(self._ws(i + 1))
                    table = self._header(keys, aot_offset=None)
                    i = self._expect(self._ws(j), "]")
                else:
                    i = self._key_value(i, table)
                if self.until is not None and self.until in self.offsets:
                    break
                i = self._ws_nl(i)
        except _Confused:
            pass
        return self.offsets

    def _key_path(self, i: int) -> tuple[list[tuple[str, int]], int]:
        """A (dotted) key: [(key, offset of its first character)], offset after it (and its blanks)."""
        s = self.s
        keys: list[tuple[str, int]] = []
        while True:
            m = _KEY_PART_STEP.match(s, i)
            if m is None:
                raise _Confused(i)
            bare, basic, literal, dot = m.groups()
            keys.append((bare if bare is not None else _decode_key(basic) if basic is not None else literal, i))
            if dot is None:
                return keys, m.end()
            i = m.end()

    def _header(self, keys: list[tuple[str, int]], aot_offset: int | None) -> str:
        """The pointer of the table a `[a.b]` / `[[a.b]]` header opens."""
        ptr = ""
        for n, (key, offset) in enumerate(keys):
            ptr += "/" + escape(key)
            self.offsets.setdefault(ptr, offset)
            if n == len(keys) - 1 and aot_offset is not None:
                index = self.aot_counts.get(ptr, 0)
                self.aot_counts[ptr] = index + 1
                ptr += f"/{index}"
                self.offsets[ptr] = aot_offset  # each element is located at its own `[[`
            elif ptr in self.aot_counts:
                # `[fruits.physical]` after `[[fruits]]` belongs to the last element.
                ptr += f"/{self.aot_counts[ptr] - 1}"
        return ptr

    def _key_value(self, i: int, table: str) -> int:
        keys, j = self._key_path(i)
        ptr = table
        for key, offset in keys:
            ptr = join(ptr, key)
            self.offsets.setdefault(ptr, offset)
        return self._value(_end(_EQUALS, self.s, j), ptr)

    def _value(self, i: int, ptr: str) -> int:
        s = self.s
        c = s[i : i + 1]
        if c == "[":
            return self._array(i, ptr)
        if c == "{":
            return self._inline_table(i, ptr)
        if s.startswith('"""', i):
            return _end(_ML_BASIC, s, i)
        if s.startswith("'''", i):
            return _end(_ML_LITERAL, s, i)
        if c == '"':
            return _end(_BASIC, s, i)
        if c == "'":
            return _end(_LITERAL, s, i)
        j = _end(_SCALAR, s, i)
        if j == i:
            raise _Confused(i)
        return j

    def _array(self, i: int, ptr: str) -> int:
        s = self.s
        j = self._ws_nl(i + 1)
        index = 0
        while not s.startswith("]", j):
            element = f"{ptr}/{index}"
            self.offsets.setdefault(element, j)
            j = self._separator(self._value(j, element), "]")
            index += 1
        return j + 1

    def _inline_table(self, i: int, ptr: str) -> int:
        s = self.s
        # Newlines and comments are tolerated although TOML 1.0 inline tables are one line.
        j = self._ws_nl(i + 1)
        while not s.startswith("}", j):
            j = self._separator(self._key_value(j, ptr), "}")
        return j + 1

    def _separator(self, i: int, close: str) -> int:
        """Past the blanks and comma after an element; without a comma, the list must end here."""
        m = _SEPARATOR.match(self.s, i)
        assert m is not None  # every part of the pattern is optional
        if m.group(1) is None and not self.s.startswith(close, m.end()):
            raise _Confused(m.end())
        return m.end()


def index_toml(text: str, *, until: str | None = None) -> dict[str, int]:
    """Pointer → offset of every table, key and array element in a valid TOML document.

    Keys (also in headers and dotted keys) point at their first character, array elements at
    their value, `[[a]]` elements at their `[[`. A table mentioned several times is located
    at its first mention. The document itself is located at offset 0. With `until`, the scan
    stops once that pointer is located (the offsets found by then are the same).
    """
    return _TomlIndexer(text, until).run()


_KEY_ATOM = r"(?:\"(?:[^\"\\]|\\.)*\"|'[^']*'|[A-Za-z0-9_\-]+)"


@cache
def _line_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """A table header, a key line, one part of a key (first_definition's, for a refused file)."""
    return (
        re.compile(r"[ \t]*\[\[?[ \t]*([^\]#]+?)[ \t]*\]\]?[ \t]*(?:#.*)?$"),
        re.compile(rf"[ \t]*({_KEY_ATOM}(?:[ \t]*\.[ \t]*{_KEY_ATOM})*)[ \t]*="),
        re.compile(_KEY_ATOM),
    )


def _dotted(raw: str) -> list[str]:
    return [_decode_key(p) if p[0] in "\"'" else p for p in _line_patterns()[2].findall(raw)]


def first_definition(text: str, line: int) -> tuple[str, int, int] | None:
    """For a duplicate that TOML refuses on `line` (1-based): the key or table as the user wrote it,
    its column there, and the line where it was first set — or None when the line is not a plain
    key or header."""
    lines = text.splitlines()
    if not 0 < line <= len(lines):
        return None
    header, key_line, _ = _line_patterns()
    here = lines[line - 1]
    table: list[str] = []
    for previous in lines[: line - 1]:
        if m := header.match(previous):
            table = _dotted(m.group(1))
    if m := header.match(here):
        path, shown = _dotted(m.group(1)), f"table [{m.group(1)}]"
    elif m := key_line.match(here):
        path, shown = [*table, *_dotted(m.group(1))], f"key {m.group(1).strip()!r}"
    else:
        return None
    try:
        offsets = _TomlIndexer("\n".join(lines[: line - 1]) + "\n").run()
    except _Confused:
        return None
    pointer = "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in path)
    offset = offsets.get(pointer)
    if offset is None:
        return None
    column = len(here) - len(here.lstrip(" \t")) + 1
    return shown, column, text.count("\n", 0, offset) + 1
