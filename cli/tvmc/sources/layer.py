"""`Layer`: one parsed config document plus a lazy pointer → (line, col) index.

Pointers are RFC 6901 JSON pointers: "" is the document, "/targets/0/mcpu" a member. The index is
built only when an error needs a position, so loading many valid files never pays for it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from tvmc.errors import Location
from tvmc.pointers import make_pointer as make_pointer
from tvmc.pointers import split
from tvmc.records import field, record

# typing and pathlib are not imported at run time: every command would pay for them at start-up
# (scripts/bench_startup.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path
    from typing import Any

# The pointer syntax is implemented once, in `tvmc.pointers`; `make_pointer` and `split_pointer`
# are the names `sources` exports.


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
        import bisect  # here: only an error's position needs it

        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1


def offset_position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of one offset, without building a full index."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


_COUNTED_LOOKUPS = 8


class _Positions(Mapping[str, tuple[int, int]]):
    """Pointer → (line, column), converted from the offset index on lookup: a file with one error
    asks for one or two of its positions. The text is scanned only as far as lookups need: the
    first one scans up to its pointer, a later one that misses scans the whole text (so a file with
    many findings scans it at most one and a half times)."""

    def __init__(self, index: Callable[[str | None], dict[str, int]], text: str) -> None:
        self._index = index  # index(until): the offsets of the text up to `until` (None: all of them)
        self._text = text
        self._offsets: dict[str, int] | None = None
        self._complete = False
        self._lines: LineIndex | None = None
        self._lookups = 0

    def _scanned(self, pointer: str | None) -> dict[str, int]:
        """The offsets, scanned at least up to `pointer` (None: completely)."""
        offsets = self._offsets
        if offsets is not None and (self._complete or (pointer is not None and pointer in offsets)):
            return offsets
        until = pointer if offsets is None else None
        offsets = self._index(until)
        # A scan that did not find `until` went to the end (or stopped at text it cannot read).
        self._offsets, self._complete = offsets, until is None or until not in offsets
        return offsets

    def __getitem__(self, pointer: str) -> tuple[int, int]:
        offset = self._scanned(pointer)[pointer]
        if self._lines is None:
            # The first few lookups count the lines before their offset (in C); a file asked for
            # more gets a line index (a Python loop over its lines), built once.
            self._lookups += 1
            if self._lookups <= _COUNTED_LOOKUPS:
                return offset_position(self._text, offset)
            self._lines = LineIndex(self._text)
        return self._lines.position(offset)

    def __iter__(self) -> Iterator[str]:
        return iter(self._scanned(None))

    def __len__(self) -> int:
        return len(self._scanned(None))


@record(slots=True, frozen=True, init=False)
class Layer:
    """One config document as loaded, before any merging.

    `source` is what users see in messages, `path` the absolute (normalised, symlinks kept) path
    of the file (`file` as text), `name` the config name when it was found by name on the search
    path. `text` is the decoded document (BOM removed), kept only so that positions can be computed
    on demand.
    """

    source: str
    file: str | None
    data: dict[str, Any]
    format: str  # "toml" | "json" | "tag"
    name: str | None = None
    text: str | None = field(default=None, compare=False, repr=False)
    # Built when first asked for (set once, with object.__setattr__: caches of the frozen layer's
    # own value, not changes of it): the `Path`, and the position indexes of `text`.
    _path: Path | None = field(default=None, compare=False, repr=False)
    _offset_index: dict[str, int] | None = field(default=None, compare=False, repr=False)
    _position_index: Mapping[str, tuple[int, int]] | None = field(default=None, compare=False, repr=False)

    def __init__(
        self,
        source: str,
        path: str | os.PathLike[str] | None,
        data: dict[str, Any],
        format: str,
        name: str | None = None,
        text: str | None = None,
    ) -> None:
        # Written out to take the path as text: building a Path object costs about as much as
        # checking a small file, and validation needs it only to expand `extends`.
        init = object.__setattr__
        init(self, "source", source)
        init(self, "file", os.fspath(path) if path is not None else None)
        init(self, "data", data)
        init(self, "format", format)
        init(self, "name", name)
        init(self, "text", text)
        init(self, "_path", None)  # made from `file` when first asked for
        init(self, "_offset_index", None)
        init(self, "_position_index", None)

    @property
    def path(self) -> Path | None:
        if self._path is None and self.file is not None:
            from pathlib import Path

            object.__setattr__(self, "_path", Path(self.file))
        return self._path

    def named(self, name: str) -> Layer:
        """The same document, found by `name` on the search path."""
        return Layer(self.source, self.file, self.data, self.format, name, self.text)

    def _index(self, until: str | None) -> dict[str, int]:
        """The offsets of `text`, scanned up to `until` (None: all); kept as `_offset_index`."""
        # lazy: the indexers are only needed when a position is actually asked for.
        assert self.text is not None
        if self.format == "toml":
            from tvmc.sources.toml_positions import index_toml

            offsets = index_toml(self.text, until=until)
        else:
            from tvmc.sources.json_positions import index_json

            offsets = index_json(self.text, until=until).offsets
        object.__setattr__(self, "_offset_index", offsets)
        return offsets

    @property
    def positions(self) -> Mapping[str, tuple[int, int]]:
        """Every located pointer → 1-based (line, column) of its key, array element or value."""
        positions = self._position_index
        if positions is None:
            located = self.text is not None and self.format in ("toml", "json")
            positions = _Positions(self._index, self.text) if located and self.text is not None else {}
            object.__setattr__(self, "_position_index", positions)
        return positions

    def string_start(self, pointer: str) -> Location | None:
        """Where the text of the quoted string that is the array element `pointer` begins (None:
        it is not one), so that an error inside a target string is located at its column."""
        if not pointer.rsplit("/", 1)[-1].isdigit() or self.text is None:
            return None
        pos = self.positions.get(pointer)
        if pos is None:
            return None
        line, col = pos
        text = self.text.split("\n", line)[line - 1] if line > 0 else ""
        quote = text[col - 1 : col]
        if quote in ("'", '"') and text[col - 1 : col + 2] != quote * 3:
            return Location(self.source, line, col + 1)
        return None

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
