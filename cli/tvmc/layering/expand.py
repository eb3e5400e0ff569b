"""The one `extends` expander: each config file once, at its place in a C3 linearization.

`extends = [a, b]` layers `b` over `a`; a base shared by several parents is applied once, before
all of them (Python's MRO rule, lowest first): `mine` extends `[syslib, debug]`, both extend
`common` → `common, syslib, debug, mine`. Several `--config` are the `extends` of a virtual root.
A `NAME:PART` entry is the named config's layers, then a selection step reducing the layers
merged so far to PART (each file still once).

Problems go to a policy: `raise_problem` (resolution: the first one is the error) or a collector
(validation reports them all); after one, expansion continues with what it could read.
"""

from __future__ import annotations

import itertools
import operator
import os
from collections import Counter

from tvmc import registry, sources
from tvmc.errors import ConfigLayerError, ConfigNotFoundError, Location, TvmcError
from tvmc.keys import MAX_EXTENDS_FANOUT
from tvmc.layering.tree import Tree, bare_tree, extends_refs, layer_key, layer_tree, merge
from tvmc.provenance import printable
from tvmc.records import record

# typing and pathlib are not imported at run time: every command would pay for them at start-up
# (scripts/bench_startup.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    PathText = str | os.PathLike[str]
    Loader = Callable[[str, str | None], sources.Layer]  # (reference, the directory of the file naming it)

MAX_EXTENDS_DEPTH = 128  # the longest chain of `extends`
MAX_LAYERS = 1024  # distinct config files in one resolution


@record(slots=True, frozen=True)
class Problem:
    """One `extends` problem, written at `pointer` of `layer` (None: a command-line reference)."""

    rule: str  # extends-unresolved | extends-cycle | extends-order | limit
    error: TvmcError  # what the raise policy raises; its location is where the entry was written
    layer: sources.Layer | None
    pointer: str
    structural: bool = False  # the shape of the layer's own `extends` (its schema check says so too)


def raise_problem(problem: Problem) -> None:
    if isinstance(problem.error, ConfigLayerError | ConfigNotFoundError):
        problem.error.rule = problem.rule  # the record keeps its rule id (a syntax error keeps its own)
    raise problem.error


@record(slots=True, frozen=True)
class Selection:
    """`NAME:PART`: the part to keep, and the reference as written (for errors)."""

    part: str
    ref: str
    where: Location | None


@record(slots=True, frozen=True)
class Node:
    """One step of a linearization: a file (or tag) to merge, or the selection of `NAME:PART`,
    which reduces the layers merged so far to the part, right after NAME's own layer (NAME's
    files are layers of the linearization like any other, each applied once)."""

    key: str
    layer: sources.Layer | None
    chain: tuple[str, ...]  # how it was reached, for origins: ("--config x", "x.toml extends y")
    selection: Selection | None = None

    def tree(self, *, origins: bool = True) -> Tree:
        assert self.layer is not None, "a selection is applied, not merged"
        return layer_tree(self.layer, self.chain) if origins else bare_tree(self.layer)

    def apply(self, tree: Tree, *, origins: bool = True) -> None:
        """This step on the tree built so far, in place."""
        if self.selection is None:
            merge(tree, self.tree(origins=origins))
        else:
            from tvmc.layering.select import select_part  # here: only `NAME:PART` needs it

            select_part(tree, self.selection.part, self.selection.ref, self.selection.where)


def merge_nodes(nodes: Sequence[Node], *, origins: bool = True, into: Tree | None = None) -> Tree:
    tree = Tree({}, {}) if into is None else into
    for node in nodes:
        node.apply(tree, origins=origins)
    return tree


@record(slots=True, frozen=True)
class Ref:
    """An `extends` entry or a `--config` value, and where it was written."""

    text: str
    given: Location | None  # a command-line reference's location
    layer: sources.Layer | None  # the file whose `extends` holds it (None: command line, env)
    pointer: str
    chain: tuple[str, ...]

    @property
    def where(self) -> Location | None:
        # Computed only for a problem: locating indexes the file's positions, which valid files skip.
        return self.layer.locate(self.pointer) if self.layer is not None else self.given


STDIN_REF = "-"  # `--config -`: the config read from standard input


def find(dirs: Sequence[sources.SearchDir], stdin: sources.Layer | None = None) -> Loader:
    """A loader over a search path (tags are configs too); `stdin`, when given, is what the
    command-line reference `-` names (read once by the caller)."""

    def load(ref: str, relative_to: str | None) -> sources.Layer:
        if ref == STDIN_REF and stdin is not None and relative_to is None:
            return stdin
        if ref.startswith(NEXT_PREFIX):
            return sources.find_config(ref[1:], dirs_after(dirs, ref, relative_to), tag_lookup=registry.is_tag)
        return sources.find_config(ref, dirs, relative_to=relative_to, tag_lookup=registry.is_tag)

    return load


NEXT_PREFIX = "^"  # `extends = ["^aws/c5"]`: the next `aws/c5` on the search path, after this file's


def dirs_after(dirs: Sequence[sources.SearchDir], ref: str, relative_to: PathText | None) -> list[sources.SearchDir]:
    """The search directories after the one holding the extending file (for `^NAME`)."""
    if relative_to is None:
        raise ConfigLayerError(f"{ref!r}: ^NAME refines a config of the same name; it is only valid in extends")
    here = os.path.realpath(relative_to)
    for index, directory in enumerate(dirs):
        if sources.is_within(here, os.path.realpath(directory.text)):
            return list(dirs[index + 1 :])
    raise ConfigLayerError(
        f"{ref!r}: ^NAME names the next config on the search path, but the file extending it is not on the search path"
    )


def _file_name(key: str) -> str:
    """The last part of a layer key (a file's path, or a tag), as Path(key).name gives it."""
    return os.path.basename(key.rstrip("/"))


class _TooDeep(Exception):
    def __init__(self, path: list[str]) -> None:
        self.path = path


class Expander:
    """Linearizes `extends` graphs; one instance per resolution (it counts the files loaded)."""

    def __init__(self, load: Loader, on_problem: Callable[[Problem], None] = raise_problem) -> None:
        self._load = load
        self._report = on_problem
        self._done: dict[str, list[Node]] = {}
        self._files: set[str] = set()

    def command_line(self, refs: Sequence[tuple[str, Location | None, tuple[str, ...]]]) -> list[Node]:
        """The layers of several `--config` (or base) references, the last one highest."""
        entries = [Ref(text, where, None, "", chain) for text, where, chain in refs]
        return self._linearize_entries(entries, ())

    def file(self, layer: sources.Layer, chain: tuple[str, ...] = ()) -> list[Node]:
        """The layers of one file, lowest first, the file itself last."""
        return self._file(layer, chain, ())

    def _file(self, layer: sources.Layer, chain: tuple[str, ...], stack: tuple[str, ...]) -> list[Node]:
        key = layer_key(layer)
        if key in self._done:
            return self._done[key]
        self._files.add(key)
        refs = extends_refs(layer)
        if refs is None or not all(isinstance(r, str) for r in refs):
            self._problem("extends-unresolved", "extends: expected a name or path, or a list of them", layer, "")
        refs = [r for r in refs or [] if isinstance(r, str)]
        if len(refs) > MAX_EXTENDS_FANOUT:
            self._problem("limit", f"extends lists more than {MAX_EXTENDS_FANOUT} configs", layer, "")
            refs = refs[:MAX_EXTENDS_FANOUT]
        single = isinstance(layer.data.get("extends"), str)  # `extends = "base"`: report at the key
        entries = []
        for index, text in enumerate(refs):
            pointer = "/extends" if single else f"/extends/{index}"
            step = f"{layer.source} extends {printable(text)}"
            entries.append(Ref(text, None, layer, pointer, (*chain, step)))
        parents = self._linearize_entries(entries, (*stack, key), owner=layer)
        nodes = [*parents, Node(key, layer, chain)]
        self._done[key] = nodes
        return nodes

    def _linearize_entries(
        self, entries: Sequence[Ref], stack: tuple[str, ...], owner: sources.Layer | None = None
    ) -> list[Node]:
        heads: dict[str, list[Node]] = {}  # by key: an entry named twice counts at its last place
        for ref in entries:
            try:
                nodes = self._entry(ref, stack)
            except _TooDeep as deep:
                if stack and len(stack) > 1:
                    raise
                path = " → ".join(_file_name(k) for k in deep.path[:3]) + " → …"
                self._report(
                    Problem(
                        "limit",
                        ConfigLayerError(f"extends chain deeper than {MAX_EXTENDS_DEPTH} ({path})", ref.where),
                        ref.layer,
                        ref.pointer,
                    )
                )
                continue
            if nodes:
                heads.pop(nodes[-1].key, None)
                heads[nodes[-1].key] = nodes
        lins = list(heads.values())
        merged = _c3(lins)
        if merged is None:
            name = owner.source if owner is not None else "the command line"
            self._report(
                Problem(
                    "extends-order",
                    ConfigLayerError(
                        f"extends of {name}: the configs it names order their common bases differently, "
                        "so no order applies each once (C3 linearization, as Python's MRO)",
                        owner.locate("/extends") if owner is not None else None,
                    ),
                    owner,
                    "/extends",
                )
            )
            merged = _first_occurrences(lins)
        return merged

    def _entry(self, ref: Ref, stack: tuple[str, ...]) -> list[Node]:
        name, part = sources.split_part(ref.text)
        if part is not None and ":" in name and not sources.is_path_ref(name):
            return self._fail("extends-unresolved", "more than one ':' (NAME:PART takes one)", ref)
        relative_to = os.path.dirname(ref.layer.file) if ref.layer is not None and ref.layer.file is not None else None
        try:
            layer = self._load(ref.text if part is None else name, relative_to)
        except TvmcError as err:
            if err.location is None:
                err.location = ref.where
            missing = "extends-unresolved" if ref.layer is not None else "config-not-found"  # named where
            self._report(
                Problem(
                    missing if isinstance(err, ConfigNotFoundError) else "extends-unresolved",
                    err,
                    ref.layer,
                    ref.pointer,
                )
            )
            return []
        key = layer_key(layer)
        if key in stack:
            cycle = " → ".join(_file_name(k) for k in [*stack[stack.index(key) :], key])
            return self._fail("extends-cycle", f"extends cycle: {cycle}", ref)
        if key not in self._files and len(self._files) >= MAX_LAYERS:
            return self._fail("limit", f"more than {MAX_LAYERS} config files in one resolution", ref)
        if len(stack) >= MAX_EXTENDS_DEPTH:
            raise _TooDeep([*stack, key])
        try:
            nodes = self._file(layer, ref.chain, stack)
        except _TooDeep as deep:
            raise _TooDeep([*stack, *deep.path[len(stack) :]]) from None
        if part is None:
            return nodes
        selected_key = f"{key}:{part}"
        if selected_key not in self._done:
            from tvmc.layering.select import select_part  # here: only `NAME:PART` needs it

            try:  # a part NAME does not have is the reference's error, reported here
                select_part(merge_nodes(nodes, origins=False), part, ref.text, ref.where)
            except ConfigLayerError as err:
                self._report(Problem("extends-unresolved", err, ref.layer, ref.pointer))
                return []
            selection = Node(selected_key, None, ref.chain, Selection(part, ref.text, ref.where))
            self._done[selected_key] = [*nodes, selection]
        return self._done[selected_key]

    def _fail(self, rule: str, message: str, ref: Ref) -> list[Node]:
        self._report(Problem(rule, ConfigLayerError(message, ref.where), ref.layer, ref.pointer))
        return []

    def _problem(self, rule: str, message: str, layer: sources.Layer, pointer: str) -> None:
        where = layer.locate(pointer or "/extends")
        self._report(Problem(rule, ConfigLayerError(message, where), layer, pointer or "/extends", structural=True))


def _c3(lins: list[list[Node]]) -> list[Node] | None:
    """C3-merge linearizations given lowest first, the last one highest; None when inconsistent.

    Python's MRO rule, step for step: take the head of the first sequence that is in no sequence's
    tail. A key that occurs once in all the sequences is in no tail, so once such a head is taken
    its sequence stays the first eligible one up to its next shared key: that whole run is taken as
    one slice, and only shared keys pay a scan over the sequences (one per entry, and the heads).
    So the cost is the total length (one pass over each sequence: key, count, mark) plus shared
    keys times sequences; a scan over all the sequences for every key made a chain link that also
    extends leaves cost (files below it) x (its extends), the whole chain depth x files x fan-out."""
    if len(lins) == 1:  # one `extends` entry (the common case): its linearization, keys each once
        return list(lins[0])
    # Python's MRO works highest first: reverse the sequences, add the heads' own order.
    seqs = [lin[::-1] for lin in reversed(lins)]
    seqs.append([lin[-1] for lin in reversed(lins)])
    keys = [list(map(_KEY, seq)) for seq in seqs]
    counts = Counter(itertools.chain.from_iterable(keys))
    shared = {key for key, count in counts.items() if count > 1}
    marks = [list(map(shared.__contains__, ks)) for ks in keys]  # where each sequence's runs end
    tails = {key: counts[key] for key in shared}  # how often a shared key is in a sequence's tail
    for ks in keys:
        if ks and ks[0] in shared:
            tails[ks[0]] -= 1
    starts = [0] * len(seqs)
    out: list[Node] = []
    while True:
        chosen = -1
        live = False
        for i, ks in enumerate(keys):
            if starts[i] < len(ks):
                live = True
                if not marks[i][starts[i]] or tails[ks[starts[i]]] == 0:
                    chosen = i
                    break
        if chosen < 0:
            return None if live else out[::-1]
        ks, start = keys[chosen], starts[chosen]
        if not marks[chosen][start]:  # a run of keys no other sequence has: all taken from here
            try:
                end = marks[chosen].index(True, start + 1)
            except ValueError:
                end = len(ks)
            else:
                tails[ks[end]] -= 1  # a shared key comes up: it leaves this tail
            out += seqs[chosen][start:end]
            starts[chosen] = end
            continue
        head = ks[start]
        out.append(seqs[chosen][start])
        for i, ks in enumerate(keys):
            if starts[i] < len(ks) and ks[starts[i]] == head:
                starts[i] += 1
                if starts[i] < len(ks) and marks[i][starts[i]]:
                    tails[ks[starts[i]]] -= 1


_KEY = operator.attrgetter("key")


def _first_occurrences(lins: list[list[Node]]) -> list[Node]:
    """The fallback order when C3 fails: every layer in expansion order, each at its last place."""
    order: dict[str, Node] = {}
    for node in (n for lin in lins for n in lin):
        order.pop(node.key, None)
        order[node.key] = node
    return list(order.values())
