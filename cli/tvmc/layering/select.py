"""`NAME:PART`: one part of a config — the targets whose kind or keys match PART, or its host.

The part kept keeps the host it had: when the config has no `host` and a CPU target is dropped
while no CPU target is kept, the dropped CPU (the effective host) becomes `host`. `:cpu` finds the
host wherever it is written: a target matching it, the config's `host`, or a target's own host
(as inside the tags of boards such as nvidia/jetson-agx-orin-64gb).
"""

from __future__ import annotations

from tvmc.errors import ConfigLayerError, Location
from tvmc.layering.tree import Tree, canonical_entry, runs_on_cpu
from tvmc.provenance import Origin, drop, rebase, walk
from tvmc.values import plain_copy

TYPE_CHECKING = False  # typing is not imported at run time (start-up: scripts/bench_startup.py)
if TYPE_CHECKING:
    from typing import Any


def _labels(entry: Any, canonical: dict[str, Any]) -> set[str]:
    return {canonical["kind"], *canonical.get("keys", []), *([entry] if isinstance(entry, str) else [])}


def _as_sole_target(tree: Tree, value: Any, origins: dict[str, Origin]) -> None:
    """Make `value` the only target, with `origins` (pointers relative to it) as its origins."""
    drop(tree.origins, "/targets", tree.data.get("targets"))
    tree.data["targets"] = [value]
    tree.origins.update({"/targets/0" + p: o for p, o in origins.items()})
    tree.origins["/targets"] = tree.origins.get("/targets/0", Origin.default())


def select_part(tree: Tree, part: str, ref: str, where: Location | None) -> None:
    """Reduce `tree` (a merged config) to its part `part`, in place; `ref` names it in errors."""
    entries = tree.data.get("targets") or []
    canon = [canonical_entry(entry, tree.reader) for entry in entries]
    available: set[str] = set()
    chosen: list[int] = []
    for index, (entry, canonical) in enumerate(zip(entries, canon, strict=True)):
        if canonical is None:
            continue
        labels = _labels(entry, canonical)
        available |= labels
        if part in labels:
            chosen.append(index)
    if chosen:
        dropped_cpu = next((i for i in range(len(entries)) if i not in chosen and runs_on_cpu(canon[i])), None)
        if tree.data.get("host") is None and dropped_cpu is not None and not any(runs_on_cpu(canon[i]) for i in chosen):
            rebase(tree.origins, f"/targets/{dropped_cpu}", "/host", entries[dropped_cpu])
            tree.data["host"] = entries[dropped_cpu]
            tree.derived_host = True  # the CPU it was, not a host a layer wrote (`tree.derive_host`)
        kept = {
            i: [(p, tree.origins[p]) for p, _ in walk(entries[i], f"/targets/{i}") if p in tree.origins] for i in chosen
        }
        drop(tree.origins, "/targets", entries)
        for new, old in enumerate(chosen):
            prefix = len(f"/targets/{old}")
            tree.origins.update({f"/targets/{new}{p[prefix:]}": o for p, o in kept[old]})
        tree.data["targets"] = [entries[i] for i in chosen]
        tree.origins["/targets"] = tree.origins.get("/targets/0", Origin.default())
        return
    host = tree.data.get("host")
    host_canonical = canonical_entry(host, tree.reader) if host is not None else None
    if host_canonical is not None:
        available |= _labels(host, host_canonical)
        if part in _labels(host, host_canonical):
            origins = {p[len("/host") :]: o for p, _ in walk(host, "/host") if (o := tree.origins.get(p)) is not None}
            _as_sole_target(tree, plain_copy(host), origins)
            return
    for index, canonical in enumerate(canon):
        own = canonical.get("host") if canonical is not None else None
        if isinstance(own, dict):
            available |= _labels(own, own)
            if part in _labels(own, own):
                origin = tree.origins.get(f"/targets/{index}", Origin.default())
                _as_sole_target(tree, own, {p: origin for p, _ in walk(own, "")})
                return
    raise ConfigLayerError(f"{ref}: no target matches {part!r} (parts: {', '.join(sorted(available))})", where)
