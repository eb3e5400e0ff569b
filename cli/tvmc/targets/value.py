"""One target value, read once: parsed, its legacy settings lifted, canonicalized.

The rule engine and canonicalization both need every target of a resolved tree, parsed (for the
settings a legacy string lifts and its notes) and canonical (for every rule and for the
CompilationConfig). `TargetReader` reads each target of one tree once, on first use, and hands
the same value to both, so a target is parsed once per resolution (issue 26, invariant 5).
"""

from __future__ import annotations

from collections.abc import Mapping

from tvmc.errors import Location, TargetError
from tvmc.records import record
from tvmc.targets import tables as T
from tvmc.targets.canonical import canonicalize
from tvmc.targets.parse import parse_target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True, slots=True)
class TargetValue:
    """A target as written (`raw`), parsed (`spec`, `lifted`, `notes`) and canonical.

    `canonical` is TVM 0.27's export of the target without its `compiler` (not checked here: the
    rule engine has its own rule for it, compiler-mismatch, and `resolve_system` checks it as
    `canonicalize` does); `with_compiler()` is the target a build uses. Read-only: never mutate."""

    raw: Any
    spec: Mapping[str, Any]
    lifted: Mapping[str, Any]
    notes: tuple[str, ...]
    canonical: Mapping[str, Any]
    compiler: str | None

    def with_compiler(self) -> dict[str, Any]:
        """A fresh copy of the canonical target with its `compiler`, if any (the caller may mutate it)."""
        out = T.copy_json(dict(self.canonical))
        if self.compiler is not None:
            out["compiler"] = self.compiler
        return out


def read_target(raw: Any, source: Location | None = None) -> TargetValue:
    """Parse and canonicalize one target (any form `parse_target` takes); TargetError when TVM
    would reject it (`source` locates the error)."""
    parsed = parse_target(raw, source=source)
    spec = parsed.spec
    compiler = spec.get("compiler") if isinstance(spec, dict) else None
    if compiler is not None and not isinstance(compiler, str):
        raise T.type_error("compiler", "str", compiler, source, "")
    bare = {k: v for k, v in spec.items() if k != "compiler"} if compiler is not None else spec
    canonical = canonicalize(bare, source=source)
    return TargetValue(raw, spec, parsed.lifted, parsed.notes, canonical, compiler)


class TargetReader:
    """The targets of one resolution, each read once, on first use, wherever it is asked for:
    by layering (which target can be a host), the rule engine and canonicalization.

    Keyed by what was written (a string, or a table's repr: it tells 1, 1.0, True and "1" apart),
    not by where, since layering moves a target (a CPU target becomes the host). Not a cache
    across configs: it lives as long as one tree, so nothing is ever stale."""

    __slots__ = ("_read",)

    def __init__(self) -> None:
        self._read: dict[str, TargetValue | TargetError] = {}

    def read(self, raw: Any) -> TargetValue:
        """The value of the target `raw`; TargetError (unlocated) when it is invalid."""
        key = raw if isinstance(raw, str) else "\0" + repr(raw)
        done = self._read.get(key)
        if done is None:
            try:
                done = read_target(raw)
            except TargetError as err:
                done = err
            self._read[key] = done
        if isinstance(done, TargetError):
            raise done.with_traceback(None)
        return done
