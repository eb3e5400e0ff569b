"""The modern build plan: what `tvmc compile` does with TVM >= 0.25, derived from a config. No TVM here.

One plan feeds the real build (`tvmc.backend.runner`), `--emit python` and `--emit plan`, so the
three cannot drift apart. Every config value is either mapped to a TVM argument or refused with
an error naming the key and where it was set; nothing is dropped silently.

    targets            → one Target (the first target without `compiler`) with its host
    targets[].compiler → relax partition functions (registry `compilers()`), then RunCodegen
    executor vm        → relax.build(exec_mode=...)       graph/aot → refused (Relay only)
    runtime cpp        → relax.build(system_lib=...)      crt       → refused
    opt-level, pass-config, disabled-pass → PassContext(opt_level, config, disabled_pass)
    build.*            → ConvertLayout, ToMixedPrecision, FastMathTransform, relax.build(relax_pipeline=...),
                         export_library(cc, options), dumps
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tvmc import registry, targets, versions
from tvmc.backend.model import LEGACY_HINT, ModelSpec, check_modern, import_step
from tvmc.config import CompilationConfig
from tvmc.errors import BuildError, TargetError, did_you_mean
from tvmc.frozen import thaw
from tvmc.keys import BUILD_DEFAULTS, modern_build_problems
from tvmc.pointers import join
from tvmc.provenance import Origin, origin_of
from tvmc.records import field, record
from tvmc.targets.hosting import detach_host, tvm_target
from tvmc.targets.queries import strip_tvmc_keys
from tvmc.values import ValueTypeError, check_value

# tvmc's fused pipeline between the backend's dispatch and the database (tvmc.tune.tvmside.fuse_passes):
# the pre-fusion passes of TVM's tuning pipeline, then the CPU backend's legalization and fusion.
FUSED_PASSES = (
    "FoldBatchnormToConv2D",
    "DecomposeOpsForInference",
    "CanonicalizeBindings",
    "LegalizeOps",
    "AnnotateTIROpPattern",
    "FoldConstant",
    "FuseOps",
    "FuseTIR",
)


@record(frozen=True)
class Partition:
    compiler: str
    function: str  # dotted path of the relax partition function
    pointer: str  # where the compiler was set (/targets/N/compiler)


@record(frozen=True)
class BuildPlan:
    """Everything the modern build needs, as plain data."""

    model: ModelSpec
    target: dict[str, Any]  # the dict for tvm.target.Target, host nested
    exec_mode: str
    system_lib: bool | None  # None: TVM decides (on for wasm hosts)
    opt_level: int
    pass_config: dict[str, Any]
    disabled_pass: tuple[str, ...]
    partitions: tuple[Partition, ...] = ()
    layouts: dict[str, list[str]] = field(default_factory=dict)  # ConvertLayout's desired_layouts
    mixed_precision: str | None = None  # ToMixedPrecision's out_dtype (the accumulation type)
    output_format: str = "so"
    cc: str | None = None
    cc_options: tuple[str, ...] = ()
    dump_code: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    tuning_records: str | None = None  # build.tuning-records: a tuning database directory (tvmc.tune)
    tuning: str | None = None  # the database partition applied (set by compile: tvmc.tune.apply)
    pipeline: str = "fused"  # build.pipeline: tvmc.tune.tvmside.fused_pipeline, or relax.build's default
    fast_math: bool = False  # build.fast-math: relax.transform.FastMathTransform

    @property
    def host(self) -> dict[str, Any] | None:
        host = self.target.get("host")
        return host if isinstance(host, dict) else None

    def export_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of export_library besides the file name (create_shared's cc/options)."""
        kwargs: dict[str, Any] = {}
        if self.cc is not None:
            kwargs["cc"] = self.cc
        if self.cc_options:
            kwargs["options"] = list(self.cc_options)
        return kwargs

    def relax_pipeline(self) -> str | dict[str, Any]:
        """relax.build's `relax_pipeline`: its own "default", or tvmc's fused pipeline as its passes
        (`tvmc.tune.tvmside.fused_pipeline`; BACKEND is the relax backend of the target's kind)."""
        if self.pipeline == "relax-build":
            return "default"
        gpu = targets.device_type(self.target) != registry.CPU_DEVICE
        return {
            "name": "fused",
            "passes": [
                "BACKEND.library_dispatch_passes(target)",
                *(f"tvm.relax.transform.{name}" for name in FUSED_PASSES),
                *(["tvm.relax.transform.MetaScheduleApplyDatabase"] if self.tuning else []),
                *(["tvm.s_tir.dlight.ApplyDefaultSchedule(gpu rules)"] if gpu else []),
                "BACKEND.dataflow_lower_passes(target)",
                "BACKEND.finalize_passes(target)",
            ],
        }

    def steps(self, output: str) -> list[dict[str, Any]]:
        """The build as a list of calls (for `--emit plan`)."""
        steps: list[dict[str, Any]] = [import_step(self.model)]
        steps.append(
            {
                "step": "pass-context",
                "call": "tvm.transform.PassContext",
                "args": {
                    "opt_level": self.opt_level,
                    "config": self.pass_config,
                    "disabled_pass": list(self.disabled_pass),
                },
            }
        )
        if self.layouts:
            steps.append(
                {
                    "step": "convert-layout",
                    "call": "tvm.relax.transform.ConvertLayout",
                    "args": {"desired_layouts": self.layouts},
                }
            )
        if self.mixed_precision:
            steps.append(
                {
                    "step": "mixed-precision",
                    "call": "tvm.relax.transform.ToMixedPrecision",
                    "args": {"out_dtype": self.mixed_precision},
                }
            )
        for part in self.partitions:
            steps.append({"step": "partition", "compiler": part.compiler, "call": part.function, "args": {}})
        if self.partitions:
            steps.append({"step": "codegen", "call": "tvm.relax.transform.RunCodegen", "args": {}})
        if self.fast_math:
            steps.append({"step": "fast-math", "call": "tvm.relax.transform.FastMathTransform", "args": {}})
        if self.tuning:
            steps.append(
                {
                    "step": "apply-tuning",
                    "call": "tvm.relax.transform.MetaScheduleApplyDatabase",
                    "database": "tvm.s_tir.meta_schedule.database.JSONDatabase",
                    "args": {"work_dir": self.tuning},
                }
            )
        steps.append(
            {
                "step": "build",
                "call": "tvm.relax.build",
                "args": {
                    "target": self.target,
                    "exec_mode": self.exec_mode,
                    "system_lib": self.system_lib,
                    "relax_pipeline": self.relax_pipeline(),
                },
            }
        )
        steps.append(
            {"step": "export", "call": "export_library", "args": {"file_name": output, **self.export_kwargs()}}
        )
        if self.dump_code:
            steps.append(
                {
                    "step": "dump-code",
                    "formats": list(self.dump_code),
                    "files": [f"{output}.{fmt}" for fmt in self.dump_code],
                }
            )
        return steps


class Planner:
    """Maps one resolved config onto the modern build, refusing what it cannot honour."""

    def __init__(self, config: CompilationConfig, origins: Mapping[str, Origin]):
        self.config = config
        # Plain copies of its frozen tables: the plan is made of dicts and lists (it is written as
        # JSON), and the checks it shares with validation test for them.
        self.targets: list[dict[str, Any]] = thaw(config.targets)
        self.host: dict[str, Any] = thaw(config.host)
        self.build: dict[str, Any] = thaw(config.build)
        self.origins = origins
        self.notes: list[str] = []

    def refuse(
        self,
        pointer: str,
        message: str,
        *,
        rule: str,
        hint: str | None = LEGACY_HINT,
        suggestions: list[str] | None = None,
    ) -> BuildError:
        """The plan's refusal of a config the rule engine let through (a bug if it ever is: validate
        ok <=> plan ok), with the id of the rule that refuses the same thing."""
        origin = origin_of(self.origins, pointer)
        if hint == LEGACY_HINT:
            hint = legacy_hint(self.config.tvm_version)
        return BuildError(
            message,
            origin.location() if origin else None,
            hint=hint,
            suggestions=suggestions or (),
            pointer=pointer,
            rule=rule,
        )

    def plan(self, model: ModelSpec) -> BuildPlan:
        check_modern(model)
        self.check_version()
        target, partitions = self.target()
        layouts, mixed, fmt, cc, options, dumps = self.build_options()
        kinds = {target.get("kind"), (target.get("host") or {}).get("kind")}
        for code in ("ll", "asm"):
            if code in dumps and "llvm" not in kinds:
                raise self.refuse(
                    "/build/dump-code",
                    f"{code!r} is LLVM output: it needs an llvm target or host",
                    hint=None,
                    rule="invalid-value",
                )
        return BuildPlan(
            model=model,
            target=target,
            exec_mode=self.exec_mode(),
            system_lib=self.system_lib(),
            opt_level=self.config.opt_level,
            pass_config=self.pass_config(),
            disabled_pass=self.config.disabled_pass,
            partitions=partitions,
            layouts=layouts,
            mixed_precision=mixed,
            output_format=fmt,
            cc=cc,
            cc_options=options,
            dump_code=dumps,
            notes=tuple(self.notes),
            tuning_records=self.tuning_records(),
            pipeline=str(self.build.get("pipeline", BUILD_DEFAULTS["pipeline"])),
            fast_math=bool(self.build.get("fast-math", BUILD_DEFAULTS["fast-math"])),
        )

    # ---- config sections -------------------------------------------------------------------

    def check_version(self) -> None:
        spec = self.config.tvm_version
        if not versions.admits(spec, versions.MODERN_SINCE):
            raise self.refuse(
                "/tvm-version",
                f"the config is written for TVM {spec}, which excludes TVM >= 0.25",
                rule="unsupported-tvm-version",
            )

    def target(self) -> tuple[dict[str, Any], tuple[Partition, ...]]:
        base: dict[str, Any] | None = None
        base_from_compiler = True
        partitions: list[Partition] = []
        for index, entry in enumerate(self.targets):
            pointer = f"/targets/{index}"
            name = entry.get("kind")
            self.check_modern_kinds(entry, pointer)
            kind = registry.kinds()[str(name)]
            compiler = entry.get("compiler")
            if compiler is not None:
                partitions.append(self.partition(str(compiler), kind.device_type, join(pointer, "compiler")))
            if base is None or (base_from_compiler and compiler is None):
                base, base_from_compiler = strip_tvmc_keys(entry), compiler is not None
        assert base is not None  # canonical configs have at least one target
        second = targets.second_target([(t, t.get("compiler")) for t in self.targets])
        if second is not None:
            message = targets.second_target_message(str(self.targets[second]["kind"]))
            raise self.refuse(f"/targets/{second}", message, hint=targets.SECOND_TARGET_HINT, rule="invalid-target")
        if self.host:
            self.check_modern_kinds(self.host, "/host")
        base_kind = registry.kinds()[str(base["kind"])]
        for part in partitions:
            if base_kind.device_type not in registry.compilers()[part.compiler].device_types:
                raise self.refuse(
                    part.pointer,
                    f"compiler {part.compiler!r} cannot offload from a {base['kind']} target",
                    hint=None,
                    rule="compiler-mismatch",
                )
        host = strip_tvmc_keys(self.host) if self.host else None
        # A CPU target that is its own host needs none (TVM's default), as in emit.tvm_target.
        return tvm_target(base, host), tuple(partitions)

    def check_modern_kinds(self, target: Mapping[str, Any], pointer: str) -> None:
        """Refuse a kind TVM >= 0.25 lacks in the target or (recursively) its host. The test is
        `targets.check_modern`, the one `config show --as tvm-target` makes, so the two cannot disagree;
        each node is tested without its host so that the refusal names the key holding the kind."""
        try:
            targets.check_modern(detach_host(target))
        except TargetError as err:
            name = str(target.get("kind"))
            legacy = registry.legacy_kinds().get(name)
            if legacy is None:  # the legacy kind is deeper, in a composite's device
                raise self.refuse(pointer, err.message, rule="legacy-kind") from None
            last = f" (last in TVM {legacy.last_version})" if legacy.last_version else ""
            raise self.refuse(
                join(pointer, "kind"), f"target kind {name!r} does not exist in TVM >= 0.25" + last, rule="legacy-kind"
            ) from None
        host = target.get("host")
        if isinstance(host, Mapping):
            self.check_modern_kinds(host, join(pointer, "host"))

    def partition(self, compiler: str, device_type: int, pointer: str) -> Partition:
        known = registry.compilers()
        entry = known.get(compiler)
        if entry is None:
            raise self.refuse(
                pointer,
                f"unknown compiler {compiler!r}",
                hint=None,
                suggestions=did_you_mean(compiler, list(known)),
                rule="unknown-compiler",
            )
        if entry.partition is None:
            raise self.refuse(
                pointer,
                f"compiler {compiler!r} has no relax partition function in TVM {registry.tvm_version()}",
                rule="compiler-mismatch",
            )
        if device_type not in entry.device_types:
            raise self.refuse(
                pointer,
                f"compiler {compiler!r} does not run on {registry.DEVICE_NAMES.get(device_type, device_type)} targets",
                hint=None,
                rule="compiler-mismatch",
            )
        return Partition(compiler, entry.partition, pointer)

    def exec_mode(self) -> str:
        executor = self._modern_component("executor", "vm", ("exec-mode",))
        return "bytecode" if executor is None else str(executor.get("exec-mode", "bytecode"))  # the VM default

    def system_lib(self) -> bool | None:
        runtime = self._modern_component("runtime", "cpp", ("system-lib",))
        return None if runtime is None else bool(runtime.get("system-lib", False))

    def _modern_component(self, section: str, instead: str, mapped: tuple[str, ...]) -> Mapping[str, Any] | None:
        """The config's executor/runtime table, refused when TVM >= 0.25 has no such component or
        when it sets options other than `mapped` (the ones the build carries)."""
        table: Mapping[str, Any] | None = getattr(self.config, section)
        if table is None:
            return None
        component = registry.components(section)[table["kind"]]
        if "modern" not in component.generations:
            raise self.refuse(
                f"/{section}/kind",
                f"{section} {component.name!r} has no TVM >= 0.25 equivalent (it is a Relay {section}, TVM <= 0.19)",
                hint=f"{legacy_hint(self.config.tvm_version)}, or use --{section} {instead}",
                rule="legacy-component",
            )
        self.no_other_options(f"/{section}", table, mapped)
        return table

    def no_other_options(self, pointer: str, table: Mapping[str, Any], mapped: tuple[str, ...]) -> None:
        for option in table:
            if option != "kind" and option not in mapped:
                raise self.refuse(join(pointer, option), "no TVM >= 0.25 equivalent", rule="legacy-option")

    def pass_config(self) -> dict[str, Any]:
        known = registry.pass_configs()
        out: dict[str, Any] = {}
        for name, value in thaw(self.config.pass_config).items():
            modern = registry.modern_pass_config(name)
            if modern not in known:
                raise self.refuse(
                    join("/pass-config", name),
                    f"not a PassContext config of TVM {registry.tvm_version()}",
                    hint=None,
                    suggestions=did_you_mean(name, list(known)),
                    rule="unknown-pass-config",
                )
            if modern != name:
                self.notes.append(f"pass-config {name!r} is {modern!r} in TVM >= 0.25")
            if known[modern] in ("bool", "int", "str"):  # a legacy name was not typed when it was read
                try:
                    value = check_value(value, known[modern])
                except ValueTypeError as err:
                    raise self.refuse(
                        join("/pass-config", name), str(err), hint=None, rule="pass-config-type"
                    ) from None
            out[modern] = value
        return out

    def build_options(
        self,
    ) -> tuple[dict[str, list[str]], str | None, str, str | None, tuple[str, ...], tuple[str, ...]]:
        build = self.build
        for problem in modern_build_problems(build):
            hint = LEGACY_HINT if problem.legacy_only else None
            if problem.pointer.startswith("/build/cross-compiler"):
                hint = "use output-format so"
            raise self.refuse(problem.pointer, problem.message, hint=hint, rule=problem.rule)
        fmt = str(build.get("output-format", "so"))
        cc = build.get("cross-compiler")
        options = tuple(build.get("cross-compiler-options", ()))
        dumps = tuple(build.get("dump-code", ()))
        return self.layouts(), self.mixed_precision(), fmt, cc, options, dumps

    def tuning_records(self) -> str | None:
        """build.tuning-records: a tvmc tuning database directory (`tvmc tune`), relative to the config
        file that set it. Old AutoTVM/auto-scheduler log files cannot be applied by TVM >= 0.25."""
        value = self.build.get("tuning-records")
        if value is None:
            return None
        path = Path(str(value)).expanduser()
        origin = origin_of(self.origins, "/build/tuning-records")
        source = origin.location().source if origin is not None and origin.kind == "file" else ""
        if not path.is_absolute() and source and Path(source).is_file():
            path = Path(source).resolve().parent / path
        if path.is_file():
            raise self.refuse(
                "/build/tuning-records",
                f"{value} is a file: TVM >= 0.25 cannot apply AutoTVM/auto-scheduler logs; "
                "give a tvmc tuning database directory (tvmc tune --database DIR)",
                hint=None,
                rule="invalid-value",
            )
        return str(path)

    def layouts(self) -> dict[str, list[str]]:
        build = self.build
        if "desired-layout" not in build:  # canonicalization dropped inert desired-layout-ops, with a note
            return {}
        layouts = list(build["desired-layout"])
        ops = [
            op if op.startswith("relax.") else f"relax.{op}"
            for op in build.get("desired-layout-ops", BUILD_DEFAULTS["desired-layout-ops"])
        ]
        out: dict[str, list[str]] = {}  # modern_build_problems refused what does not fit
        for index, op in enumerate(ops):
            data, _, kernel = (layouts[0] if len(layouts) == 1 else layouts[index]).partition(":")
            out[op] = [data, kernel]
        return out

    def mixed_precision(self) -> str | None:
        build = self.build
        if not build.get("mixed-precision", False):  # inert mixed-precision-* were dropped, with a note
            return None
        return str(build.get("mixed-precision-acc-type", "float16"))


def legacy_hint(spec: str | None) -> str:
    """Where a config goes that TVM >= 0.25 cannot build: the old releases `--emit tvmc`/`relay`
    write for that its `tvm-version` admits (`<=0.18`: TVM 0.18 only)."""
    old = [v for v in registry.generation_versions() if versions.admits_series(spec, v)]
    return f"use --emit tvmc or --emit relay for TVM {' or '.join(old)}" if old else LEGACY_HINT


def plan_build(config: CompilationConfig, origins: Mapping[str, Origin], model: ModelSpec) -> BuildPlan:
    return Planner(config, origins).plan(model)
