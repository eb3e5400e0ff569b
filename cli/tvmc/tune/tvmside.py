"""The relax pipeline of `tvmc compile`, shared by the build and the tuning child: the fusion that
makes the kernels MetaSchedule tunes, and the build pipeline that applies a database. Imports TVM
(untyped: Any).

Task extraction and the build run the same passes before the database is consulted (the target's
relax backend dispatch; FoldBatchnormToConv2D, DecomposeOpsForInference, CanonicalizeBindings;
LegalizeOps, AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR), with or without records, so a
kernel's structural hash at tuning time is its hash at build time, as in TVM's
`meta_schedule.relax_integration.compile_relax`.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from contextlib import nullcontext
from typing import Any

from tvmc.backend.plan import FUSED_PASSES
from tvmc.records import field, record

TENSOR_INTRIN = "tvm.s_tir.tensor_intrin"
CPU_INTRINSICS = ("x86", "arm_cpu", "riscv_cpu")


def light_tensor_intrinsics() -> None:
    """Register the CPU tensor intrinsics without the CUDA ones.

    MetaSchedule imports `tvm.s_tir.tensor_intrin` when a TuneContext is made and in every builder
    worker; in TVM 0.27 that registers the CUDA intrinsics too, which takes ~25 of its ~35 s here
    (python -X importtime), so each builder worker timed out (30 s) before building anything. For
    CPU (llvm) targets the package is stood in for by its CPU submodules, which are what the llvm
    schedule rules (x86 VNNI/AVX-512, Arm dot-product, RISC-V) refer to."""
    if TENSOR_INTRIN in sys.modules:
        return
    s_tir = importlib.import_module("tvm.s_tir")
    path = os.path.join(os.path.dirname(str(s_tir.__file__)), "tensor_intrin")
    package = types.ModuleType(TENSOR_INTRIN)
    package.__path__ = [path]
    spec = importlib.machinery.ModuleSpec(TENSOR_INTRIN, None, is_package=True)
    spec.submodule_search_locations = [path]
    package.__spec__ = spec
    sys.modules[TENSOR_INTRIN] = package
    for name in CPU_INTRINSICS:
        setattr(package, name, importlib.import_module(f"{TENSOR_INTRIN}.{name}"))


def is_cpu(target: Any) -> bool:
    kinds = {str(target.kind.name)}
    if target.host is not None:
        kinds.add(str(target.host.kind.name))
    return kinds == {"llvm"}


def backend(tvm: Any, target: Any) -> Any:
    """The relax backend pipeline module for a target, as relax.pipeline picks it. Imported from the
    module itself: TVM 0.27's relax.pipeline.dataflow_lower_passes fails for llvm (AttributeError:
    tvm.relax.backend.cpu_generic does not export dataflow_lower_passes)."""
    kind = str(target.kind.name)
    name = {"cuda": "cuda", "rocm": "rocm", "metal": "gpu_generic", "llvm": "cpu_generic"}.get(kind)
    if name is None and kind == "opencl" and "adreno" in [str(k) for k in target.keys]:
        name = "adreno"
    if name is None:
        name = "gpu_generic" if tvm.relax.pipeline.BackendDispatcher.is_gpu_target(target) else "cpu_generic"
    return importlib.import_module(f"tvm.relax.backend.{name}.pipeline")


def fuse_passes(tvm: Any, target: Any) -> list[Any]:
    """Everything before the tuning database is consulted: the backend's library dispatch, then
    `FUSED_PASSES` (the pre-fusion passes TVM's own tuning pipeline runs — BatchNorm folded into the
    conv before it, the rest of inference BatchNorm decomposed into arithmetic — then the CPU
    backend's `legalize_passes`: LegalizeOps … FuseTIR; on GPUs DLight runs after the database)."""
    dispatch = list(backend(tvm, target).library_dispatch_passes(target))
    return [*dispatch, *(getattr(tvm.relax.transform, name)() for name in FUSED_PASSES)]


PURE_PACKED = "relax.call_pure_packed"


def pure_packed_calls(tvm: Any, mod: Any) -> dict[str, int]:
    """How often each packed function is called through `call_pure_packed` in the module's relax
    functions (callee name → count)."""
    op = tvm.ir.Op.get(PURE_PACKED)
    counts: dict[str, int] = {}

    def visit(expr: Any) -> None:
        if isinstance(expr, tvm.relax.Call) and expr.op.same_as(op) and expr.args:
            callee = expr.args[0]
            name = str(getattr(callee, "global_symbol", getattr(callee, "name_hint", callee)))
            counts[name] = counts.get(name, 0) + 1

    for func in mod.functions.values():
        if isinstance(func, tvm.relax.Function):
            tvm.relax.analysis.post_order_visit(func, visit)
    return counts


def dropped_calls(before: dict[str, int], after: dict[str, int]) -> list[str]:
    """The callees of `before` that have fewer calls in `after`."""
    return sorted(name for name, count in before.items() if after.get(name, 0) < count)


def kernels(tvm: Any, mod: Any) -> list[tuple[str, Any]]:
    return [(str(gv.name_hint), f) for gv, f in mod.functions.items() if isinstance(f, tvm.tirx.PrimFunc)]


def scheduled(func: Any) -> bool:
    attrs = func.attrs
    return attrs is not None and any(bool(attrs.get(k, False)) for k in ("tirx.is_scheduled", "tir.is_scheduled"))


@record
class PipelineReport:
    """What the fused pipeline did: kernels scheduled from the database (when one was open), all
    kernels, the names of those a database left unscheduled, and why the build fell back to unfused."""

    from_records: int = 0
    kernels: int = 0
    unscheduled: list[str] = field(default_factory=list)
    fallback: str | None = None


def fused_pipeline(tvm: Any, target: Any, report: PipelineReport, *, database: bool) -> Any:
    """tvmc's default relax pipeline: TVM's pipeline for the target kind (relax.get_default_pipeline:
    dispatch, LegalizeOps, AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR, then DLight on GPUs,
    then dataflow lowering and finalization) with the pre-fusion passes of TVM's tuning pipeline and,
    when `database`, MetaScheduleApplyDatabase after fusion (the current database: MetaSchedule returns
    a workload's fastest record, the default schedule's measurement among them).

    TVM's FoldConstant drops a `call_pure_packed` whose result is unused, even when the packed function
    has side effects (apache/tvm#19384: why relax.build does not fuse on CPU). Such a module is built
    by relax.build's unfused pipeline instead, and `report.fallback` says why."""
    relax = tvm.relax
    dlight = importlib.import_module("tvm.s_tir.dlight")
    module = backend(tvm, target)
    lower = [*module.dataflow_lower_passes(target), *module.finalize_passes(target)]
    gpu = bool(relax.pipeline.BackendDispatcher.is_gpu_target(target))

    def apply(mod: Any, _ctx: Any) -> Any:
        calls = pure_packed_calls(tvm, mod)
        fused = tvm.transform.Sequential(fuse_passes(tvm, target))(mod)
        lost = dropped_calls(calls, pure_packed_calls(tvm, fused)) if calls else []
        if lost and not gpu:  # relax.build's own GPU pipeline fuses too
            report.fallback = (
                f"the fused pipeline would drop call_pure_packed {', '.join(map(repr, lost))} (apache/tvm#19384)"
            )
            return relax.get_pipeline("default")(mod)
        mod = fused
        if database:
            before = {name for name, f in kernels(tvm, mod) if scheduled(f)}
            mod = relax.transform.MetaScheduleApplyDatabase()(mod)
            found = kernels(tvm, mod)
            report.from_records = sum(1 for name, f in found if scheduled(f) and name not in before)
            report.kernels = len(found)
            report.unscheduled = sorted(name for name, f in found if not scheduled(f))
        if gpu:
            mod = dlight.ApplyDefaultSchedule(
                dlight.gpu.Matmul(),
                dlight.gpu.GEMV(),
                dlight.gpu.Reduction(),
                dlight.gpu.GeneralReduction(),
                dlight.gpu.Fallback(),
            )(mod)
        return tvm.transform.Sequential(lower)(mod)

    return tvm.transform.module_pass(apply, opt_level=0)


def open_database(path: str) -> Any:
    ms = importlib.import_module("tvm.s_tir.meta_schedule")
    return ms.database.JSONDatabase(work_dir=path, allow_missing=False)


def build(tvm: Any, plan: Any, mod: Any, target: Any) -> tuple[Any, PipelineReport]:
    """relax.build through the plan's pipeline: `fused` (with the partition `plan.tuning` applied,
    when set) or `relax-build` (relax.build's own default)."""
    report = PipelineReport()
    kwargs = {"exec_mode": plan.exec_mode, "system_lib": plan.system_lib}
    if plan.pipeline == "relax-build":
        return tvm.relax.build(mod, target, **kwargs), report
    pipeline = fused_pipeline(tvm, target, report, database=plan.tuning is not None)
    with target, open_database(str(plan.tuning)) if plan.tuning else nullcontext():
        executable = tvm.relax.build(mod, target, relax_pipeline=pipeline, **kwargs)
    return executable, report
