"""Targets for the semantic rules: memoised canonicalization through `tvmc.targets`.

Canonicalizing is the most expensive rule, and the configs of one repository share most of their
targets (the same tags, the same CPU), so results (and errors) are memoised in a bounded LRU.
"""

from __future__ import annotations

from collections import OrderedDict

from tvmc import targets as tg
from tvmc.errors import Location, TargetError
from tvmc.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Canonical = tuple[dict[str, Any], str | None, dict[str, Any]]


@record(slots=True)
class Target:
    """One top-level target (or the config host) after canonicalization."""

    pointer: str
    raw: Any
    canonical: dict[str, Any]
    compiler: str | None
    lifted: dict[str, Any] = field(default_factory=dict)


_CACHE: OrderedDict[str, Canonical | TargetError] = OrderedDict()
_CACHE_SIZE = 2048  # distinct targets; configs of one repository share most of theirs


def canonicalize(raw: Any, start: Location | None = None) -> Canonical:
    """(canonical target, compiler, lifted settings) of a raw target; TargetError if TVM would reject it.

    Memoised (bounded) when no location is asked for: the results are only read, never mutated."""
    if start is not None:
        return _canonicalize_uncached(raw, start)
    # repr tells plain values apart (1, 1.0, True, "1") and costs a third of a sorted json.dumps;
    # the same table written in another key order only misses the cache.
    key = raw if isinstance(raw, str) else "\0" + repr(raw)
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
    else:
        try:
            hit = _canonicalize_uncached(raw, None)
        except TargetError as err:
            hit = err
        _CACHE[key] = hit
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    if isinstance(hit, TargetError):
        raise hit.with_traceback(None)  # a cached error must not pile up tracebacks on each raise
    return hit


def _canonicalize_uncached(raw: Any, start: Location | None) -> Canonical:
    parsed = tg.parse_target(raw, source=start)
    spec = parsed.spec
    compiler = spec.get("compiler") if isinstance(spec, dict) else None
    if compiler is not None:  # checked by its own rule (compiler-mismatch), not by canonicalize
        spec = {k: v for k, v in spec.items() if k != "compiler"}
    canonical = tg.canonicalize(spec, source=start)
    return canonical, compiler if isinstance(compiler, str) else None, parsed.lifted
