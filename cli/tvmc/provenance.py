"""Where every value of a resolved config came from, and the JSON-pointer helpers that key it.

A config tree travels through the pipeline as `Tree(data, origins)`: `origins` maps the RFC 6901
pointer of every node (tables, lists and leaves) to an `Origin`. File positions are resolved
lazily through the layer that supplied the value, so loading stays cheap when nobody asks.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from tvmc.errors import Location
from tvmc.pointers import join, split
from tvmc.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, Protocol

    OriginKind = Literal["file", "flag", "env", "default"]

    class Locator(Protocol):
        """Anything that can turn a pointer into a file position (a loaded `sources.Layer`)."""

        def locate(self, pointer: str) -> Location: ...

        def string_start(self, pointer: str) -> Location | None: ...


@record(slots=True, frozen=True)
class Origin:
    """The source of one value: a file position, a flag, an environment variable, or a default."""

    kind: OriginKind
    source: str  # file source, flag text, env var name, or what the default belongs to
    pointer: str = ""  # the value's pointer inside its own layer (files only)
    chain: tuple[str, ...] = ()  # how a file was reached: ("--config aws/c5", "extends aws/base")
    # Where `location()` looks the pointer up; not part of the origin's value (no `==`, hash, repr).
    layer: Locator | None = field(default=None, compare=False, repr=False)

    @staticmethod
    def default(what: str = "tvmc") -> Origin:
        return Origin("default", what)

    def location(self) -> Location:
        """The file:line:col (files), or the flag/env/default text as a location."""
        if self.kind == "file" and self.layer is not None:
            return self.layer.locate(self.pointer)
        if self.kind == "env":
            return Location(f"env {self.source}")
        if self.kind == "default":
            return Location(f"default ({self.source})" if self.source != "tvmc" else "default")
        return Location(self.source)

    def string_start(self) -> Location | None:
        """Where the text of the quoted string this value is begins, for a value a file wrote as an
        array element (so an error inside a target string is located at its column); else None."""
        return self.layer.string_start(self.pointer) if self.kind == "file" and self.layer is not None else None

    def where(self) -> str:
        """The source as an error names it: `env TVMC_X` for a variable (as `location()` does), the
        flag text or file source otherwise (no line:col, which needs the layer)."""
        return f"env {self.source}" if self.kind == "env" else self.source

    def __str__(self) -> str:
        text = str(self.location())
        if self.chain:
            text += " (via " + ", ".join(self.chain) + ")"
        return text


# ---- walking trees by JSON pointer (`tvmc.pointers`) ---------------------------------------------


def node_at(data: Any, pointer: str, default: Any = None) -> Any:
    """The node of a plain tree at `pointer` (a list index is a decimal token), or `default` when
    there is none: a missing key, an index out of range, or a step into a scalar."""
    node = data
    for token in split(pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return default
    return node


def walk(value: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    """Every (pointer, node) of a plain tree, parents before children."""
    yield pointer, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from walk(child, join(pointer, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from walk(child, join(pointer, index))


def is_within(pointer: str, prefix: str) -> bool:
    return pointer == prefix or pointer.startswith(prefix + "/")


Origins = dict[str, Origin]


def origins_for(value: Any, pointer: str, origin_at: Any) -> Origins:
    """Origins for every node of `value` placed at `pointer`; `origin_at(local_pointer)` makes one."""
    base = len(pointer)
    return {p: origin_at(p[base:]) for p, _ in walk(value, pointer)}


_UNKNOWN: Any = object()


def drop(origins: Origins, prefix: str, value: Any = _UNKNOWN) -> None:
    """Forget the origins of a subtree (it is being replaced or removed).

    Given the subtree's current `value`, only its own nodes are visited: every node has its
    origin under its own pointer, so this is linear in the subtree instead of in all origins
    (which made layering and long rewrite lists quadratic)."""
    if value is _UNKNOWN:
        for key in [k for k in origins if is_within(k, prefix)]:
            del origins[key]
        return
    for pointer, _ in walk(value, prefix):
        origins.pop(pointer, None)


def rebase(origins: Origins, old: str, new: str, value: Any = _UNKNOWN) -> None:
    """Move a subtree's origins (a list element shifted by an insert or delete); `value`, the
    subtree, bounds the work as for `drop`."""
    if value is _UNKNOWN:
        moved = {new + k[len(old) :]: v for k, v in origins.items() if is_within(k, old)}
    else:
        moved = {new + p[len(old) :]: origins[p] for p, _ in walk(value, old) if p in origins}
    drop(origins, old, value)
    origins.update(moved)


def origin_of(origins: Mapping[str, Origin], pointer: str) -> Origin | None:
    """The origin of a node, or of its nearest ancestor that has one."""
    while True:
        if pointer in origins:
            return origins[pointer]
        if not pointer:
            return None
        pointer = pointer.rsplit("/", 1)[0]


def printable(text: str) -> str:
    """User text as messages and origins show it, on one line: quoted (Python-style) when it holds
    line breaks or other unprintable characters."""
    return text if text.isprintable() else repr(text)
