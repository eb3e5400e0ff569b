"""TVM's legacy target string grammar, v0.10+ dialect (TVM 0.10 src/target/target.cc: SplitString, ParseType,
Interpret, TargetNode::str).

`split_string`, `interpret`, `uninterpret` and `is_quoted` mirror `TargetInternal` of
src/target/target.cc (v0.10–v0.23) character for character; `parse_pairs` is `FromRawString`'s
key/value loop and `parse_text_value` is `ParseType(string, type)`. Only the single quote quotes;
a backslash escapes the next character.

One tvmc rule on top, for every entry point (a file's `targets`, `--target`, `TVMC_TARGET`,
`--target-host`, `config migrate`): `double_quotes_as_single` reads old tvmc's `-k="v, a"` as
`-k='v, a'`, as old tvmc's tokenizer did, so one string means one target wherever it is written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from tvmc.errors import Location, TargetError
from tvmc.records import record
from tvmc.targets import tables as T
from tvmc.values import IntTooLong
from tvmc.values import parse_int as parse_int64

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

QUOTE = "'"
ESCAPE = "\\"
_CXX_SPACE = " \t\n\v\f\r"  # what `std::istream >> int` skips


def at(loc: Location | None, offset: int) -> Location | None:
    """The location of a character `offset` into a value that starts at `loc`."""
    if loc is None or loc.col is None:
        return loc
    return Location(loc.source, loc.line, loc.col + offset)


def split_string(text: str, sep: str, loc: Location | None = None, base: int = 0) -> list[tuple[str, int]]:
    """SplitString: words with their offsets; quotes and escape pairs are kept in the words."""
    words: list[tuple[str, int]] = []
    cur: list[str] = []
    start = 0
    quoted = False
    quote_at = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == sep and not quoted:
            if cur:
                words.append(("".join(cur), start))
                cur = []
            i += 1
            continue
        if not cur:
            start = base + i
        if c == ESCAPE and i + 1 < n:
            cur.append(text[i : i + 2])
            i += 2
            continue
        if c == QUOTE:
            quoted = not quoted
            quote_at = base + i
        cur.append(c)
        i += 1
    if quoted:
        raise TargetError(
            "Mismatched quotes '' in string",
            at(loc, quote_at),
            hint="quote with single quotes and escape a literal quote as \\'",
        )
    if cur:
        words.append(("".join(cur), start))
    return words


# Old tvmc's `tokenize_target` (python/tvm/driver/tvmc/target.py, v0.19.0): a value in double quotes
# holding only these characters. TVM's own grammar reads `"` as an ordinary character, which gives
# `-device="mali"` the device `"mali"` (quotes included), never what a user means.


@cache
def _double_quoted() -> re.Pattern[str]:  # compiled on first use: only legacy strings need it
    return re.compile(r'(?<==)"([\w+\-,\s.]+)"(?=[\s,]|$)')


def double_quotes_as_single(text: str) -> str:
    """`-k="v, a"` as TVM's grammar quotes it, `-k='v, a'` (the same value: its contents never hold a
    quote or a backslash), outside single-quoted parts only (a nested `-host='…'` is read by this
    rule again when it is parsed). The length is kept, so every offset into `text` stays right."""
    if '"' not in text:
        return text
    inside: set[int] = set()  # offsets of the characters within single quotes
    quoted = False
    i, n = 0, len(text)
    while i < n:
        if text[i] == ESCAPE:
            if quoted:
                inside.update((i, i + 1))
            i += 2
            continue
        if text[i] == QUOTE:
            quoted = not quoted
        elif quoted:
            inside.add(i)
        i += 1
    return _double_quoted().sub(lambda m: m.group(0) if m.start() in inside else f"'{m.group(1)}'", text)


def is_quoted(text: str) -> bool:
    """The whole text is one quoted string: '…' with no unescaped quote inside."""
    if len(text) < 2 or text[0] != QUOTE or text[-1] != QUOTE:
        return False
    escaping = False
    for c in text[1:-1]:
        if escaping:
            escaping = False
        elif c == ESCAPE:
            escaping = True
        elif c == QUOTE:
            return False
    return not escaping


def interpret(text: str) -> str:
    """Interpret: drop enclosing quotes; outside quotes an escape yields the escaped char."""
    if is_quoted(text):
        text = text[1:-1]
    if ESCAPE not in text and QUOTE not in text:
        return text
    out: list[str] = []
    inside = False
    escaping = False
    for c in text:
        if escaping:
            escaping = False
        elif c == ESCAPE:
            escaping = True
            if not inside:
                continue
        elif c == QUOTE:
            inside = not inside
        out.append(c)
    return "".join(out)


def uninterpret(text: str) -> str:
    """The inverse of `interpret` for unquoted text: escape every quote and backslash."""
    if ESCAPE not in text and QUOTE not in text:
        return text
    return text.replace(ESCAPE, ESCAPE * 2).replace(QUOTE, ESCAPE + QUOTE)


def parse_int(text: str) -> tuple[int, bool] | None:
    """`std::istream >> int`, then true/false: (value, whole text used) or None.

    Legacy TVM read only the numeric prefix (`4abc` → 4); callers note when text was ignored.
    Unlike TVM's 32-bit `int` we accept the 64-bit range TVM 0.27 stores.
    """
    s = text.lstrip(_CXX_SPACE)
    i = 1 if s[:1] in ("+", "-") else 0
    j = i
    while j < len(s) and "0" <= s[j] <= "9":
        j += 1
    if j > i:
        try:
            value = parse_int64(s[:j])
        except IntTooLong:
            return None
        if T.INT64_MIN <= value <= T.INT64_MAX:
            return value, j == len(s)
        return None
    lower = text.lower()
    if lower in ("true", "false"):
        return int(lower == "true"), True
    return None


@record(slots=True)
class ValueContext:
    """Callbacks a value needs: nested targets, and a place for conversion notes."""

    parse_target: Callable[[str, Location | None], Any]
    notes: list[str]


def parse_text_value(text: str, code: int, typ: str, key: str, ctx: ValueContext, loc: Location | None) -> Any:
    """ParseType(string, type) for one option value (after the `-key=` part)."""
    interp = interpret(text)
    if code in (T.INT, T.BOOL, T.FROM_DEVICE):
        parsed = parse_int(interp)
        if parsed is None:
            raise TargetError(
                f"Option '{key}': cannot parse {'a bool' if code == T.BOOL else 'an integer'} from string: {interp!r}",
                loc,
                hint="use a decimal number" + (" or true/false" if code == T.BOOL else ""),
            )
        value, whole = parsed
        if not whole:
            ctx.notes.append(f"-{key}={interp} read as {value} (legacy TVM ignores text after the number)")
        return bool(value) if code == T.BOOL else value
    if code in (T.STR, T.TAG, T.ANY):
        return interp.strip(" ")
    if code in (T.STR_ARRAY, T.INT_ARRAY, T.KEYS, T.TARGET_ARRAY):
        elem_code = {T.INT_ARRAY: T.INT, T.TARGET_ARRAY: T.TARGET}.get(code, T.STR)
        out = []
        for i, (word, _) in enumerate(split_string(interp, ",", loc)):
            try:
                out.append(parse_text_value(word, elem_code, typ, key, ctx, loc))
            except TargetError as err:
                raise TargetError(
                    f"[{i}] {err.message}", err.location, suggestions=err.suggestions, hint=err.hint
                ) from None
        return out
    if code in (T.TARGET, T.HOST):
        return ctx.parse_target(interp, loc)
    raise TargetError(f"Option '{key}': type {typ!r} cannot be parsed from a string", loc)


TypeOf = Callable[[str, Location | None], tuple[int, str]]


def parse_pairs(
    text: str, loc: Location | None, begin: Callable[[str, Location | None], TypeOf], ctx: ValueContext
) -> tuple[str, list[tuple[str, Any]]]:
    """FromRawString: the kind token and the typed `(key, value)` pairs, in order.

    `begin(kind_token, loc)` checks the kind and returns the option type lookup for it.
    """
    tokens = split_string(text, " ", loc)
    if not tokens:
        raise TargetError("Cannot parse empty target string", loc)
    kind = tokens[0][0]
    type_of = begin(kind, at(loc, tokens[0][1]))
    pairs: list[tuple[str, Any]] = []
    seen = {"kind"}  # FromRawString starts its config with the kind
    i = 1
    while i < len(tokens):
        tok, off = tokens[i]
        key_text = tok.lstrip("-")
        if key_text == tok:
            raise TargetError(
                f"Attribute keys should start with '-', not an attribute key: {T.shown(tok)}",
                at(loc, off),
                hint=_hint_for_stray(tok),
            )
        if not key_text:
            raise TargetError(f"Not an attribute key: {T.shown(tok)}", at(loc, off))
        if "=" in key_text:
            key, value = key_text.split("=", 1)
            if not key or not value:
                raise TargetError(
                    f'Empty attribute key or value in "{T.shown(tok)}"',
                    at(loc, off),
                    hint="write '' for an empty value, e.g. -keys=''",
                )
            i += 1
        elif i + 1 < len(tokens) and not tokens[i + 1][0].startswith("-"):
            key, value = key_text, tokens[i + 1][0]
            i += 2
        else:
            key, value = key_text, "1"
            i += 1
        if key in seen:
            raise TargetError(
                f'The key "{T.shown(key)}" appears more than once',
                at(loc, off),
                hint="arrays are written once, comma-separated: -mattr=+a,+b",
            )
        seen.add(key)
        code, typ = type_of(key, at(loc, off))
        pairs.append((key, parse_text_value(value, code, typ, key, ctx, at(loc, off))))
    return kind, pairs


def _hint_for_stray(tok: str) -> str | None:
    if '"' in tok:
        return "TVM's grammar quotes with single quotes ('...'); double quotes are literal characters"
    if tok.startswith("+"):
        return "a space after a comma ends the value: write -mattr=+a,+b or quote it: -mattr='+a, +b'"
    return None
