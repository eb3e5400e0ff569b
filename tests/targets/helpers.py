"""Helpers for comparing tvmc with TVM."""

from __future__ import annotations

import copy
import importlib
from typing import Any

from tvmc.errors import TargetError
from tvmc.targets import canonicalize

Outcome = tuple[str, Any]  # ("ok", plain export) or ("error", message)


def plain(obj: Any) -> Any:
    """TVM FFI containers (and Targets inside composite devices) → plain JSON values."""
    if isinstance(obj, importlib.import_module("tvm.target").Target):
        return plain(obj.export())
    if obj is None or isinstance(obj, (str, bool, int, float)):
        return obj
    if hasattr(obj, "items"):
        return {str(k): plain(v) for k, v in obj.items()}
    return [plain(v) for v in obj]


def ours(spec: Any, **kwargs: Any) -> Outcome:
    try:
        return "ok", canonicalize(spec, **kwargs)
    except TargetError as err:
        return "error", err.one_line()


def strip_paths(export: Any, paths: tuple[tuple[str | int, ...], ...]) -> Any:
    """A copy of a TVM export without the given key paths (machine-filled values)."""
    out = copy.deepcopy(export)
    for path in paths:
        node = out
        for step in path[:-1]:
            if isinstance(node, dict) and isinstance(step, str):
                node = node.get(step)
            elif isinstance(node, list) and isinstance(step, int) and step < len(node):
                node = node[step]
            else:
                node = None
        if isinstance(node, dict):
            node.pop(path[-1], None)
    return out
