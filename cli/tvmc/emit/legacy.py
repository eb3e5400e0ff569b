"""The legacy build plan: a config as old tvmc / Relay (TVM 0.18 or 0.19) would build it. No TVM here.

Shared by `--emit tvmc` and `--emit relay`, for one release (`emit.generation.choose`: the
config's `tvm-version` or `--tvm-version`). Targets become legacy strings holding only what that
release has (`emit.generation.narrow`); BYOC entries — legacy kinds such as `ethos-u`, or a
`compiler` key — become that release's old tvmc codegens, applied in target order; the host
becomes the second TVM target, as old tvmc read it. What the release cannot do is refused,
naming the key, where it was set, and the release.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tvmc import registry
from tvmc import targets as tg
from tvmc.build.model import MODERN_HINT, ModelSpec, check_legacy
from tvmc.build.plan import strip_tvmc_keys
from tvmc.config import CompilationConfig
from tvmc.emit import generation as gens
from tvmc.errors import BuildError, TvmcError, UsageError
from tvmc.frozen import thaw
from tvmc.provenance import Origin, display_path, join, origin_of

RELAY_HINT = "use --emit relay, which can express it"


@dataclass(frozen=True)
class Byoc:
    """One of old tvmc's BYOC codegens (composite_target.py `REGISTERED_CODEGEN` of the release)."""

    name: str
    partition: str  # the Relay partition function, called (mod, params, mod_name=..., **options)
    config_key: str | None  # its PassContext options key, which also receives the options
    options: dict[str, Any]  # codegen options (legacy strings' attributes, without common ones)
    legacy: str  # the entry as old tvmc's --target wrote it: "ethos-u -accelerator_config=..."
    pointer: str


@dataclass(frozen=True)
class LegacyPlan:
    version: str  # the old TVM release written for ("0.18", "0.19")
    model: ModelSpec
    byoc: tuple[Byoc, ...]
    target: str  # legacy string of the TVM target (without host)
    host: str | None  # legacy string of the host; None for a CPU target that is its own host
    executor: dict[str, Any] | None  # canonical table (None: graph)
    runtime: dict[str, Any] | None  # canonical table (None: cpp)
    pass_config: dict[str, Any]  # legacy names
    disabled_pass: tuple[str, ...]
    opt_level: int
    build: dict[str, Any]
    notes: tuple[str, ...]

    def non_default_options(self, section: str) -> dict[str, Any]:
        """The executor/runtime options that differ from the registry default (old tvmc's flags)."""
        table = self.executor if section == "executor" else self.runtime
        if table is None:
            return {}
        known = registry.components(section)[table["kind"]]
        return {k: v for k, v in table.items() if k != "kind" and v != known.options[k].default}


class LegacyPlanner:
    def __init__(self, config: CompilationConfig, origins: Mapping[str, Origin], version: str | None = None):
        self.config = config
        self.origins = origins
        self.notes: list[str] = []
        self.requested = version
        self.gen = registry.generation(gens.LAST_TVMC)

    def refuse(self, pointer: str, message: str, hint: str | None = MODERN_HINT) -> BuildError:
        origin = origin_of(self.origins, pointer)
        return BuildError(f"{display_path(pointer)}: {message}", origin.location() if origin else None, hint=hint)

    def plan(self, model: ModelSpec) -> LegacyPlan:
        check_legacy(model)
        try:
            self.gen = gens.choose(self.config.tvm_version, self.requested)
        except UsageError:
            raise
        except TvmcError as err:
            raise self.refuse("/tvm-version", err.message, hint=None if self.requested else MODERN_HINT) from None
        byoc, target, host = self.targets()
        return LegacyPlan(
            version=self.gen.version,
            model=model,
            byoc=byoc,
            target=target,
            host=host,
            executor=self.component("executor"),
            runtime=self.component("runtime"),
            pass_config=self.pass_config(),
            disabled_pass=self.config.disabled_pass,
            opt_level=self.config.opt_level,
            build=self.build(),
            notes=tuple(self.notes),
        )

    def legacy_string(self, target: Mapping[str, Any], pointer: str) -> str:
        try:
            return tg.to_legacy(gens.narrow(target, self.gen), implied_keys=True)
        except TvmcError as err:
            raise self.refuse(pointer, f"legacy TVM cannot express this target: {err.message}", hint=err.hint) from None

    def targets(self) -> tuple[tuple[Byoc, ...], str, str | None]:
        byoc: list[Byoc] = []
        main: dict[str, Any] | None = None
        main_pointer = ""
        config_targets: list[dict[str, Any]] = thaw(self.config.targets)
        for index, entry in enumerate(config_targets):
            pointer = f"/targets/{index}"
            kind = registry.kind(str(entry["kind"]))
            if kind is not None and kind.byoc:
                byoc.append(self.codegen(str(entry["kind"]), entry, pointer))
                continue
            if "compiler" in entry:
                byoc.append(self.codegen(str(entry["compiler"]), {}, join(pointer, "compiler")))
            stripped = strip_tvmc_keys(entry)
            stripped.pop("host", None)
            if main is None:
                main, main_pointer = stripped, pointer
            elif stripped != main and "compiler" not in entry:
                raise self.refuse(
                    pointer,
                    f"a second TVM target ({entry['kind']}): old tvmc read a second TVM target as the host",
                    hint="put the host in `host`",
                )
        if main is None:
            raise self.refuse("/targets", "only BYOC targets: old tvmc needs a TVM target last", hint=None)
        host: dict[str, Any] = thaw(self.config.host)
        nested = config_targets[int(main_pointer.rsplit("/", 1)[1])].get("host")
        host = nested if isinstance(nested, dict) else host
        host_text = None
        main_kind = registry.kind(str(main["kind"]))
        is_cpu = main_kind is not None and main_kind.device_type == registry.CPU_DEVICE
        if host and not (is_cpu and strip_tvmc_keys(host) == main):  # a CPU target is its own host by default
            host_text = self.legacy_string(strip_tvmc_keys(host), "/host")
        return tuple(byoc), self.legacy_string(main, main_pointer), host_text

    def codegen(self, name: str, entry: Mapping[str, Any], pointer: str) -> Byoc:
        codegens = self.gen.codegens
        if name not in codegens:
            last = gens.last_with(lambda g: name in g.codegens)
            why = f"; it was last in TVM {last}" if last else ""
            raise self.refuse(
                pointer,
                f"the tvmc of TVM {self.gen.version} has no {name!r} codegen (it had {', '.join(codegens)}){why}",
                hint=f"set tvm-version = '<={last}' or use --tvm-version {last}" if last else MODERN_HINT,
            )
        common = set(registry.COMMON_OPTIONS)
        options = {
            k: v for k, v in entry.items() if k not in common and k != "compiler" and not k.startswith("feature.")
        }
        for option in options:
            if option not in codegens[name]:
                raise self.refuse(
                    join(pointer, option),
                    f"the {name!r} codegen of TVM {self.gen.version} has no option {option!r}"
                    f" (it has {', '.join(codegens[name]) or 'none'})",
                    hint=None,
                )
        legacy = " ".join([name, *(f"-{k}={_legacy_value(v)}" for k, v in options.items())])
        partition, config_key = self.gen.pipelines[name]
        return Byoc(name, partition, config_key, options, legacy, pointer)

    def component(self, section: str) -> dict[str, Any] | None:
        table = thaw(self.config.executor if section == "executor" else self.config.runtime)
        if table is None:
            return None
        known = registry.components(section)[table["kind"]]
        if "legacy" not in known.generations:
            raise self.refuse(f"/{section}/kind", f"{section} {known.name!r} exists only in TVM >= 0.25")
        options = (self.gen.executors if section == "executor" else self.gen.runtimes).get(table["kind"])
        if options is None:
            raise self.refuse(f"/{section}/kind", f"TVM {self.gen.version} has no {section} {table['kind']!r}")
        for option in table:
            if option != "kind" and option not in options:
                raise self.refuse(
                    f"/{section}/{option}",
                    f"the {section} {table['kind']!r} of TVM {self.gen.version} has no {option!r}",
                )
        return dict(table)

    def pass_config(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, value in thaw(self.config.pass_config).items():
            legacy = name
            for prefix in ("tirx.", "s_tir."):  # TVM 0.24 split `tir.*` into `tirx.*` and `s_tir.*`
                if name.startswith(prefix):
                    legacy = f"tir.{name[len(prefix) :]}"
            if legacy not in self.gen.pass_configs:
                raise self.refuse(
                    join("/pass-config", name),
                    f"TVM {self.gen.version} has no PassContext config {legacy!r}",
                    hint=MODERN_HINT if name != legacy or name.startswith("relax.") else None,
                )
            if legacy != name:
                self.notes.append(f"pass-config {name!r} is {legacy!r} in TVM {self.gen.version}")
            out[legacy] = value
        return out

    def build(self) -> dict[str, Any]:
        build: dict[str, Any] = thaw(self.config.build)
        fmt = build.get("output-format", "so")
        if fmt != "tar" and fmt not in self.gen.output_formats:
            last = gens.last_with(lambda g: fmt in g.output_formats)
            raise self.refuse(
                "/build/output-format",
                f"the tvmc of TVM {self.gen.version} has no output format {fmt!r}"
                + (f" (Model Library Format was last in TVM {last})" if fmt == "mlf" and last else ""),
                hint=f"set tvm-version = '<={last}' or use --tvm-version {last}" if last else None,
            )
        if "relax" in build.get("dump-code", ()):
            raise self.refuse("/build/dump-code", "'relax' code exists only in TVM >= 0.25")
        for key in ("desired-layout-ops", "mixed-precision-ops"):
            if key in build:
                build[key] = [op.removeprefix("relax.") for op in build[key]]
        return build


def _legacy_value(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, list):
        return ",".join(_legacy_value(v) for v in value)
    return str(value)


def plan_legacy(
    config: CompilationConfig, origins: Mapping[str, Origin], model: ModelSpec, version: str | None = None
) -> LegacyPlan:
    """The plan for one old release: `version` (`--tvm-version`), else the config's `tvm-version`."""
    return LegacyPlanner(config, origins, version).plan(model)
