"""`tvm-version`: the one grammar of TVM version specifiers, and what a specifier admits.

Comma-separated PEP 440-like clauses: `>=0.25`, `<=0.19, >0.8`, `0.27`, `!=0.26`. A bound names a
release series: `<=0.19` admits 0.19.x, `>0.24` means `>=0.25`, `0.27` means 0.27.x. Resolution,
validation, the build plan and the emitters all read specifiers here.
"""

from __future__ import annotations

import re
from typing import Literal

MODERN_SINCE = (0, 25)  # TVM 0.25 replaced Relay with Relax: the "modern" generation starts here

_CLAUSE = r"(?:>=|<=|==|!=|~=|>|<|=)?\s*[0-9]+(?:\.[0-9]+){0,2}"
TVM_VERSION_PATTERN = rf"^\s*{_CLAUSE}(?:\s*,\s*{_CLAUSE})*\s*$"
TVM_VERSION_RE = re.compile(TVM_VERSION_PATTERN)
_CLAUSE_RE = re.compile(r"\s*(>=|<=|==|!=|~=|>|<|=)?\s*([0-9]+(?:\.[0-9]+){0,2})\s*")

Version = tuple[int, ...]
Generation = Literal["modern", "legacy"]


def parse_version(text: str) -> Version:
    return tuple(int(p) for p in text.split("."))


def clauses(spec: object) -> list[tuple[str, Version]] | None:
    """The (operator, version) clauses of a specifier; None when it is not one."""
    if not isinstance(spec, str) or not TVM_VERSION_RE.match(spec):
        return None
    out = []
    for clause in spec.split(","):
        m = _CLAUSE_RE.fullmatch(clause)
        if m is None:
            return None
        out.append((m.group(1) or "==", parse_version(m.group(2))))
    return out


def _next(version: Version) -> Version:
    """The first release after a series: 0.19 → 0.20, 0.19.1 → 0.19.2."""
    return (*version[:-1], version[-1] + 1)


def _holds(op: str, bound: Version, version: Version) -> bool:
    series = version[: len(bound)]
    return {
        "==": series == bound,
        "=": series == bound,
        "!=": series != bound,
        ">=": series >= bound,
        "~=": series >= bound,
        ">": version >= _next(bound),
        "<": version < bound,
        "<=": version < _next(bound),
    }[op]


def allows(spec: str, versions: tuple[Version, ...]) -> bool:
    """Whether a specifier admits any of `versions`; a malformed one admits all (validation
    reports it; nothing else refuses on it)."""
    parsed = clauses(spec)
    if parsed is None:
        return True
    return any(all(_holds(op, bound, v) for op, bound in parsed) for v in versions)


def generation(spec: object) -> Generation | None:
    """What a specifier admits: "modern" (only TVM >= 0.25), "legacy" (only TVM < 0.25), or None
    (no specifier, a malformed one, or a range spanning both)."""
    parsed = clauses(spec)
    if parsed is None:
        return None
    lower: Version = (0,)
    upper: Version | None = None  # exclusive
    for op, version in parsed:
        if op in (">=", "~="):
            lower = max(lower, version)
        elif op == ">":
            lower = max(lower, _next(version))
        elif op == "<":
            upper = version if upper is None else min(upper, version)
        elif op == "<=":
            upper = _next(version) if upper is None else min(upper, _next(version))
        elif op in ("==", "="):
            lower, upper = max(lower, version), _next(version) if upper is None else min(upper, _next(version))
    if lower >= MODERN_SINCE:
        return "modern"
    if upper is not None and upper <= MODERN_SINCE:
        return "legacy"
    return None
