"""Reading one config document (TOML or JSON) into a `Layer`, refusing bad input with a
file:line:col error and hostile input before it reaches a parser."""

from __future__ import annotations

import json
import os
import re
import sys
from functools import cache

from tvmc.errors import ConfigNotFoundError, ConfigSyntaxError, LimitError, Location
from tvmc.provenance import printable
from tvmc.readfile import FileTooLarge, NotRegularFile, read_regular
from tvmc.sources.layer import Layer, offset_position
from tvmc.sources.limits import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    OversizedInt,
    check_values,
    json_may_nest_deeper,
    parse_json_int,
    toml_may_nest_deeper,
)

# typing and pathlib are not imported at run time: every command would pay for them at start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any, BinaryIO


def _toml_parser() -> tuple[Callable[[str], dict[str, Any]], type[ValueError], str]:
    """tomli when the `fast` extra installed it (compiled: about twice as fast as tomllib, which is
    tomli's pure-Python copy), else tomllib. Only tomli releases that read TOML 1.0 stand in: from
    2.4 on tomli reads TOML 1.1, which tomllib (Python 3.11-3.14) and editors reject, and a config
    must mean the same wherever tvmc runs. (tomllib is imported only when it is the one used.)"""
    try:
        import tomli
    except ImportError:
        pass
    else:
        if tuple(int(p) for p in tomli.__version__.split(".")[:2] if p.isdigit()) < (2, 4):
            return tomli.loads, tomli.TOMLDecodeError, f"tomli {tomli.__version__}"
    import tomllib

    return tomllib.loads, tomllib.TOMLDecodeError, "tomllib"


@cache
def _the_toml_parser() -> tuple[Callable[[str], dict[str, Any]], type[ValueError], str]:
    """The parser tvmc reads TOML with, imported when the first document that is not a shipped
    config as shipped (`tvmc.sources.preparsed`) is read; `TOML_PARSER` names it."""
    return _toml_parser()


if TYPE_CHECKING:
    TOML_PARSER: str
else:

    def __getattr__(name: str) -> object:
        if name == "TOML_PARSER":
            return _the_toml_parser()[2]
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


FORMATS = ("toml", "json")
_BOM = b"\xef\xbb\xbf"


# Compiled on first use: the first is for JSON files only, the second for TOML errors only.
@cache
def _long_digits() -> re.Pattern[str]:
    return re.compile(r"[0-9]{21}")  # longer than any int64: see limits.parse_json_int


@cache
def _toml_at() -> re.Pattern[str]:
    return re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)$")


def display_path(path: str | os.PathLike[str]) -> str:
    """How a file is named in messages: relative to the working directory when under it."""
    # String operations, not pathlib: this runs once per validated file.
    absolute = os.path.abspath(path)
    try:
        cwd = os.getcwd()
    except OSError:  # the working directory was deleted
        cwd = ""
    shown = absolute
    if cwd and os.path.normcase(absolute) == os.path.normcase(cwd):
        shown = "."
    elif cwd:
        prefix = cwd if cwd.endswith(os.sep) else cwd + os.sep
        if os.path.normcase(absolute).startswith(os.path.normcase(prefix)):
            shown = absolute[len(prefix) :]
    return printable(shown)  # a line break or undecodable bytes are quoted: messages stay one line


def format_for(path: str | os.PathLike[str]) -> str | None:
    """The format a file name implies, or None to sniff the content."""
    suffix = os.path.splitext(path)[1].lower()
    return suffix[1:] if suffix in (".toml", ".json") else None


def load_file(path: str | Path, *, display: str | None = None) -> Layer:
    """Load a TOML or JSON config file (format by suffix, else sniffed from the content).

    The file is stat'ed as it is opened and never read beyond `MAX_FILE_BYTES` + 1 bytes, so a
    huge file (or an endless device) is refused without reading it.
    """
    absolute = os.path.abspath(path)
    source = display if display is not None else display_path(absolute)
    try:
        data = _read_file(absolute, source)
    except FileNotFoundError:
        raise ConfigNotFoundError("no such config file", Location(source)) from None
    except OSError as e:
        if os.path.isdir(absolute):  # Windows refuses to open a directory at all
            raise ConfigNotFoundError("is a directory, not a config file", Location(source)) from None
        raise ConfigNotFoundError(f"cannot read config file: {e.strerror or e}", Location(source)) from None
    except ValueError:  # os.open refuses paths with a NUL byte
        raise ConfigNotFoundError("invalid file name (NUL byte)", Location(source)) from None
    return load_bytes(data, source=source, format=format_for(absolute), path=absolute)


def _read_file(path: str, source: str) -> bytes:
    """The bytes of the regular file at `path` (`readfile.read_regular`). Only regular files are
    configs: a FIFO, a device or /dev/stdin is refused without reading from it (stdin is read only
    where the user wrote `-`)."""
    try:
        return read_regular(path, MAX_FILE_BYTES)
    except NotRegularFile as e:
        raise ConfigNotFoundError(f"{e.kind}, not a config file", Location(source)) from None
    except FileTooLarge as e:
        raise LimitError(_too_big(e.size), Location(source)) from None


def read_regular_file(path: str | Path, source: str) -> bytes:
    """`_read_file` for other readers of user files (`config migrate FILE`): located errors."""
    try:
        return _read_file(os.path.abspath(os.path.expanduser(path)), source)
    except FileNotFoundError:
        raise ConfigNotFoundError("no such file", Location(source)) from None
    except OSError as e:
        raise ConfigNotFoundError(f"cannot read {path}: {e.strerror or e}", Location(source)) from None
    except ValueError:
        raise ConfigNotFoundError("invalid file name (NUL byte)", Location(source)) from None


def read_limited(stream: BinaryIO) -> bytes:
    """Read a stream (stdin, a pipe, a device) up to `MAX_FILE_BYTES` + 1 bytes: enough to tell it
    is too big."""
    chunks: list[bytes] = []
    remaining = MAX_FILE_BYTES + 1
    while remaining > 0:
        try:
            chunk = stream.read(remaining)
        except OSError as e:  # `<&-`: a closed standard input
            raise ConfigNotFoundError(f"cannot read standard input: {e.strerror or e}", Location("<stdin>")) from None
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def load_stdin(
    stream: BinaryIO | None = None,
    *,
    source: str = "<stdin>",
    format: str | None = None,
    path: Path | None = None,
) -> Layer:
    """Load a config from stdin (`-`), reading at most `MAX_FILE_BYTES` + 1 bytes.

    `source`/`path` let the caller name the document (`--stdin-filename`)."""
    data = read_limited(stream if stream is not None else sys.stdin.buffer)
    return load_bytes(data, source=source, format=format, path=path)


def _too_big(size: int) -> str:
    return f"config file is larger than {MAX_FILE_BYTES} bytes ({size} bytes); refusing to read it"


def _decode(data: bytes, source: str) -> str:
    if data.startswith(_BOM):
        data = data[len(_BOM) :]  # positions are reported as if the BOM were not there
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line_start = data.rfind(b"\n", 0, e.start) + 1
        line = data.count(b"\n", 0, e.start) + 1
        col = len(data[line_start : e.start].decode("utf-8")) + 1
        utf16 = data[:2] in (b"\xff\xfe", b"\xfe\xff")
        hint = "the file looks UTF-16 encoded; save it as UTF-8" if utf16 else None
        raise ConfigSyntaxError(
            f"invalid UTF-8 (byte 0x{data[e.start]:02x})", Location(source, line, col), hint=hint
        ) from None
    nul = text.find("\0")
    if nul != -1:
        raise ConfigSyntaxError("NUL character in config file", Location(source, *offset_position(text, nul)))
    return text


def sniff_format(text: str) -> str:
    """JSON if the document starts with `{`, else TOML."""
    return "json" if text.lstrip().startswith("{") else "toml"


def load_bytes(
    data: bytes, *, source: str, format: str | None = None, path: str | os.PathLike[str] | None = None
) -> Layer:
    """Parse a whole config document. `format` is "toml", "json", or None to sniff."""
    if format is not None and format not in FORMATS:
        raise ValueError(f"unknown config format {format!r}")
    if len(data) > MAX_FILE_BYTES:
        raise LimitError(_too_big(len(data)), Location(source))
    text = _decode(data, source)
    fmt = format or sniff_format(text)
    parsed = _parse_toml(text, source) if fmt == "toml" else _parse_json(text, source)
    layer = Layer(source=source, path=path, data=parsed, format=fmt, text=text)
    check_values(layer.data, layer.locate, text)
    return layer


def _refuse_too_deep(text: str, source: str, fmt: str) -> None:
    """Refuse a document nesting deeper than `MAX_DEPTH` before a parser (which recurses) sees it.

    The scanners (modules with large regexes) are imported only when a cheap count of brackets
    says the text could nest that deep."""
    # lazy: the scanners only when the text could nest that deep
    if fmt == "toml":
        if not toml_may_nest_deeper(text, MAX_DEPTH):
            return
        from tvmc.sources.toml_positions import too_deep
    else:
        if not json_may_nest_deeper(text, MAX_DEPTH):
            return
        from tvmc.sources.json_positions import too_deep
    found = too_deep(text, MAX_DEPTH)
    if found is not None:
        offset, message = found
        raise LimitError(message, Location(source, *offset_position(text, offset)))


def _parse_toml(text: str, source: str) -> dict[str, Any]:
    from tvmc.sources.preparsed import DOCUMENTS

    known = DOCUMENTS.get(text)
    if known is not None:  # a shipped config, as shipped: its parse, made when it was generated
        parsed: dict[str, Any] = json.loads(known)
        return parsed
    _refuse_too_deep(text, source, "toml")
    toml_loads, toml_error, _ = _the_toml_parser()
    try:
        return toml_loads(text)
    except toml_error as e:
        message = str(e)
        m = _toml_at().search(message)
        if m is None:
            raise ConfigSyntaxError(f"invalid TOML: {message}", Location(source)) from None
        if m.group(1):
            line, col = int(m.group(1)), int(m.group(2))
        else:  # "at end of document"; tomllib counts in text with CRLF → LF
            normalized = text.replace("\r\n", "\n")
            line, col = offset_position(normalized, len(normalized))
        what = message[: m.start()]
        # lazy (here and below): only a syntax error needs the scanner
        if what.startswith("Cannot "):  # a duplicate: say which key, and where it was first set
            from tvmc.sources.toml_positions import first_definition

            first = first_definition(text.replace("\r\n", "\n"), line)
            if first is not None:
                what, col = f"{first[0]} is set twice (first on line {first[2]})", first[1]
        raise ConfigSyntaxError(f"invalid TOML: {what}", Location(source, line, col)) from None
    except ValueError:
        # tomllib lets int()'s 4300-digit limit escape as a plain ValueError.
        from tvmc.sources import toml_positions

        offset = toml_positions.find_long_number(text)
        where = Location(source) if offset is None else Location(source, *offset_position(text, offset))
        raise LimitError("integer is outside the 64-bit range TVM stores", where) from None
    except RecursionError:  # defensive: the bracket pre-scan should make this unreachable
        raise LimitError(f"nesting deeper than {MAX_DEPTH} levels", Location(source)) from None


class _DuplicateKey(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _DuplicateKey
    return result


def _parse_json(text: str, source: str) -> dict[str, Any]:
    _refuse_too_deep(text, source, "json")
    try:
        # The int hook (a Python call per number) only when some digit run could be too long to convert.
        hook = parse_json_int if _long_digits().search(text) else None
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_int=hook)
    except json.JSONDecodeError as e:
        message, offset = _json_error(text, e)
        raise ConfigSyntaxError(f"invalid JSON: {message}", Location(source, *offset_position(text, offset))) from None
    except _DuplicateKey:
        from tvmc.sources import json_positions  # lazy: only a duplicate key needs the indexer

        dup = json_positions.index_json(text, stop_at_duplicate=True).duplicate
        if dup is None:  # the indexer stopped at malformed text before the duplicate
            raise ConfigSyntaxError("invalid JSON: duplicate key", Location(source)) from None
        line, col = offset_position(text, dup.first_offset)
        raise ConfigSyntaxError(
            f"duplicate key {dup.key!r} (first defined at line {line}, column {col})",
            Location(source, *offset_position(text, dup.offset)),
        ) from None
    except RecursionError:  # defensive: the bracket pre-scan should make this unreachable
        raise LimitError(f"nesting deeper than {MAX_DEPTH} levels", Location(source)) from None
    if not isinstance(value, dict):
        start = len(text) - len(text.lstrip(" \t\r\n"))
        raise ConfigSyntaxError(
            f"the top-level value must be an object, not {_json_type(value)}",
            Location(source, *offset_position(text, start)),
        )
    return value


_JSON_SPACE = " \t\r\n"


def _json_error(text: str, e: json.JSONDecodeError) -> tuple[str, int]:
    """The decoder's message and offset, except that a trailing comma is reported the same way on
    every Python (3.13 says "Illegal trailing comma" at the comma; 3.11 "Expecting ..." after it)."""
    comma = e.pos if text[e.pos : e.pos + 1] == "," else len(text[: e.pos].rstrip(_JSON_SPACE)) - 1
    if 0 <= comma < len(text) and text[comma] == ",":
        after = len(text) - len(text[comma + 1 :].lstrip(_JSON_SPACE))
        if text[after : after + 1] in ("}", "]"):
            return f"trailing comma before the end of the {'object' if text[after] == '}' else 'array'}", comma
    return e.msg, e.pos


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str) and not isinstance(value, OversizedInt):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"
