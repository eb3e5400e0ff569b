"""The layer stage: expand `extends`, order the layers, merge them per field (RFC 0030).

Order, lowest first: tvmc's internal defaults < the base config (only when no `--config` is
given: `TVMC_CONFIG`, else `host/default`) < the `--config` references in command-line order,
all linearized together (`expand`: each file once, a shared base before everything built on it).
`tree` holds the merge rules, `select` the `NAME:PART` reduction.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from tvmc import lazy_exports, sources
from tvmc.errors import ConfigLayerError, Location
from tvmc.keys import MAX_EXTENDS_FANOUT as MAX_EXTENDS_FANOUT  # entries in one `extends` list; public here
from tvmc.layering.expand import (
    MAX_EXTENDS_DEPTH,
    MAX_LAYERS,
    STDIN_REF,
    Expander,
    Node,
    Problem,
    find,
    merge_nodes,
)
from tvmc.layering.tree import NOT_CONFIG, Tree, extends_refs, layer_key, layer_tree, merge, own_data
from tvmc.provenance import printable

__all__ = [
    "DEFAULT_BASE",
    "MAX_EXTENDS_DEPTH",
    "MAX_EXTENDS_FANOUT",
    "MAX_LAYERS",
    "NOT_CONFIG",
    "STDIN_REF",
    "Expander",
    "Node",
    "Problem",
    "Tree",
    "base_refs",
    "build_tree",
    "command_line_nodes",
    "extends_refs",
    "find",
    "layer_key",
    "layer_tree",
    "merge",
    "merge_nodes",
    "own_data",
    "select_part",
]

# Name → the submodule that defines it, imported when first used: only `NAME:PART` needs it.
_SUBMODULE = {"select_part": "select"}

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tvmc.layering.select import select_part
else:
    __getattr__ = lazy_exports(__name__, _SUBMODULE, globals())


DEFAULT_BASE = "host/default"
BASE_ENV = "TVMC_CONFIG"


def base_refs(env: Mapping[str, str]) -> tuple[list[str], str]:
    """The base config names and where they came from (used only when no --config is given).
    `TVMC_CONFIG` separates names with commas or whitespace: a `:` belongs to `NAME:PART`."""
    value = env.get(BASE_ENV, "").strip()
    if value:
        return [n for n in re.split(r"[,\s]+", value) if n], f"env {BASE_ENV}"
    return [DEFAULT_BASE], "default base config"


def build_tree(
    config_refs: Sequence[tuple[str, Location | None]],
    dirs: Sequence[sources.SearchDir],
    env: Mapping[str, str],
    stdin: sources.Layer | None = None,
) -> Tree:
    """Defaults, then the base config or the --config references, linearized and merged;
    `stdin` is the config the reference `-` names."""
    return merge_nodes(command_line_nodes(config_refs, dirs, env, stdin), into=Tree.defaults())


def _named(ref: str, where: Location | None) -> str:
    return where.source if where is not None and where.line is None else f"--config {printable(ref)}"


def command_line_nodes(
    config_refs: Sequence[tuple[str, Location | None]],
    dirs: Sequence[sources.SearchDir],
    env: Mapping[str, str],
    stdin: sources.Layer | None = None,
) -> list[Node]:
    """The layers `build_tree` merges over the defaults, lowest first (`tvmc.explain` replays them)."""
    if config_refs:
        # A reference is named as the caller named it (`config diff A B`: the argument, not a
        # --config the user did not type); by default as --config.
        refs = [(ref, where, (_named(ref, where),)) for ref, where in config_refs]
    else:
        names, why = base_refs(env)
        where = Location(why) if why.startswith("env ") else None
        if not names:
            raise ConfigLayerError("names no config (separate names with commas)", where)
        refs = [(name, where, (why,)) for name in names]
    return Expander(find(dirs, stdin)).command_line(refs)
