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
from dataclasses import dataclass
from typing import Any

from tvmc import registry, versions
from tvmc import targets as tg
from tvmc.errors import TargetError, TvmcError, did_you_mean
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
from tvmc.pointers import join
from tvmc.provenance import Origin, Origins, origin_of
from tvmc.targets.hosting import attach_host
from tvmc.values import ValueTypeError, check_value


class ConfigError(TvmcError):
    """A config whose keys or values are wrong (unknown key, wrong type, unknown executor...)."""


def _where(origins: Mapping[str, Origin], pointer: str) -> Any:
    origin = origin_of(origins, pointer)
    return origin.location() if origin else None


@dataclass(slots=True, frozen=True, eq=False)
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


def _check(value: Any, spec: KeySpec, what: str, origins: Origins, pointer: str) -> Any:
    try:
        value = check_value(value, spec.type)
    except ValueTypeError as err:
        raise ConfigError(f"{what}: {err}", _where(origins, pointer), rule="wrong-type") from None
    if spec.enum and value not in spec.enum and not isinstance(value, list):
        raise ConfigError(
            f"{what}: {value!r} is not one of {', '.join(spec.enum)}",
            _where(origins, pointer),
            suggestions=did_you_mean(str(value), spec.enum),
            rule="invalid-value",
        )
    if isinstance(value, list) and spec.enum:
        for item in value:
            if item not in spec.enum:
                raise ConfigError(
                    f"{what}: {item!r} is not one of {', '.join(spec.enum)}",
                    _where(origins, pointer),
                    rule="invalid-value",
                )
    if spec.minimum is not None and isinstance(value, int) and not spec.minimum <= value <= (spec.maximum or value):
        raise ConfigError(
            f"{what}: {value} is not in {spec.minimum}..{spec.maximum}",
            _where(origins, pointer),
            rule="invalid-value",
        )
    return value


def component(section: str, value: Any, origins: Origins) -> dict[str, Any]:
    """Canonical executor/runtime table: known kind, typed options, defaults materialised."""
    known = registry.executors() if section == "executor" else registry.runtimes()
    pointer = f"/{section}"
    if isinstance(value, str):
        value = {"kind": value}
    if not isinstance(value, dict):
        raise ConfigError(
            f"{section}: expected a table with 'kind', got {type(value).__name__}",
            _where(origins, pointer),
            rule="wrong-type",
        )
    name = value.get("kind")
    if not isinstance(name, str):
        raise ConfigError(
            f"{section}: 'kind' is required (one of {', '.join(known)})",
            _where(origins, pointer),
            rule="missing-key",
        )
    if name not in known:
        raise ConfigError(
            f"{section}.kind: unknown {section} {name!r} (known: {', '.join(known)})",
            _where(origins, join(pointer, "kind")),
            suggestions=did_you_mean(name, list(known)),
            rule="unknown-executor" if section == "executor" else "unknown-runtime",
        )
    entry = known[name]
    out: dict[str, Any] = {"kind": name}
    for opt, val in value.items():
        if opt == "kind":
            continue
        if opt not in entry.options:
            others = [k for k, c in known.items() if opt in c.options]
            hint = f"it is an option of {' and '.join(others)}" if others else None
            raise ConfigError(
                f"{section}.{opt}: not an option of {section} {name!r} (options: {', '.join(entry.options) or 'none'})",
                _where(origins, join(pointer, opt)),
                suggestions=did_you_mean(opt, list(entry.options)),
                hint=hint,
                rule="wrong-kind-option" if others else "unknown-option",
            )
        spec = entry.options[opt]
        out[opt] = _check(
            val, KeySpec(spec.type, spec.description, spec.enum), f"{section}.{opt}", origins, join(pointer, opt)
        )
    for opt, spec in entry.options.items():
        out.setdefault(opt, spec.default)
    return out


def canonical_pass_config(
    table: Mapping[str, Any], tvm_version: Any, origins: Origins, notes: list[str]
) -> dict[str, Any]:
    """Canonical names, values checked against TVM's types: one meaning, one form."""
    generation = versions.generation(tvm_version)
    legacy = generation == "legacy"
    out: dict[str, Any] = {}
    written: dict[str, str] = {}
    for entry in pass_config_entries(table, generation):
        where = _where(origins, entry.pointer)
        if entry.type is None:
            known = registry.pass_configs_of(generation)
            which = {
                "legacy": "TVM <= 0.19 registers",
                "modern": f"TVM {registry.tvm_version()} registers",
                None: f"TVM {registry.tvm_version()} and TVM <= 0.19 register",
            }
            raise ConfigError(
                f"pass-config.{entry.name}: {which[generation]} no PassContext config of this name",
                where,
                suggestions=did_you_mean(entry.canonical, list(known)),
                rule="unknown-pass-config",
            )
        value = _check(entry.value, KeySpec(entry.type, ""), f"pass-config.{entry.name}", origins, entry.pointer)
        if entry.canonical in out and out[entry.canonical] != value:
            raise ConfigError(
                f"pass-config.{entry.name}: the same config as {written[entry.canonical]!r}, with another value",
                where,
                rule="pass-config-type",
            )
        if entry.canonical != entry.name and not legacy and entry.name.startswith("tir."):
            notes.append(f"pass-config {entry.name!r} is {entry.canonical!r} in TVM >= 0.25")
        out[entry.canonical] = value
        written[entry.canonical] = entry.name
    canonical: dict[str, Any] = sort_keys(out)
    return canonical


def canonicalize_config(
    data: Mapping[str, Any], origins: Origins, reader: tg.TargetReader | None = None
) -> tuple[CompilationConfig, list[str]]:
    """Resolved tree → canonical CompilationConfig (plus notes about conversions made). `reader`
    holds the targets the rule engine read from `data`, so that each is parsed once."""
    reader = reader if reader is not None else tg.TargetReader()

    def read(entry: Any, pointer: str) -> tg.TargetValue:
        try:
            return reader.read(entry)
        except TargetError:  # read again with its location (the rule engine reports it first)
            return tg.read_target(entry, _where(origins, pointer))

    for key in data:
        if key not in TOP_LEVEL:
            raise ConfigError(
                f"unknown key {key!r}",
                _where(origins, join("", key)),
                suggestions=did_you_mean(key, list(TOP_LEVEL)),
                rule="unknown-key",
            )
    notes: list[str] = []
    executor = dict(data["executor"]) if isinstance(data.get("executor"), dict) else data.get("executor")
    runtime = dict(data["runtime"]) if isinstance(data.get("runtime"), dict) else data.get("runtime")
    raw_targets = data.get("targets")
    if raw_targets is None:
        raise ConfigError("no targets: give --target, --config NAME, or a 'targets' key", None, rule="missing-key")
    if not isinstance(raw_targets, list) or not raw_targets:
        raise ConfigError(
            "targets: expected a non-empty list of targets",
            _where(origins, "/targets"),
            rule="wrong-type",
        )
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
        host_source=_where(origins, "/host/kind") or _where(origins, "/host"),
    )
    # system.notes only explain which target became the host; `--origin` shows that already.
    build = data.get("build", {})
    if not isinstance(build, dict):
        raise ConfigError("build: expected a table", _where(origins, "/build"), rule="wrong-type")
    for key in build:
        if key not in BUILD_OPTIONS:
            raise ConfigError(
                f"build.{key}: unknown build option",
                _where(origins, join("/build", key)),
                suggestions=did_you_mean(key, list(BUILD_OPTIONS)),
                rule="unknown-key",
            )
    pass_config = data.get("pass-config", {})
    if not isinstance(pass_config, dict):
        raise ConfigError(
            "pass-config: expected a table of name = value",
            _where(origins, "/pass-config"),
            rule="wrong-type",
        )
    plain = {
        k: _check(data[k], TOP_LEVEL[k], k, origins, join("", k))
        for k in ("description", "tvm-version", "disabled-pass", "opt-level")
        if k in data
    }
    typed_build = {k: _check(v, BUILD_OPTIONS[k], f"build.{k}", origins, join("/build", k)) for k, v in build.items()}
    for key in inert_build_options(typed_build):
        needs = "build.desired-layout" if key == "desired-layout-ops" else "build.mixed-precision = true"
        notes.append(f"build.{key} has no effect without {needs}")
    spec = plain.get("tvm-version")
    config = CompilationConfig(
        targets=tuple(system.targets),
        host=system.host,
        executor=component("executor", executor, origins) if executor is not None else None,
        runtime=component("runtime", runtime, origins) if runtime is not None else None,
        pass_config=canonical_pass_config(pass_config, data.get("tvm-version"), origins, notes),
        # PassContext keeps the disabled passes as a set: order and repetition mean nothing.
        disabled_pass=tuple(sorted(set(plain.get("disabled-pass", ())))),
        opt_level=plain.get("opt-level", INTERNAL_DEFAULTS["opt-level"]),
        build=sort_keys(canonical_build(typed_build, versions.generation(spec))),
        description=plain.get("description"),
        tvm_version=versions.canonical_spec(spec) if isinstance(spec, str) else spec,
    )
    return config, notes
