"""The canonicalize stage: the `CompilationConfig`, its typed model and its canonical form.

Files, flags and environment variables all describe the same tree (its keys, types and defaults
are `tvmc.keys`, which every earlier stage reads too):

    description, extends, tvm-version, targets, host, executor, runtime,
    pass-config, disabled-pass, opt-level, build

`canonicalize_config` turns a merged, rewritten tree into a `CompilationConfig` whose
`to_dict()` is the canonical form: targets exactly as TVM 0.27 exports them (see
`tvmc.targets`), executor/runtime with their defaults materialised, sorted keys.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from tvmc import registry, versions
from tvmc import targets as tg
from tvmc.errors import TargetError, TvmcError
from tvmc.frozen import FrozenDict, freeze, thaw
from tvmc.keys import (
    BUILD_OPTIONS,
    INTERNAL_DEFAULTS,
    TOP_LEVEL,
    KeySpec,
    canonical_build,
    inert_build_options,
    pass_config_entries,
    with_lifted,
)
from tvmc.provenance import Origin, Origins, origin_of
from tvmc.records import record
from tvmc.targets.hosting import attach_host
from tvmc.values import ValueTypeError, check_value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ConfigError(TvmcError):
    """A config whose keys or values are wrong (unknown key, wrong type, unknown executor...)."""


def _where(origins: Mapping[str, Origin], pointer: str) -> Any:
    origin = origin_of(origins, pointer)
    return origin.location() if origin else None


@record(slots=True, frozen=True, eq=False)
class CompilationConfig:
    """A resolved, canonical compilation config. Build it with `canonicalize_config`.

    Deeply immutable, and hashable: it keeps private copies of the values it is given, every table
    a `FrozenDict` and every array a tuple, at every depth (equal meaning, equal hash). `to_dict()`
    is the canonical tree as fresh, plain dicts and lists; `frozen.thaw` gives one part as such.
    """

    targets: tuple[Mapping[str, Any], ...]
    host: Mapping[str, Any]
    executor: Mapping[str, Any] | None = None
    runtime: Mapping[str, Any] | None = None
    pass_config: Mapping[str, Any] = FrozenDict()
    disabled_pass: tuple[str, ...] = ()
    opt_level: int = 3
    build: Mapping[str, Any] = FrozenDict()
    description: str | None = None
    tvm_version: str | None = None

    def __post_init__(self) -> None:
        for name in ("targets", "host", "executor", "runtime", "pass_config", "disabled_pass", "build"):
            object.__setattr__(self, name, freeze(getattr(self, name)))

    def to_dict(self) -> dict[str, Any]:
        """The canonical tree (keys sorted at every level)."""
        out: dict[str, Any] = {
            "description": self.description,
            "tvm-version": self.tvm_version,
            # The host is written once, at the config level: resolution detaches it from the
            # targets (`targets.resolve_system`), so `show` reads back to itself.
            "targets": self.targets,
            "host": self.host,
            "executor": self.executor,
            "runtime": self.runtime,
            "pass-config": self.pass_config or None,
            "disabled-pass": list(self.disabled_pass) or None,
            "opt-level": self.opt_level,
            "build": self.build or None,
        }
        canonical: dict[str, Any] = sort_keys(thaw({k: v for k, v in out.items() if v is not None}))
        return canonical

    def meaning(self) -> dict[str, Any]:
        """The canonical form with each target's effective host written on it: a target without
        its own host is built with the config's host, so writing the default host out (or putting
        it on the target) does not change the meaning. `==`, `hash()` and `fingerprint` read it."""
        meaning = self.to_dict()
        meaning["targets"] = [attach_host(t, meaning["host"]) for t in meaning["targets"]]
        return meaning

    def _key(self) -> str:
        return json.dumps(self.meaning(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CompilationConfig):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def fingerprint(self) -> str:
        """SHA-256 of the meaning without `description`: equal for equal meaning."""
        meaning = {k: v for k, v in self.meaning().items() if k != "description"}
        text = json.dumps(meaning, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        import hashlib  # here: only --hash needs it, and its import costs a few ms of start-up

        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sort_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: sort_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sort_keys(v) for v in value]
    return value


def _refused(rule: str, what: str) -> str:
    """Canonicalization refuses nothing: the rule engine (`validate.rules.config_findings`, run by
    every command first) has a rule for each condition below, so reaching one is a bug in it."""
    return f"{what}: the rule engine's {rule!r} rule let this through"


def _check(value: Any, spec: KeySpec, what: str) -> Any:
    """The value typed as TVM types it (an int for a whole float...), as the engine accepted it."""
    try:
        value = check_value(value, spec.type)
    except ValueTypeError as err:
        raise AssertionError(_refused("wrong-type", f"{what}: {err}")) from None
    items = value if isinstance(value, list) else [value]
    assert not spec.enum or all(item in spec.enum for item in items), _refused("invalid-value", what)
    in_range = spec.minimum is None or not isinstance(value, int) or spec.minimum <= value <= (spec.maximum or value)
    assert in_range, _refused("invalid-value", what)
    return value


def component(section: str, value: Any) -> dict[str, Any]:
    """Canonical executor/runtime table: known kind, typed options, defaults materialised."""
    known = registry.executors() if section == "executor" else registry.runtimes()
    if isinstance(value, str):
        value = {"kind": value}
    assert isinstance(value, dict), _refused("wrong-type", section)
    name = value.get("kind")
    assert isinstance(name, str), _refused("missing-key", f"{section}.kind")
    assert name in known, _refused(f"unknown-{section}", f"{section}.kind")
    entry = known[name]
    out: dict[str, Any] = {"kind": name}
    for opt, val in value.items():
        if opt == "kind":
            continue
        assert opt in entry.options, _refused("unknown-option", f"{section}.{opt}")
        spec = entry.options[opt]
        out[opt] = _check(val, KeySpec(spec.type, spec.description, spec.enum, spec.minimum), f"{section}.{opt}")
    for opt, spec in entry.options.items():
        out.setdefault(opt, spec.default)
    return out


def canonical_pass_config(table: Mapping[str, Any], tvm_version: Any, notes: list[str]) -> dict[str, Any]:
    """Canonical names, values checked against TVM's types: one meaning, one form."""
    generation = versions.generation(tvm_version)
    legacy = generation == "legacy"
    out: dict[str, Any] = {}
    for entry in pass_config_entries(table, generation):
        what = f"pass-config.{entry.name}"
        assert entry.type is not None, _refused("unknown-pass-config", what)
        value = _check(entry.value, KeySpec(entry.type, ""), what)
        if entry.type == "IntImm" and type(value) is int:
            # Old TVM's bool configs are IntImm and take any integer, nonzero meaning true (its
            # `Bool` reads `value != 0`): `1` and `true` mean the same, so they are one form.
            value = value != 0
        if value == {} and registry.pass_config_fields(entry.type) is not None:
            # An object config with no field set is TVM's defaults, as when it is not set at all
            # (a pass reads the config or, without one, a default-made one): one meaning, one form.
            continue
        assert out.get(entry.canonical, value) == value, _refused("pass-config-type", what)  # two spellings
        if entry.canonical != entry.name and not legacy and entry.name.startswith("tir."):
            notes.append(f"pass-config {entry.name!r} is {entry.canonical!r} in TVM >= 0.25")
        out[entry.canonical] = value
    canonical: dict[str, Any] = sort_keys(out)
    return canonical


def canonicalize_config(
    data: Mapping[str, Any], origins: Origins, reader: tg.TargetReader | None = None
) -> tuple[CompilationConfig, list[str]]:
    """Resolved tree → canonical CompilationConfig (plus notes about conversions made). `reader`
    holds the targets the rule engine read from `data`, so that each is parsed once.

    Only the rule engine refuses: `data` is a config it accepted (`api.check`, migrate's and the
    manifest's `config_findings`); what it would refuse is asserted here, not refused again."""
    reader = reader if reader is not None else tg.TargetReader()

    def read(entry: Any, pointer: str) -> tg.TargetValue:
        try:
            return reader.read(entry)
        except TargetError as err:
            raise AssertionError(_refused("invalid-target", f"{pointer}: {err.message}")) from None

    unknown = [key for key in data if key not in TOP_LEVEL]
    assert not unknown, _refused("unknown-key", repr(unknown))
    notes: list[str] = []
    executor = dict(data["executor"]) if isinstance(data.get("executor"), dict) else data.get("executor")
    runtime = dict(data["runtime"]) if isinstance(data.get("runtime"), dict) else data.get("runtime")
    raw_targets = data.get("targets")
    assert raw_targets is not None, _refused("missing-key", "targets")
    assert isinstance(raw_targets, list) and raw_targets, _refused("wrong-type", "targets")
    specs = []
    for index, entry in enumerate(raw_targets):
        parsed = read(entry, f"/targets/{index}")
        specs.append(parsed)
        notes.extend(parsed.notes)
        for section, settings in parsed.lifted.items():
            merged = with_lifted(section, settings, executor if section == "executor" else runtime)
            if section == "executor":
                executor = merged
            else:
                runtime = merged
    host = data.get("host")
    host_spec = read(host, "/host") if host is not None else None
    system = tg.resolve_system(
        specs,
        host_spec,
        source_of=lambda i: _where(origins, f"/targets/{i}"),
        host_source=lambda: _where(origins, "/host/kind") or _where(origins, "/host"),
    )
    # system.notes only explain which target became the host; `--origin` shows that already.
    build = data.get("build", {})
    assert isinstance(build, dict), _refused("wrong-type", "build")
    assert all(key in BUILD_OPTIONS for key in build), _refused("unknown-key", f"build: {sorted(build)}")
    pass_config = data.get("pass-config", {})
    assert isinstance(pass_config, dict), _refused("wrong-type", "pass-config")
    plain = {
        k: _check(data[k], TOP_LEVEL[k], k)
        for k in ("description", "tvm-version", "disabled-pass", "opt-level")
        if k in data
    }
    typed_build = {k: _check(v, BUILD_OPTIONS[k], f"build.{k}") for k, v in build.items()}
    for key in inert_build_options(typed_build):
        needs = "build.desired-layout" if key == "desired-layout-ops" else "build.mixed-precision = true"
        notes.append(f"build.{key} has no effect without {needs}")
    spec = plain.get("tvm-version")
    config = CompilationConfig(
        targets=tuple(system.targets),
        host=system.host,
        executor=component("executor", executor) if executor is not None else None,
        runtime=component("runtime", runtime) if runtime is not None else None,
        pass_config=canonical_pass_config(pass_config, data.get("tvm-version"), notes),
        # PassContext keeps the disabled passes as a set: order and repetition mean nothing.
        disabled_pass=tuple(sorted(set(plain.get("disabled-pass", ())))),
        opt_level=plain.get("opt-level", INTERNAL_DEFAULTS["opt-level"]),
        build=sort_keys(canonical_build(typed_build, versions.generation(spec))),
        description=plain.get("description"),
        tvm_version=versions.canonical_spec(spec) if isinstance(spec, str) else spec,
    )
    return config, notes
