"""Questions about canonical targets: kind, legacy status, machine-dependent keys."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tvmc import registry
from tvmc.errors import Location, TargetError
from tvmc.targets import tables as T
from tvmc.targets.canonical import canonicalize, resolve_kind
from tvmc.targets.canonicalizers import cpu_profile
from tvmc.targets.machine import APROFILE_FEATURES
from tvmc.targets.spec import Spec, as_location, load_json_object, tag_configs

TVMC_ONLY_KEYS = ("compiler",)  # canonical target keys TVM does not know


def strip_tvmc_keys(target: Mapping[str, Any]) -> dict[str, Any]:
    """The target as TVM takes it: tvmc-only keys removed, also from nested hosts."""
    out = {k: v for k, v in target.items() if k not in TVMC_ONLY_KEYS}
    if isinstance(out.get("host"), dict):
        out["host"] = strip_tvmc_keys(out["host"])
    return out


def kind_of(spec: Spec | str) -> str:
    """The kind of a spec (following a tag), without validating anything else."""
    if isinstance(spec, str):
        base = tag_configs().get(spec)
        if base is not None:
            return str(base["kind"])
        if spec.startswith("{"):
            return kind_of(load_json_object(spec, None))
        first = spec.lstrip(" ").split(" ", 1)[0]
        if first in registry.all_kinds():
            return first
        if first in tag_configs():
            return str(tag_configs()[first]["kind"])
        raise T.unknown_start(first, None)
    table, _ = resolve_kind(spec, None, "")
    return table.name


def _walk(
    canonical: Mapping[str, Any], path: tuple[str | int, ...] = ()
) -> list[tuple[tuple[str | int, ...], Mapping[str, Any]]]:
    nodes = [(path, canonical)]
    host = canonical.get("host")
    if isinstance(host, Mapping):
        nodes += _walk(host, (*path, "host"))
    devices = canonical.get("devices")
    if canonical.get("kind") == "composite" and isinstance(devices, list):
        for i, dev in enumerate(devices):
            if isinstance(dev, Mapping):
                nodes += _walk(dev, (*path, "devices", i))
    return nodes


def is_legacy(canonical: Mapping[str, Any]) -> bool:
    """Whether the target (or its host or a composite device) uses a kind TVM 0.27 lacks."""
    modern = registry.kinds()
    return any(node.get("kind") not in modern for _, node in _walk(canonical))


def check_modern(canonical: Mapping[str, Any], *, source: str | Location | None = None) -> None:
    """TargetError unless TVM 0.27 can build the target (no legacy kinds anywhere)."""
    modern = registry.kinds()
    for path, node in _walk(canonical):
        kind = str(node.get("kind"))
        if kind in modern:
            continue
        table = registry.all_kinds().get(kind)
        where = "".join(f"{p}: " if isinstance(p, str) else "" for p in path)
        if table is None:  # only a config built in code can hold one
            raise TargetError(f"{where}unknown target kind {kind!r}", as_location(source))
        hint = None
        comp = registry.compilers().get(kind)
        if comp is not None:
            hosts = sorted(
                n
                for n, t in registry.all_kinds().items()
                if not t.legacy and t.device_type in comp.device_types and n not in ("composite", "test", "cuda_host")
            )
            if hosts:
                hint = f"write it as a specialisation: {{'kind': {hosts[0]!r}, 'compiler': {kind!r}}}"
        raise TargetError(
            f"{where}kind {kind!r} was removed after TVM {table.last_version}", as_location(source), hint=hint
        )


def env_dependent_keys(canonical_or_spec: Spec | str) -> tuple[tuple[str | int, ...], ...]:
    """Paths of the keys TVM fills from the machine that this canonical target leaves out.

    E.g. `{"kind": "cuda", "host": "llvm"}` → `(("arch",), ("host", "mtriple"))`. Used to
    strip them from TVM's export before comparing. A canonical target may be passed (it is
    a fixed point of canonicalize). On an Arm machine TVM's filled llvm `mtriple` would also
    add `arm_cpu` keys, which these paths do not cover.
    """
    canonical = canonicalize(canonical_or_spec)
    paths: list[tuple[str | int, ...]] = []
    for path, node in _walk(canonical):
        kind = node["kind"]
        if kind == "llvm" and "mtriple" not in node and "mcpu" not in node:
            paths.append((*path, "mtriple"))
        elif cpu_profile(kind, node.get("mtriple"), node.get("mcpu")) == "A":
            paths += [(*path, name) for name in APROFILE_FEATURES]
        elif kind == "cuda" and "arch" not in node:
            paths.append((*path, "arch"))
        elif kind in ("nvptx", "rocm") and "mcpu" not in node:
            paths.append((*path, "mcpu"))
    return tuple(paths)
