"""Shared helpers for the load-stage tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tvmc.sources.layer import make_pointer


def all_pointers(data: Any, prefix: tuple[str | int, ...] = ()) -> Iterator[str]:
    """Every pointer below `data` (not the document itself), parents before children."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield make_pointer((*prefix, key))
            yield from all_pointers(value, (*prefix, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield make_pointer((*prefix, i))
            yield from all_pointers(value, (*prefix, i))
