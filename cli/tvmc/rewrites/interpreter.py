"""Applying rewrites to a config tree: selectors, materialising string targets, typing values from
the registry, and keeping every node's origin."""

from __future__ import annotations

from collections.abc import Iterable

from tvmc import records, registry, versions
from tvmc import targets as tg
from tvmc.errors import TvmcError, UsageError, did_you_mean, suggestion_text
from tvmc.keys import (
    BUILD_OPTIONS,
    COMPONENTS,
    IMPLIED_KINDS,
    TOP_LEVEL,
    component_table,
    pass_config_aliases,
    with_lifted,
)
from tvmc.layering import Tree
from tvmc.layering.tree import (
    canonical_entry,
    derive_host,
    drop_pass_config_aliases,
    keep_derived_host,
    runs_on_cpu,
)
from tvmc.pointers import display_path, join, split
from tvmc.provenance import Origin, drop, is_within, node_at, origins_for, rebase
from tvmc.rewrites.grammar import Index, Key, Rewrite, Segment, Select
from tvmc.sources.limits import MAX_DEPTH
from tvmc.values import ValueTypeError, coerce_text, parse_literal, plain_copy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _type_at(tree: Tree, tokens: list[str | int]) -> str | None:
    """The registry type of the value at a concrete path, if known (raises for unknown options)."""
    top = tokens[0]
    if len(tokens) == 1:
        spec = TOP_LEVEL.get(str(top))
        return spec.type if spec and spec.type in ("str", "int", "bool", "Array<str>") else None
    if top in ("targets", "host"):
        owner_tokens = tokens[:2] if top == "targets" else tokens[:1]
        rest = tokens[len(owner_tokens) :]
        while rest and rest[0] == "host":  # a target's own host (possibly nested)
            owner_tokens, rest = [*owner_tokens, "host"], rest[1:]
        if len(rest) != 1 or not isinstance(rest[0], str):
            return None
        node = _get(tree.data, owner_tokens)
        if not isinstance(node, dict | str):
            return None
        kind = registry.kind(_kind_of(node))
        if kind is None or rest[0] in ("compiler", "kind"):  # a codegen kind lists no `kind` option
            return "str" if rest[0] in ("compiler", "kind") else None
        if rest[0] not in kind.options and not rest[0].startswith("feature.") and not kind.open_options:
            raise ValueTypeError(
                f"{rest[0]!r} is not an option of target kind {kind.name!r}" + _suggest(rest[0], kind.options)
            )
        return kind.options.get(rest[0])
    if top in ("executor", "runtime") and len(tokens) == 2:
        comps = registry.executors() if top == "executor" else registry.runtimes()
        if tokens[1] == "kind":
            return "str"
        comp = comps.get(str((tree.data.get(str(top)) or {}).get("kind")))
        if comp is not None and str(tokens[1]) in comp.options:
            return comp.options[str(tokens[1])].type
        if comp is not None:
            raise ValueTypeError(
                f"{tokens[1]!r} is not an option of {top} {comp.name!r}" + _suggest(str(tokens[1]), comp.options)
            )
        return None
    if top == "pass-config" and len(tokens) >= 2:  # nested keys are a dotted name
        generation = versions.generation(tree.data.get("tvm-version"))
        _canonical, type_ = registry.pass_config_spec(".".join(map(str, tokens[1:])), generation)
        return type_ if type_ in ("bool", "int", "str") else None
    if top == "build" and len(tokens) == 2:
        spec = BUILD_OPTIONS.get(str(tokens[1]))
        if spec is None:
            raise ValueTypeError(f"{tokens[1]!r} is not a build option" + _suggest(str(tokens[1]), BUILD_OPTIONS))
        return spec.type
    return None


def _kind_of(node: dict[str, Any] | str) -> str:
    """The kind of a target as written. Of a table only `kind`/`tag` are parsed: its other values
    (a list that `+=` keeps growing) would make every selector match cost their size."""
    if isinstance(node, dict):
        node = {k: v for k, v in node.items() if k in ("kind", "tag")}
    return tg.kind_of(tg.parse_target(node).spec)


def _suggest(word: str, choices: Iterable[str]) -> str:
    return suggestion_text(did_you_mean(word, list(choices)))


def _get(node: Any, tokens: list[str | int]) -> Any:
    for token in tokens:
        node = node[token]
    return node


def _materialize_target(tree: Tree, tokens: list[str | int]) -> dict[str, Any]:
    """Turn a target given as a string (tag, JSON, legacy) into its table so it can be edited."""
    parent = _get(tree.data, tokens[:-1])
    node = parent[tokens[-1]]
    if isinstance(node, dict):
        return node
    pointer = "".join(join("", t) for t in tokens)
    origin = tree.origins.get(pointer, Origin.default())
    parsed = tg.parse_target(node, source=origin.location())
    tree.notes.extend(parsed.notes)
    parent[tokens[-1]] = plain_copy(parsed.spec)
    tree.origins.update(origins_for(parsed.spec, pointer, lambda _p: origin))
    for section, settings in parsed.lifted.items():
        before = tree.data.get(section)
        tree.data[section] = with_lifted(section, settings, before)
        tree.origins.setdefault(f"/{section}", origin)
        for option in tree.data[section]:
            if not (isinstance(before, dict) and option in before):
                tree.origins.setdefault(f"/{section}/{option}", origin)
    result: dict[str, Any] = parent[tokens[-1]]
    return result


def _materialize_tag(tree: Tree, tokens: list[str | int], key: str) -> None:
    """Write out a tag table's tag (`{ tag = "arm/rasp4b", mfloat-abi = "hard" }`) when an edit
    reaches a value only the tag holds (`--unset targets[0].mcpu`, `mattr+=`), as a tag string is
    (`_materialize_target`): its values with the table's own over them, from the `tag` key. With
    its kind written, `tag` stays as the label the canonical form shows; the meaning is unchanged."""
    node = _get(tree.data, tokens)
    if not _is_tag_reference(node, tokens) or key in node or key == "kind":  # the kind is the tag's
        return
    expanded = tg.parse_target(node["tag"]).spec
    if key not in expanded:
        return
    pointer = _pointer(tokens)
    origin = tree.origins.get(join(pointer, "tag"), tree.origins.get(pointer, Origin.default()))
    for name, value in expanded.items():
        if name not in node:
            node[name] = plain_copy(value)
            tree.origins.update(origins_for(node[name], join(pointer, name), lambda _p: origin))


def _own_host(tree: Tree) -> dict[str, Any] | None:
    """The host the first target carrying one has (a board's tag such as nvidia/jetson-nano)."""
    entries = tree.data.get("targets")
    for entry in entries if isinstance(entries, list) else []:
        canonical = canonical_entry(entry, tree.reader)
        if canonical is not None and isinstance(canonical.get("host"), dict):
            # As written out: `tag = ""` is TVM's "no label" of a canonical target, not a tag.
            return {k: v for k, v in canonical["host"].items() if not (k == "tag" and v == "")}
    return None


def _materialize_host(tree: Tree, rw: Rewrite) -> dict[str, Any]:
    """Write out the effective host where no layer wrote one, so a path into it (`host.mcpu`, a
    `--target-llvm-<attr>` patch of a tag's own host) edits the host `config get host` shows:
    the host a target carries, else the CPU target (TVM's rule: it is its own host; its origins
    stay its own), else TVM's default `llvm`. Written out unchanged it means the same config."""
    own = _own_host(tree)
    entries = tree.data.get("targets")
    cpu = None
    if own is None and isinstance(entries, list):
        cpu = next((i for i, e in enumerate(entries) if runs_on_cpu(canonical_entry(e, tree.reader))), None)
    if own is not None:
        host: Any = own
        tree.origins.update(origins_for(host, "/host", lambda _p: Origin.default("the host a target carries")))
    elif cpu is not None:
        assert isinstance(entries, list)
        host = plain_copy(entries[cpu])
        inside = {p: o for p, o in tree.origins.items() if is_within(p, f"/targets/{cpu}")}
        tree.origins.update({"/host" + p[len(f"/targets/{cpu}") :]: o for p, o in inside.items()})
    else:
        host = {"kind": "llvm"}
        tree.origins.update(origins_for(host, "/host", lambda _p: Origin.default("target kind llvm")))
    tree.data["host"] = host
    if isinstance(host, str):
        host = _materialize_target(tree, ["host"])
    result: dict[str, Any] = host
    return result


def _is_target_slot(tokens: list[str | int]) -> bool:
    """Whether the tokens address a target (an element of `targets`, or a host)."""
    return (len(tokens) == 2 and tokens[0] == "targets" and isinstance(tokens[1], int)) or tokens[-1:] == ["host"]


def _matches(tree: Tree, tokens: list[str | int], node: Any, select: Select) -> bool:

    if select.key == "kind" and tokens and tokens[0] in ("targets", "host"):
        return _kind_of(node) == select.value if isinstance(node, dict | str) else False
    return isinstance(node, dict) and str(node.get(select.key)) == select.value


def _target_slots(tree: Tree) -> list[list[str | int]]:
    listed = tree.data.get("targets")
    slots: list[list[str | int]] = [["targets", i] for i in range(len(listed))] if isinstance(listed, list) else []
    return [*slots, ["host"]] if tree.data.get("host") is not None else slots


def _expand(tree: Tree, rw: Rewrite, path: tuple[Segment, ...], create: bool) -> list[list[str | int]]:
    """Concrete token paths of the parents that `path[:-1]` selects."""
    found: list[list[str | int]] = [[]]
    for segment in path:
        step: list[list[str | int]] = []
        for tokens in found:
            node = _get(tree.data, tokens)
            if isinstance(segment, Key):
                if not tokens and segment.name == "host" and tree.data.get("host") is None:
                    _materialize_host(tree, rw)
                if isinstance(node, str) and _is_target_slot(tokens):
                    node = _materialize_target(tree, tokens)
                _materialize_tag(tree, tokens, segment.name)
                if not isinstance(node, dict):
                    raise UsageError(f"{_show(tokens)} is not a table", rw.origin.where())
                if segment.name not in node:
                    if not create:
                        raise UsageError(f"{_show([*tokens, segment.name])} is not set", rw.origin.where())
                    node[segment.name] = {}
                    tree.origins[_pointer([*tokens, segment.name])] = rw.origin
                step.append([*tokens, segment.name])
            elif isinstance(segment, Index):
                if not isinstance(node, list) or not -len(node) <= segment.index < len(node):
                    raise UsageError(f"{_show(tokens)} has no element [{segment.index}]", rw.origin.where())
                step.append([*tokens, segment.index % len(node)])
            elif not tokens:  # `--target-<kind>-<attr>`: every target of the kind, and the host
                slots = [slot for slot in _target_slots(tree) if _matches(tree, slot, _get(tree.data, slot), segment)]
                if not slots and tree.data.get("host") is None and _own_host(tree) is not None:
                    # The host a target carries (a board's tag): patched as the config's host.
                    host = _materialize_host(tree, rw)
                    slots = [["host"]] if _matches(tree, ["host"], host, segment) else []
                    if not slots:
                        drop(tree.origins, "/host", tree.data.pop("host"))
                step += slots
            else:
                candidates = list(enumerate(node)) if isinstance(node, list) else [(None, node)]
                for index, child in candidates:
                    if _matches(tree, tokens, child, segment):
                        step.append([*tokens, index] if index is not None else tokens)
        if not step:
            raise UsageError(_no_match(tree, path, segment), rw.origin.where(), hint=rw.hint)
        found = step
    return found


def _no_match(tree: Tree, path: tuple[Segment, ...], segment: Segment) -> str:
    if isinstance(segment, Select) and path[0] == segment:
        try:
            host = _kind_of(tree.data["host"]) if tree.data.get("host") is not None else "none"
        except TvmcError:
            host = "?"
        return _no_match(tree, (Key("targets"), segment), segment).replace(")", f"; host: {host})")
    if isinstance(segment, Select) and path[0] == Key("targets"):
        listed = tree.data.get("targets") or []
        if not isinstance(listed, list):  # `targets = 1` in a file: validation names the file's error
            return f"no target of {segment.key} {segment.value!r} (targets is not a list)"
        kinds = []
        for entry in listed:
            try:
                kinds.append(_kind_of(entry))
            except TvmcError:
                kinds.append("?")
        return f"no target of {segment.key} {segment.value!r} (targets: {', '.join(kinds) or 'none'})"
    if isinstance(segment, Select) and isinstance(path[0], Key):
        current = tree.data.get(path[0].name) or {}
        have = current.get(segment.key) if isinstance(current, dict) else None
        return (
            f"the {path[0].name} is {have!r}, not {segment.value!r}"
            if have
            else f"no {path[0].name} is set, so it is not {segment.value!r}"
        )
    return "the path matches nothing"


def _pointer(tokens: list[str | int]) -> str:
    return "".join(join("", t) for t in tokens)


def _show(tokens: list[str | int]) -> str:
    return display_path(_pointer(tokens)) or "the config"


def _depth(value: Any) -> int:
    """Levels of nested tables/lists in a value (a scalar is 0); iterative, as the depth is the input's."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def _typed(tree: Tree, rw: Rewrite, tokens: list[str | int], *, element: bool = False) -> Any:
    if rw.text is None:
        return plain_copy(rw.value)
    try:
        type_ = _type_at(tree, tokens)
        if element and type_ and type_.startswith("Array<"):
            value = coerce_text(rw.text, type_)
        else:
            value = coerce_text(rw.text, type_) if type_ else parse_literal(rw.text)
    except ValueTypeError as err:
        raise UsageError(f"{_show(tokens)}: {err}", rw.origin.where()) from None
    except TvmcError as err:
        raise UsageError(f"{_show(tokens)}: {err.message}", rw.origin.where()) from None
    # The document is level 1 and each path token one more, as for config files (sources.MAX_DEPTH).
    if len(tokens) + _depth(value) > MAX_DEPTH:
        raise UsageError(f"{_show(tokens)}: the value nests deeper than {MAX_DEPTH} levels", rw.origin.where())
    return value


def _place(tree: Tree, tokens: list[str | int], value: Any, origin: Origin) -> None:
    if len(tokens) == 1 and tokens[0] in COMPONENTS:
        value = component_table(value)  # `--set executor=aot`: the same table a file gives
    parent = _get(tree.data, tokens[:-1])
    key = tokens[-1]
    pointer = _pointer(tokens)
    current_kind = parent.get("kind", value) if isinstance(parent, dict) and key == "kind" else value
    if key == "kind" and _is_tag_reference(parent, tokens[:-1]):
        # A tag table's kind is the tag's: set again it is a no-op (written, it would make the tag
        # a mere label of a bare target, dropping what the tag holds), another kind replaces it.
        current_kind = _kind_of(parent)
        if current_kind == value:
            return
    if isinstance(parent, dict) and (
        (key == "kind" and current_kind != value)
        or (key == "tag" and parent.get(key) != value and isinstance(value, str) and registry.is_tag(value))
    ):
        # A kind (or tag) change replaces the whole table, so options of the old kind never leak
        # (`--set host.tag=aws/cpu/c5.large` over an aarch64 host is the c5, as in files).
        drop(tree.origins, _pointer(tokens[:-1]), parent)
        parent.clear()
        tree.origins[_pointer(tokens[:-1])] = origin
    drop(tree.origins, pointer, parent.get(key) if isinstance(parent, dict) else parent[key])
    parent[key] = value
    tree.origins.update(origins_for(value, pointer, lambda _p: origin))


def _is_tag_reference(node: Any, tokens: list[str | int]) -> bool:
    """Whether a target table is a tag with overrides (`{ tag = "arm/rasp4b", mfloat-abi = … }`):
    a registered tag and no kind (with a kind, `tag` is only a label)."""
    return _is_tagged(node, tokens) and "kind" not in node


def _is_tagged(node: Any, tokens: list[str | int]) -> bool:
    """Whether a target table names a registered tag, with its kind written out or not."""
    return (
        isinstance(node, dict)
        and isinstance(node.get("tag"), str)
        and registry.is_tag(node["tag"])
        and _is_target_slot(tokens)
    )


def _tag_kind_unset(rw: Rewrite, tokens: list[str | int], tag: str) -> UsageError:
    return UsageError(
        f"{_show([*tokens, 'kind'])}: a tagged target's kind is its tag's ({tag!r}); "
        f"set it, or unset or replace {_show(tokens)}",
        rw.origin.where(),
    )


def apply(tree: Tree, rw: Rewrite) -> None:
    """Apply one rewrite to the tree, in place."""
    if not rw.path:
        raise UsageError("empty path", rw.origin.where())
    if len(rw.path) >= MAX_DEPTH:
        raise UsageError(f"path deeper than {MAX_DEPTH} levels", rw.origin.where())
    if isinstance(rw.path[0], Key) and rw.path[0].name not in TOP_LEVEL:
        raise UsageError(
            f"unknown config key {rw.path[0].name!r}",
            rw.origin.where(),
            suggestions=did_you_mean(rw.path[0].name, list(TOP_LEVEL)),
        )
    spelled = _pass_config_spelling(tree, rw)
    if spelled is None:
        return
    if rw.path[0] == Key("disabled-pass") and len(rw.path) > 1:
        _sort_disabled_passes(tree)
    rw = _target_host_alias(tree, spelled)
    if rw.op in ("set", "append"):
        _imply_kind(tree, rw)
    parents = _expand(tree, rw, rw.path[:-1], create=rw.op != "unset")
    last = rw.path[-1]
    for parent_tokens in parents:
        parent = _get(tree.data, parent_tokens)
        unsets_kind = isinstance(last, Key) and last.name == "kind" and rw.op == "unset"
        if isinstance(last, Key) and isinstance(parent, str) and _is_target_slot(parent_tokens):
            tag = parent.strip() if registry.is_tag(parent.strip()) else None
            if unsets_kind and tag is not None:  # a tag string: as the same tag written as a table
                raise _tag_kind_unset(rw, parent_tokens, tag)
            parent = _materialize_target(tree, parent_tokens)
        if unsets_kind and _is_tagged(parent, parent_tokens):
            # A tagged target's kind is its tag's, written out or not: unsetting it would turn a
            # written-out tag (after `mattr+=`, `--unset …mcpu`) back into the tag, bringing back
            # the values unset since, while the kind stays the tag's.
            raise _tag_kind_unset(rw, parent_tokens, parent["tag"])
        if isinstance(last, Key) and rw.op in ("unset", "append"):
            _materialize_tag(tree, parent_tokens, last.name)
        if isinstance(last, Key):
            if not isinstance(parent, dict):
                raise UsageError(f"{_show(parent_tokens)} is not a table", rw.origin.where())
            targets = [[*parent_tokens, last.name]]
        else:
            if not isinstance(parent, list):
                raise UsageError(f"{_show(parent_tokens)} is not a list", rw.origin.where())
            if isinstance(last, Index):
                if not -len(parent) <= last.index < len(parent):
                    raise UsageError(f"{_show(parent_tokens)} has no element [{last.index}]", rw.origin.where())
                targets = [[*parent_tokens, last.index % len(parent)]]
            else:
                targets = [
                    [*parent_tokens, i] for i, child in enumerate(parent) if _matches(tree, parent_tokens, child, last)
                ]
                if not targets:
                    raise UsageError(_no_match(tree, rw.path, last), rw.origin.where(), hint=rw.hint)
        for tokens in reversed(targets):  # reversed: deleting list elements keeps earlier indexes valid
            _apply_one(tree, rw, tokens)
    if tree.data.get("host") is not None and any(p[:1] == ["host"] for p in parents):
        # An edit inside the host is a host written by this flag: it is also the host of targets
        # that carry one (the rule of `layering.derive_host`).
        derive_host(
            tree,
            {"host": tree.data["host"]},
            {p[len("/host") :]: o for p, o in tree.origins.items() if is_within(p, "/host")},
        )


def _sort_disabled_passes(tree: Tree) -> None:
    """disabled-pass is a sorted set: `disabled-pass[0]` is the first name `config get` prints, so
    an edit by index (`--set disabled-pass[0]=…`, `--unset disabled-pass[0]`) reaches the list in
    that order, each name with the origin where it was first written."""
    written = tree.data.get("disabled-pass")
    if not isinstance(written, list) or not all(isinstance(name, str) for name in written):
        return  # validation reports it
    names = sorted(set(written))
    if names == written:
        return
    origins = [tree.origins.pop(f"/disabled-pass/{i}", None) for i in range(len(written))]
    for index, name in enumerate(names):
        origin = origins[written.index(name)]
        if origin is not None:
            tree.origins[f"/disabled-pass/{index}"] = origin
    tree.data["disabled-pass"] = names


def _pass_config_spelling(tree: Tree, rw: Rewrite) -> Rewrite | None:
    """A pass config is one key whatever its spelling (`tir.X`, `tirx.X`, a nested table): `set`
    replaces the config written in another spelling, `--unset` removes it in any spelling (None:
    done, with no nested table left empty), `+=` and a default edit the one written when the
    rewrite's own spelling is not."""
    rest = rw.path[1:]
    if rw.path[:1] != (Key("pass-config"),) or not rest or not isinstance(rest[0], Key):
        return rw
    keys = next((i for i, s in enumerate(rest) if not isinstance(s, Key)), len(rest))
    # The config is the first run of keys that names one (`"tirx.UnrollLoop".auto_max_step`: a
    # field of it), else all the keys (a nested table's keys are a dotted name); the rest is a
    # path into its value (`[0]`, a field).
    generation = versions.generation(tree.data.get("tvm-version"))
    names = [s.name for s in rest[:keys] if isinstance(s, Key)]
    keys = next((n for n in range(1, keys) if registry.pass_config_spec(".".join(names[:n]), generation)[1]), keys)
    rest, inside = rest[:keys], rest[keys:]
    name = ".".join(s.name for s in rest if isinstance(s, Key))
    pointer = "/pass-config" + "".join(join("", s.name) for s in rest if isinstance(s, Key))
    if inside:  # an edit inside the value: of the config as written, in whatever spelling
        if node_at(tree.data, pointer, _ABSENT) is not _ABSENT or type(tree.data.get("pass-config")) is not dict:
            return rw
        written = pass_config_aliases(tree.data["pass-config"], name)
        return records.replace(rw, path=(*(Key(t) for t in split(written[-1])), *inside)) if written else rw
    if rw.op == "set":
        drop_pass_config_aliases(tree.data, tree.origins, name, pointer)
        return rw
    if rw.op == "unset":
        return None if drop_pass_config_aliases(tree.data, tree.origins, name, None) else rw
    if node_at(tree.data, pointer, _ABSENT) is not _ABSENT or type(tree.data.get("pass-config")) is not dict:
        return rw
    written = pass_config_aliases(tree.data["pass-config"], name)
    if not written:
        return rw
    return records.replace(rw, path=tuple(Key(t) for t in split(written[-1])))


_ABSENT = object()


def _target_host_alias(tree: Tree, rw: Rewrite) -> Rewrite:
    """`targets[N].host.X` of a target that carries no host of its own is the config's `host.X`,
    as `config get` reads it (a build has one host): written into the target it made a host
    without a kind ("target has no 'kind'") for the value `get` printed."""
    path = rw.path
    if len(path) < 3 or path[0] != Key("targets") or not isinstance(path[1], Index) or path[2] != Key("host"):
        return rw
    entries = tree.data.get("targets")
    if not isinstance(entries, list) or not -len(entries) <= path[1].index < len(entries):
        return rw
    canonical = canonical_entry(entries[path[1].index], tree.reader)
    if canonical is None or "host" in canonical:
        return rw
    return records.replace(rw, path=(Key("host"), *path[3:]))


def _imply_kind(tree: Tree, rw: Rewrite) -> None:
    """An option of the executor/runtime kind the build uses by default sets that kind when the
    config names none: `--executor-vm-exec-mode compiled`, `--set runtime.system-lib=true`."""
    section = rw.path[0].name if isinstance(rw.path[0], Key) else None
    if section not in IMPLIED_KINDS or len(rw.path) < 2:
        return
    table = component_table(tree.data.get(section))
    if table is not None and not (isinstance(table, dict) and "kind" not in table):
        return
    comps = registry.components(section)
    match rw.path[1:]:
        case (Select("kind", owner), Key()) if owner in IMPLIED_KINDS[section]:
            kind: str | None = owner
        case (Key(option),) if option != "kind":
            kind = next((k for k in IMPLIED_KINDS[section] if option in comps[k].options), None)
        case _:
            kind = None
    if kind is None:
        return
    tree.data[section] = {"kind": kind, **(table or {})}
    tree.origins.setdefault(f"/{section}", rw.origin)
    tree.origins[f"/{section}/kind"] = rw.origin


def _area(rw: Rewrite) -> str:
    """The part of the config a rewrite edits, for telling which later rewrite undid it."""
    head = rw.path[0]
    if isinstance(head, Key):
        return "targets" if head.name == "host" else head.name
    return "targets"  # a `--target-<kind>-<attr>` patch: targets and host


MAX_DISCARD_WARNINGS = 10


def discarded_warnings(tree: Tree, rewrites: list[Rewrite]) -> list[str]:
    """Flags whose every value a later flag replaced: rewrites apply in command-line order, so a
    patch before the `--target` it meant to patch is silently lost without this."""
    surviving = {id(origin) for origin in tree.origins.values()}
    later: dict[str, list[int]] = {}
    for index, rw in enumerate(rewrites):
        later.setdefault(_area(rw), []).append(index)
    out: list[str] = []
    for index, rw in enumerate(rewrites):
        if rw.origin.kind != "flag" or rw.op not in ("set", "append") or id(rw.origin) in surviving:
            continue
        if any(other.origin is rw.origin for other in rewrites[index + 1 : index + 2]):
            continue  # one flag's several rewrites: judged by its last
        area = later[_area(rw)]
        culprit = next(
            (
                rewrites[j]
                for j in area[area.index(index) + 1 :]
                # an append replaces nothing; an unset removes what it reaches, however deep
                if rewrites[j].op != "append" and (rewrites[j].op == "unset" or len(rewrites[j].path) <= len(rw.path))
            ),
            None,
        )
        if culprit is None or culprit.origin.source == rw.origin.source:
            continue
        out.append(
            f"{rw.origin.source} has no effect: it comes before {culprit.origin.source}, which replaces what it set "
            "(flags apply in command-line order; put it after)"
        )
        if len(out) == MAX_DISCARD_WARNINGS:
            break
    return out


def _blame_order(err: UsageError, rw: Rewrite, rest: list[Rewrite]) -> None:
    """A target patch that matched nothing, before a flag that sets the targets: say so."""
    if not isinstance(rw.path[0], Select):
        return
    setter = next((r for r in rest if r.path[:1] in ((Key("targets"),), (Key("host"),))), None)
    if setter is not None:
        err.hint = f"it comes before {setter.origin.where()}: flags apply in command-line order, so put it after"
        err.args = (err.one_line(),)


def _apply_one(tree: Tree, rw: Rewrite, tokens: list[str | int]) -> None:
    parent = _get(tree.data, tokens[:-1])
    key = tokens[-1]
    present = key in parent if isinstance(parent, dict) else True
    if (tokens == ["targets"] and rw.op == "set") or (tokens == ["host"] and rw.op in ("set", "unset")):
        # `--target`, `TVMC_TARGET`, `--target-host`, `--set targets=…`: the host rule of every layer.
        value = _typed(tree, rw, tokens) if rw.op == "set" else None
        incoming = {"targets": value} if tokens == ["targets"] else {"host": value}
        derive_host(tree, incoming, origins_for(value, "", lambda _p: rw.origin) if value is not None else None)
    if rw.op == "set":
        _place(tree, tokens, _typed(tree, rw, tokens), rw.origin)
    elif rw.op == "default":
        if not present:
            _place(tree, tokens, _typed(tree, rw, tokens), rw.origin)
    elif rw.op == "unset":
        if not present:
            raise UsageError(f"{_show(tokens)} is not set", rw.origin.where())
        removed = parent[key]
        del parent[key]
        drop(tree.origins, _pointer(tokens), removed)
        if key in ("kind", "tag") and isinstance(parent, dict):
            # A table left without what names it is as the flag left it: a missing kind is the
            # flag's doing, and is reported there, not at the file that wrote the table.
            tree.origins[_pointer(tokens[:-1])] = rw.origin
        if isinstance(parent, list):
            assert isinstance(key, int)
            tree.origins[_pointer(tokens[:-1])] = rw.origin  # the list is now as the flag left it
            for index in range(key, len(parent)):
                rebase(
                    tree.origins, _pointer([*tokens[:-1], index + 1]), _pointer([*tokens[:-1], index]), parent[index]
                )
    else:
        current = parent.get(key) if isinstance(parent, dict) else parent[key]
        if current is None:
            current = []
            _place(tree, tokens, current, rw.origin)
        if not isinstance(current, list):
            raise UsageError(f"{_show(tokens)} is not a list; use = to replace it", rw.origin.where())
        value = _typed(tree, rw, tokens, element=True)
        items = value if isinstance(value, list) else [value]
        if tokens == ["targets"]:
            keep_derived_host(tree, items)
        start = len(current)
        current.extend(plain_copy(items))
        for offset, item in enumerate(items):
            tree.origins.update(origins_for(item, _pointer([*tokens, start + offset]), lambda _p: rw.origin))
        if items:
            tree.origins[_pointer(tokens)] = rw.origin  # the list is now as the flag left it (as after --unset)


def apply_all(tree: Tree, rewrites: Iterable[Rewrite]) -> None:
    applied = list(rewrites)
    for index, rw in enumerate(applied):
        try:
            apply(tree, rw)
        except UsageError as err:
            _blame_order(err, rw, applied[index + 1 :])
            if err.rule is None:  # a flag that does not apply to this config: the `rewrite` rule
                err.rule = "rewrite"
            raise
        tree.notes.extend(rw.notes)
    tree.notes.extend(discarded_warnings(tree, applied))
