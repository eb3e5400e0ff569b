"""Where the cursor is in a config being typed: the key path around it, whether a key or a value is
being written there, and the word typed so far.

An editor asks while the text is incomplete (`kind = "ll`, a JSON object without its closing
brace), so this is a tolerant scanner, not a parser: it reads the text up to the cursor, keeping a
stack of the tables and arrays it is inside. TOML is read line by line for the table headers
(`[build]`, `[[targets]]`); each table's body, and every inline table or array, goes through the
same bracket scanner as a JSON document.
"""

from __future__ import annotations

import re

from tvmc.records import field, record

Path = tuple[str | int, ...]

_WORD = re.compile(r"[A-Za-z0-9_.+\-:/^]")
_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]#]*?)\s*\]\]?\s*(?:#.*)?$")


@record(slots=True)
class Cursor:
    """What surrounds the cursor.

    `container` is the path of the innermost table (object) the cursor is in; at a key
    (`at == "key"`) the user is writing one of its keys, at a value (`at == "value"`) the value of
    `container`'s `key`, or (`element` set) an entry of the array that value is.
    """

    container: Path
    at: str  # "key" | "value"
    key: str | None = None
    element: int | None = None
    prefix: str = ""  # the word (or the string's contents) typed before the cursor
    in_string: bool = False
    quote: str = ""  # the string's quote, when in one
    siblings: dict[str, str] = field(default_factory=dict)  # the container's own string values
    frame_start: int = -1  # offset where the container's text begins (see `siblings_of`)

    @property
    def pointer_path(self) -> Path:
        """The path of what is at the cursor: the key's value, or the array entry."""
        if self.at == "key":
            return (*self.container, self.prefix) if self.prefix else self.container
        base = (*self.container, self.key) if self.key is not None else self.container
        return (*base, self.element) if self.element is not None else base


@record(slots=True)
class _Frame:
    kind: str  # "obj" | "arr"
    start: int  # offset of the opening bracket (or of the TOML table's body)
    key: str | None = None  # obj: the key whose value comes next (or is being read)
    pending: str | None = None  # obj: a key read, its separator not yet
    expect: str = "key"  # obj: "key" | "value"
    index: int = 0  # arr: the entry being read
    strings: dict[str, str] = field(default_factory=dict)  # obj: key → string value read


def _unquote_key(word: str) -> list[str]:
    """A TOML key as written (bare, dotted, quoted) → its parts."""
    parts: list[str] = []
    for match in re.finditer(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([^.\s"\']+)', word):
        parts.append(next(g for g in match.groups() if g is not None))
    return parts or [word]


class _Scanner:
    """Reads a flow of keys and values (a JSON document, a TOML table body) up to its end."""

    def __init__(self, text: str, *, toml: bool, base: Path, body_start: int) -> None:
        self.text = text
        self.toml = toml
        self.base = base
        # A TOML table body is an object whose entries end at line breaks.
        self.stack: list[_Frame] = [_Frame("obj", body_start)] if toml else []
        self.path_keys: list[str | int] = []
        self.partial: tuple[str, str, bool] | None = None  # (word, quote, in_string) cut by the end
        self.closed: dict[int, dict[str, str]] = {}  # an object's start → its string values

    def run(self, start: int) -> None:
        text, i, end = self.text, start, len(self.text)
        while i < end:
            c = text[i]
            if c == "\n" and self.toml and len(self.stack) == 1:
                self._separator()
                i += 1
            elif c.isspace():
                i += 1
            elif c == "#" and self.toml:
                newline = text.find("\n", i)
                i = end if newline == -1 else newline
            elif c in "\"'":
                i = self._string(i, c)
            elif c == "{":
                self.stack.append(_Frame("obj", i))
                i += 1
            elif c == "[":
                self.stack.append(_Frame("arr", i))
                i += 1
            elif c in "}]":
                if len(self.stack) > (1 if self.toml else 0):
                    frame = self.stack.pop()
                    self.closed[frame.start] = frame.strings
                i += 1
            elif c == ",":
                self._separator()
                i += 1
            elif c in ":=":
                top = self.stack[-1] if self.stack else None
                if top is not None and top.kind == "obj" and top.pending is not None:
                    parts = _unquote_key(top.pending) if self.toml else [top.pending]
                    top.key, top.pending, top.expect = parts[-1], None, "value"
                    if parts[:-1]:  # TOML's `executor.kind = ...`: a key of the table `executor`
                        top.strings["\0dotted"] = ".".join(parts[:-1])
                i += 1
            else:
                j = i
                while j < end and (_WORD.match(text[j]) or (self.toml and text[j] in "\"'" and j > i)):
                    j += 1
                if j == i:
                    i += 1
                    continue
                word = text[i:j]
                if j >= end:
                    self.partial = (word, "", False)
                    return
                self._word(word, quoted=False)
                i = j

    def _separator(self) -> None:
        top = self.stack[-1] if self.stack else None
        if top is None:
            return
        if top.kind == "arr":
            top.index += 1
        else:
            top.key, top.pending, top.expect = None, None, "key"
            top.strings.pop("\0dotted", None)

    def _string(self, i: int, quote: str) -> int:
        text, end = self.text, len(self.text)
        triple = text.startswith(quote * 3, i)
        j = i + (3 if triple else 1)
        chars: list[str] = []
        while j < end:
            c = text[j]
            if c == "\\" and quote == '"':
                chars.append(text[j : j + 2])
                j += 2
                continue
            if triple and text.startswith(quote * 3, j):
                self._word("".join(chars), quoted=True)
                return j + 3
            if not triple and c == quote:
                self._word("".join(chars), quoted=True)
                return j + 1
            if c == "\n" and not triple:
                break
            chars.append(c)
            j += 1
        if j >= end:
            self.partial = ("".join(chars), quote, True)
            return end
        self._word("".join(chars), quoted=True)  # an unterminated string: read on at its line end
        return j

    def _word(self, word: str, *, quoted: bool) -> None:
        top = self.stack[-1] if self.stack else None
        if top is None:
            return
        if top.kind == "obj":
            if top.expect == "key":
                top.pending = (f'"{word}"' if quoted and self.toml else word) if top.pending is None else top.pending
            elif top.key is not None and quoted:
                top.strings[top.key] = word

    def cursor(self) -> Cursor:
        word, quote, in_string = self.partial or ("", "", False)
        path: list[str | int] = list(self.base)
        frames = self.stack
        if not frames:
            return Cursor((), "key", prefix=word, in_string=in_string, quote=quote)
        for frame in frames[:-1]:
            path.extend(self._step(frame))
        top = frames[-1]
        if top.kind == "obj":
            dotted = top.strings.get("\0dotted")
            siblings = {k: v for k, v in top.strings.items() if not k.startswith("\0")}
            if top.expect == "key":
                if self.toml and "." in word and not in_string:
                    *head, word = word.split(".")
                    path.extend(head)
                return Cursor(
                    tuple(path),
                    "key",
                    prefix=word,
                    in_string=in_string,
                    quote=quote,
                    siblings=siblings,
                    frame_start=top.start,
                )
            if dotted:
                path.extend(dotted.split("."))
            return Cursor(tuple(path), "value", top.key, None, word, in_string, quote, siblings, top.start)
        # In an array: the value of the key that holds it (its parent object's key).
        parent = frames[-2] if len(frames) >= 2 else None
        if parent is not None and parent.kind == "obj":
            container = path[: len(path) - len(self._step(parent))]
            dotted = parent.strings.get("\0dotted")
            if dotted:
                container.extend(dotted.split("."))
            siblings = {k: v for k, v in parent.strings.items() if not k.startswith("\0")}
            return Cursor(
                tuple(container), "value", parent.key, top.index, word, in_string, quote, siblings, parent.start
            )
        return Cursor(tuple(path), "value", None, top.index, word, in_string, quote)

    def _step(self, frame: _Frame) -> list[str | int]:
        if frame.kind == "arr":
            return [frame.index]
        dotted = frame.strings.get("\0dotted")
        keys: list[str | int] = [*dotted.split(".")] if dotted else []
        return [*keys, frame.key] if frame.key is not None else keys


def _toml_table(lines: list[str]) -> tuple[Path, int]:
    """The table the last header among `lines` opens (arrays of tables indexed), and the index of
    the line after that header (0 without one)."""
    counts: dict[tuple[str, ...], int] = {}
    path: Path = ()
    body = 0
    for number, line in enumerate(lines):
        match = _HEADER.match(line)
        if match is None or line.lstrip().startswith(("#",)):
            continue
        names = tuple(_unquote_key(match.group(2)))
        resolved: list[str | int] = []
        for depth in range(1, len(names) + 1):
            resolved.append(names[depth - 1])
            if names[:depth] in counts and depth < len(names):
                resolved.append(counts[names[:depth]] - 1)
        if match.group(1) == "[[":
            counts[names] = counts.get(names, 0) + 1
            resolved.append(counts[names] - 1)
            # a new element: its sub-tables start afresh
            for key in [k for k in counts if len(k) > len(names) and k[: len(names)] == names]:
                del counts[key]
        path, body = tuple(resolved), number + 1
    return path, body


def cursor_at(text: str, line: int, character: int, fmt: str, *, whole_word: bool = False) -> Cursor:
    """The cursor at 0-based `line`/`character` of a TOML or JSON text. `whole_word`: read on to the
    end of the word under the cursor (for hover and go-to-definition, which name the whole key)."""
    lines = text.split("\n")
    if line >= len(lines):
        line, character = len(lines) - 1, len(lines[-1])
    current = lines[line]
    character = min(character, len(current))
    if whole_word:
        while character < len(current) and (_WORD.match(current[character]) or current[character] == "*"):
            character += 1
    offset = sum(len(t) + 1 for t in lines[:line]) + character
    if fmt == "json":
        scanner = _Scanner(text[:offset], toml=False, base=(), body_start=0)
        scanner.run(0)
        return scanner.cursor()
    path, body_line = _toml_table(lines[:line])
    if _HEADER.match(current) and not current.lstrip().startswith("#"):
        # On a header itself: the table it names, as a key of its parent.
        names = _unquote_key(_HEADER.match(current).group(2))  # type: ignore[union-attr]
        head = current[:character]
        if "[" in head:
            typed = head.split("[")[-1].strip()
            return Cursor(tuple(names[:-1]), "key", prefix=typed.rsplit(".", 1)[-1])
    start = sum(len(t) + 1 for t in lines[:body_line])
    scanner = _Scanner(text[:offset], toml=True, base=path, body_start=start)
    scanner.run(start)
    return scanner.cursor()


def siblings_of(text: str, cursor: Cursor, fmt: str) -> dict[str, str]:
    """The string values of the cursor's table, read from all of it (after the cursor too): its
    `kind`, `mtriple`, ... decide which options and names apply there."""
    if cursor.frame_start < 0:
        return dict(cursor.siblings)
    end = len(text)
    if fmt == "toml":  # the table's body ends at the next header (whose brackets are no array)
        offset = text.find("\n", cursor.frame_start)
        while offset != -1:
            line_end = text.find("\n", offset + 1)
            line = text[offset + 1 : line_end if line_end != -1 else end]
            if _HEADER.match(line) and not line.lstrip().startswith("#"):
                end = offset + 1
                break
            offset = line_end
    scanner = _Scanner(text[:end], toml=fmt == "toml", base=(), body_start=cursor.frame_start)
    scanner.run(cursor.frame_start if fmt == "toml" else 0)
    for frame in scanner.stack:
        scanner.closed.setdefault(frame.start, frame.strings)
    found = {k: v for k, v in scanner.closed.get(cursor.frame_start, {}).items() if not k.startswith("\0")}
    return {**found, **cursor.siblings}
