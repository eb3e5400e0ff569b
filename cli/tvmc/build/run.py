"""`tvmc run LIBRARY`: run what `tvmc compile` built with the Relax VM (TVM >= 0.25), the old
`tvmc run` for the VM: inputs from an npz file or generated, outputs saved or summarised, timing
with TVM's `time_evaluator`, and `--check` against the ONNX reference evaluator.

TVM has no type hints: its objects are `Any`, imported with importlib.
"""

from __future__ import annotations

import importlib
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tvmc.build.runner import require_tvm, short
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
class RunResult:
    inputs: dict[str, Any]
    outputs: dict[str, Any]  # name → numpy array
    timing: Timing | None = None
    checks: list[Check] = field(default_factory=list)


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
        raise BuildError("reading ONNX models needs the Python package 'onnx'", flag, hint="pip install onnx") from None
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


def _vm(library: Path, device: str) -> tuple[Any, Any, Any]:
    tvm = require_tvm()
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
        raise BuildError(f"cannot load {library}: {short(err)}", "LIBRARY") from None


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
) -> RunResult:
    tvm, dev, vm = _vm(library, device)
    args = [tvm.runtime.tensor(a, dev) for a in _ordered(vm, inputs)]
    try:
        values = _outputs(vm["main"](*args))
        timing = None
        if time_it:
            measured = vm.time_evaluator("main", dev, number=number, repeat=repeat)(*args)
            ms = [r * 1000 for r in measured.results]
            np = _np()
            timing = Timing(
                float(np.mean(ms)), float(np.median(ms)), float(np.std(ms)), min(ms), max(ms), repeat, number
            )
    except Exception as err:
        raise BuildError(f"running {library} failed: {short(err)}", "run") from None
    return RunResult(dict(inputs), {f"output_{i}": v for i, v in enumerate(values)}, timing)


def check(result: RunResult, model: Path, *, rtol: float, atol: float) -> list[Check]:
    """Compare each output with the ONNX reference evaluator on the same inputs."""
    np = _np()
    onnx = importlib.import_module("onnx")
    reference = importlib.import_module("onnx.reference")
    proto = onnx.load(str(model))
    expected = reference.ReferenceEvaluator(proto).run(None, result.inputs)
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
