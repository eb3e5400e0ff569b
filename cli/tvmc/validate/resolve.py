"""A file's `extends` chain, expanded like `layering` does but collecting every problem.

`layering.config_tree` stops at the first unresolvable entry or cycle; a validator must report them
all, each at the `extends` entry that names it (in whichever file of the chain that is). Parent files
are loaded through a small LRU cache: in a repository of configs most files extend the same few
bases, and the cache keeps memory flat however many files are validated.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from tvmc import layering, registry, sources
from tvmc.errors import ConfigNotFoundError, Record, TvmcError
from tvmc.layering import Tree
from tvmc.validate.diagnostics import Diagnostic

CACHE_SIZE = 256


class Chain(Record):
    """The layers of one file, lowest first (the file itself last), and the problems found."""

    __match_args__ = ("layers", "diagnostics")
    __slots__ = __match_args__
    layers: list[tuple[sources.Layer, tuple[str, ...]]]
    diagnostics: list[Diagnostic]

    def __init__(
        self,
        layers: list[tuple[sources.Layer, tuple[str, ...]]] | None = None,
        diagnostics: list[Diagnostic] | None = None,
    ) -> None:  # None: a new list
        self.layers = [] if layers is None else layers
        self.diagnostics = [] if diagnostics is None else diagnostics

    def tree(self, *, origins: bool = True) -> Tree:
        """The merged tree (only meaningful without diagnostics). `origins=False` merges the data
        alone: per-node origins cost more than the checks, and are only needed to locate findings."""
        tree = Tree({}, {})
        for layer, chain in self.layers:
            over = layering.layer_tree(layer, chain) if origins else Tree(layering.own_data(layer), {})
            layering.merge(tree, over)
        return tree


class Resolver:
    """Expands `extends` chains against a search path, caching parent layers (and load failures)."""

    def __init__(self, dirs: Sequence[sources.SearchDir]) -> None:
        self.dirs = dirs
        self._cache: OrderedDict[tuple[str, str], sources.Layer | TvmcError] = OrderedDict()

    def load(self, ref: str, relative_to: Path | None) -> sources.Layer:
        # A NAME does not depend on the extending file's directory: one lookup (and, when it misses,
        # one listing of the search path for the did-you-mean) serves every file naming it.
        key = (ref, str(relative_to) if sources.is_path_ref(ref) else "")
        hit = self._cache.get(key)
        if hit is None:
            try:
                hit = sources.find_config(ref, self.dirs, relative_to=relative_to, tag_lookup=registry.is_tag)
            except TvmcError as err:
                hit = err
            self._cache[key] = hit
            if len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        if isinstance(hit, TvmcError):
            raise hit.with_traceback(None)  # a cached error must not pile up tracebacks on each raise
        return hit

    def chain(self, layer: sources.Layer) -> Chain:
        out = Chain()
        if "extends" in layer.data:
            self._expand(layer, (), (layering.layer_key(layer),), out, [0])
        else:
            out.layers.append((layer, ()))
        return out

    def _problem(
        self,
        out: Chain,
        rule: str,
        layer: sources.Layer,
        index: int | None,
        message: str,
        suggestion: str | None = None,
    ) -> None:
        where = layer.locate("/extends" if index is None else f"/extends/{index}")
        pointer = "/extends" if index is None else f"/extends/{index}"
        diag = Diagnostic(rule, "error", pointer, message, where.source, where.line, where.col, suggestion)
        if diag not in out.diagnostics:  # a diamond reaches a broken parent twice
            out.diagnostics.append(diag)

    def _expand(
        self,
        layer: sources.Layer,
        chain: tuple[str, ...],
        stack: tuple[str, ...],
        out: Chain,
        loaded: list[int],
    ) -> None:
        single = isinstance(layer.data.get("extends"), str)  # `extends = "base"`: report at the key, not at "[0]"
        extends = layering.extends_refs(layer)
        if extends is None:
            # The file's own structural check reports the type; a parent's is reported here.
            if len(stack) > 1:
                self._problem(out, "extends-unresolved", layer, None, "extends: expected a name or path, or a list")
            extends = []
        if len(extends) > layering.MAX_EXTENDS_FANOUT and len(stack) > 1:  # a file's own: the checks say so
            self._problem(out, "limit", layer, None, f"extends lists more than {layering.MAX_EXTENDS_FANOUT} configs")
        if len(stack) > layering.MAX_EXTENDS_DEPTH:
            self._problem(out, "limit", layer, None, f"extends chain deeper than {layering.MAX_EXTENDS_DEPTH}")
            return
        for index, ref in enumerate(extends[: layering.MAX_EXTENDS_FANOUT]):
            if not isinstance(ref, str):
                continue  # wrong-type, reported by the structural check of that file
            try:
                parent = self.load(ref, layer.path.parent if layer.path else None)
            except ConfigNotFoundError as err:
                hint = f"; {err.hint}" if err.hint else ""
                self._problem(
                    out,
                    "extends-unresolved",
                    layer,
                    None if single else index,
                    err.message + hint,
                    err.suggestions[0] if err.suggestions else None,
                )
                continue
            except TvmcError as err:
                self._problem(
                    out,
                    "extends-unresolved",
                    layer,
                    None if single else index,
                    f"cannot load {ref!r}: {err.one_line()}",
                )
                continue
            key = layering.layer_key(parent)
            if key in stack:
                names = [*stack, key]
                cycle = " → ".join(Path(n).name for n in names[names.index(key) :])
                self._problem(out, "extends-cycle", layer, None if single else index, f"extends cycle: {cycle}")
                continue
            loaded[0] += 1  # counts repeats too: diamonds can multiply the layers of a resolution
            if loaded[0] > layering.MAX_LAYERS:
                self._problem(
                    out,
                    "limit",
                    layer,
                    None if single else index,
                    f"more than {layering.MAX_LAYERS} config files in one resolution",
                )
                return
            self._expand(parent, (*chain, f"{layer.source} extends {ref}"), (*stack, key), out, loaded)
        out.layers.append((layer, chain))
