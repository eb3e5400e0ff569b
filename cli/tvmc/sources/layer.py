"""`Layer`: one parsed config document plus a lazy pointer → (line, col) index.

Pointers are RFC 6901 JSON pointers: "" is the document, "/targets/0/mcpu" a member. The index is
built only when an error needs a position, so loading many valid files never pays for it.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tvmc.errors import Location
from tvmc.provenance import make_pointer as make_pointer
from tvmc.provenance import split

# The pointer syntax is implemented once, in `provenance`; `make_pointer` and `split_pointer` are
# the names `sources` exports.


def split_pointer(pointer: str) -> list[str]:
    """`"/a~1b/0"` → `["a/b", "0"]`. Raises ValueError for a pointer that does not start with "/"."""
    if pointer and not pointer.startswith("/"):
        raise ValueError(f"not a JSON pointer: {pointer!r}")
    return split(pointer)


class LineIndex:
    """Offset (0-based, in characters) → 1-based (line, column) for one text."""

    def __init__(self, text: str) -> None:
        starts = [0]
        find = text.find
        i = find("\n")
        while i != -1:
            starts.append(i + 1)
            i = find("\n", i + 1)
        self._starts = starts

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1


def offset_position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of one offset, without building a full index."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


class _Positions(Mapping[str, tuple[int, int]]):
    """Pointer → (line, column), converted from the offset index on lookup: a file with one error
    asks for one or two of its positions."""

    def __init__(self, offsets: Mapping[str, int], text: str) -> None:
        self._offsets = offsets
        self._text = text
        self._lines: LineIndex | None = None

    def __getitem__(self, pointer: str) -> tuple[int, int]:
        offset = self._offsets[pointer]
        if self._lines is None:
            self._lines = LineIndex(self._text)
        return self._lines.position(offset)

    def __iter__(self) -> Iterator[str]:
        return iter(self._offsets)

    def __len__(self) -> int:
        return len(self._offsets)


@dataclass(slots=True, frozen=True)
class Layer:
    """One config document as loaded, before any merging.

    `source` is what users see in messages, `path` the absolute (normalised, symlinks kept) path
    of the file, `name` the config name when it was found by name on the search path. `text` is
    the decoded document (BOM removed), kept only so that positions can be computed on demand.
    """

    source: str
    path: Path | None
    data: dict[str, Any]
    format: str  # "toml" | "json" | "tag"
    name: str | None = None
    text: str | None = field(default=None, compare=False, repr=False)
    # Position indexes, built from `text` when first asked for (set once, with object.__setattr__:
    # a cache of the frozen layer's own value, not a change of it).
    _offset_index: Mapping[str, int] | None = field(default=None, init=False, compare=False, repr=False)
    _position_index: Mapping[str, tuple[int, int]] | None = field(default=None, init=False, compare=False, repr=False)

    def named(self, name: str) -> Layer:
        """The same document, found by `name` on the search path."""
        return Layer(self.source, self.path, self.data, self.format, name, self.text)

    @property
    def _offsets(self) -> Mapping[str, int]:
        offsets = self._offset_index
        if offsets is None:
            offsets = self._index()
            object.__setattr__(self, "_offset_index", offsets)
        return offsets

    def _index(self) -> Mapping[str, int]:
        # lazy: the indexers are only needed when a position is actually asked for.
        if self.text is None:
            return {}
        if self.format == "toml":
            from tvmc.sources.toml_positions import index_toml

            return index_toml(self.text)
        if self.format == "json":
            from tvmc.sources.json_positions import index_json

            return index_json(self.text).offsets
        return {}

    @property
    def positions(self) -> Mapping[str, tuple[int, int]]:
        """Every located pointer → 1-based (line, column) of its key, array element or value."""
        positions = self._position_index
        if positions is None:
            offsets = self._offsets
            positions = _Positions(offsets, self.text) if offsets and self.text is not None else {}
            object.__setattr__(self, "_position_index", positions)
        return positions

    def locate(self, pointer: str) -> Location:
        """Where `pointer` is written; the nearest located ancestor when it is not (e.g. a value
        that came from a default), and just the source for tags and documents without text."""
        positions = self.positions
        split_pointer(pointer)  # validates the syntax; a bad pointer is a programming error
        ptr = pointer
        while True:
            found = positions.get(ptr)
            if found is not None:
                return Location(self.source, found[0], found[1])
            if not ptr:
                return Location(self.source)
            ptr = ptr[: ptr.rfind("/")]
