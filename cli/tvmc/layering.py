"""The layer stage: expand `extends`, order the layers, merge them per field (RFC 0030).

Order, lowest first: tvmc's internal defaults < the base config (only when no `--config` is
given: `TVMC_CONFIG`, else `host/default`) < each `--config` in command-line order, each with
its `extends` chain first.

Merge rules: a `targets` key replaces inherited targets wholesale; tables deep-merge, except
that a table whose `kind` changes is replaced whole (so options of the old executor kind never
leak); lists and scalars replace. Explicit list edits come only from rewrites.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tvmc import registry, sources
from tvmc.config import COMPONENTS, INTERNAL_DEFAULTS, component_table
from tvmc.config import MAX_EXTENDS_FANOUT as MAX_EXTENDS_FANOUT  # entries in one `extends` list; public here
from tvmc.errors import ConfigLayerError, Location, Record, TvmcError
from tvmc.provenance import Origin, Origins, drop, join, origins_for, printable, walk
from tvmc.values import plain_copy

MAX_EXTENDS_DEPTH = 128  # the longest chain of `extends`
MAX_LAYERS = 1024  # files loaded for one resolution, all chains together
DEFAULT_BASE = "host/default"


class Tree(Record):
    """A config tree and the origin of each of its nodes (mutable while the pipeline builds it)."""

    __match_args__ = ("data", "origins", "notes", "inputs")
    __slots__ = __match_args__
    data: dict[str, Any]
    origins: Origins
    notes: list[str]  # conversions made on the way (legacy options lifted, ...)
    # Every file read for it, also one whose values were all overridden: `-o` must not overwrite any.
    inputs: list[Path]

    def __init__(
        self, data: dict[str, Any], origins: Origins, notes: list[str] | None = None, inputs: list[Path] | None = None
    ) -> None:  # None: a new list
        self.data = data
        self.origins = origins
        self.notes = [] if notes is None else notes
        self.inputs = [] if inputs is None else inputs

    @staticmethod
    def defaults() -> Tree:
        data = copy.deepcopy(INTERNAL_DEFAULTS)
        return Tree(data, origins_for(data, "", lambda _p: Origin.default()))


NOT_CONFIG = ("extends", "$schema")  # consumed by layering / only for editors: never merged


def own_data(layer: sources.Layer) -> dict[str, Any]:
    """The config values a layer contributes (without `extends` and `$schema`), with the
    `executor = "aot"` shorthand as a table so that merging and rewrites see one form."""
    return {k: component_table(v) if k in COMPONENTS else v for k, v in layer.data.items() if k not in NOT_CONFIG}


def layer_key(layer: sources.Layer) -> str:
    """What identifies a layer in an `extends` chain (for cycles): its file, else its source (a tag)."""
    return str(layer.path) if layer.path is not None else layer.source


def extends_refs(layer: sources.Layer) -> list[Any] | None:
    """The entries of a layer's `extends` (one name is a list of one, none an empty list); None when
    it is neither a string nor a list. The entries themselves are not checked."""
    extends = layer.data.get("extends", [])
    if isinstance(extends, str):
        return [extends]
    return extends if isinstance(extends, list) else None


def layer_tree(layer: sources.Layer, chain: tuple[str, ...]) -> Tree:
    data = own_data(layer)
    return Tree(
        data,
        origins_for(data, "", lambda p: Origin("file", layer.source, p, chain, layer)),
        inputs=[layer.path] if layer.path is not None else [],
    )


def _kind_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    return "kind" in new and "kind" in old and old["kind"] != new["kind"]


def _merge_table(
    base: dict[str, Any], origins: Origins, over: Mapping[str, Any], over_origins: Origins, pointer: str
) -> None:
    for key, value in over.items():
        here = join(pointer, key)
        current = base.get(key)
        replace_whole = pointer == "" and key == "targets"
        if (
            isinstance(current, dict)
            and isinstance(value, dict)
            and not replace_whole
            and not _kind_changes(current, value)
        ):
            _merge_table(current, origins, value, over_origins, here)
            origins[here] = over_origins.get(here, origins.get(here))  # type: ignore[assignment]
            continue
        drop(origins, here, current)
        base[key] = plain_copy(value)
        # Walk the new subtree rather than scan every origin: linear in what changes.
        origins.update({p: over_origins[p] for p, _ in walk(value, here) if p in over_origins})


def _merge_data(base: dict[str, Any], over: Mapping[str, Any], top: bool) -> None:
    """`_merge_table` for trees without origins (validation merges a file's chain this way)."""
    for key, value in over.items():
        current = base.get(key)
        if (
            type(current) is dict
            and type(value) is dict
            and not (top and key == "targets")
            and not _kind_changes(current, value)
        ):
            _merge_data(current, value, False)
        else:
            base[key] = plain_copy(value)


def merge(base: Tree, over: Tree) -> None:
    """Layer `over` on top of `base`, in place."""
    if not base.origins and not over.origins:
        _merge_data(base.data, over.data, True)
    else:
        _merge_table(base.data, base.origins, over.data, over.origins, "")
    base.inputs.extend(over.inputs)  # a file extended twice is listed twice: harmless, and linear


class _Expander:
    """Resolves one `--config` reference into its ordered layers, following `extends`."""

    def __init__(self, dirs: Sequence[sources.SearchDir]) -> None:
        self.dirs = dirs
        self.loaded = 0

    def layers(
        self,
        ref: str,
        *,
        relative_to: Path | None,
        chain: tuple[str, ...],
        stack: tuple[str, ...],
        where: Location | None,
    ) -> list[tuple[sources.Layer, tuple[str, ...]]]:
        try:
            layer = sources.find_config(ref, self.dirs, relative_to=relative_to, tag_lookup=registry.is_tag)
        except TvmcError as err:
            if where is not None and err.location is None:
                err.location = where
            raise
        self.loaded += 1
        if self.loaded > MAX_LAYERS:
            raise ConfigLayerError(f"more than {MAX_LAYERS} config files in one resolution", where)
        key = layer_key(layer)
        names = [*stack, key]
        if key in stack:
            cycle = " → ".join(names[names.index(key) :])
            raise ConfigLayerError(f"extends cycle: {cycle}", where)
        if len(stack) >= MAX_EXTENDS_DEPTH:
            raise ConfigLayerError(f"extends chain deeper than {MAX_EXTENDS_DEPTH}", where)
        extends = extends_refs(layer)
        if extends is None or not all(isinstance(e, str) for e in extends):
            raise ConfigLayerError("extends: expected a name or path, or a list of them", layer.locate("/extends"))
        if len(extends) > MAX_EXTENDS_FANOUT:
            raise ConfigLayerError(f"extends lists more than {MAX_EXTENDS_FANOUT} configs", layer.locate("/extends"))
        out: list[tuple[sources.Layer, tuple[str, ...]]] = []
        for index, parent in enumerate(extends):
            out += self.layers(
                parent,
                relative_to=layer.path.parent if layer.path else None,
                chain=(*chain, f"{layer.source} extends {printable(parent)}"),
                stack=tuple(names),
                where=layer.locate(f"/extends/{index}"),
            )
        out.append((layer, chain))
        return out


def config_tree(
    ref: str, dirs: Sequence[sources.SearchDir], *, chain: tuple[str, ...], where: Location | None = None
) -> Tree:
    """One `--config` reference (with `NAME:PART` selection) as a single merged tree."""
    name, part = sources.split_part(ref)
    tree = Tree({}, {})
    for layer, layer_chain in _Expander(dirs).layers(name, relative_to=None, chain=chain, stack=(), where=where):
        merge(tree, layer_tree(layer, layer_chain))
    if part is not None:
        select_part(tree, part, ref, where)
    return tree


def select_part(tree: Tree, part: str, ref: str, where: Location | None) -> None:
    """Keep only the targets whose kind or keys match `part` (keeping the host); fall back to the host."""
    from tvmc import targets as tg

    entries = tree.data.get("targets") or []
    available: set[str] = set()
    chosen: list[int] = []
    for index, entry in enumerate(entries):
        canonical = tg.canonicalize(tg.parse_target(entry).spec)
        labels = {canonical["kind"], *canonical.get("keys", []), *([entry] if isinstance(entry, str) else [])}
        available |= labels
        if part in labels:
            chosen.append(index)
    if chosen:
        kept = [entries[i] for i in chosen]
        moved = {
            f"/targets/{new}{p[len(f'/targets/{old}') :]}": o
            for new, old in enumerate(chosen)
            for p, o in tree.origins.items()
            if p == f"/targets/{old}" or p.startswith(f"/targets/{old}/")
        }
        drop(tree.origins, "/targets")
        tree.origins.update(moved)
        tree.origins["/targets"] = tree.origins.get("/targets/0", Origin.default())
        tree.data["targets"] = kept
        return
    host = tree.data.get("host")
    if host is not None:
        canonical = tg.canonicalize(tg.parse_target(host).spec)
        labels = {canonical["kind"], *canonical.get("keys", [])}
        available |= labels
        if part in labels:
            host_origins = {
                p.replace("/host", "/targets/0", 1): o
                for p, o in tree.origins.items()
                if p == "/host" or p.startswith("/host/")
            }
            drop(tree.origins, "/targets")
            tree.origins.update(host_origins)
            tree.origins["/targets"] = host_origins["/targets/0"]
            tree.data["targets"] = [copy.deepcopy(host)]
            return
    raise ConfigLayerError(f"{ref}: no target matches {part!r} (parts: {', '.join(sorted(available))})", where)


def base_refs(env: Mapping[str, str]) -> tuple[list[str], str]:
    """The base config names and where they came from (used only when no --config is given)."""
    value = env.get("TVMC_CONFIG", "").strip()
    if value:
        names = [n.strip() for n in value.replace(os.pathsep, ",").split(",") if n.strip()]
        return names, "env TVMC_CONFIG"
    return [DEFAULT_BASE], "default base config"


def build_tree(
    config_refs: Sequence[tuple[str, Location | None]], dirs: Sequence[sources.SearchDir], env: Mapping[str, str]
) -> Tree:
    """Defaults, then the base config or each --config in order, merged into one tree."""
    tree = Tree.defaults()
    if config_refs:
        refs = [(ref, where, (f"--config {printable(ref)}",)) for ref, where in config_refs]
    else:
        names, why = base_refs(env)
        refs = [(name, None, (why,)) for name in names]
    for ref, where, chain in refs:
        merge(tree, config_tree(ref, dirs, chain=chain, where=where))
    return tree
