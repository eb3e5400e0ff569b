"""`tvmc run LIBRARY`: run what `tvmc compile` built with the Relax VM (TVM >= 0.25), the old
`tvmc run` for the VM: inputs from an npz file or generated, outputs saved or summarised, timing
with TVM's `time_evaluator`, and `--check` against the ONNX reference evaluator.

TVM has no type hints: its objects are `Any`, imported with importlib.
"""

from __future__ import annotations

import importlib
import re
import time
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tvmc import deps
from tvmc.build import preflight
from tvmc.build.runner import BUILD_INFO_MARK, require_tvm, short
from tvmc.errors import BuildError, UsageError

Fill = Literal["random", "zeros", "ones"]


@dataclass
class Timing:
    mean_ms: float
    median_ms: float
    std_ms: float
    min_ms: float
    max_ms: float
    repeat: int
    number: int


@dataclass
class Check:
    output: str
    max_abs: float
    max_rel: float
    ok: bool


@dataclass
class OpProfile:
    """One function the VM called (a kernel, or a VM builtin): calls and time over the profiled runs."""

    name: str
    calls: int
    total_us: float
    shapes: str  # the argument shapes of its first call

    @property
    def mean_us(self) -> float:
        return self.total_us / self.calls if self.calls else 0.0


@dataclass
class RunResult:
    inputs: dict[str, Any]
    outputs: dict[str, Any]  # name → numpy array
    timing: Timing | None = None
    checks: list[Check] = field(default_factory=list)
    profile: list[OpProfile] | None = None  # slowest first


def _np() -> Any:
    return importlib.import_module("numpy")


def load_inputs(path: Path) -> dict[str, Any]:
    """Arrays by name from an .npz file."""
    np = _np()
    try:
        with np.load(path, allow_pickle=False) as data:
            return {name: data[name] for name in data.files}
    except (OSError, ValueError, zipfile.BadZipFile) as err:
        raise UsageError(f"cannot read inputs from {path}: {err}", "--inputs") from None


@dataclass
class Tensor:
    """A model input or output: dims are ints, or the name of a dynamic dimension ("?" unnamed)."""

    name: str
    dims: tuple[int | str, ...]
    dtype: str


def model_tensors(model: Path, flag: str = "MODEL") -> tuple[list[Tensor], list[Tensor]]:
    """(inputs, outputs) of an ONNX model's graph; weights (initializers) are not inputs."""
    try:
        onnx = importlib.import_module("onnx")
    except ImportError:
        raise deps.missing_error([deps.PACKAGES["onnx"]], "reading ONNX models", flag) from None
    try:
        proto = onnx.load(str(model))
    except Exception as err:  # onnx raises many kinds for a bad file
        raise BuildError(f"cannot read the ONNX model {model}: {short(err)}", flag) from None

    def tensor(value: Any) -> Tensor:
        shape = value.type.tensor_type.shape.dim
        dims = tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in shape)
        dtype = str(onnx.helper.tensor_dtype_to_np_dtype(value.type.tensor_type.elem_type))
        return Tensor(value.name, dims, dtype)

    initializers = {i.name for i in proto.graph.initializer}
    inputs = [tensor(v) for v in proto.graph.input if v.name not in initializers]
    return inputs, [tensor(v) for v in proto.graph.output]


def model_signature(model: Path) -> list[tuple[str, tuple[int | None, ...], str]]:
    """(name, shape with None for a dynamic dimension, numpy dtype) of each ONNX graph input."""
    inputs, _ = model_tensors(model, "--check")
    return [(t.name, tuple(d if isinstance(d, int) else None for d in t.dims), t.dtype) for t in inputs]


def generate_inputs(
    signature: Sequence[tuple[str, tuple[int | None, ...], str]], fill: Fill, batch: int, seed: int = 0
) -> dict[str, Any]:
    """Inputs for a signature; a dynamic dimension becomes `batch`."""
    np = _np()
    rng = np.random.default_rng(seed)
    out = {}
    for name, dims, dtype in signature:
        shape = tuple(batch if d is None else d for d in dims)
        if fill == "zeros":
            out[name] = np.zeros(shape, dtype)
        elif fill == "ones":
            out[name] = np.ones(shape, dtype)
        elif np.issubdtype(np.dtype(dtype), np.floating):
            out[name] = rng.standard_normal(shape).astype(dtype)
        else:
            out[name] = rng.integers(0, 10, shape).astype(dtype)
    return out


# ELF e_machine values of the architectures TVM builds for, as platform.machine() names them.
_ELF_MACHINES = {62: "x86_64", 3: "i386", 183: "aarch64", 40: "arm", 243: "riscv64", 164: "hexagon", 8: "mips"}
_SAME_MACHINE = {"amd64": "x86_64", "arm64": "aarch64", "i686": "i386", "armv7l": "arm", "armv8l": "arm"}


def refuse_foreign(library: Path) -> None:
    """A library that cannot load on this machine is refused before loading, with the reason (the
    loader's own message for another CPU's ELF file is "cannot open shared object file")."""
    import platform
    import tarfile

    with open(library, "rb") as file:
        head = file.read(20)
    if not head.startswith(b"\x7fELF"):
        if tarfile.is_tarfile(library):
            raise BuildError(
                f"{library} is a tar of object files (build.output-format = tar): link it into a .so first",
                "LIBRARY",
            )
        return  # not ELF (Mach-O, DLL): the loader says what it is
    machine = int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")
    arch = _ELF_MACHINES.get(machine)
    here = platform.machine().lower()
    here = _SAME_MACHINE.get(here, here)
    if arch is not None and arch != here:
        raise BuildError(
            f"{library} is a library for {arch}; this machine is {here}: run it on that machine",
            "LIBRARY",
        )


def build_info(library: Path) -> dict[str, Any] | None:
    """What `tvmc compile` recorded in the library (the target), or None (another tool built it)."""
    import json

    data = library.read_bytes()
    start = data.find(BUILD_INFO_MARK.encode())
    if start < 0:
        return None
    end = data.find(b"\0", start)
    try:
        info = json.loads(data[start + len(BUILD_INFO_MARK) : end if end >= 0 else None])
    except ValueError:
        return None
    return info if isinstance(info, dict) else None


def refuse_missing_isa(library: Path) -> None:
    """A library whose code needs CPU features this machine lacks is refused before loading (it
    would die with `Illegal instruction`), naming them."""
    info = build_info(library)
    target = info.get("target") if info else None
    if not isinstance(target, dict):
        return
    found = preflight.missing_isa(target)
    if found:
        what, lacking = found[0]
        shown = ", ".join(lacking[:6]) + (f" and {len(lacking) - 6} more" if len(lacking) > 6 else "")
        raise BuildError(
            f"{library} was built for {what}, which needs {shown}; this machine lacks them: it would die "
            "with Illegal instruction",
            "LIBRARY",
            hint="build it for this machine: tvmc compile MODEL --config host/native",
        )


def _load_error(library: Path, err: BaseException) -> BuildError:
    match = re.search(r"created using \{(\w+)\} but a loader of that name is not registered", str(err))
    if match:
        return BuildError(
            f"{library} holds {match[1]} code, but this TVM has no {match[1]} runtime to load it",
            "LIBRARY",
            hint=f"run it where TVM is built with {match[1]} (the pip wheel has only the CPU runtime)",
        )
    return BuildError(f"cannot load {library}: {short(err)}", "LIBRARY")


def _remote_vm(tvm: Any, library: Path, device: str, remote: tuple[str, int, str]) -> tuple[Any, Any, Any]:
    """The library on a device of TVM's RPC tracker (HOST, PORT, KEY): uploaded, loaded, run there."""
    host, port, key = remote
    where = f"--rpc-tracker {host}:{port}"
    try:
        session = tvm.rpc.connect_tracker(host, port).request(key, priority=1, session_timeout=120)
    except Exception as err:  # TVM raises its own error types (and socket errors)
        raise BuildError(f"cannot get a {key!r} device from the tracker: {short(err)}", where) from None
    try:
        session.upload(str(library))
        lib = session.load_module(library.name)
        dev = session.device(device, 0)
        return tvm, dev, tvm.relax.VirtualMachine(lib, dev)
    except Exception as err:
        raise BuildError(f"cannot load {library} on the {key!r} device: {short(err)}", where) from None


def _vm(library: Path, device: str, remote: tuple[str, int, str] | None = None) -> tuple[Any, Any, Any]:
    tvm = require_tvm("running a library", alternative=None)
    if remote is not None:  # another machine's library: not checked against this one
        return _remote_vm(tvm, library, device, remote)
    refuse_foreign(library)
    refuse_missing_isa(library)
    try:
        dev = tvm.device(device, 0)
        present = bool(dev.exist)
    except Exception:
        present = False
    if not present:
        raise BuildError(f"no {device} device here (or this TVM has no {device} runtime)", "--device")
    try:
        lib = tvm.runtime.load_module(str(library))
        return tvm, dev, tvm.relax.VirtualMachine(lib, dev)
    except Exception as err:  # TVM raises its own error types
        raise _load_error(library, err) from None


def _ordered(vm: Any, inputs: Mapping[str, Any]) -> list[Any]:
    """The inputs in the order of main's parameters (by name when the library records names)."""
    arity = int(vm._get_function_arity("main"))
    names = [str(vm._get_function_param_name("main", i)) for i in range(arity)]
    if set(names) <= set(inputs):
        return [inputs[n] for n in names]
    if len(inputs) == arity:
        return list(inputs.values())
    raise UsageError(f"main takes {arity} inputs ({', '.join(names)}); got {', '.join(inputs) or 'none'}", "--inputs")


def _outputs(result: Any) -> list[Any]:
    if hasattr(result, "numpy"):
        return [result.numpy()]
    return [item for part in result for item in _outputs(part)]  # a tuple (possibly nested)


def run(
    library: Path,
    inputs: Mapping[str, Any],
    *,
    device: str = "cpu",
    time_it: bool = False,
    repeat: int = 3,
    number: int = 10,
    profile: bool = False,
    on_stage: Callable[[str], None] = lambda _stage: None,
    remote: tuple[str, int, str] | None = None,  # an RPC tracker's host, port and device key
) -> RunResult:
    on_stage("load")
    tvm, dev, vm = _vm(library, device, remote)
    args = [tvm.runtime.tensor(a, dev) for a in _ordered(vm, inputs)]
    on_stage("run")
    try:
        values = _outputs(vm["main"](*args))
        timing = None
        ops = None
        if profile:
            on_stage("profile")
            ops = _profile(vm, dev, args, repeat)
        if time_it:
            on_stage("time")
            measured = vm.time_evaluator("main", dev, number=number, repeat=repeat)(*args)
            ms = [r * 1000 for r in measured.results]
            np = _np()
            timing = Timing(
                float(np.mean(ms)), float(np.median(ms)), float(np.std(ms)), min(ms), max(ms), repeat, number
            )
    except Exception as err:
        raise BuildError(f"running {library} failed: {short(err)}", "run") from None
    return RunResult(dict(inputs), {f"output_{i}": v for i, v in enumerate(values)}, timing, profile=ops)


def _profile(vm: Any, dev: Any, args: list[Any], runs: int) -> list[OpProfile]:
    """Per function the VM calls (kernels and VM builtins): calls and time, over `runs` runs of main,
    measured with the VM's instrument hook (before/after each call; the device synchronised)."""
    started: dict[str, int] = {}
    seen: dict[str, OpProfile] = {}

    def instrument(_func: Any, symbol: str, before: bool, _ret: Any, *call_args: Any) -> int:
        now = time.perf_counter_ns()
        if before:
            started[symbol] = now
            return 0
        dev.sync()
        elapsed = (time.perf_counter_ns() - started.pop(symbol, now)) / 1000
        entry = seen.get(symbol)
        if entry is None:
            shapes = " ".join(str(tuple(a.shape)).replace(" ", "") for a in call_args if hasattr(a, "shape"))
            seen[symbol] = OpProfile(str(symbol), 1, elapsed, shapes)
        else:
            entry.calls += 1
            entry.total_us += elapsed
        return 0

    vm.set_instrument(instrument)
    try:
        for _ in range(runs):
            vm["main"](*args)
    finally:
        vm.set_instrument(None)
    return sorted(seen.values(), key=lambda op: -op.total_us)


def run_library(
    library: Path,
    inputs: Path | Mapping[str, Any] | None,
    *,
    check: Path | None = None,
    device: str = "cpu",
    fill: Fill = "random",
    batch: int = 1,
    rtol: float = 1e-4,
    atol: float = 1e-4,
    time_it: bool = False,
    repeat: int = 3,
    number: int = 10,
    profile: bool = False,
    on_stage: Callable[[str], None] = lambda _stage: None,
    remote: tuple[str, int, str] | None = None,
) -> RunResult:
    """`tvmc run` (and `tvmc.api.run`): inputs from an npz file, a mapping, or generated from the
    check model's signature; run; profile and time on request; check against the ONNX reference."""
    if fill not in ("random", "zeros", "ones"):
        raise UsageError(f"unknown fill {fill!r} (random, zeros or ones)", "--fill")
    if not library.is_file():
        raise UsageError(f"{library} is not a file", "LIBRARY")
    if isinstance(inputs, Path):
        given = load_inputs(inputs)
    elif inputs is not None:
        given = dict(inputs)
    elif check is not None:
        given = generate_inputs(model_signature(check), fill, batch)
    else:
        raise UsageError("give --inputs NPZ, or --check MODEL to generate inputs from the model", "tvmc run")
    result = run(
        library,
        given,
        device=device,
        time_it=time_it,
        repeat=repeat,
        number=number,
        profile=profile,
        on_stage=on_stage,
        remote=remote,
    )
    if check is not None:
        on_stage("check")
        check_outputs(result, check, rtol=rtol, atol=atol)
    return result


def check_outputs(result: RunResult, model: Path, *, rtol: float, atol: float) -> list[Check]:
    """Compare each output with the ONNX reference evaluator on the same inputs."""
    np = _np()
    try:
        onnx = importlib.import_module("onnx")
        reference = importlib.import_module("onnx.reference")
    except ModuleNotFoundError as err:
        package = deps.package_of(err.name) or deps.PACKAGES["onnx"]
        raise deps.missing_error([package], "checking against ONNX's reference evaluator", "--check") from None
    proto = onnx.load(str(model))
    try:
        expected = reference.ReferenceEvaluator(proto).run(None, result.inputs)
    except Exception as err:  # the reference evaluator raises many kinds (unsupported op, bad input)
        raise BuildError(f"the ONNX reference evaluator failed on {model}: {short(err)}", "--check") from None
    if len(expected) != len(result.outputs):
        raise BuildError(f"the library has {len(result.outputs)} outputs, the model {len(expected)}", "--check")
    checks = []
    for (name, got), want, info in zip(result.outputs.items(), expected, proto.graph.output, strict=True):
        got, want = np.asarray(got, dtype="float64"), np.asarray(want, dtype="float64")
        if got.shape != want.shape:
            raise BuildError(f"output {info.name}: shape {got.shape}, the model gives {want.shape}", "--check")
        diff = np.abs(got - want)
        max_abs = float(diff.max()) if diff.size else 0.0
        max_rel = float((diff / np.maximum(np.abs(want), 1e-12)).max()) if diff.size else 0.0
        ok = bool(np.allclose(got, want, rtol=rtol, atol=atol))
        checks.append(Check(info.name or name, max_abs, max_rel, ok))
    result.checks = checks
    return checks
