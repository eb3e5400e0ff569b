"""`tvm-version`: the one grammar of TVM version specifiers, and what a specifier admits.

Comma-separated PEP 440-like clauses: `>=0.25`, `<=0.19, >0.8`, `0.27`, `!=0.26`. A bound names a
release series: `<=0.19` admits 0.19.x, `>0.24` means `>=0.25`, `0.27` means 0.27.x. Resolution,
validation, the build plan and the emitters all read specifiers here (`admits`, `generation`);
which releases tvmc supports is `registry.supports`.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    Generation = Literal["modern", "legacy"]

MODERN_SINCE = (0, 25)  # TVM 0.25 replaced Relay with Relax: the "modern" generation starts here

_CLAUSE = r"(?:>=|<=|==|!=|~=|>|<|=)?\s*[0-9]+(?:\.[0-9]+){0,2}"
TVM_VERSION_PATTERN = rf"^\s*{_CLAUSE}(?:\s*,\s*{_CLAUSE})*\s*$"


# Compiled on first use, as every pattern on `config show`'s path: compiling costs start-up, and a
# config without `tvm-version` never needs them.
@cache
def tvm_version_re() -> re.Pattern[str]:
    return re.compile(TVM_VERSION_PATTERN)


@cache
def _clause_re() -> re.Pattern[str]:
    return re.compile(r"\s*(>=|<=|==|!=|~=|>|<|=)?\s*([0-9]+(?:\.[0-9]+){0,2})\s*")


Version = tuple[int, ...]


def parse_version(text: str) -> Version:
    return tuple(int(p) for p in text.split("."))


def clauses(spec: object) -> list[tuple[str, Version]] | None:
    """The (operator, version) clauses of a specifier; None when it is not one."""
    if not isinstance(spec, str) or not tvm_version_re().match(spec):
        return None
    out = []
    for clause in spec.split(","):
        m = _clause_re().fullmatch(clause)
        if m is None:
            return None
        out.append((m.group(1) or "==", parse_version(m.group(2))))
    return out


def _next(version: Version) -> Version:
    """The first release after a series: 0.19 → 0.20, 0.19.1 → 0.19.2."""
    return (*version[:-1], version[-1] + 1)


def _full(version: Version) -> Version:
    """A release as major.minor.patch: 0.19 → 0.19.0."""
    return (*version, 0, 0, 0)[:3]


def _holds(op: str, bound: Version, version: Version) -> bool:
    series = version[: len(bound)]
    return {
        "==": series == bound,
        "=": series == bound,
        "!=": series != bound,
        ">=": series >= bound,
        # PEP 440's compatible release: `~=0.25` is >=0.25, ==0.*; `~=0.19.0` is >=0.19.0, ==0.19.*.
        "~=": series >= bound and (len(bound) < 2 or version[: len(bound) - 1] == bound[:-1]),
        ">": version >= _next(bound),
        "<": version < bound,
        "<=": version < _next(bound),
    }[op]


@lru_cache(maxsize=256)
def _admits(spec: str, low: Version, high: Version | None) -> bool:
    parsed = clauses(spec)
    if parsed is None:
        return True
    # A clause changes its truth only where a series it names begins or ends: checking `low` and
    # every such point inside the range decides the whole range.
    points = {low} | {
        point
        for op, bound in parsed
        for point in (
            _full(bound),
            _full(_next(bound)),
            *((_full(_next(bound[:-1])),) if op == "~=" and len(bound) > 1 else ()),
        )
        if low < point and (high is None or point < high)
    }
    return any(all(_holds(op, bound, v) for op, bound in parsed) for v in points)


def admits(spec: object, low: Version, high: Version | None = None) -> bool:
    """Whether a specifier admits some TVM release from `low` up to (not including) `high` (None:
    no upper end): `admits(">=0.25", (0, 25))`. No specifier, or a malformed one, admits all
    (validation reports a malformed one; nothing else refuses on it)."""
    if not isinstance(spec, str):
        return True
    return _admits(spec, _full(low), None if high is None else _full(high))


def admits_series(spec: object, series: str) -> bool:
    """Whether a specifier admits some release of a series such as "0.19" (0.19.x)."""
    version = parse_version(series)
    return admits(spec, version, _next(version))


def generation(spec: object) -> Generation | None:
    """What a specifier admits: "modern" (only TVM >= 0.25), "legacy" (only TVM < 0.25), or None
    (no specifier, a malformed one, one admitting nothing, or a range spanning both)."""
    if not isinstance(spec, str):
        return None
    return _generation(spec)


@lru_cache(maxsize=256)
def _generation(spec: str) -> Generation | None:
    if clauses(spec) is None:
        return None
    modern, legacy = admits(spec, MODERN_SINCE), admits(spec, (0,), MODERN_SINCE)
    return "modern" if modern and not legacy else "legacy" if legacy and not modern else None


def canonical_spec(spec: str) -> str:
    """One spelling per meaning: `">= 0.25"`, `">=0.25"` and `">0.24"` are all `">=0.25"`.

    Each clause is written without spaces, a bound where a series begins without its zeros
    (`>=0.25.0` is `>=0.25`), an exclusive bound of a series as the inclusive bound of its
    neighbour (`>0.24` is `>=0.25`, `<0.25` is `<=0.24`), `==`/`=` as the bare version;
    clauses are deduplicated and sorted. A malformed specifier is returned as it is (validation
    reports it)."""
    parsed = clauses(spec)
    if parsed is None:
        return spec
    out = set()
    for op, bound in parsed:
        while op in (">=", "<") and len(bound) > 1 and bound[-1] == 0:
            bound = bound[:-1]  # where a series begins: `>=0.25.0` is `>=0.25`, `<0.25.0` is `<0.25`
        if op == ">":
            op, bound = ">=", _next(bound)
        elif op == "<" and bound[-1] > 0:
            op, bound = "<=", (*bound[:-1], bound[-1] - 1)
        text = ".".join(map(str, bound))
        out.add(text if op in ("==", "=") else f"{op}{text}")
    return ", ".join(sorted(out, key=lambda c: (c.lstrip("<>=!~"), c)))
