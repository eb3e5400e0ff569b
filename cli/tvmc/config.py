"""The CompilationConfig: its keys, its typed model, and its canonical form.

One model for every stage. Files, flags and environment variables all describe the same tree:

    description, extends, tvm-version, targets, host, executor, runtime,
    pass-config, disabled-pass, opt-level, build

`canonicalize_config` turns a merged, rewritten tree into a `CompilationConfig` whose
`to_dict()` is the canonical form: targets exactly as TVM 0.27 exports them (see
`tvmc.targets`), executor/runtime with their defaults materialised, sorted keys.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Final, NamedTuple

from tvmc import registry, versions
from tvmc.errors import FrozenRecord, TvmcError, did_you_mean
from tvmc.provenance import Origin, Origins, join, origin_of
from tvmc.values import ValueTypeError, check_value


class KeySpec(FrozenRecord):
    """One config key: its type (TVM spelling, or `targets`/`target`/`table`) and documentation."""

    __match_args__ = ("type", "description", "enum", "minimum", "maximum")
    __slots__ = __match_args__
    type: Final[str]
    description: Final[str]
    enum: Final[tuple[str, ...]]
    minimum: Final[int | None]
    maximum: Final[int | None]

    def __init__(
        self,
        type: str,
        description: str,
        enum: tuple[str, ...] = (),
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> None:
        self.type = type
        self.description = description
        self.enum = enum
        self.minimum = minimum
        self.maximum = maximum


TOP_LEVEL: dict[str, KeySpec] = {
    "description": KeySpec("str", "What this config is for (shown by `tvmc config list`)."),
    "extends": KeySpec(
        "Array<str>",
        "Configs this one is layered on: names on the search path or paths "
        "relative to this file, applied left to right before this file.",
    ),
    "tvm-version": KeySpec("str", "The TVM generation this config is written for, e.g. '>=0.25' or '<=0.19'."),
    "targets": KeySpec("targets", "The targets: tag names, tables (TVM JSON form) or legacy target strings."),
    "host": KeySpec("target", "The target host; applies to every target without its own host."),
    "executor": KeySpec("table", "The executor: kind = graph | aot | vm, and its options."),
    "runtime": KeySpec("table", "The runtime: kind = cpp | crt, and its options."),
    "pass-config": KeySpec("table", "PassContext config: name → value."),
    "disabled-pass": KeySpec("Array<str>", "Passes to disable in the PassContext."),
    "opt-level": KeySpec("int", "PassContext optimisation level.", minimum=0, maximum=3),
    "build": KeySpec("table", "How the build is run and packaged (output format, cross compiler, ...)."),
}

BUILD_OPTIONS: dict[str, KeySpec] = {
    "output-format": KeySpec(
        "str",
        "Package format: 'so' (shared library), 'tar', or 'mlf' (Model Library Format, legacy TVM).",
        enum=("so", "tar", "mlf"),
    ),
    "module-name": KeySpec("str", "Name of the generated module."),
    "cross-compiler": KeySpec("str", "Compiler used to link the library, e.g. 'aarch64-linux-gnu-gcc'."),
    "cross-compiler-options": KeySpec("Array<str>", "Extra arguments for the cross compiler."),
    "tuning-records": KeySpec("str", "Tuning records to apply (relative to the config file)."),
    "desired-layout": KeySpec("Array<str>", "Layouts to convert to, e.g. ['NHWC'] or ['NHWC:HWIO']."),
    "desired-layout-ops": KeySpec("Array<str>", "Operators whose layout is converted."),
    "mixed-precision": KeySpec("bool", "Convert the model to mixed precision."),
    "mixed-precision-ops": KeySpec("Array<str>", "Operators converted to mixed precision."),
    "mixed-precision-calculation-type": KeySpec("str", "Calculation type.", enum=("float16", "float32")),
    "mixed-precision-acc-type": KeySpec("str", "Accumulation type.", enum=("float16", "float32")),
    "dump-code": KeySpec(
        "Array<str>", "Intermediate code to write next to the output.", enum=("asm", "ll", "tir", "relax")
    ),
}

INTERNAL_DEFAULTS: dict[str, Any] = {"opt-level": 3}

# What a build does for a `build` key the config does not write. Canonical configs drop a key
# written with its default, so writing a default changes neither `show` nor the fingerprint.
BUILD_DEFAULTS: dict[str, Any] = {
    "output-format": "so",
    "mixed-precision": False,
    "mixed-precision-calculation-type": "float16",
    "mixed-precision-acc-type": "float16",
    "cross-compiler-options": [],
    "dump-code": [],
    "desired-layout-ops": ["nn.conv2d"],
}
# The kernel layout ConvertLayout gives conv2d for a data layout written alone ("NHWC" = "NHWC:HWIO").
DEFAULT_KERNEL_LAYOUT = {"NHWC": "HWIO", "NCHW": "OIHW"}


class BuildProblem(NamedTuple):
    pointer: str
    message: str
    legacy_only: bool  # the option exists, but only TVM <= 0.19 builds with it


def modern_build_problems(build: Mapping[str, Any]) -> list[BuildProblem]:
    """What the build of TVM >= 0.25 (relax) cannot do with a canonical `build` table: the one list
    that the build plan refuses and validation reports for configs written for TVM >= 0.25."""
    out: list[BuildProblem] = []
    if "module-name" in build:
        out.append(BuildProblem("/build/module-name", "relax.build has no module name", True))
    fmt = build.get("output-format", BUILD_DEFAULTS["output-format"])
    if fmt == "mlf":
        out.append(BuildProblem("/build/output-format", "Model Library Format exists only in TVM <= 0.18", True))
    if fmt == "tar" and ("cross-compiler" in build or build.get("cross-compiler-options")):
        key = "cross-compiler" if "cross-compiler" in build else "cross-compiler-options"
        out.append(BuildProblem(f"/build/{key}", "a tar of object files is not linked", False))
    if build.get("mixed-precision", False):
        if "mixed-precision-ops" in build:
            out.append(
                BuildProblem(
                    "/build/mixed-precision-ops", "relax's ToMixedPrecision chooses the operators itself", False
                )
            )
        if build.get("mixed-precision-calculation-type", "float16") != "float16":
            out.append(
                BuildProblem(
                    "/build/mixed-precision-calculation-type",
                    "relax's ToMixedPrecision computes in float16 only",
                    False,
                )
            )
    layouts = build.get("desired-layout")
    if isinstance(layouts, list):
        ops = build.get("desired-layout-ops", BUILD_DEFAULTS["desired-layout-ops"])
        if len(layouts) not in (1, len(ops)):
            message = f"{len(layouts)} layouts for {len(ops)} operators (give one, or one per operator)"
            out.append(BuildProblem("/build/desired-layout", message, False))
        else:
            for index, op in enumerate(ops):
                kernel = str(layouts[0] if len(layouts) == 1 else layouts[index]).partition(":")[2]
                if kernel in ("", "default"):
                    message = (
                        f"give the kernel layout for relax.{op} as DATA:KERNEL (relax's ConvertLayout has no default)"
                    )
                    out.append(BuildProblem("/build/desired-layout", message, False))
                    break
    return out


def canonical_build(build: Mapping[str, Any]) -> dict[str, Any]:
    """One spelling per meaning: operator names without `relax.`, conv2d's kernel layout written
    out, defaults dropped."""
    out = dict(build)
    if isinstance(out.get("desired-layout-ops"), list):
        out["desired-layout-ops"] = [str(op).removeprefix("relax.") for op in out["desired-layout-ops"]]
    ops = out.get("desired-layout-ops", BUILD_DEFAULTS["desired-layout-ops"])
    layouts = out.get("desired-layout")
    if isinstance(layouts, list) and len(layouts) in (1, len(ops)):
        written = []
        for index, layout in enumerate(layouts):
            data, _, kernel = str(layout).partition(":")
            applies = ops if len(layouts) == 1 else [ops[index]]
            if kernel in ("", "default") and data in DEFAULT_KERNEL_LAYOUT and all(op == "nn.conv2d" for op in applies):
                layout = f"{data}:{DEFAULT_KERNEL_LAYOUT[data]}"
            written.append(layout)
        out["desired-layout"] = written
    return {k: v for k, v in out.items() if k not in BUILD_DEFAULTS or BUILD_DEFAULTS[k] != v}


COMPONENTS = ("executor", "runtime")
# Entries in one `extends` list: enforced by `layering`, stated by validation's schema and checks
# (here, not in `layering`, which would load `sources` into `tvmc config schema`).
MAX_EXTENDS_FANOUT = 32
# Legacy TVM's executor/runtime when a target string gave only their options (TVM 0.9
# python/tvm/relay/build_module.py, `_reconstruct_from_deprecated_options`).
LEGACY_DEFAULT_KIND = {"executor": "graph", "runtime": "cpp"}
# The kinds a build uses when a config names none (vm for TVM >= 0.25, graph for <= 0.19; cpp):
# setting one of their options implies the kind, as it would be used anyway.
IMPLIED_KINDS = {"executor": ("vm", "graph"), "runtime": ("cpp",)}


def component_table(value: Any) -> Any:
    """`executor = "aot"` is shorthand for `executor = { kind = "aot" }`; anything else is as given."""
    return {"kind": value} if isinstance(value, str) else value


def with_lifted(section: str, settings: Mapping[str, Any], current: Any) -> dict[str, Any]:
    """The executor/runtime table once a legacy target string's options are lifted into it: what
    the config says itself wins; with no kind anywhere, legacy TVM's default kind."""
    table = component_table(current)
    return {"kind": LEGACY_DEFAULT_KIND[section], **settings, **(table if isinstance(table, dict) else {})}


class ConfigError(TvmcError):
    """A config whose keys or values are wrong (unknown key, wrong type, unknown executor...)."""


def _where(origins: Mapping[str, Origin], pointer: str) -> Any:
    origin = origin_of(origins, pointer)
    return origin.location() if origin else None


class CompilationConfig(FrozenRecord):
    """A resolved, canonical compilation config. Build it with `canonicalize_config`."""

    __match_args__ = (
        "targets",
        "host",
        "executor",
        "runtime",
        "pass_config",
        "disabled_pass",
        "opt_level",
        "build",
        "description",
        "tvm_version",
    )
    __slots__ = __match_args__
    targets: Final[tuple[dict[str, Any], ...]]
    host: Final[dict[str, Any]]
    executor: Final[dict[str, Any] | None]
    runtime: Final[dict[str, Any] | None]
    pass_config: Final[dict[str, Any]]
    disabled_pass: Final[tuple[str, ...]]
    opt_level: Final[int]
    build: Final[dict[str, Any]]
    description: Final[str | None]
    tvm_version: Final[str | None]

    def __init__(
        self,
        targets: tuple[dict[str, Any], ...],
        host: dict[str, Any],
        executor: dict[str, Any] | None = None,
        runtime: dict[str, Any] | None = None,
        pass_config: dict[str, Any] | None = None,  # None: a new empty table
        disabled_pass: tuple[str, ...] = (),
        opt_level: int = 3,
        build: dict[str, Any] | None = None,  # None: a new empty table
        description: str | None = None,
        tvm_version: str | None = None,
    ) -> None:
        self.targets = targets
        self.host = host
        self.executor = executor
        self.runtime = runtime
        self.pass_config = {} if pass_config is None else pass_config
        self.disabled_pass = disabled_pass
        self.opt_level = opt_level
        self.build = {} if build is None else build
        self.description = description
        self.tvm_version = tvm_version

    def to_dict(self) -> dict[str, Any]:
        """The canonical tree (keys sorted at every level)."""
        out: dict[str, Any] = {
            "description": self.description,
            "tvm-version": self.tvm_version,
            # A target's host that is the config's host is written once, at the config level: the
            # form `show` prints then reads back to itself (a host given at the config level is
            # nested into the targets when read, a derived one is not).
            "targets": [_without_host(t) if t.get("host") == self.host else t for t in self.targets],
            "host": self.host,
            "executor": self.executor,
            "runtime": self.runtime,
            "pass-config": self.pass_config or None,
            "disabled-pass": list(self.disabled_pass) or None,
            "opt-level": self.opt_level,
            "build": self.build or None,
        }
        canonical: dict[str, Any] = sort_keys({k: v for k, v in out.items() if v is not None})
        return canonical

    def fingerprint(self) -> str:
        """SHA-256 of the canonical form without `description`: equal for equal meaning.

        A target without its own host is built with the effective host, so it is hashed with it:
        writing the default host out (or putting it on the target) does not change the meaning.
        """
        meaning = {k: v for k, v in self.to_dict().items() if k != "description"}
        meaning["targets"] = [t if "host" in t else {**t, "host": self.host} for t in meaning["targets"]]
        text = json.dumps(meaning, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        import hashlib  # here: only --hash needs it, and its import costs a few ms of start-up

        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _without_host(target: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in target.items() if k != "host"}


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
        raise ConfigError(f"{what}: {err}", _where(origins, pointer)) from None
    if spec.enum and value not in spec.enum and not isinstance(value, list):
        raise ConfigError(
            f"{what}: {value!r} is not one of {', '.join(spec.enum)}",
            _where(origins, pointer),
            suggestions=did_you_mean(str(value), spec.enum),
        )
    if isinstance(value, list) and spec.enum:
        for item in value:
            if item not in spec.enum:
                raise ConfigError(f"{what}: {item!r} is not one of {', '.join(spec.enum)}", _where(origins, pointer))
    if spec.minimum is not None and isinstance(value, int) and not spec.minimum <= value <= (spec.maximum or value):
        raise ConfigError(f"{what}: {value} is not in {spec.minimum}..{spec.maximum}", _where(origins, pointer))
    return value


def component(section: str, value: Any, origins: Origins) -> dict[str, Any]:
    """Canonical executor/runtime table: known kind, typed options, defaults materialised."""
    known = registry.executors() if section == "executor" else registry.runtimes()
    pointer = f"/{section}"
    if isinstance(value, str):
        value = {"kind": value}
    if not isinstance(value, dict):
        raise ConfigError(
            f"{section}: expected a table with 'kind', got {type(value).__name__}", _where(origins, pointer)
        )
    name = value.get("kind")
    if not isinstance(name, str):
        raise ConfigError(f"{section}: 'kind' is required (one of {', '.join(known)})", _where(origins, pointer))
    if name not in known:
        raise ConfigError(
            f"{section}.kind: unknown {section} {name!r} (known: {', '.join(known)})",
            _where(origins, join(pointer, "kind")),
            suggestions=did_you_mean(name, list(known)),
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
            )
        spec = entry.options[opt]
        out[opt] = _check(
            val, KeySpec(spec.type, spec.description, spec.enum), f"{section}.{opt}", origins, join(pointer, opt)
        )
    for opt, spec in entry.options.items():
        out.setdefault(opt, spec.default)
    return out


class PassConfigEntry(NamedTuple):
    pointer: str  # where it is written, e.g. /pass-config/tirx.disable_vectorize
    name: str  # as written (a nested table's keys joined with dots)
    canonical: str  # the spelling of the config's TVM generation
    type: str | None  # TVM's type of it; None: that generation registers no such config
    value: Any


def pass_config_entries(
    table: Mapping[str, Any], generation: str | None, pointer: str = "/pass-config", prefix: str = ""
) -> Iterator[PassConfigEntry]:
    """The pass configs of a `pass-config` table. A nested table is a dotted name (TOML reads
    `pass-config.tirx.disable_vectorize = true` that way) unless its own name is a config."""
    for key, value in table.items():
        name = prefix + key
        canonical, type_ = registry.pass_config_spec(name, generation)
        if type_ is None and type(value) is dict and value:
            yield from pass_config_entries(value, generation, join(pointer, key), name + ".")
        else:
            yield PassConfigEntry(join(pointer, key), name, canonical, type_, value)


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
            )
        value = _check(entry.value, KeySpec(entry.type, ""), f"pass-config.{entry.name}", origins, entry.pointer)
        if entry.canonical in out and out[entry.canonical] != value:
            raise ConfigError(
                f"pass-config.{entry.name}: the same config as {written[entry.canonical]!r}, with another value",
                where,
            )
        if entry.canonical != entry.name and not legacy and entry.name.startswith("tir."):
            notes.append(f"pass-config {entry.name!r} is {entry.canonical!r} in TVM >= 0.25")
        out[entry.canonical] = value
        written[entry.canonical] = entry.name
    canonical: dict[str, Any] = sort_keys(out)
    return canonical


def canonicalize_config(data: Mapping[str, Any], origins: Origins) -> tuple[CompilationConfig, list[str]]:
    """Resolved tree → canonical CompilationConfig (plus notes about conversions made)."""
    from tvmc import targets as tg

    for key in data:
        if key not in TOP_LEVEL:
            raise ConfigError(
                f"unknown key {key!r}", _where(origins, join("", key)), suggestions=did_you_mean(key, list(TOP_LEVEL))
            )
    notes: list[str] = []
    executor = dict(data["executor"]) if isinstance(data.get("executor"), dict) else data.get("executor")
    runtime = dict(data["runtime"]) if isinstance(data.get("runtime"), dict) else data.get("runtime")
    raw_targets = data.get("targets")
    if raw_targets is None:
        raise ConfigError("no targets: give --target, --config NAME, or a 'targets' key", None)
    if not isinstance(raw_targets, list) or not raw_targets:
        raise ConfigError("targets: expected a non-empty list of targets", _where(origins, "/targets"))
    specs = []
    for index, entry in enumerate(raw_targets):
        parsed = tg.parse_target(entry, source=_where(origins, f"/targets/{index}"))
        specs.append(parsed.spec)
        notes.extend(parsed.notes)
        for section, settings in parsed.lifted.items():
            merged = with_lifted(section, settings, executor if section == "executor" else runtime)
            if section == "executor":
                executor = merged
            else:
                runtime = merged
    host = data.get("host")
    host_spec = tg.parse_target(host, source=_where(origins, "/host")).spec if host is not None else None
    system = tg.resolve_system(
        specs,
        host_spec,
        source_of=lambda i: _where(origins, f"/targets/{i}"),
        host_source=_where(origins, "/host/kind") or _where(origins, "/host"),
    )
    # system.notes only explain which target became the host; `--origin` shows that already.
    build = data.get("build", {})
    if not isinstance(build, dict):
        raise ConfigError("build: expected a table", _where(origins, "/build"))
    for key in build:
        if key not in BUILD_OPTIONS:
            raise ConfigError(
                f"build.{key}: unknown build option",
                _where(origins, join("/build", key)),
                suggestions=did_you_mean(key, list(BUILD_OPTIONS)),
            )
    pass_config = data.get("pass-config", {})
    if not isinstance(pass_config, dict):
        raise ConfigError("pass-config: expected a table of name = value", _where(origins, "/pass-config"))
    plain = {
        k: _check(data[k], TOP_LEVEL[k], k, origins, join("", k))
        for k in ("description", "tvm-version", "disabled-pass", "opt-level")
        if k in data
    }
    config = CompilationConfig(
        targets=tuple(system.targets),
        host=system.host,
        executor=component("executor", executor, origins) if executor is not None else None,
        runtime=component("runtime", runtime, origins) if runtime is not None else None,
        pass_config=canonical_pass_config(pass_config, data.get("tvm-version"), origins, notes),
        disabled_pass=tuple(plain.get("disabled-pass", ())),
        opt_level=plain.get("opt-level", INTERNAL_DEFAULTS["opt-level"]),
        build=sort_keys(
            canonical_build(
                {k: _check(v, BUILD_OPTIONS[k], f"build.{k}", origins, join("/build", k)) for k, v in build.items()}
            )
        ),
        description=plain.get("description"),
        tvm_version=plain.get("tvm-version"),
    )
    return config, notes
