"""The Python API: the same pipeline the CLI runs, returning the config with its origins.

    >>> from tvmc.api import resolve
    >>> r = resolve(["aws/c5"], [("--target-llvm-mcpu", "cascadelake")])
    >>> r.config.targets[0]["mcpu"], str(r.origin("/targets/0/mcpu"))
    ('cascadelake', '--target-llvm-mcpu=cascadelake')

Stages: load (`sources`) → layer (`layering`) → rewrite (`rewrites`) → canonicalize
(`config`, `targets`); validation and emitters consume the `Resolved` result.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Final

from tvmc import layering, rewrites, sources
from tvmc.config import CompilationConfig, canonicalize_config
from tvmc.errors import FrozenRecord, Location, TvmcError
from tvmc.layering import Tree
from tvmc.provenance import Origin, Origins, join, node_at, origin_of, printable, split, walk

ConfigRef = str | tuple[str, Location | None]
RewriteLike = rewrites.Rewrite | tuple[str, str]


class Resolved(FrozenRecord):
    """A resolved config: the canonical model, the origin of each canonical value, and notes."""

    __match_args__ = ("config", "origins", "notes", "tree")
    __slots__ = __match_args__
    config: Final[CompilationConfig]
    origins: Final[Mapping[str, Origin]]
    notes: Final[tuple[str, ...]]
    tree: Final[Tree]  # the merged, rewritten tree before canonicalization

    def __init__(
        self, config: CompilationConfig, origins: Mapping[str, Origin], notes: tuple[str, ...], tree: Tree
    ) -> None:
        self.config = config
        self.origins = origins
        self.notes = notes
        self.tree = tree

    def to_dict(self) -> dict[str, Any]:
        return self.config.to_dict()

    def origin(self, pointer: str) -> Origin:
        return origin_of(self.origins, pointer) or Origin.default()

    def fingerprint(self) -> str:
        return self.config.fingerprint()


def _refs(configs: Sequence[ConfigRef]) -> list[tuple[str, Location | None]]:
    return [(c, Location(f"--config {printable(c)}")) if isinstance(c, str) else c for c in configs]


def _rewrites(items: Sequence[RewriteLike]) -> list[rewrites.Rewrite]:
    pairs = [item for item in items if isinstance(item, tuple)]
    if len(pairs) == len(items):
        return rewrites.argv_rewrites(pairs)
    if pairs:
        raise TypeError("pass either Rewrite objects or (flag, value) pairs, not both")
    return list(items)  # type: ignore[arg-type]


def resolve_tree(
    configs: Sequence[ConfigRef] = (),
    rewrite_list: Sequence[RewriteLike] = (),
    *,
    env: Mapping[str, str] | None = None,
    search: Sequence[sources.SearchDir] | None = None,
) -> Tree:
    """Load, layer and rewrite: the merged tree with origins, before canonicalization."""
    env = os.environ if env is None else env
    dirs = sources.search_path(env) if search is None else search
    tree = layering.build_tree(_refs(configs), dirs, env)
    rewrites.apply_all(tree, rewrites.env_rewrites(env))
    rewrites.apply_all(tree, _rewrites(rewrite_list))
    return tree


def resolve(
    configs: Sequence[ConfigRef] = (),
    rewrite_list: Sequence[RewriteLike] = (),
    *,
    env: Mapping[str, str] | None = None,
    search: Sequence[sources.SearchDir] | None = None,
) -> Resolved:
    """The whole pipeline: configs (names or paths) and rewrites → a canonical CompilationConfig."""
    tree = resolve_tree(configs, rewrite_list, env=env, search=search)
    try:
        config, notes = canonicalize_config(tree.data, tree.origins)
    except TvmcError as err:
        _hint_old_json(err, tree)
        raise
    all_notes = tuple(dict.fromkeys([*tree.notes, *notes]))
    return Resolved(config, canonical_origins(config.to_dict(), tree), all_notes, tree)


def _hint_old_json(err: TvmcError, tree: Tree) -> None:
    """An old tvmc JSON config given to --config fails on its old spellings: say how to convert it."""
    import json

    from tvmc.migrate.inputs import old_config_signs

    for path in tree.inputs:
        if path.suffix != ".json" or err.hint:
            continue
        try:
            signs = old_config_signs(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
        if signs:
            why = ", ".join(signs[:3])
            err.hint = f"{path} looks like an old tvmc JSON config ({why}): convert it: tvmc config migrate {path}"
            err.args = (err.one_line(),)
            return


def _source_pointer(tree: Tree, pointer: str, mirror: int | None = None) -> str | None:
    """Where in the tree a canonical value was written, if it was written at all."""
    tokens = split(pointer)
    # Targets' hosts that came from the config-level host are found under /host.
    if len(tokens) >= 3 and tokens[0] == "targets" and tokens[2] == "host":
        entry = node_at(tree.data, f"/targets/{tokens[1]}")
        if not (isinstance(entry, dict) and "host" in entry):
            return _source_pointer(tree, "/host" + "".join(join("", t) for t in tokens[3:]), mirror)
    if pointer in tree.origins:
        return pointer
    if tokens and tokens[0] == "host" and "/host" not in tree.origins and mirror is not None:
        # No host was written: the effective host is a CPU target itself (TVM's rule).
        return _source_pointer(tree, f"/targets/{mirror}" + "".join(join("", t) for t in tokens[1:]))
    return None


def canonical_origins(canonical: dict[str, Any], tree: Tree) -> Origins:
    """Map every canonical node to the origin of the input that produced it.

    A value written in a file or flag keeps that origin; a value that a tag or a legacy string
    expanded to is attributed to the tag/string; anything else (declared defaults, derived keys,
    the default host) is a default.
    """
    out: Origins = {}
    host = canonical.get("host")
    mirror = next(
        (i for i, t in enumerate(canonical.get("targets", [])) if {k: v for k, v in t.items() if k != "host"} == host),
        None,
    )
    for pointer, _ in walk(canonical):
        found = _source_pointer(tree, pointer, mirror)
        if found is not None:
            out[pointer] = tree.origins[found]
            continue
        ancestor = pointer
        origin = None
        while ancestor:
            ancestor = ancestor.rsplit("/", 1)[0]
            src = _source_pointer(tree, ancestor, mirror) if ancestor else None
            if src is None:
                continue
            node = node_at(tree.data, src)
            if isinstance(node, str):  # a tag or legacy string expanded into this value
                origin = tree.origins[src]
            elif isinstance(node, dict) and "tag" in node and "kind" not in node:
                origin = tree.origins.get(join(src, "tag"), tree.origins[src])
            break
        if origin is None:
            owner = "/".join(pointer.split("/")[:3]) if pointer.startswith("/targets/") else "/host"
            kind = node_at(canonical, owner + "/kind") if pointer.startswith(("/targets/", "/host/")) else None
            origin = Origin.default(f"target kind {kind}" if isinstance(kind, str) else "tvmc")
        out[pointer] = origin
    return out
