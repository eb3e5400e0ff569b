"""The TVM side of tuning, shared by the tuning child and the build: the fusion that makes the
kernels MetaSchedule tunes, and the build pipeline that applies a database. Imports TVM (untyped: Any).

Task extraction and the build run the same passes before the database is consulted (the relax
default CPU/GPU pipeline's dispatch, LegalizeOps, AnnotateTIROpPattern, FoldConstant, FuseOps,
FuseTIR), so a kernel's structural hash at tuning time is its hash at build time, as in TVM's
`meta_schedule.relax_integration.compile_relax`.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from typing import Any

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
    relax = tvm.relax
    dispatch = list(backend(tvm, target).library_dispatch_passes(target))
    return [
        *dispatch,
        relax.transform.LegalizeOps(),
        relax.transform.AnnotateTIROpPattern(),
        relax.transform.FoldConstant(),
        relax.transform.FuseOps(),
        relax.transform.FuseTIR(),
    ]


def kernels(tvm: Any, mod: Any) -> list[tuple[str, Any]]:
    return [(str(gv.name_hint), f) for gv, f in mod.functions.items() if isinstance(f, tvm.tirx.PrimFunc)]


def scheduled(func: Any) -> bool:
    attrs = func.attrs
    return attrs is not None and any(bool(attrs.get(k, False)) for k in ("tirx.is_scheduled", "tir.is_scheduled"))


def tuned_pipeline(tvm: Any, target: Any, counts: list[int]) -> Any:
    """relax.build's pipeline with the current MetaSchedule database applied after fusion;
    `counts` receives [kernels from the database, kernels]."""
    relax = tvm.relax
    dlight = importlib.import_module("tvm.s_tir.dlight")
    module = backend(tvm, target)
    lower = [*module.dataflow_lower_passes(target), *module.finalize_passes(target)]
    gpu = bool(relax.pipeline.BackendDispatcher.is_gpu_target(target))

    def apply(mod: Any, _ctx: Any) -> Any:
        mod = tvm.transform.Sequential(fuse_passes(tvm, target))(mod)
        before = {name for name, f in kernels(tvm, mod) if scheduled(f)}
        mod = relax.transform.MetaScheduleApplyDatabase()(mod)
        found = kernels(tvm, mod)
        counts[:] = [sum(1 for name, f in found if scheduled(f) and name not in before), len(found)]
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


def build_tuned(tvm: Any, plan: Any, mod: Any, target: Any) -> tuple[Any, tuple[int, int]]:
    """relax.build with the partition `plan.tuning` applied; also (kernels from records, kernels)."""
    counts: list[int] = [0, 0]
    database = open_database(str(plan.tuning))
    with target, database:
        executable = tvm.relax.build(
            mod,
            target,
            relax_pipeline=tuned_pipeline(tvm, target, counts),
            exec_mode=plan.exec_mode,
            system_lib=plan.system_lib,
        )
    return executable, (counts[0], counts[1])
