"""A file's `extends` chain for validation: the one expander (`layering.Expander`), collecting.

Resolution stops at the first problem; a validator reports them all, each at the `extends` entry
that names it (in whichever file of the chain that is). Parent files are loaded through a small
LRU cache: in a repository of configs most files extend the same few bases, and the cache keeps
memory flat however many files are validated.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from tvmc import layering, sources
from tvmc.errors import ConfigLayerError, ConfigNotFoundError, TvmcError
from tvmc.layering import Node, Problem, Tree
from tvmc.validate.diagnostics import Diagnostic, rule_of

CACHE_SIZE = 256


class Chain:
    """The layers of one file, lowest first (the file itself last), and the problems found."""

    __slots__ = ("diagnostics", "nodes")

    def __init__(self, nodes: list[Node], diagnostics: list[Diagnostic]) -> None:
        self.nodes = nodes
        self.diagnostics = diagnostics

    def tree(self, *, origins: bool = True) -> Tree:
        """The merged tree (only meaningful without diagnostics). `origins=False` merges the data
        alone: per-node origins cost more than the checks, and are only needed to locate findings."""
        return layering.merge_nodes(self.nodes, origins=origins)


class Resolver:
    """Expands `extends` chains against a search path, caching parent layers (and load failures)."""

    def __init__(self, dirs: Sequence[sources.SearchDir]) -> None:
        self.dirs = dirs
        self._find = layering.find(dirs)
        self._cache: OrderedDict[tuple[str, str], sources.Layer | TvmcError] = OrderedDict()

    def load(self, ref: str, relative_to: str | None) -> sources.Layer:
        # A NAME does not depend on the extending file's directory: one lookup (and, when it misses,
        # one listing of the search path for the did-you-mean) serves every file naming it.
        key = (ref, str(relative_to) if sources.is_path_ref(ref) or ref.startswith("^") else "")
        hit = self._cache.get(key)
        if hit is None:
            try:
                hit = self._find(ref, relative_to)
            except TvmcError as err:
                hit = err
            self._cache[key] = hit
            if len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        if isinstance(hit, TvmcError):
            # A fresh copy: the expander locates a missing config at the entry naming it (the cached
            # one serves others); a parent that does not load keeps its own place (file:line:col).
            where = None if isinstance(hit, ConfigNotFoundError) else hit.location
            raise type(hit)(hit.message, where, suggestions=hit.suggestions, hint=hit.hint, rule=hit.rule)
        return hit

    def chain(self, layer: sources.Layer) -> Chain:
        if "extends" not in layer.data:
            return Chain([Node(layering.layer_key(layer), layer, ())], [])
        diagnostics: list[Diagnostic] = []

        def collect(problem: Problem) -> None:
            if problem.structural and problem.layer is layer:
                return  # the file's own `extends` shape: its structural check reports it
            for diag in _diagnostics(problem):
                if diag not in diagnostics:
                    diagnostics.append(diag)

        nodes = layering.Expander(self.load, collect).file(layer)
        return Chain(nodes, diagnostics)


def _diagnostics(problem: Problem) -> list[Diagnostic]:
    err = problem.error
    where = problem.layer.locate(problem.pointer) if problem.layer is not None else err.location
    message, suggestion, hint, rule = err.message, None, None, problem.rule
    parents: list[Diagnostic] = []
    if isinstance(err, ConfigNotFoundError):
        suggestion, hint = (err.suggestions[0] if err.suggestions else None), err.hint
    elif not isinstance(err, ConfigLayerError):  # a parent that does not load (syntax, limits)
        at = err.location
        if at is not None and at.line is not None and (where is None or at.source != where.source):
            # The parent's own error, where it is (reported once for a run: `validate.once`), and
            # here the entry naming it: invalid because its parent is.
            parents.append(
                Diagnostic(rule_of(err), "error", "", err.message, at.source, at.line, at.col, hint=err.hint)
            )
            message, rule = f"names {at.source}, which does not load (its error is reported there)", "extends-invalid"
        else:
            message = f"cannot load the config named here: {err.one_line()}"
    here = Diagnostic(
        rule,
        "error",
        problem.pointer,
        message,
        where.source if where is not None else None,
        where.line if where is not None else None,
        where.col if where is not None else None,
        suggestion,
        hint,
    )
    return [*parents, here]
