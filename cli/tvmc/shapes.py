"""`--input-shapes`: old tvmc's syntax, with its known bugs fixed.

    SPEC   := ENTRY (SEP ENTRY)*          SEP := whitespace and/or commas
    ENTRY  := NAME ':' [spaces] '[' [DIM (',' DIM)*] ']'
    NAME   := any text without whitespace, ',', '[', ']' or '"'  (split at the last ':' before '[')
            | a double-quoted string with \\" and \\\\ escapes  (for names with spaces or commas)
    DIM    := a non-negative integer | -1 | ?                     (-1 and ? are dynamic)

Fixed against old tvmc (whose regex silently dropped what it did not match): names may contain
any number of `/`, `:` and `.` (`a/b/c:0:[1]` is the name `a/b/c:0`), `x:[]` is a scalar,
`?` is a dynamic dimension, and any text that is not an entry is an error naming its column.
"""

from __future__ import annotations

import re

from tvmc.errors import UsageError
from tvmc.values import IntTooLong, parse_int

Shape = tuple[int | None, ...]  # None: a dynamic dimension
Shapes = dict[str, Shape]

_SEP = re.compile(r"[\s,]*")
_ENTRY = re.compile(
    r'(?:"(?P<quoted>(?:[^"\\]|\\.)*)"|(?P<bare>[^\s,\[\]"]+?))'  # lazy: the last ':' before '[' splits
    r":[ \t]*\[(?P<dims>[^\[\]]*)\]"
)
_DIM = re.compile(r"\s*(?:(?P<num>-?\d+)|(?P<any>\?))\s*")
_LEGACY_NAME = re.compile(r"(?:\w+/)?[\w.:]+")  # what old tvmc's regex could match as a whole name
FLAG = "--input-shapes"


def parse_input_shapes(text: str, flag: str = FLAG) -> Shapes:
    """Parse a shape spec into {name: shape}, in the order given; raises UsageError (exit 2)."""
    shapes: Shapes = {}
    pos = _SEP.match(text).end()  # type: ignore[union-attr]  # `[\s,]*` always matches
    if pos == len(text):
        raise UsageError("empty input shapes (expected NAME:[D1,D2,...])", flag)
    while pos < len(text):
        match = _ENTRY.match(text, pos)
        if match is None:
            raise UsageError(
                f"cannot parse {_excerpt(text, pos)!r} at column {pos + 1} "
                '(expected NAME:[D1,D2,...]; quote names with spaces: "my input":[1])',
                flag,
            )
        name = _unescape(match["quoted"]) if match["quoted"] is not None else match["bare"]
        if name in shapes:
            raise UsageError(f"input {name!r} is given twice", flag)
        shapes[name] = _dims(match["dims"], name, flag)
        pos = match.end()
        sep = _SEP.match(text, pos).end()  # type: ignore[union-attr]
        if sep == pos and sep < len(text):
            raise UsageError(
                f"cannot parse {_excerpt(text, pos)!r} at column {pos + 1} (separate entries with spaces or commas)",
                flag,
            )
        pos = sep
    return shapes


def _dims(text: str, name: str, flag: str) -> Shape:
    if not text.strip():
        return ()  # a scalar
    dims: list[int | None] = []
    for part in text.split(","):
        match = _DIM.fullmatch(part)
        if match is None:
            raise UsageError(
                f"input {name!r}: bad dimension {part.strip()!r} "
                "(expected an integer >= 0, or -1 / ? for a dynamic dimension)",
                flag,
            )
        if match["any"] is not None:
            dims.append(None)
            continue
        try:
            value = parse_int(match["num"])
        except IntTooLong as err:
            raise UsageError(f"input {name!r}: bad dimension ({err})", flag) from None
        if value < -1:
            raise UsageError(f"input {name!r}: bad dimension {value} (use -1 or ? for a dynamic dimension)", flag)
        dims.append(None if value == -1 else value)
    return tuple(dims)


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _excerpt(text: str, pos: int) -> str:
    rest = text[pos:]
    return rest if len(rest) <= 30 else rest[:27] + "..."


def format_input_shapes(shapes: Shapes) -> str:
    """The spec text for `shapes` (parses back to the same dict); names are quoted when needed."""
    parts = []
    for name, shape in shapes.items():
        bare = re.fullmatch(r'[^\s,\[\]"]+', name) is not None
        shown = name if bare else '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
        dims = ",".join("?" if d is None else str(d) for d in shape)
        parts.append(f"{shown}:[{dims}]")
    return " ".join(parts)


def legacy_problem(shapes: Shapes) -> str | None:
    """Why old tvmc (TVM <= 0.19) could not read these shapes, or None if it can."""
    for name, shape in shapes.items():
        if _LEGACY_NAME.fullmatch(name) is None:
            return f"old tvmc cannot parse the input name {name!r} (only word characters, '.', ':' and one '/')"
        if not shape:
            return f"old tvmc cannot express the scalar input {name!r}"
        if 0 in shape:
            return f"old tvmc reads dimension 0 of {name!r} as dynamic"
    return None


def legacy_format(shapes: Shapes) -> str:
    """The spec in old tvmc's dialect (dynamic dimensions as -1); check `legacy_problem` first."""
    return " ".join(
        f"{name}:[{','.join('-1' if d is None else str(d) for d in shape)}]" for name, shape in shapes.items()
    )
