"""What `tvmc config migrate OLD` was given: a file, stdin (`-`) or the text itself, and which of
old tvmc's forms it holds — a JSON config, a JSON target, a command line, or a target string."""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path
from typing import Literal

from tvmc import registry, sources
from tvmc.errors import ConfigNotFoundError, Location, TvmcError
from tvmc.records import record

Form = Literal["config", "target", "command"]
_FILE_SUFFIXES = (".json", ".sh", ".txt", ".cmd", ".bash")
_PROGRAMS = re.compile(r"(.*/)?tvmc(\.exe)?")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_PROMPT = re.compile(r"^(\$|>|#\s*\$)\s+")


@record(frozen=True)
class OldInput:
    """The input, read: its text, where it came from, its form and (for JSON) the loaded layer."""

    text: str
    source: str  # a path as given, "<stdin>" or "<text>"
    path: Path | None
    form: Form
    layer: sources.Layer | None = None  # JSON documents, with positions for messages
    tokens: tuple[str, ...] = ()  # command lines: argv after the program name
    line: int | None = None  # command lines in a file: the line the command starts on


def read(old: str | Path, *, stdin_text: str | None = None) -> OldInput:
    """Read OLD: a `Path` or an existing file is read; `-` is stdin; anything else is the text."""
    if isinstance(old, Path):
        return classify(_read_file(old), str(old), old)
    if old == "-":
        # Read like a config file: bounded, and decoded with a located error (never a traceback).
        text = (
            stdin_text
            if stdin_text is not None
            else _decode(sources.read_limited(sys.stdin.buffer), Location("<stdin>"))
        )
        return classify(text, "<stdin>", None)
    if "\n" not in old and not old.lstrip().startswith("{") and _names_file(old):
        return classify(_read_file(Path(old)), old, Path(old))
    if "\n" not in old and " " not in old and old.lower().endswith(_FILE_SUFFIXES):
        raise ConfigNotFoundError(f"no such file: {old}", Location(old))
    return classify(old, "<text>", None)


def _names_file(text: str) -> bool:
    # A kind or tag name (`llvm`, `nvidia/jetson-nano`) is a target even if a file has that name.
    if registry.is_tag(text) or registry.kind(text) is not None:
        return False
    try:
        # os.path.expanduser leaves "~nobody" as it is; Path.expanduser raises RuntimeError for it.
        path = Path(os.path.expanduser(text))
        return path.exists() and not path.is_dir()  # a FIFO or a device too: refused when read
    except (OSError, ValueError):  # a name too long, a NUL byte
        return False


def _read_file(path: Path) -> str:
    return _decode(sources.read_regular_file(path, str(path)), Location(str(path)))


def _decode(data: bytes, where: Location) -> str:
    if len(data) > sources.MAX_FILE_BYTES:
        raise TvmcError(f"larger than {sources.MAX_FILE_BYTES} bytes; refusing to read it", where, rule="limit")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise TvmcError(
            f"not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start})", where, rule="syntax"
        ) from None


def classify(text: str, source: str, path: Path | None) -> OldInput:
    stripped = text.strip()
    if not stripped:
        raise TvmcError("nothing to migrate: the input is empty", Location(source), rule="migrate-input")
    if stripped.startswith("{"):
        layer = sources.load_bytes(text.encode("utf-8"), source=source, format="json", path=path)
        is_target = "kind" in layer.data or ("tag" in layer.data and "targets" not in layer.data)
        return OldInput(stripped, source, path, "target" if is_target else "config", layer)
    commands = _commands(text, source)
    if len(commands) > 1:
        numbers = ", ".join(str(line) for line, _ in commands)
        raise TvmcError(
            f"holds {len(commands)} `tvmc compile`/`tune` commands (lines {numbers})",
            Location(source),
            hint="migrate one command at a time",
            rule="migrate-input",
        )
    if commands:
        line, tokens = commands[0]
        return OldInput(stripped, source, path, "command", tokens=tuple(tokens), line=line)
    logical = _logical_lines(text)
    if len(logical) != 1:
        raise TvmcError(
            f"not an old tvmc config, command line or target: no `tvmc compile` command in {len(logical)} lines",
            Location(source),
            rule="migrate-input",
        )
    line, content = logical[0]
    tokens = _split(content, source, line)
    if tokens and (tokens[0] in ("compile", "tune") or tokens[0].startswith("-")):  # flags without `tvmc`
        return OldInput(stripped, source, path, "command", tokens=tuple(tokens), line=line)
    return OldInput(content, source, path, "target")


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, text) of each command: continuations joined, blanks and comments out."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = _PROMPT.sub("", raw.strip()) if not pending else raw.strip()
        if not pending:
            start = number
        if line.endswith("\\"):
            pending.append(line[:-1])
            continue
        pending.append(line)
        joined = " ".join(pending).strip()
        pending = []
        if joined and not joined.startswith("#"):
            out.append((start, joined))
    if pending and " ".join(pending).strip():
        out.append((start, " ".join(pending).strip()))
    return out


def _split(line: str, source: str, number: int) -> list[str]:
    # shlex builds tokens by string concatenation (quadratic in a token's length): bound the line.
    if len(line) > sources.MAX_STRING:
        raise TvmcError(
            f"command line longer than {sources.MAX_STRING} characters", Location(source, number), rule="limit"
        )
    try:
        return shlex.split(line, comments=True)
    except ValueError as err:  # unbalanced quotes
        raise TvmcError(f"cannot split the command line: {err}", Location(source, number), rule="syntax") from None


def _commands(text: str, source: str) -> list[tuple[int, list[str]]]:
    """Each `tvmc compile`/`tune` invocation: (line, argv after the program). Other tvmc commands
    (micro, run) are skipped; a text holding only those is an error."""
    found: list[tuple[int, list[str]]] = []
    others: list[str] = []
    for number, line in _logical_lines(text):
        if "tvmc" not in line:
            continue
        tokens = _split(line, source, number)
        while tokens and _ASSIGNMENT.match(tokens[0]):  # VAR=value tvmc ...
            tokens = tokens[1:]
        if tokens and _PROGRAMS.fullmatch(tokens[0]):
            args = tokens[1:]
        elif (
            len(tokens) >= 3 and Path(tokens[0]).name.startswith("python") and tokens[1:3] == ["-m", "tvm.driver.tvmc"]
        ):
            args = tokens[3:]
        else:
            continue
        command = _subcommand(args)
        if command in ("compile", "tune"):
            found.append((number, args))
        else:
            others.append(f"`tvmc {command}`" if command else "`tvmc`")
    if not found and others:
        raise TvmcError(
            f"{', '.join(others)} holds no compilation config to migrate",
            Location(source),
            hint="migrate a `tvmc compile` command",
            rule="migrate-input",
        )
    return found


def _subcommand(args: list[str]) -> str | None:
    skip = False
    for token in args:
        if skip:
            skip = False
        elif token == "--config":
            skip = True
        elif not token.startswith("-"):
            return token
    return None


# Keys of an old tvmc JSON config that a tvmc config does not have at its top level (argparse dest
# names of old `tvmc compile`, in either spelling, as config_options.py read them).
