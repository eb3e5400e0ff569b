"""Old tvmc's `--target` comma list: "ethos-u -accelerator_config=ethos-u55-256, cmsis-nn, c".

Semantics kept from old tvmc (python/tvm/driver/tvmc/target.py, v0.18/v0.19): BYOC codegens
become their own targets in the order given (their partition priority), the first other kind is
the target and a second one is its host; two entries of one kind are refused ("Duplicate target
definitions are not allowed"); a double-quoted value `-k="a,b"` is quoted like `-k='a,b'` (its
tokenizer took both quotes; `legacy.double_quotes_as_single` applies that to every legacy string,
in a file too). Fixed: tags are not split (`nvidia/geforce-gt-730-ddr3,128bit` is one tag), nor
are commas inside quotes or inside a `-mattr=+a,+b` value; nothing is silently dropped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from tvmc import registry
from tvmc.errors import Location, TargetError
from tvmc.records import record
from tvmc.targets.legacy import at
from tvmc.targets.parse import parse_target
from tvmc.targets.queries import kind_of
from tvmc.targets.spec import Spec, as_location


@record(slots=True, frozen=True)
class ParsedTargets:
    """A `--target` value: targets in order, the host a comma list implied, lifted settings, notes."""

    targets: tuple[Spec, ...]
    host: Spec | None
    lifted: dict[str, Any]
    notes: tuple[str, ...]


@cache
def _comma_tags() -> tuple[str, ...]:
    # Longest first, so that a tag that extends another one wins.
    return tuple(sorted((t for t in registry.tag_names() if "," in t), key=len, reverse=True))


def split_list(text: str) -> list[tuple[str, int]]:
    """The entries of a comma list with their offsets.

    A comma separates entries when it is outside quotes (' or ") and either ends the kind/tag
    word of an entry, stands alone, is followed by whitespace, or ends an option without `=`.
    Inside `-key=value` (or the value word of `-key value`) it belongs to the value.
    """
    entries: list[tuple[str, int]] = []
    start = 0
    in_word = False
    words = 0  # words started in the current entry
    word_start = 0
    prev_bare_key = False  # the previous word was `-key` without `=`, so this one is its value
    quote: str | None = None
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if quote is not None:
            if c == "\\" and quote == "'" and i + 1 < n:
                i += 2
                continue
            if c == quote:
                quote = None
            i += 1
            continue
        if c in " \t":
            if in_word:
                word = text[word_start:i]
                prev_bare_key = word.startswith("-") and "=" not in word
                in_word = False
            i += 1
            continue
        if not in_word:
            in_word = True
            words += 1
            word_start = i
            if words == 1:
                tag = next(
                    (
                        t
                        for t in _comma_tags()
                        if text.startswith(t, i) and (i + len(t) == n or text[i + len(t)] in " \t,")
                    ),
                    None,
                )
                if tag is not None:
                    i += len(tag)
                    continue
        if c == "\\" and i + 1 < n:
            i += 2
            continue
        if c in "'\"":
            quote = c
            i += 1
            continue
        if c == ",":
            word = text[word_start:i]
            in_value = (
                words > 1
                and word != ""
                and ((word.startswith("-") and "=" in word) or (not word.startswith("-") and prev_bare_key))
            )
            if not in_value or i + 1 >= n or text[i + 1] in " \t":
                entries.append((text[start:i], start))
                start = i + 1
                in_word, words, prev_bare_key = False, 0, False
        i += 1
    entries.append((text[start:], start))
    return entries


def parse_targets(
    value: str | Mapping[str, Any] | Sequence[str | Mapping[str, Any]], *, source: str | Location | None = None
) -> ParsedTargets:
    """Parse a `--target` value: one target, a tvmc comma list, or a sequence of either.

    In a comma list, BYOC codegen names (legacy kinds such as `cmsis-nn`, `ethos-u`) become
    their own targets, kept in order (partition priority); the first other kind is a target and
    a second one becomes `host`, as old tvmc did; a third is an error. A tag, JSON object text
    or a dict is always a single target. Each element of a sequence is parsed the same way and
    the targets are concatenated (the host rule applies within one comma list).
    """
    loc = as_location(source)
    if isinstance(value, (str, Mapping)):
        return _parse_one(value, loc)
    targets: list[Spec] = []
    host: Spec | None = None
    lifted: dict[str, Any] = {}
    notes: list[str] = []
    for item in value:
        part = _parse_one(item, loc)
        targets += part.targets
        if part.host is not None:
            if host is not None and host != part.host:
                raise TargetError("two comma lists imply different hosts", loc)
            host = part.host
        _merge_lifted(lifted, part.lifted, loc)
        notes += part.notes
    return ParsedTargets(tuple(targets), host, lifted, tuple(notes))


def _merge_lifted(into: dict[str, Any], new: Mapping[str, Any], loc: Location | None) -> None:
    for section, entries in new.items():
        dest = into.setdefault(section, {})
        for key, val in entries.items():
            if key in dest and dest[key] != val:
                raise TargetError(
                    f"conflicting legacy settings: {section}.{key} is both {dest[key]!r} and {val!r}", loc
                )
            dest[key] = val


def _parse_one(value: str | Mapping[str, Any], loc: Location | None) -> ParsedTargets:
    if not isinstance(value, str) or registry.is_tag(value) or value.lstrip().startswith("{"):
        parsed = parse_target(value, source=loc)
        return ParsedTargets((parsed.spec,), None, parsed.lifted, parsed.notes)
    entries = split_list(value)
    if len(entries) == 1:
        parsed = parse_target(value, source=loc)
        return ParsedTargets((parsed.spec,), None, parsed.lifted, parsed.notes)
    targets: list[Spec] = []
    host: Spec | None = None
    main: Spec | None = None
    lifted: dict[str, Any] = {}
    notes: list[str] = []
    seen_byoc: set[str] = set()
    for text, offset in entries:
        stripped = text.strip(" \t")
        entry_loc = at(loc, offset + (len(text) - len(text.lstrip(" \t"))))
        if not stripped:
            raise TargetError("empty entry in the target list", entry_loc, hint="remove the extra comma")
        try:
            parsed = parse_target(stripped, source=entry_loc)
        except TargetError as err:
            if stripped.startswith("+") and err.hint is None:
                raise TargetError(
                    err.message,
                    err.location,
                    suggestions=err.suggestions,
                    hint="a space after a comma ends the value: write -mattr=+a,+b or quote it: -mattr='+a, +b'",
                ) from None
            raise
        _merge_lifted(lifted, parsed.lifted, entry_loc)
        notes += parsed.notes
        kind = kind_of(parsed.spec)
        table = registry.all_kinds()[kind]
        if table.byoc:
            if kind in seen_byoc:
                raise TargetError(f"BYOC codegen {kind!r} is listed twice", entry_loc)
            seen_byoc.add(kind)
            targets.append(parsed.spec)
        elif main is None:
            main = parsed.spec
            targets.append(main)
        elif host is None:
            if kind == kind_of(main):
                raise TargetError(
                    f"{kind!r} is listed twice: old tvmc refused this (Duplicate target definitions are not allowed)",
                    entry_loc,
                    hint="give a host of the same kind with --target-host or a `host` key",
                )
            if "host" in main:
                raise TargetError(f"{stripped!r} would be the host, but the target already sets -host", entry_loc)
            host = parsed.spec
            notes.append(f"{stripped!r} is the host of the target (the second TVM kind in a tvmc list)")
        else:
            raise TargetError(
                f"too many TVM targets in the list: {stripped!r} would be the third",
                entry_loc,
                hint="a tvmc list holds BYOC codegens, one target and one host",
            )
    return ParsedTargets(tuple(targets), host, lifted, tuple(notes))
