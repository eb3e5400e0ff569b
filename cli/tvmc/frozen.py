"""Deeply immutable config values: tables as `FrozenDict`, arrays as tuples.

A resolved `CompilationConfig` holds its tables this way, so that no caller can change a config
another part of tvmc (or a cache) still holds, and so that a config can be hashed. `thaw` gives
back plain, fresh dicts and lists, as the JSON and TOML writers take them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class FrozenDict(Mapping[str, "Any"]):  # quoted: `typing` is imported for type checking only
    """A read-only table over a private copy of its items; hashable (its values are frozen), and
    equal to any mapping with the same items, as a dict is."""

    __slots__ = ("_hash", "_items")

    _items: dict[str, Any]
    _hash: int | None

    def __init__(self, items: Mapping[str, Any] | None = None) -> None:
        object.__setattr__(self, "_items", dict(items) if items is not None else {})
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"FrozenDict is read-only: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"FrozenDict is read-only: cannot delete {name!r}")

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenDict):
            return self._items == other._items
        if isinstance(other, dict):
            return self._items == other
        if isinstance(other, Mapping):
            return self._items == dict(other.items())
        return NotImplemented

    def __hash__(self) -> int:
        value = self._hash
        if value is None:
            value = hash(frozenset(self._items.items()))
            object.__setattr__(self, "_hash", value)
        return value

    def __repr__(self) -> str:
        return f"FrozenDict({self._items!r})"

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        return FrozenDict, (self._items,)


def freeze(value: Any) -> Any:
    """`value` with every table a `FrozenDict` and every array a tuple, at every depth (a copy)."""
    if isinstance(value, FrozenDict):
        return value
    if isinstance(value, Mapping):
        return FrozenDict({key: freeze(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(item) for item in value)
    return value


def thaw(value: Any) -> Any:
    """`value` with every table a new dict and every array a new list, at every depth."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(item) for item in value]
    return value
