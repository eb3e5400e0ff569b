"""The rewrite stage: every flag and environment variable is one `Rewrite`, applied in order.

Grammar of paths: dotted keys, list indexes and selectors, quoted keys for names with dots:

    opt-level   targets[0].mcpu   targets[kind=llvm].mattr   pass-config."tir.disable_vectorize"

Operations: `set` (PATH=VALUE), `append` (PATH+=VALUE), `unset` (PATH). VALUE is TOML literal
syntax and a bare word is a string; where the registry knows the type (target options,
executor/runtime options, pass configs, build options) the value is typed from it.

Every generated flag is sugar for one of these:
    --target V                   set targets (repeated: the first replaces, the rest append)
    --target-<kind>-<attr> V     set targets[kind=<kind>].<attr>   (error if no such target)
    --target-host V              set host
    --executor N / --runtime N   set executor.kind / runtime.kind  (a kind change drops old options)
    --executor-<n>-<opt> V       set executor[kind=<n>].<opt>       (error if the executor is another kind)
    --pass-config NAME=V         set pass-config."NAME"
    -O / --opt-level N           set opt-level
"""

from __future__ import annotations

from tvmc.keys import LEGACY_DEFAULT_KIND
from tvmc.rewrites.flags import (
    ENV_FLAGS,
    REWRITE_FLAGS,
    FlagSpec,
    argv_rewrites,
    env_rewrites,
    flag_name,
    flag_rewrites,
    flag_text,
    generated_flags,
    lower_pass_pairs,
)
from tvmc.rewrites.grammar import (
    MAX_PATH_LENGTH,
    MAX_REWRITES,
    Index,
    Key,
    Rewrite,
    Segment,
    Select,
    parse_path,
    parse_set,
    parse_unset,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from tvmc.layering import Tree

    # A type only (a Literal: `typing` is not imported at run time, for start-up time)
    from tvmc.rewrites.grammar import Op as Op

__all__ = [
    "ENV_FLAGS",
    "LEGACY_DEFAULT_KIND",
    "MAX_PATH_LENGTH",
    "MAX_REWRITES",
    "REWRITE_FLAGS",
    "FlagSpec",
    "Index",
    "Key",
    "Rewrite",
    "Segment",
    "Select",
    "apply",
    "apply_all",
    "argv_rewrites",
    "env_rewrites",
    "flag_name",
    "flag_rewrites",
    "flag_text",
    "generated_flags",
    "lower_pass_pairs",
    "parse_path",
    "parse_set",
    "parse_unset",
]


# The interpreter (tvmc.rewrites.interpreter, the largest module of the core) is loaded for the first
# rewrite: a command line without flags or TVMC_* variables never needs it.


def apply(tree: Tree, rw: Rewrite) -> None:
    """Apply one rewrite to `tree`, in place (see `tvmc.rewrites.interpreter.apply`)."""
    from tvmc.rewrites import interpreter

    interpreter.apply(tree, rw)


def apply_all(tree: Tree, rewrites: Iterable[Rewrite]) -> None:
    """Apply `rewrites` in order, then note the flags a later one made useless (see
    `tvmc.rewrites.interpreter.apply_all`); nothing to do for none."""
    applied = list(rewrites)
    if applied:
        from tvmc.rewrites import interpreter

        interpreter.apply_all(tree, applied)
