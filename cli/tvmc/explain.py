"""One value of a resolved config, and the history behind it (`tvmc config get` / `config explain`).

A PATH uses the rewrite grammar (`tvmc.rewrites.parse_path`): `targets[0].mcpu`, `executor.kind`,
`targets[kind=llvm].mattr`, `pass-config."tir.disable_vectorize"`. `lookup` finds it in a
canonical config; `history` (`tvmc.api.explain`) replays the layering one layer at a time, then each rewrite
(environment, then flags), and records every step that set, changed or removed the value — the
winner last — with the value as that layer wrote it, and the final canonical value.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from tvmc import layering, rewrites
from tvmc import targets as tg
from tvmc.errors import TvmcError, UsageError, did_you_mean
from tvmc.keys import TOP_LEVEL, pass_config_aliases
from tvmc.pointers import display_path, join, split
from tvmc.provenance import Origin, is_within, node_at, origin_of
from tvmc.records import record
from tvmc.rewrites.grammar import Index, Key, Rewrite, Segment, Select, parse_path

if TYPE_CHECKING:
    from tvmc.layering import Node

PATH_SOURCE = "PATH"  # how a malformed PATH argument is named in messages


def parse(text: str) -> tuple[Segment, ...]:
    """A PATH as the rewrite grammar reads it; the whole text must be the path."""
    if not isinstance(text, str):
        raise TypeError(f"path: expected a str such as 'targets[0].mcpu', got {type(text).__name__}")
    segments, rest = parse_path(text, PATH_SOURCE)
    if rest:
        raise UsageError(f"unexpected {rest!r} after the path {text[: len(text) - len(rest)]!r}", PATH_SOURCE)
    first = segments[0]
    if isinstance(first, Key) and first.name not in TOP_LEVEL:
        raise UsageError(
            f"unknown config key {first.name!r}", PATH_SOURCE, suggestions=did_you_mean(first.name, list(TOP_LEVEL))
        )
    return segments


def _matches(node: Any, select: Select) -> bool:
    return isinstance(node, dict) and str(node.get(select.key)) == select.value


def lookup(data: Any, path: Sequence[Segment], expand: bool = False) -> list[tuple[str, Any]]:
    """Every (pointer, value) the path reaches in a plain tree; [] when it reaches nothing.

    With `expand`, a target written as a string or a tag table (in a merged, not yet canonical
    tree) is looked into as the target it stands for; a PATH ending at it gets it as written."""
    found: list[tuple[str, Any]] = [("", data)]
    for segment in path:
        step: list[tuple[str, Any]] = []
        for pointer, node in found:
            if expand and _is_target_slot(pointer):
                node = expand_target(node)
            if isinstance(segment, Key):
                if isinstance(node, dict) and segment.name in node:
                    step.append((join(pointer, segment.name), node[segment.name]))
            elif isinstance(segment, Index):
                if isinstance(node, list) and -len(node) <= segment.index < len(node):
                    index = segment.index % len(node)
                    step.append((join(pointer, index), node[index]))
            elif isinstance(node, list):
                for index, child in enumerate(node):
                    if _matches(expand_target(child) if expand and pointer == "/targets" else child, segment):
                        step.append((join(pointer, index), child))
            elif _matches(expand_target(node) if expand and _is_target_slot(pointer) else node, segment):
                step.append((pointer, node))
        found = step
    if not found and len(path) >= 2 and path[0] == Key("pass-config") and isinstance(path[1], Key):
        # One pass config in any spelling: `tir.X` finds `tirx.X`, a dotted name a nested table;
        # a field of an object-typed one (`pass-config."tir.UnrollLoop".auto_max_step`) too.
        table = data.get("pass-config") if isinstance(data, dict) else None
        written = pass_config_aliases(table, path[1].name) if type(table) is dict else []
        return [
            (pointer + inner, value)
            for pointer in written[-1:]
            for inner, value in lookup(node_at(data, pointer), path[2:], expand)
        ]
    return found


def _is_target_slot(pointer: str) -> bool:
    tokens = split(pointer)
    return (len(tokens) == 2 and tokens[0] == "targets" and tokens[1].isdigit()) or tokens[-1:] == ["host"]


def expand_target(node: Any) -> Any:
    """A target written as a tag, legacy string or tag table, as the table it stands for (the
    node itself when it cannot be read: validation reports that, not an explanation)."""
    if not (isinstance(node, str) or (isinstance(node, dict) and "tag" in node and "kind" not in node)):
        return node
    try:
        if isinstance(node, str):
            return tg.parse_target(node).spec
        expanded = dict(tg.parse_target(node["tag"]).spec) if isinstance(node["tag"], str) else {}
        expanded.update({k: v for k, v in node.items() if k != "tag"})
        return expanded
    except TvmcError:
        return node


@record(slots=True, frozen=True)
class Found:
    """The value at a PATH of a resolved config, and its origin."""

    pointer: str
    value: Any
    origin: Origin
    origins: Mapping[str, Origin]  # of the value's nodes (for a table or list)

    @property
    def path(self) -> str:
        return display_path(self.pointer)


def one_match(path_text: str, matches: list[tuple[str, Any]]) -> tuple[str, Any] | None:
    """The single match of a PATH, None for none; a PATH reaching several values is a usage error."""
    if len(matches) > 1:
        shown = ", ".join(display_path(p) for p, _ in matches[:4])
        raise UsageError(f"{path_text!r} matches {len(matches)} values ({shown}); give an index", PATH_SOURCE)
    return matches[0] if matches else None


def target_host_path(canonical: Mapping[str, Any], path: Sequence[Segment]) -> tuple[Segment, ...] | None:
    """`targets[0].host.mcpu` as the config's `host.mcpu`: a canonical config holds the one host of
    the build once, as `host` (every target's own host equals it: the host-conflict rule), so a
    PATH into one target's host reads the host. None for any other PATH, or when the PATH's target
    is not there."""
    if len(path) < 3 or path[0] != Key("targets") or isinstance(path[1], Key) or path[2] != Key("host"):
        return None
    if len(lookup(canonical, path[:2])) != 1:
        return None
    return (Key("host"), *path[3:])


def get(canonical: Mapping[str, Any], origins: Mapping[str, Origin], path_text: str) -> Found | None:
    """The value at `path_text` in a canonical config, or None when it is unset."""
    if not isinstance(canonical, Mapping) or not isinstance(origins, Mapping):
        raise TypeError("get: expected the canonical config and its origins as mappings (Resolved.to_dict(), .origins)")
    path = parse(path_text)
    matches = lookup(canonical, path)
    if not matches and (host_path := target_host_path(canonical, path)) is not None:
        matches = lookup(canonical, host_path)
    match = one_match(path_text, matches)
    if match is None:
        return None
    pointer, value = match
    inside = {p: o for p, o in origins.items() if is_within(p, pointer)}
    return Found(pointer, copy.deepcopy(value), origin_of(origins, pointer) or Origin.default(), inside)


def unset_message(path_text: str) -> str:
    return f"{path_text} is not set"


# ---- the history behind one value ----------------------------------------------------------------


@record(slots=True, frozen=True)
class Step:
    """One layer or rewrite that set, changed or removed the value at a PATH."""

    action: str  # "set" | "unset"
    pointer: str  # where the value is in the merged tree at that step
    value: Any  # as that layer wrote it (None when unset)
    where: str  # where it was written, or the layer/flag that removed it
    origin: Origin | None = None  # `where` as an Origin (None for a removal by a layer)
    applying: str | None = None  # the layer or flag applied at this step, when it is not `where`
    expanded_from: str | None = None  # the tag or target string the value was read from

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action, "path": display_path(self.pointer), "origin": self.where}
        if self.action == "set":
            out["value"] = self.value
        if self.applying is not None:
            out["applying"] = self.applying
        if self.expanded_from is not None:
            out["expanded-from"] = self.expanded_from
        return out


@record(slots=True, frozen=True)
class Explanation:
    """Every step that set the value at a PATH, in order (the winner last), and the final value."""

    path: str
    steps: tuple[Step, ...]
    final: Found | None  # the canonical value, None when unset (or when `error`)
    notes: tuple[str, ...] = ()  # how the PATH was followed (a host that is a target, ...)
    error: TvmcError | None = None  # the resolution failed after layering (canonicalization)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "steps": [s.to_dict() for s in self.steps], "set": bool(self.final)}
        if self.final is not None:
            out.update(pointer=self.final.pointer, value=self.final.value, origin=str(self.final.origin))
        if self.notes:
            out["notes"] = list(self.notes)
        if self.error is not None:
            out["error"] = self.error.one_line()
        return out


class _Tracker:
    """Watches the value at a PATH while the tree is built, recording each change."""

    def __init__(self, path: Sequence[Segment]) -> None:
        self.path = path
        self.steps: list[Step] = []
        self._last: tuple[str, Any, Origin | None] | None = None  # pointer, value, origin

    def observe(
        self, data: Any, origins: Mapping[str, Origin], applying: str, by: Origin | None, source: str | None
    ) -> None:
        """After one layer (`source`: its file's source) or rewrite (`by`: its origin) is applied."""
        matches = lookup(data, self.path, expand=True)
        last = self._last
        if not matches:
            if last is not None:
                self.steps.append(Step("unset", last[0], None, str(by) if by is not None else applying, by))
            self._last = None
            return
        pointer, value = matches[0]
        origin = _origin_at(data, origins, pointer)
        if last is not None and last[1] == value and (isinstance(value, dict | list) or last[2] is origin):
            return  # unchanged (a table or list: its contents unchanged)
        self._last = (pointer, copy.deepcopy(value), origin)
        if last is not None and origin is last[2] and by is not None:
            origin = by  # a list or table edited inside (`+=`): the rewrite changed it
        own = origin is by if by is not None else origin is not None and origin.source == source
        where = str(origin) if origin is not None else "default"
        step = Step(
            "set",
            pointer,
            copy.deepcopy(value),
            where,
            origin,
            None if own or applying == "default" else applying,
            _expanded_from(data, pointer),
        )
        if by is not None and self.steps and self.steps[-1].origin is by:
            self.steps[-1] = step  # one flag's several rewrites (a comma list): one step
        else:
            self.steps.append(step)


def _origin_at(data: Any, origins: Mapping[str, Origin], pointer: str) -> Origin | None:
    """The origin of a value as `tvmc.api.canonical_origins` gives it (`get --origin`, `show
    --origin`): its own, else its nearest written ancestor's, where a value a tag table expanded
    to (`{ tag = "arm/rasp4b" }`) comes from the table's `tag` key."""
    ancestor = pointer
    while ancestor not in origins:
        if not ancestor:
            return None
        ancestor = ancestor.rsplit("/", 1)[0]
    node = node_at(data, ancestor) if ancestor != pointer else None
    if isinstance(node, dict) and "tag" in node and "kind" not in node:
        return origins.get(join(ancestor, "tag"), origins[ancestor])
    return origins[ancestor]


def _expanded_from(data: Any, pointer: str) -> str | None:
    """The target string or tag a value was read from, when it is inside one."""
    tokens = split(pointer)
    node = data
    for index, token in enumerate(tokens):
        here = "".join(join("", t) for t in tokens[:index])
        written_here = isinstance(node, dict) and token in node  # `{ tag = …, host = … }`: the host is its own
        if index and _is_target_slot(here) and not written_here and expand_target(node) is not node:
            return node if isinstance(node, str) else f"tag {node.get('tag')}"
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return None


class Resolution(NamedTuple):
    """What `history` reads of the resolved config: its canonical form and origins, and where a
    canonical pointer was written (`tvmc.api.source_pointer`)."""

    canonical: dict[str, Any]
    origins: Mapping[str, Origin]
    source_pointer: Callable[[str], str | None]


class Replay(NamedTuple):
    """The steps of a resolution, as `api.build` takes them: the layers over the defaults (read
    anew on each call), then the rewrites (environment, then flags)."""

    layers: Callable[[], Sequence[Node]]
    rewrites: Sequence[Rewrite]


def _replay(path: Sequence[Segment], given: Replay) -> tuple[list[Step], Any]:
    """Build the tree as `api.build` does, one layer and one rewrite at a time."""
    tracker = _Tracker(path)
    tree = layering.Tree.defaults()
    tracker.observe(tree.data, tree.origins, "default", None, None)
    for node in given.layers():
        node.apply(tree)
        source = node.layer.source if node.layer is not None else node.key
        label = source + (" (via " + ", ".join(node.chain) + ")" if node.chain else "")
        tracker.observe(tree.data, tree.origins, label, None, source)
    for rw in given.rewrites:
        rewrites.apply(tree, rw)
        tracker.observe(tree.data, tree.origins, str(rw.origin), rw.origin, None)
    return tracker.steps, tree


def history(path_text: str, given: Replay, resolve: Callable[[], Resolution]) -> Explanation:
    """The explanation of `path_text`: the resolution replayed, then `resolve()`'s canonical
    value (see `tvmc.api.explain`)."""
    path = parse(path_text)
    steps, tree = _replay(path, given)
    notes: list[str] = []
    try:
        resolved = resolve()
    except TvmcError as err:
        return Explanation(path_text, tuple(steps), None, (), err)
    final = get(resolved.canonical, resolved.origins, path_text)
    host_path = target_host_path(resolved.canonical, path)
    if final is not None and host_path is not None and final.pointer.startswith("/host"):
        notes.append(f"{path_text} is {final.path}: a build has one host, the config's")
        if not lookup(tree.data, path, expand=True):  # no target wrote a host: follow the config's
            path = host_path
            steps, tree = _replay(path, given)
    sorted_set = final is not None and final.pointer.startswith("/disabled-pass/")
    if final is not None and (sorted_set or not lookup(tree.data, path, expand=True)):
        # Written elsewhere: a host no file wrote is the CPU target (TVM's rule), a target's
        # host the config's host; a name of the sorted set disabled-pass where it was written.
        source = resolved.source_pointer(final.pointer)
        if source is not None and source != final.pointer:
            spelling = source.startswith("/pass-config/")
            why = "another spelling of one pass config" if spelling else "the host is derived from it"
            why = "disabled-pass is a sorted set" if sorted_set else why
            notes.append(f"{final.path} is {display_path(source)} as written ({why})")
            steps, _ = _replay(_segments(source), given)
    if final is not None and not steps and final.pointer.startswith("/host"):
        # A host written inside a target (a tag such as nvidia/jetson-agx-orin-64gb holds its CPU).
        rest = split(final.pointer)[1:]
        count = len(tree.data.get("targets") or []) if isinstance(tree.data.get("targets"), list) else 0
        for index in range(count):
            inner = (Key("targets"), Index(index), Key("host"), *_segments("".join(join("", t) for t in rest)))
            if lookup(tree.data, inner, expand=True):
                notes.append(f"{final.path} is the host written in targets[{index}]")
                steps, _ = _replay(inner, given)
                break
    if final is not None and not steps and final.origin.kind != "default":
        # Filled in from a tag or target string a layer wrote (a tag's keys, a kind's defaults):
        # that layer set it, as `config show --origin` says.
        steps = [Step("set", final.pointer, copy.deepcopy(final.value), str(final.origin), final.origin)]
        notes.append(f"{final.path} is filled in from the target written at {final.origin}")
    if final is not None and not steps:
        notes.append(f"no layer sets {final.path}: it is a default ({final.origin})")
    return Explanation(path_text, tuple(steps), final, tuple(notes))


def _segments(pointer: str) -> tuple[Segment, ...]:
    return tuple(Index(int(t)) if t.isdigit() else Key(t) for t in split(pointer))
