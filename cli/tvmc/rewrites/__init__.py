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

from tvmc import lazy_exports
from tvmc.keys import LEGACY_DEFAULT_KIND
from tvmc.provenance import Origin

# The names this package exports from its submodules, loaded when first used: a command line
# without flags or TVMC_* variables (the common `tvmc config show --config NAME`) loads neither the
# flag table nor the path grammar nor the interpreter (scripts/bench_startup.py).
_SUBMODULE = {
    "REWRITE_FLAGS": "flags",
    "FlagSpec": "flags",
    "argv_rewrites": "flags",
    "flag_name": "flags",
    "flag_rewrites": "flags",
    "flag_text": "flags",
    "generated_flags": "flags",
    "lower_pass_pairs": "flags",
    "MAX_PATH_LENGTH": "grammar",
    "MAX_REWRITES": "grammar",
    "Index": "grammar",
    "Key": "grammar",
    "Rewrite": "grammar",
    "Segment": "grammar",
    "Select": "grammar",
    "parse_path": "grammar",
    "parse_set": "grammar",
    "parse_unset": "grammar",
}

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from tvmc.layering import Tree
    from tvmc.rewrites.flags import (
        REWRITE_FLAGS,
        FlagSpec,
        argv_rewrites,
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

    # A type only (a Literal: `typing` is not imported at run time, for start-up time)
    from tvmc.rewrites.grammar import Op as Op
else:
    __getattr__ = lazy_exports(__name__, _SUBMODULE, globals(), frozenset({"flags", "grammar", "interpreter"}))

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


# The environment layer's variables and the flag each one stands for.
ENV_FLAGS = {
    "TVMC_TARGET": "--target",
    "TVMC_TARGET_HOST": "--target-host",
    "TVMC_EXECUTOR": "--executor",
    "TVMC_RUNTIME": "--runtime",
    "TVMC_OPT_LEVEL": "--opt-level",
}


def env_rewrites(env: Mapping[str, str]) -> list[Rewrite]:
    """The environment layer: TVMC_TARGET, TVMC_TARGET_HOST, TVMC_EXECUTOR, TVMC_RUNTIME, TVMC_OPT_LEVEL."""
    out: list[Rewrite] = []
    for var, flag in ENV_FLAGS.items():
        if env.get(var, "").strip():
            from tvmc.rewrites.flags import flag_rewrites

            out += flag_rewrites(flag, env[var].strip(), origin=Origin("env", var))
    return out
