"""A config tree with the origin of each node, and the one merge of two trees (RFC 0030 rules).

Merge rules: `targets` and `host` replace what they inherit whole (a host is a target); a table
whose `kind` or `tag` changes is replaced whole (options of the old kind never leak); other
tables deep-merge; lists and scalars replace. Explicit list edits come only from rewrites.

One more rule keeps a device config over a CPU config on that CPU: when a layer replaces the
targets with device targets only (none of them a CPU, none with a host of its own), writes no
`host`, and nothing below it set a `host`, the first CPU target it replaces becomes the host.
"""

from __future__ import annotations

import os

from tvmc import sources
from tvmc import targets as tg
from tvmc.errors import TvmcError
from tvmc.keys import (
    COMPONENTS,
    INTERNAL_DEFAULTS,
    component_table,
    pass_config_aliases,
    pass_config_entries,
    with_lifted,
)
from tvmc.pointers import join, split
from tvmc.provenance import Origin, Origins, drop, origins_for, rebase, walk
from tvmc.records import field, record
from tvmc.values import plain_copy

# typing, pathlib and copy are not imported at run time: every command would pay for them at
# start-up (scripts/bench_startup.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


@record(slots=True)
class Tree:
    """A config tree and the origin of each of its nodes (mutable while the pipeline builds it)."""

    data: dict[str, Any]
    origins: Origins
    notes: list[str] = field(default_factory=list)  # conversions made on the way (legacy options lifted, ...)
    # Every file read for it, also one whose values were all overridden: `-o` must not overwrite any.
    inputs: list[str] = field(default_factory=list)
    # The host is a CPU target that a device-only layer replaced (`derive_host`), not one a layer
    # wrote: it lasts while the targets stay devices, and goes when a layer brings its own CPU.
    derived_host: bool = False
    # Sections whose `kind` a legacy target string implied (`llvm -system-lib`: cpp), not written:
    # a kind set below wins over it (`merge`), as at canonicalization (`keys.with_lifted`).
    implied_kinds: tuple[str, ...] = ()
    _reader: tg.TargetReader | None = None  # made on first use: `reader`

    @property
    def reader(self) -> tg.TargetReader:
        """This tree's targets, each read once (parsed, canonical) by whichever stage asks first:
        layering, the rule engine, canonicalization, the origins of the canonical config."""
        if self._reader is None:
            self._reader = tg.TargetReader()
        return self._reader

    @staticmethod
    def defaults() -> Tree:
        data = plain_copy(INTERNAL_DEFAULTS)
        return Tree(data, origins_for(data, "", lambda _p: Origin.default()))


NOT_CONFIG = ("extends", "$schema")  # consumed by layering / only for editors: never merged
REPLACED_WHOLE = ("targets", "host")  # top-level keys a layer replaces, never deep-merges


def own_data(layer: sources.Layer) -> dict[str, Any]:
    """The config values a layer contributes (without `extends` and `$schema`), with the
    `executor = "aot"` shorthand as a table so that merging and rewrites see one form, and a
    relative path anchored at the file that wrote it."""
    data = {k: component_table(v) if k in COMPONENTS else v for k, v in layer.data.items() if k not in NOT_CONFIG}
    targets = data.get("targets")
    if type(targets) is list and any(type(t) is str and _may_lift(t) for t in targets):
        _lift_into(data, targets)
    build = data.get("build")
    if type(build) is dict and layer.file is not None:
        anchored = {k: anchored_path(layer.file, v) for k, v in build.items() if k in RELATIVE_PATHS}
        if anchored:
            data["build"] = {**build, **anchored}
    return data


# Legacy target options that are executor/runtime settings now (`llvm -system-lib`): a string naming
# none of them lifts nothing, so most strings are not parsed here.
_LIFTED_OPTIONS = ("system-lib", "link-params", "interface-api", "unpacked-api", "executor", "runtime")


def _may_lift(text: str) -> bool:
    return "-" in text and any(option in text for option in _LIFTED_OPTIONS)


def _lift_into(data: dict[str, Any], targets: list[Any]) -> None:
    """A legacy target string's executor/runtime settings (`llvm -system-lib`) belong to the layer
    that wrote the string, so a later layer's string wins over a lower layer's table as any later
    value does (lifted at canonicalization instead, the lower table won). The layer's own table
    still wins over its own string (`keys.with_lifted`)."""
    for entry in targets:
        if type(entry) is not str or not _may_lift(entry):
            continue
        try:
            lifted = tg.parse_target(entry).lifted
        except TvmcError:
            continue  # validation reports the string
        for section, settings in lifted.items():
            data[section] = with_lifted(section, settings, data.get(section))


RELATIVE_PATHS = ("tuning-records",)  # build options that name a file, relative to the config file


def anchored_path(config_file: str, value: Any) -> Any:
    """A path a config file wrote, anchored where it is read: relative to that file's directory
    (`tuning-records = "db"` in two folders names two databases, so two meanings). An absolute
    path, `~` and a value of another type are as written."""
    if type(value) is not str or not value or os.path.isabs(value) or value.startswith("~"):
        return value
    return os.path.normpath(os.path.join(os.path.dirname(config_file), value))


def layer_key(layer: sources.Layer) -> str:
    """What identifies a layer in an `extends` graph: its file, else its source (a tag)."""
    return sources.lexical_path(layer.file) if layer.file is not None else layer.source  # str(layer.path)


def extends_refs(layer: sources.Layer) -> list[Any] | None:
    """The entries of a layer's `extends` (one name is a list of one, none an empty list); None when
    it is neither a string nor a list. The entries themselves are not checked."""
    extends = layer.data.get("extends", [])
    if isinstance(extends, str):
        return [extends]
    return extends if isinstance(extends, list) else None


def _lifted_at(written: Mapping[str, Any]) -> dict[str, str]:
    """Where the executor/runtime settings a layer's target strings lift were written: the string."""
    out: dict[str, str] = {}
    targets = written.get("targets")
    for index, entry in enumerate(targets if type(targets) is list else []):
        if type(entry) is not str or not _may_lift(entry):
            continue
        try:
            lifted = tg.parse_target(entry).lifted
        except TvmcError:
            continue
        for section, settings in lifted.items():
            own = component_table(written.get(section))
            own = own if isinstance(own, dict) else {}
            for key in ("", *settings, "kind"):
                if key not in own:
                    out.setdefault(f"/{section}/{key}" if key else f"/{section}", f"/targets/{index}")
    return out


def _implied_kinds(layer: sources.Layer, data: Mapping[str, Any]) -> tuple[str, ...]:
    out = []
    for section in COMPONENTS:
        written = component_table(layer.data.get(section))
        implied = isinstance(data.get(section), dict) and "kind" in data[section]
        if implied and not (isinstance(written, dict) and "kind" in written):
            out.append(section)
    return tuple(out)


def bare_tree(layer: sources.Layer) -> Tree:
    """A layer's tree without origins (validation merges data alone)."""
    data = own_data(layer)
    return Tree(data, {}, implied_kinds=_implied_kinds(layer, data) if "targets" in layer.data else ())


def layer_tree(layer: sources.Layer, chain: tuple[str, ...]) -> Tree:
    data = own_data(layer)
    moved = _lifted_at(layer.data) if "targets" in layer.data else {}
    return Tree(
        data,
        origins_for(data, "", lambda p: Origin("file", layer.source, moved.get(p) or p, chain, layer)),
        inputs=[layer.file] if layer.file is not None else [],
        implied_kinds=_implied_kinds(layer, data) if moved else (),
    )


def _identity_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    return any(key in new and key in old and old[key] != new[key] for key in ("kind", "tag"))


def _merge(
    base: dict[str, Any], over: Mapping[str, Any], origins: Origins | None, over_origins: Origins, pointer: str
) -> None:
    """Merge `over` into `base` at `pointer`; `origins` None merges the data alone (validation)."""
    for key, value in over.items():
        current = base.get(key)
        # Data alone: no pointers, but a nested level must not pass for the top (REPLACED_WHOLE).
        here = join(pointer, key) if origins is not None else "/"
        if (
            type(current) is dict
            and type(value) is dict
            and not (pointer == "" and key in REPLACED_WHOLE)
            and not _identity_changes(current, value)
        ):
            _merge(current, value, origins, over_origins, here)
            if origins is not None:
                origins[here] = over_origins.get(here, origins.get(here))  # type: ignore[assignment]
            continue
        base[key] = plain_copy(value)
        if origins is not None:
            drop(origins, here, current)
            # Walk the new subtree rather than scan every origin: linear in what changes.
            origins.update({p: over_origins[p] for p, _ in walk(value, here) if p in over_origins})


def canonical_entry(entry: Any, reader: tg.TargetReader | None = None) -> dict[str, Any] | None:
    """A target entry as written, canonicalized (a fresh dict, with its `compiler`); None when it
    cannot be read (validation says why). `reader`: the tree's, so that it is read once."""
    try:
        value = reader.read(entry) if reader is not None else tg.read_target(entry)
    except TvmcError:
        return None
    return value.with_compiler()


def runs_on_cpu(canonical: dict[str, Any] | None) -> bool:
    """Whether a canonical target is one a config without a host takes as its host (`tg.is_default_host`)."""
    return canonical is not None and tg.is_default_host(canonical)


def _is_host_capable(entry: Any, reader: tg.TargetReader) -> bool | None:
    """Whether a target entry can be a host; None: it carries its own host, or cannot be read."""
    try:
        value = reader.read(entry)
    except TvmcError:
        return None
    if "host" in value.canonical:
        return None
    return value.compiler is None and tg.is_default_host(value.canonical)


def _replaced_cpu(base: Mapping[str, Any], over: Mapping[str, Any], reader: tg.TargetReader) -> int | None:
    """The index of the CPU target among `base`'s targets that becomes the host when `over`
    replaces them with device targets (see the module's doc); None when the rule does not apply."""
    old, new = base.get("targets"), over.get("targets")
    if "host" in over or base.get("host") is not None or not isinstance(old, list) or not isinstance(new, list):
        return None
    if not new or any(_is_host_capable(entry, reader) is not False for entry in new):
        return None
    return next((i for i, entry in enumerate(old) if _is_host_capable(entry, reader)), None)


def drop_pass_config_aliases(data: dict[str, Any], origins: Origins | None, name: str, keep: str | None) -> list[str]:
    """Remove from `data`'s pass-config every entry that is the config `name` names in another
    spelling or form (`tir.X` for `tirx.X`, a nested table for a dotted name), except the one at
    `keep`: what a later layer or flag writes replaces it. Returns the pointers removed."""
    table = data.get("pass-config")
    if type(table) is not dict:
        return []
    removed = [p for p in pass_config_aliases(table, name) if p != keep]
    for pointer in removed:
        tokens = split(pointer)[1:]
        parents = [table]
        for token in tokens[:-1]:
            parents.append(parents[-1][token])
        value = parents[-1].pop(tokens[-1])
        if origins is not None:
            drop(origins, pointer, value)
        # A nested table left empty would read as a config named by its own key: remove it too.
        for depth in range(len(tokens) - 1, 0, -1):
            if parents[depth]:
                break
            del parents[depth - 1][tokens[depth - 1]]
            if origins is not None:
                drop(origins, "/pass-config" + "".join(join("", t) for t in tokens[:depth]), {})
    return removed


def _replace_pass_config_aliases(base: Tree, over: Tree) -> None:
    """A pass config a layer writes replaces the same config written below in another spelling."""
    table, incoming = base.data.get("pass-config"), over.data.get("pass-config")
    if type(table) is dict and type(incoming) is dict and table:
        origins = base.origins if base.origins or over.origins else None
        for entry in pass_config_entries(incoming, None):
            drop_pass_config_aliases(base.data, origins, entry.name, entry.pointer)


def _override_own_hosts(tree: Tree, host: Any, host_origins: Origins) -> None:
    """A host a layer writes over targets that carry a host of their own (a board's tag such as
    nvidia/jetson-agx-orin-64gb) replaces that host too, as TVM's `Target(tag, host=...)` and old
    tvmc's `--target-host` did: later wins, so the later layer's host is no conflict."""
    entries = tree.data.get("targets")
    wanted: list[Any] = []  # the canonical new host, computed once when a target carries a host
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        canonical = canonical_entry(entry, tree.reader)
        if canonical is None or "host" not in canonical:
            continue
        if not wanted:
            wanted.append(canonical_entry(host, tree.reader))
        if canonical["host"] == wanted[0]:
            continue  # the same host: nothing to override (and the tag keeps no label)
        if isinstance(entry, dict):
            replaced = {**entry, "host": plain_copy(host)}
            drop(tree.origins, f"/targets/{index}/host", entry.get("host"))
        elif isinstance(entry, str):
            # A tag name carrying a host (nvidia/jetson-agx-orin-64gb) or a legacy string naming
            # its host (`cuda -host='llvm …'`): the target it stands for, written by the same
            # layer, with the later host — as TVM's `Target(tag, host=…)`, whose tag stays no
            # label (`{ tag = … }` would keep one). Its executor/runtime settings were lifted
            # when its layer was read (`own_data`, `--target`), so the table loses nothing.
            try:
                own = tg.detach_host(tree.reader.read(entry).spec)
            except TvmcError:
                continue  # validation reports the string
            replaced = {**own, "host": plain_copy(host)}
            written = tree.origins.get(f"/targets/{index}")
            if written is not None:
                tree.origins.update(origins_for(own, f"/targets/{index}", lambda _p, o=written: o))
        else:
            continue
        entries[index] = replaced  # type: ignore[index]
        tree.origins.update({f"/targets/{index}/host" + p: o for p, o in host_origins.items()})


def derive_host(tree: Tree, incoming: Mapping[str, Any], host_origins: Origins | None = None) -> None:
    """The one host rule for a layer of any kind — a file, `--config`, `--target`, `TVMC_TARGET` —
    that writes `incoming` (its `targets`, maybe its `host`) over `tree`, applied before it is:

    - a layer that writes a `host` decides the host (and it is written, not derived), also of
      targets carrying a host of their own (`_override_own_hosts`) unless it writes them too;
    - a layer that replaces the targets with device targets only (no CPU, none with a host of its
      own), where no host is set, keeps the first CPU target it replaces as the host (derived);
    - a layer that replaces the targets with a CPU (or a target with its own host) drops a derived
      host: the CPU the host was derived from is gone (`-c aws/c5 -c <gpu> -c aws/c6i` is the
      c6i alone, not the c6i with a Skylake host).
    """
    if "host" in incoming:
        tree.derived_host = False
        if incoming["host"] is not None and "targets" not in incoming:
            _override_own_hosts(tree, incoming["host"], host_origins or {})
        return
    new = incoming.get("targets")
    if not isinstance(new, list):
        return
    if tree.derived_host:
        if not new or any(_is_host_capable(entry, tree.reader) is not False for entry in new):
            drop(tree.origins, "/host", tree.data.pop("host", None))
            tree.derived_host = False
        return
    cpu = _replaced_cpu(tree.data, incoming, tree.reader)
    if cpu is not None:
        host = tree.data["targets"][cpu]
        if tree.origins:
            rebase(tree.origins, f"/targets/{cpu}", "/host", host)
        tree.data["host"] = host
        tree.derived_host = True


def keep_derived_host(tree: Tree, added: list[Any]) -> None:
    """Targets appended to `tree`'s (a second `--target`, `--set targets+=…`) by the host rule of
    `derive_host`: a derived host lasts while the targets stay devices, so a CPU (or a target
    with its own host) among them drops it (`-c aws/c5 --target cuda --target llvm` is the llvm
    target as its own host, as `--target cuda --target llvm` alone is)."""
    if tree.derived_host and any(_is_host_capable(entry, tree.reader) is not False for entry in added):
        drop(tree.origins, "/host", tree.data.pop("host", None))
        tree.derived_host = False


def merge(base: Tree, over: Tree) -> None:
    """Layer `over` on top of `base`, in place."""
    _replace_pass_config_aliases(base, over)
    for section in over.implied_kinds:
        below = base.data.get(section)
        if isinstance(below, dict) and "kind" in below and isinstance(over.data.get(section), dict):
            del over.data[section]["kind"]
            over.origins.pop(f"/{section}/kind", None)
    host_origins = {p[len("/host") :]: o for p, o in over.origins.items() if p == "/host" or p.startswith("/host/")}
    derive_host(base, over.data, host_origins)
    if not base.origins and not over.origins:
        _merge(base.data, over.data, None, {}, "")
    else:
        _merge(base.data, over.data, base.origins, over.origins, "")
    base.inputs.extend(over.inputs)  # a file listed twice is harmless, and keeps this linear
