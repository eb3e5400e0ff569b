"""The rules of a config written for old TVM (`tvm-version` admitting only TVM <= 0.19): what the
release it is for has, one rule for `config validate` and for `--emit tvmc`/`--emit relay`.

The release is the newest one tvmc writes for that the config's `tvm-version` admits (`choose`;
`--emit tvmc`/`relay` may ask for another with `--tvm-version`). `problems` lists everything that
release lacks — a target kind or attribute (`narrow`), a BYOC codegen or option, a second TVM
target, an executor, runtime or option, a PassContext config, a Relay pass to disable, an output
format, layouts that do not match the operators — each at the
pointer of the key that causes it. Validation reports them all (rule `legacy-release`); the legacy
build plan refuses with the first.

A canonical target (TVM 0.27's export) holds every default 0.27 fills in; old TVM never had
many of those attributes (`opencl -texture_depth_limit`, `webgpu -thread_warp_size`) and its
string parser refuses them ("Cannot recognize"). So a legacy string holds only what the user
set — the attributes 0.27 would not fill in by itself — plus the attributes whose default in
that release differs from the config's value. An attribute the user set that the release lacks
is refused, naming the release. The facts come from `registry.generation` (apache/tvm at the
release's tag: src/target/target_kind.cc and the contrib target.cc files).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple, Protocol

from tvmc import registry
from tvmc import targets as tg
from tvmc.errors import TvmcError, UsageError
from tvmc.keys import LEGACY_LAYOUT_OPS, canonical_build, component_table, pass_config_entries, with_lifted
from tvmc.pointers import join
from tvmc.targets.queries import strip_tvmc_keys
from tvmc.versions import admits_series

LAST_TVMC = "0.19"  # the last release with tvmc, Relay and its executors/runtimes
RULE = "legacy-release"
MODERN_HINT = "use --emit python, or tvmc compile, for TVM >= 0.25"
# The operators old tvmc's --desired-layout converted without --desired-layout-ops (v0.18/v0.19 transform.py).
LAYOUT_OPS = LEGACY_LAYOUT_OPS


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def last_with(has: Callable[[registry.Generation], bool]) -> str | None:
    """The newest release tvmc writes for that has something, e.g. a codegen or output format."""
    found = [v for v in registry.generation_versions() if has(registry.generation(v))]
    return max(found, key=_key) if found else None


def _elsewhere(has: Callable[[registry.Generation], bool]) -> str | None:
    last = last_with(has)
    return f"TVM {last} has it: set tvm-version = '<={last}' or use --tvm-version {last}" if last else None


def choose(spec: str | None, requested: str | None) -> registry.Generation:
    """The release to write for: `requested` (`--tvm-version`) if given, else the newest one the
    config's `tvm-version` admits. Raises TvmcError naming the releases tvmc can write for."""
    versions = registry.generation_versions()
    shown = " and ".join(versions)
    if requested is not None:
        wanted = requested.strip().lstrip("v")
        wanted = ".".join(wanted.split(".")[:2])
        if wanted not in versions:
            raise UsageError(f"tvmc writes old tvmc/Relay output for TVM {shown} only", f"--tvm-version {requested}")
        if not admits_series(spec, wanted):
            raise TvmcError(
                f"the config is written for TVM {spec}, which excludes TVM {wanted} (--tvm-version)",
                rule="unsupported-tvm-version",
            )
        return registry.generation(wanted)
    allowed = [v for v in versions if admits_series(spec, v)]
    if not allowed:
        raise TvmcError(
            f"the config is written for TVM {spec}, which excludes TVM {shown}", rule="unsupported-tvm-version"
        )
    return registry.generation(max(allowed, key=_key))


def _canonical(target: Mapping[str, Any]) -> dict[str, Any] | None:
    try:
        return tg.canonicalize(dict(target))
    except TvmcError:
        return None


def _has_option(kind: str, option: str) -> Callable[[registry.Generation], bool]:
    return lambda gen: kind in gen.kinds and option in gen.kinds[kind].options


def narrow(target: Mapping[str, Any], gen: registry.Generation) -> dict[str, Any]:
    """`target` (canonical, no host) as the release takes it; TvmcError naming the release for a
    kind or an attribute it lacks."""
    name = str(target["kind"])
    kind = gen.kinds.get(name)
    if kind is None or name in gen.codegens:
        raise TvmcError(
            f"TVM {gen.version} has no target kind {name!r}", hint=_elsewhere(lambda g: name in g.kinds), rule=RULE
        )
    whole = dict(target)  # canonical already (the one value canonicalization computed): not again
    minimal = dict(target)
    for key in [k for k in target if k not in ("kind", "tag")]:
        trial = {k: v for k, v in minimal.items() if k != key}
        if _canonical(trial) == whole:  # TVM 0.27 fills it in by itself: the user did not set it
            minimal = trial
    out = dict(minimal)
    for key, value in target.items():
        if key in ("kind", "tag") or key.startswith("feature."):
            continue
        if key not in kind.options:
            if key in minimal:
                raise TvmcError(
                    f"TVM {gen.version} has no attribute {key!r} of target kind {name!r}",
                    hint=_elsewhere(_has_option(name, key)),
                    rule=RULE,
                )
            continue
        if key not in minimal and key in kind.defaults and kind.defaults[key] != value:
            out[key] = value  # the release's own default differs: write what the config means
    return {k: out[k] for k in target if k in out}


class Config(Protocol):
    """What the rules read of a config: a CompilationConfig, or `view` of a tree being validated."""

    @property
    def targets(self) -> tuple[dict[str, Any], ...]: ...
    @property
    def host(self) -> dict[str, Any] | None: ...
    @property
    def executor(self) -> dict[str, Any] | None: ...
    @property
    def runtime(self) -> dict[str, Any] | None: ...
    @property
    def pass_config(self) -> dict[str, Any]: ...
    @property
    def disabled_pass(self) -> tuple[str, ...]: ...
    @property
    def build(self) -> dict[str, Any]: ...


class View(NamedTuple):
    targets: tuple[dict[str, Any], ...]
    host: dict[str, Any] | None
    executor: dict[str, Any] | None
    runtime: dict[str, Any] | None
    pass_config: dict[str, Any]
    disabled_pass: tuple[str, ...]
    build: dict[str, Any]


def view(data: Mapping[str, Any], reader: tg.TargetReader | None = None) -> tuple[View, dict[str, str]] | None:
    """A resolved tree that validation found no error in, as the rules read a config (its target
    system resolved as canonicalization resolves it), and where each pass config is written; None
    without targets (a mixin). `reader`: the tree's targets, read once (by the rule engine)."""
    read = (reader or tg.TargetReader()).read
    raw = data.get("targets")
    if not isinstance(raw, list) or not raw:
        return None
    sections: dict[str, Any] = {s: component_table(data.get(s)) for s in ("executor", "runtime")}
    specs = []
    for entry in raw:
        parsed = read(entry)
        specs.append(parsed)
        for section, settings in parsed.lifted.items():
            sections[section] = with_lifted(section, settings, sections[section])
    host = data.get("host")
    system = tg.resolve_system(specs, read(host) if host is not None else None)
    table = data.get("pass-config")
    entries = list(pass_config_entries(table if isinstance(table, dict) else {}, "legacy"))
    build = data.get("build")
    return View(
        targets=tuple(system.targets),
        host=system.host,
        executor=sections["executor"],
        runtime=sections["runtime"],
        pass_config={e.canonical: e.value for e in entries},
        disabled_pass=tuple(data.get("disabled-pass", ())),
        build=canonical_build(build if isinstance(build, dict) else {}, "legacy"),
    ), {join("/pass-config", e.canonical): e.pointer for e in entries}


class Problem(NamedTuple):
    """Something the release lacks, at the pointer (of the canonical config) of the key that causes it."""

    pointer: str
    message: str
    hint: str | None = MODERN_HINT


def legacy_string(target: Mapping[str, Any], gen: registry.Generation) -> str:
    """The legacy string of a canonical target (no tvmc keys, no host) in the release; TvmcError
    naming what it cannot express."""
    return tg.to_legacy(narrow(target, gen), implied_keys=True)


def is_codegen(entry: Mapping[str, Any]) -> bool:
    """A BYOC entry written as a legacy kind (ethos-u, cmsis-nn, ...): an old tvmc codegen, not a TVM target."""
    kind = registry.kind(str(entry["kind"]))
    return kind is not None and kind.byoc


def main_target(config: Config) -> tuple[int, dict[str, Any]] | None:
    """(index, the TVM target as TVM takes it, without host) of the first non-BYOC entry."""
    for index, entry in enumerate(config.targets):
        if not is_codegen(entry):
            return index, strip_tvmc_keys(entry)  # a resolved config's targets carry no host
    return None


def host_of(config: Config, index: int, main: Mapping[str, Any]) -> dict[str, Any] | None:
    """The host old TVM gets as a second target; None for a CPU target that is its own host."""
    host = config.host  # the build's one host (targets carry none)
    main_kind = registry.kind(str(main["kind"]))
    is_cpu = main_kind is not None and main_kind.device_type == registry.CPU_DEVICE
    if host and not (is_cpu and strip_tvmc_keys(host) == main):  # a CPU target is its own host by default
        return strip_tvmc_keys(host)
    return None


def legacy_pass_config(name: str) -> str:
    """The release's name of a PassContext config: TVM 0.24 split `tir.*` into `tirx.*` and `s_tir.*`."""
    for prefix in ("tirx.", "s_tir."):
        if name.startswith(prefix):
            return f"tir.{name[len(prefix) :]}"
    return name


def problems(config: Config, gen: registry.Generation, targets: LegacyTargets | None = None) -> Iterator[Problem]:
    """Everything in `config` that release `gen` (and its old tvmc / Relay build) lacks; `targets`:
    its `legacy_targets`, when the caller computed them already (a legacy emitter writes them)."""
    yield from (targets if targets is not None else legacy_targets(config, gen)).problems
    for section in ("executor", "runtime"):
        yield from _component_problems(config, gen, section)
    for name in config.pass_config:
        legacy = legacy_pass_config(name)
        if legacy not in gen.pass_configs:
            yield Problem(
                join("/pass-config", name),
                f"TVM {gen.version} has no PassContext config {legacy!r}",
                MODERN_HINT if name != legacy or name.startswith("relax.") else None,
            )
    for index, name in enumerate(config.disabled_pass):
        if name not in gen.relay_passes:  # old tvmc refused it (pass_list.py); relay.build ignored it
            yield Problem(
                join("/disabled-pass", index),
                f"TVM {gen.version} registers no Relay pass {name!r} (relay._transform.*)",
                MODERN_HINT if name.startswith("relax.") else None,
            )
    fmt = config.build.get("output-format", "so")
    if fmt != "tar" and fmt not in gen.output_formats:
        last = last_with(lambda g: fmt in g.output_formats)
        yield Problem(
            "/build/output-format",
            f"the tvmc of TVM {gen.version} has no output format {fmt!r}"
            + (f" (Model Library Format was last in TVM {last})" if fmt == "mlf" and last else ""),
            f"set tvm-version = '<={last}' or use --tvm-version {last}" if last else None,
        )
    layouts = config.build.get("desired-layout")
    ops = config.build.get("desired-layout-ops", LAYOUT_OPS)
    if layouts is not None and len(layouts) not in (1, len(ops)):
        yield Problem(
            "/build/desired-layout",
            f"{len(layouts)} layouts for {len(ops)} operators (old tvmc's layout conversion takes one, "
            "or one per operator)",
            "give one, or one per operator",
        )
    if "relax" in config.build.get("dump-code", ()):
        yield Problem("/build/dump-code", "'relax' code exists only in TVM >= 0.25")
    for key in ("pipeline", "fast-math"):  # canonical configs hold them only when not the default
        if key in config.build:
            yield Problem(f"/build/{key}", "a relax pipeline option: it exists only in TVM >= 0.25")


class LegacyTargets(NamedTuple):
    """A config's target system as release `gen` takes it, computed once (each target narrowed
    and written once): what the release rules check and what the legacy emitters write."""

    main: tuple[int, dict[str, Any]] | None  # (index, TVM target without host) of the first non-BYOC entry
    target: str | None  # the main target's legacy string (None: the release cannot express it)
    host: str | None  # the host's legacy string (None: a CPU target that is its own host, or inexpressible)
    problems: tuple[Problem, ...]  # what the release lacks of the targets, in the order the rules report it


def legacy_targets(config: Config, gen: registry.Generation) -> LegacyTargets:
    out: list[Problem] = []
    found = main_target(config)
    for index, entry in enumerate(config.targets):
        pointer = f"/targets/{index}"
        if is_codegen(entry):
            out += _codegen_problems(gen, str(entry["kind"]), entry, pointer)
            continue
        if "compiler" in entry:
            out += _codegen_problems(gen, str(entry["compiler"]), {}, join(pointer, "compiler"))
        stripped = strip_tvmc_keys(entry)
        if found is not None and index != found[0] and stripped != found[1] and "compiler" not in entry:
            out.append(
                Problem(
                    pointer,
                    f"a second TVM target ({entry['kind']}): old tvmc read a second TVM target as the host",
                    "put the host in `host`",
                )
            )
    if found is None:
        out.append(Problem("/targets", "only BYOC targets: old tvmc needs a TVM target last", None))
        return LegacyTargets(None, None, None, tuple(out))
    index, main = found
    host = host_of(config, index, main)
    written: dict[str, str | None] = {}
    for target, pointer in ((host, "/host"), (main, f"/targets/{index}")):
        if target is None:
            continue
        try:
            written[pointer] = legacy_string(target, gen)
        except TvmcError as err:
            out.append(Problem(pointer, f"legacy TVM cannot express this target: {err.message}", err.hint))
    return LegacyTargets(found, written.get(f"/targets/{index}"), written.get("/host"), tuple(out))


def _codegen_problems(gen: registry.Generation, name: str, entry: Mapping[str, Any], pointer: str) -> Iterator[Problem]:
    codegens = gen.codegens
    if name not in codegens:
        last = last_with(lambda g: name in g.codegens)
        why = f"; it was last in TVM {last}" if last else ""
        yield Problem(
            pointer,
            f"the tvmc of TVM {gen.version} has no {name!r} codegen (it had {', '.join(codegens)}){why}",
            f"set tvm-version = '<={last}' or use --tvm-version {last}" if last else MODERN_HINT,
        )
        return
    for option in codegen_options(entry):
        if option not in codegens[name]:
            yield Problem(
                join(pointer, option),
                f"the {name!r} codegen of TVM {gen.version} has no option {option!r}"
                f" (it has {', '.join(codegens[name]) or 'none'})",
                None,
            )


def codegen_options(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A BYOC entry's codegen options: its keys less the common target options."""
    common = set(registry.COMMON_OPTIONS)
    return {k: v for k, v in entry.items() if k not in common and k != "compiler" and not k.startswith("feature.")}


def _component_problems(config: Config, gen: registry.Generation, section: str) -> Iterator[Problem]:
    table = config.executor if section == "executor" else config.runtime
    if table is None or table.get("kind") not in registry.components(section):
        return  # no kind (a partial layer, or `missing-key`) or an unknown one: other rules say so
    known = registry.components(section)[table["kind"]]
    if "legacy" not in known.generations:
        yield Problem(f"/{section}/kind", f"{section} {known.name!r} exists only in TVM >= 0.25")
        return
    options = (gen.executors if section == "executor" else gen.runtimes).get(table["kind"])
    if options is None:
        yield Problem(f"/{section}/kind", f"TVM {gen.version} has no {section} {table['kind']!r}")
        return
    for option in table:
        if option != "kind" and option not in options:
            yield Problem(
                f"/{section}/{option}", f"the {section} {table['kind']!r} of TVM {gen.version} has no {option!r}"
            )
