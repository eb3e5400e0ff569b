"""The build behind `tvmc compile MODEL` and `tvmc.api.compile`: one implementation, so the CLI and
the Python API have the same semantics (output path, preflight, errors).

    resolved config → plan → preflight (names, cross compiler, output path, TVM, ISA, runtime)
      → build in a child process → write the library (and dumps) atomically
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tvmc import deps, records
from tvmc.backend import frontends, isolated, preflight, runner
from tvmc.backend.model import ModelSpec, check_exists
from tvmc.backend.plan import BuildPlan, plan_build
from tvmc.errors import BuildError, TvmcError, UsageError
from tvmc.fileio import write_atomic
from tvmc.records import field, record
from tvmc.targets import llvm_names
from tvmc.tune.apply import TUNE_SUGGESTION, choose
from tvmc.validate.diagnostics import Finding

if TYPE_CHECKING:
    from tvmc.config import CompilationConfig
    from tvmc.layering import Tree
    from tvmc.provenance import Origin

Notify = Callable[[str], None]


class Resolution(Protocol):
    """What a build reads of a resolved config (`tvmc.api.Resolved`, of the layer above): the
    canonical config, the origin of each canonical value, and the tree it was canonicalized from."""

    @property
    def config(self) -> CompilationConfig: ...
    @property
    def origins(self) -> Mapping[str, Origin]: ...
    @property
    def tree(self) -> Tree: ...
    @property
    def findings(self) -> Sequence[Finding]: ...  # the rule engine's warnings
    def origin(self, pointer: str) -> Origin: ...


def _ignore(_text: str) -> None:
    return None


@record
class Compiled:
    """What a build wrote: the library, its size, the plan it ran, and what it said on the way."""

    path: Path
    size: int
    model: str
    plan: BuildPlan
    elapsed: float  # seconds, from the preflight to the written library
    timings: dict[str, float] = field(default_factory=dict)  # stage → seconds (import, build, export)
    dumps: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    tuning: str = ""  # which tuning records were applied, or why none (tvmc.tune.apply)


def output_path(output: str | None, spec: ModelSpec, output_format: str, inputs: set[Path]) -> Path:
    """Where `-o` writes: MODEL.so here by default; a directory (or a path ending in /) receives
    MODEL.so, like cp; a missing directory is an error, never a file named after it."""
    path = Path(output) if output else Path(spec.default_output(output_format))
    if output and (output.endswith(("/", os.sep)) or path.is_dir()):
        if not path.is_dir():
            raise TvmcError(f"cannot write into {output}: the directory does not exist", f"-o {output}")
        path = path / spec.default_output(output_format)
    if path.is_dir():
        raise UsageError(f"{path} is a directory", f"-o {path}")
    if not path.resolve().parent.is_dir():
        raise TvmcError(f"cannot write {path}: directory {path.resolve().parent} does not exist", f"-o {path}")
    if path.resolve() in {p.resolve() for p in inputs}:
        raise UsageError(f"refusing to overwrite the input file {path}", f"-o {path}")
    return path


def check_names(resolved: Resolution, on_warning: Notify) -> None:
    """The rule engine's unknown-cpu warnings (a TVM tag's own unknown CPU name), from the one run
    of the engine that resolving the config made (its errors stopped the resolution already)."""
    for finding in resolved.findings:
        if finding.rule == "unknown-cpu":
            on_warning(finding.message)


def check_cpu_architectures(resolved: Resolution) -> None:
    """An `mcpu` of another architecture than its target's triple (or this machine's) stops the build
    at the key that set it: LLVM would ignore it and build generic code (issue 27)."""
    nodes = [(f"/targets/{index}", node) for index, node in enumerate(resolved.config.targets)]
    for pointer, target in [*nodes, ("/host", resolved.config.host)]:  # the host is a field, not in a target
        problem = preflight.foreign_cpu(target) if isinstance(target, Mapping) else None
        if problem is not None:
            raise BuildError(problem, resolved.origin(f"{pointer}/mcpu").location())


def _native(node: Mapping[str, Any], cpu: str) -> dict[str, Any]:
    out = {k: _native(v, cpu) if k == "host" and isinstance(v, Mapping) else v for k, v in node.items()}
    if out.get("kind") == "llvm" and out.get("mcpu") == "native":
        out["mcpu"] = cpu
    return out


def resolve_native(plan: BuildPlan, on_warning: Notify) -> BuildPlan:
    """`mcpu = "native"` → this machine's CPU as LLVM names it (LLVM itself would build generic code)."""
    nodes = [plan.target, plan.host or {}]
    if not any(n.get("kind") == "llvm" and n.get("mcpu") == "native" for n in nodes):
        return plan
    cpu = llvm_names.native_cpu()
    on_warning(f"mcpu 'native' is this machine's CPU: building for mcpu {cpu!r} (LLVM's name for it)")
    return records.replace(plan, target=_native(plan.target, cpu))


def _manifest(resolved: Resolution, plan: BuildPlan, provenance: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What the library's manifest records from tvmc's side (issue 27): config, origins, model, target.
    `provenance` (a rebuild's: tvmc.backend.reproduce) replaces the origins and environment with those
    the library recorded: where its config came from, which a rebuild from the manifest inherits."""
    from tvmc.backend import record

    environment = getattr(resolved, "participation", None)
    doc = record.base_manifest(
        resolved.config, resolved.origins, environment.to_dict() if environment is not None else {}, plan
    )
    return {**doc, **(provenance or {})}


def partial_match(tuned: tuple[int, int], unscheduled: list[str], database: str) -> str:
    """The warning for kernels a database left to the default schedule: which, and why they can be."""
    names = ", ".join(unscheduled[:8]) + (f" and {len(unscheduled) - 8} more" if len(unscheduled) > 8 else "")
    return (
        f"{tuned[0]} of {tuned[1]} kernels from tuning records ({database}): {names} "
        f"{'has' if len(unscheduled) == 1 else 'have'} no record and {'runs' if len(unscheduled) == 1 else 'run'} "
        f"the default schedule (not tuned yet, a dynamic shape, or the records are of other input shapes or "
        f"another model); {TUNE_SUGGESTION}"
    )


def build(
    resolved: Resolution,
    spec: ModelSpec,
    output: str | None = None,
    *,
    verbose: bool = False,
    on_stage: Notify = _ignore,
    on_warning: Notify = _ignore,
    label: str | None = None,
    tuning: bool = True,
    database: Path | None = None,
    implicit_database: bool = True,
    provenance: Mapping[str, Any] | None = None,
    verdicts: bool = True,
) -> Compiled:
    """Check, build and write the library; every problem a TvmcError with its one line (`label`
    names the build in a crash report: the configs). The tuning records of the config's target
    fingerprint are applied unless `tuning` is false (tvmc.tune), or a verdict of `tvmc tune` says
    they made this model slower (`verdicts` false: applied anyway, for tune's own measurement)."""
    said: list[str] = []

    def warn(message: str) -> None:
        said.append(message)
        on_warning(message)

    check_names(resolved, warn)
    check_cpu_architectures(resolved)
    plan, tuning_line = choose(
        plan_build(resolved.config, resolved.origins, spec),
        resolved.config,
        warn=warn,
        enabled=tuning,
        database=database,
        implicit=implicit_database,
        verdicts=verdicts,
    )
    for note in plan.notes:
        warn(note)
    check_exists(spec)
    cc_origin = resolved.origin("/build/cross-compiler") if plan.cc else None
    problem = preflight.cross_compiler_problem(plan.cc, cc_origin.location() if cc_origin else None)
    problem = problem or preflight.link_problem(plan.target, plan.output_format, plan.cc)
    if problem is not None:
        raise problem
    inputs = {*map(Path, resolved.tree.inputs), Path(spec.path)}  # files tvmc read: never overwritten
    path = output_path(output, spec, plan.output_format, inputs)
    started = time.perf_counter()
    runner.require_tvm()
    for message in deps.warnings_for_known_bad():  # compiling works; tuning it for this target would crash
        warn(message)
    plan = resolve_native(plan, warn)
    for message in [*preflight.will_not_run_here(plan.target), *preflight.no_runtime_here(plan.target)]:
        warn(message)
    frontends.check_available(spec)
    try:
        result = isolated.build(
            plan, on_stage=on_stage, verbose=verbose, manifest_base=_manifest(resolved, plan, provenance)
        )
    except BuildError as err:
        if label and err.message.startswith("TVM crashed"):  # name the build: which configs crashed
            raise BuildError(f"{err.message} ({label})", err.location, hint=err.hint) from None
        raise
    for note in result.notes:
        warn(note)
    if result.tuned is not None and result.unscheduled:
        warn(partial_match(result.tuned, result.unscheduled, tuning_line))
    write_atomic(path, result.library, inputs=inputs)
    dumps = []
    for fmt, text in result.dumps.items():
        write_atomic(f"{path}.{fmt}", text, inputs=inputs)
        dumps.append(Path(f"{path}.{fmt}"))
    return Compiled(
        path=path,
        size=len(result.library),
        model=spec.path,
        plan=plan,
        elapsed=time.perf_counter() - started,
        timings=dict(result.timings),
        dumps=dumps,
        warnings=said,
        tuning=tuning_line
        if result.tuned is None
        else f"{result.tuned[0]} of {result.tuned[1]} kernels from tuning records, {tuning_line}",
    )
