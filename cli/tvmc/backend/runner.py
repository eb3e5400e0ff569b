"""Runs a `BuildPlan` with TVM >= 0.25. The only module (with `frontends`) that imports TVM.

TVM has no type hints, so its objects are `Any` and each TVM call sits in a small function.
TVM's own errors (multi-line, with C++ frames) become one-line `BuildError`s naming the stage.
"""

from __future__ import annotations

import importlib
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tvmc import deps, manifest
from tvmc.backend import embed
from tvmc.backend.frontends import import_model
from tvmc.backend.lower_passes import pass_context_config
from tvmc.backend.plan import BuildPlan
from tvmc.backend.preflight import ISA_PATTERN
from tvmc.errors import BuildError
from tvmc.records import field, record
from tvmc.tune import tvmside

NO_TVM_ALTERNATIVE = "or print the build instead with --emit python|tvmc|relay|plan"
MIN_VERSION = (0, 25)


@record
class BuildResult:
    library: bytes
    dumps: dict[str, str] = field(default_factory=dict)  # dump-code format → text
    timings: dict[str, float] = field(default_factory=dict)  # stage → seconds
    tuned: tuple[int, int] | None = None  # (kernels from tuning records, kernels) when a database was applied
    unscheduled: list[str] = field(default_factory=list)  # kernels a database left untuned
    notes: list[str] = field(default_factory=list)  # what the build did otherwise than planned (a warning)


def require_tvm(what: str = "compiling", alternative: str | None = NO_TVM_ALTERNATIVE) -> Any:
    """TVM, or a BuildError naming the packages to install and the command (no traceback)."""
    try:
        tvm = importlib.import_module("tvm")
    except ImportError as err:
        lacking = deps.missing(["tvm", "tvm_ffi"]) or [deps.package_of(err.name) or deps.PACKAGES["tvm"]]
        error = deps.missing_error(lacking, what)
        if alternative:
            error.hint = f"{error.hint}; {alternative}"
        raise error from None
    version = str(getattr(tvm, "__version__", "0"))
    numbers = tuple(int(p) for p in version.split(".")[:2] if p.isdigit())
    if numbers < MIN_VERSION:
        raise BuildError(
            f"TVM {version} is installed; tvmc compile needs TVM >= 0.25",
            None,
            hint="use --emit tvmc or --emit relay for TVM 0.18 or 0.19",
        )
    return tvm


_TELLING = re.compile(r"error|wrong format|not recognized|undefined reference|not found|cannot|no such", re.IGNORECASE)


def short(err: BaseException) -> str:
    """The useful line of a TVM error, with its type: the last line that says what went wrong (a
    compiler's "file in wrong format" before TVM's "Command line: ..."), else the last line."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    telling = [line for line in lines if _TELLING.search(line) and not line.startswith("Command line:")]
    if len(lines) > 1 and telling:
        # "collect2: error: ld returned 1 exit status" only says that the line before it failed.
        causes = [line for line in telling if "returned 1 exit status" not in line]
        text = (causes or telling)[-1]
    else:
        text = lines[-1] if lines else ""
    name = type(err).__name__
    text = text if text.startswith(name) or not text else f"{name}: {text}"
    text = text or name
    return text if len(text) <= 400 else text[:397] + "..."


@contextmanager
def stage(
    name: str, timings: dict[str, float], on_stage: Callable[[str], None], where: str | None = None
) -> Iterator[None]:
    """Time one stage; an error in it is a BuildError naming it (and `where`: the model file the
    import stage reads, as a damaged model's DecodeError names none)."""
    on_stage(name)
    start = time.perf_counter()
    try:
        yield
    except BuildError:
        raise
    except ModuleNotFoundError as err:
        package = deps.package_of(err.name)
        if package is None:
            raise BuildError(f"{name} failed: {short(err)}", where) from err
        raise deps.missing_error([package], f"the {name} stage") from err
    except Exception as err:  # TVM raises many types (TVMError, ValueError, InternalError, ...)
        raise BuildError(f"{name} failed: {short(err)}", where) from err
    finally:
        timings[name] = time.perf_counter() - start


def resolve(dotted: str) -> Any:
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def tvm_pass_config(tvm: Any, plan: BuildPlan) -> dict[str, Any]:
    """The plan's pass configs as the PassContext takes them (the lower passes made into TVM objects);
    a lower pass this TVM does not have is a one-line BuildError."""
    try:
        return pass_context_config(tvm, plan.pass_config)
    except LookupError as err:
        raise BuildError(str(err), None) from None


def transform(tvm: Any, plan: BuildPlan, mod: Any) -> Any:
    """Layout and precision conversion, then BYOC partitioning, then fast math: inside the PassContext,
    like old tvmc. The tuning child runs it too (its kernels are the build's)."""
    relax = tvm.relax
    if plan.layouts:
        for op in plan.layouts:
            try:
                tvm.ir.Op.get(op)
            except Exception:
                raise BuildError(f"build.desired-layout-ops: {op!r} is not a TVM operator", None) from None
        mod = relax.transform.ConvertLayout(plan.layouts)(mod)
    if plan.mixed_precision:
        mod = relax.transform.ToMixedPrecision(out_dtype=plan.mixed_precision)(mod)
    for part in plan.partitions:
        mod = resolve(part.function)(mod)
    if plan.partitions:
        mod = relax.transform.RunCodegen()(mod)
    if plan.fast_math:
        mod = relax.transform.FastMathTransform()(mod)
    return mod


def tir_recorder(tvm: Any) -> tuple[Any, list[Any]]:
    """A pass instrument keeping the last module that still has relax functions: its PrimFuncs are the
    TIR the relax pipeline produced, before TIR lowering."""
    seen: list[Any] = []

    @tvm.instrument.pass_instrument
    class Recorder:
        def run_after_pass(self, mod: Any, _info: Any) -> None:
            if any(isinstance(f, tvm.relax.Function) for f in mod.functions.values()):
                seen[:] = [mod]

    return Recorder(), seen


def shape_func_order(tvm: Any) -> Any:
    """A pass instrument that writes the stores of each `shape_func` VMShapeLower made in the order
    of their heap slots. VMShapeLower emits them in the iteration order of an unordered_map whose
    keys hash a shape variable by its address (StructuralHash of a free tirx.Var), so the order,
    and with it the machine code of `__tvm_ffi_shape_func`, changed between two builds of one
    input (2 in 40 in-process rebuilds of models/mlp.onnx; the cause of libraries that were not
    byte-identical). The stores are independent (each reads only the variables' slots, which the
    shape_func never writes), so their order is free. The module is updated in place: the pass
    that follows gets it as the instrument left it."""
    tirx = tvm.tirx

    def slot(stmt: Any) -> int | None:
        if not isinstance(stmt, tirx.BufferStore) or len(stmt.indices) != 1:
            return None
        value = getattr(stmt.indices[0], "value", None)
        return int(value) if isinstance(value, int) else None

    @tvm.instrument.pass_instrument
    class ShapeFuncOrder:
        def run_after_pass(self, mod: Any, info: Any) -> None:
            if str(info.name) != "VMShapeLower":
                return
            for gvar, func in list(mod.functions.items()):
                if not isinstance(func, tirx.PrimFunc) or not isinstance(func.body, tirx.SeqStmt):
                    continue
                stores = list(func.body.seq)
                found = [slot(s) for s in stores]
                slots = [n for n in found if n is not None]
                if len(slots) != len(stores) or slots == sorted(slots):
                    continue
                ordered = [s for _, s in sorted(zip(slots, stores, strict=True), key=lambda pair: pair[0])]
                mod.update_func(gvar, func.with_body(tirx.SeqStmt(ordered)))

    return ShapeFuncOrder()


def host_source(executable: Any, fmt: str) -> str | None:
    """LLVM IR or assembly of the host module (None when no module is an LLVM module)."""
    pending = [executable.mod]
    while pending:
        module = pending.pop(0)
        if module.kind == "llvm":
            return str(module.inspect_source(fmt))
        pending.extend(module.imports)
    return None


BUILD_INFO_MARK = "TVMC-BUILD-INFO:"  # what tvmc before issue 27 linked in: the target only


def manifest_source(doc: dict[str, Any], folder: Path) -> Path:
    """A C file linked into the library (or a member of its tar): the framed manifest (tvmc.manifest)."""
    path = folder / manifest.TAR_MEMBER
    path.write_text(manifest.c_source(manifest.encode(doc)), encoding="ascii")
    return path


def deterministic_tar(data: bytes) -> bytes:
    """The tar TVM wrote (`tar -czf`, gzip despite the name), written again so that equal objects
    make equal bytes: members sorted by name, each a regular file with mode 0644, owner 0/0 without
    names and mtime 0; gzip without a time stamp. TVM's own tar holds the export's time, the user
    and the umask, so two builds of the same input differed (the objects inside were identical)."""
    import gzip
    import io
    import tarfile

    members: list[tuple[str, bytes]] = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
        for member in archive.getmembers():
            handle = archive.extractfile(member) if member.isfile() else None
            if handle is not None:
                members.append((member.name, handle.read()))
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        for name, content in sorted(members):
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(content), 0o644, 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            archive.addfile(info, io.BytesIO(content))
    return gzip.compress(raw.getvalue(), compresslevel=9, mtime=0)


def records_digest(tvm: Any, plan: BuildPlan, mod: Any, target: Any) -> str | None:
    """SHA-256 of the tuning records the build applies to `mod` (the best record of each fused
    kernel, as MetaScheduleApplyDatabase picks it: kernel name and schedule trace), None when the
    database supplies none. The manifest keeps it, so `compile --reproduce` can tell records that
    changed from code that did (tvmc.backend.reproduce)."""
    import hashlib
    import json

    if plan.tuning is None or plan.pipeline == "relax-build":
        return None
    normalize = importlib.import_module("tvm.s_tir.meta_schedule.tune_context")._normalize_mod
    with target:
        fused = tvm.transform.Sequential(tvmside.fuse_passes(tvm, target))(mod)
    database = tvmside.open_database(str(plan.tuning))
    used = []
    for name, func in tvmside.kernels(tvm, fused):
        record = database.query_tuning_record(normalize(func), target, name)
        if record is not None:
            used.append(f"{name}\0{json.dumps(record.trace.as_json(), default=str)}")
    if not used:
        return None
    return hashlib.sha256("\n".join(sorted(used)).encode("utf-8")).hexdigest()


def run(
    plan: BuildPlan,
    on_stage: Callable[[str], None] = lambda _stage: None,
    manifest_base: dict[str, Any] | None = None,
) -> BuildResult:
    """Import, transform, build and export; returns the library's bytes (the caller writes it). With
    `manifest_base` (tvmc.backend.record) the library carries its manifest, completed here."""
    tvm = require_tvm()
    result = BuildResult(b"")
    timings = result.timings
    with stage("import", timings, on_stage, where=str(plan.model.path)):
        mod = import_model(plan.model)
        imported = mod
    instruments: list[Any] = [shape_func_order(tvm)]
    seen: list[Any] = []
    if "tir" in plan.dump_code:
        recorder, seen = tir_recorder(tvm)
        instruments.append(recorder)
    with stage("build", timings, on_stage):
        target = tvm.target.Target(plan.target)
        with tvm.transform.PassContext(
            opt_level=plan.opt_level,
            config=tvm_pass_config(tvm, plan),
            disabled_pass=list(plan.disabled_pass),
            instruments=instruments,
        ):
            mod = transform(tvm, plan, mod)
            if "relax" in plan.dump_code:
                result.dumps["relax"] = mod.script()
            digest = records_digest(tvm, plan, mod, target) if manifest_base is not None else None
            executable, report = tvmside.build(tvm, plan, mod, target)
            if plan.tuning and report.fallback is None:
                result.tuned = (report.from_records, report.kernels)
                result.unscheduled = report.unscheduled
            if report.fallback is not None:
                result.notes.append(f"built with relax.build's unfused pipeline: {report.fallback}")
    with stage("export", timings, on_stage), tempfile.TemporaryDirectory(prefix="tvmc-") as tmp:
        path = Path(tmp) / f"lib.{plan.output_format}"
        kwargs = plan.export_kwargs()
        if manifest_base is not None:
            doc = embed.complete_manifest(manifest_base, imported, plan.target, result.tuned, ISA_PATTERN)
            if digest is not None and result.tuned is not None:
                doc["tuning"]["records-sha256"] = digest
            kwargs["addons"] = [str(manifest_source(doc, Path(tmp)))]
        executable.export_library(str(path), **kwargs)
        result.library = path.read_bytes()
        if plan.output_format == "tar":
            result.library = deterministic_tar(result.library)
    for fmt in plan.dump_code:
        if fmt == "tir" and seen:
            prims = {gv: f for gv, f in seen[0].functions.items() if isinstance(f, tvm.tirx.PrimFunc)}
            result.dumps["tir"] = tvm.IRModule(prims).script()
        elif fmt in ("ll", "asm"):
            text = host_source(executable, fmt)
            if text is None:
                raise BuildError(f"build.dump-code: {fmt!r} needs an llvm target or host", None)
            result.dumps[fmt] = text
    return result
