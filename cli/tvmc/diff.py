"""The difference of two resolved configs, key path by key path, each side with its origin.

    >>> from tvmc.api import resolve
    >>> from tvmc.diff import diff
    >>> [d.path for d in diff(resolve(["aws/c5"]), resolve(["aws/c5.large"]))]
    ['host.num-cores', 'host.tag', 'targets[0].num-cores', 'targets[0].tag']

Configs are compared in canonical form, so spellings that mean the same compare equal. Like the
fingerprint, the comparison ignores `description`: `diff` is empty exactly when the two
fingerprints are equal. Lists of targets (and composite devices) are compared element by element;
any other list (keys, mattr, disabled-pass) is one value.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from tvmc.api import Resolved
from tvmc.pointers import display_path, join
from tvmc.provenance import Origin
from tvmc.records import record


class _Absent:
    """The value of a side that does not have the key."""

    def __repr__(self) -> str:
        return "(absent)"


ABSENT: Any = _Absent()
IGNORED = ("description",)  # not part of a config's meaning (nor of its fingerprint)


@record(frozen=True)
class Difference:
    """One key path whose value differs; a side without the key holds `ABSENT`."""

    pointer: str  # RFC 6901 pointer into the canonical config, e.g. /targets/0/mcpu
    left: Any
    right: Any
    left_origin: Origin | None
    right_origin: Origin | None

    @property
    def path(self) -> str:
        """The key path as tvmc writes it elsewhere: `targets[0].mcpu`."""
        return display_path(self.pointer)

    @property
    def change(self) -> Literal["added", "removed", "changed"]:
        if self.left is ABSENT:
            return "added"
        if self.right is ABSENT:
            return "removed"
        return "changed"

    def to_json(self) -> dict[str, Any]:
        def side(value: Any, origin: Origin | None) -> dict[str, Any] | None:
            return None if value is ABSENT else {"value": value, "origin": str(origin) if origin else None}

        return {
            "path": self.path,
            "pointer": self.pointer,
            "change": self.change,
            "left": side(self.left, self.left_origin),
            "right": side(self.right, self.right_origin),
        }


def diff(a: Resolved, b: Resolved) -> list[Difference]:
    """Every key path where `a` and `b` differ, in canonical (sorted) order."""
    left = {k: v for k, v in a.to_dict().items() if k not in IGNORED}
    right = {k: v for k, v in b.to_dict().items() if k not in IGNORED}
    return [
        Difference(
            pointer,
            lv,
            rv,
            a.origin(pointer) if lv is not ABSENT else None,
            b.origin(pointer) if rv is not ABSENT else None,
        )
        for pointer, lv, rv in _compare(left, right, "")
    ]


def _is_table_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _compare(left: Any, right: Any, pointer: str) -> Iterator[tuple[str, Any, Any]]:
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        for key in sorted(set(left) | set(right)):
            yield from _compare(left.get(key, ABSENT), right.get(key, ABSENT), join(pointer, key))
    elif _is_table_list(left) and _is_table_list(right):
        for index in range(max(len(left), len(right))):
            yield from _compare(
                left[index] if index < len(left) else ABSENT,
                right[index] if index < len(right) else ABSENT,
                join(pointer, index),
            )
    elif left != right or type(left) is not type(right):  # 1 == True, but not the same value
        yield pointer, left, right


def format_text(differences: list[Difference], left_name: str, right_name: str) -> str:
    """`--- A` / `+++ B`, then per key path the two sides, each with its origin. Empty if equal."""
    if not differences:
        return ""
    lines = [f"--- {left_name}", f"+++ {right_name}"]
    for d in differences:
        lines.append(d.path)
        for sign, value, origin in (("-", d.left, d.left_origin), ("+", d.right, d.right_origin)):
            if value is ABSENT:
                lines.append(f"  {sign} (absent)")
            else:
                lines.append(f"  {sign} {_show(value)}    [{origin}]")
    return "\n".join(lines) + "\n"


def format_json(differences: list[Difference], left: tuple[str, Resolved], right: tuple[str, Resolved]) -> str:
    """Both sides (reference and fingerprint), whether they are equal, and the differences."""
    doc = {
        "equal": not differences,
        "left": {"config": left[0], "fingerprint": left[1].fingerprint()},
        "right": {"config": right[0], "fingerprint": right[1].fingerprint()},
        "differences": [d.to_json() for d in differences],
    }
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _show(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)
