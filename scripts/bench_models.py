#!/usr/bin/env python3
"""Benchmark tvmc's libraries against ONNX Runtime (issue 29), on models of the usual kinds.

Generates with onnx.helper (fixed weights, seeded) four models, batch 1:

    resnet       ResNet-style: conv-BN-relu stem, basic residual blocks (conv-BN-relu-conv-BN + skip),
                 a strided block, global average pool, Gemm   (x: 1x3x56x56)
    mobilenet    MobileNet-style: strided stem, depthwise 3x3 + BN + relu then pointwise 1x1 + BN + relu
                 blocks, global average pool, Gemm             (x: 1x3x56x56)
    transformer  one encoder block: LayerNorm, 4-head self-attention, residual, LayerNorm, Erf-GELU FFN,
                 residual                                      (x: 1x64x128)
    mlp-large    Gemm 1024→1024 (transB), relu, 1024→1024, relu, 1024→10   (x: 1x1024)

plus the shipped models/mlp.onnx (batch fixed to 1) and models/cnn.onnx. For each, in one run:
ONNX Runtime with 1 and 2 threads; `tvmc compile --no-tuning` with build.pipeline 'relax-build'
(TVM's relax.build default, the peer for the untuned build) and with the default pipeline
(fused); and `tvmc tune --trials-per-task B` then `tvmc compile` for each budget B. Every library's
outputs are checked against ONNX Runtime's. Each runner is timed from Python on the same inputs
(a loop of calls: the per-call overhead of each is included), in interleaved rounds — every round
times every runner once, so load on the machine hits them alike — and the median round is printed,
with ratios against ONNX Runtime (1 thread) and the untuned build.

    python scripts/bench_models.py                      # all models, budgets 64 and 512 per task
    python scripts/bench_models.py --budgets 0          # untuned only
    python scripts/bench_models.py --quick              # smoke run: untuned, the shipped MLP, few rounds
    python scripts/bench_models.py --models resnet,transformer --budgets 16 --config host/native
    python scripts/bench_models.py --models mobilenet,transformer --budgets 8 --kernels

A tuned build that `tvmc compile` made untuned (the end-to-end verdict of `tvmc tune` says the
tuned library lost, or no record applied) is labelled so (`tuned 8 = untuned`), with compile's
reason; for a verdict, the library with the records applied all the same is built and timed too
(`tuned 8 forced`, after `tvmc tune db forget-verdict`), so that the tuned kernels are still seen.

`--kernels` adds, per model, where the time goes: each tvmc library's kernels timed with the VM's
instrument hook (as `tvmc run --profile`) next to ONNX Runtime's per-node profile (1 thread,
SessionOptions.enable_profiling), per call, grouped by kind of operation (conv, matmul/gemm, norm,
softmax, reduce/pool, elementwise, layout, VM builtins), with totals and the slowest kernels of each.

Numbers on a shared machine are noisy; compare ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SEED = 29
OPSET = 17


class Weights:
    """Seeded initializers: the same model bytes on every run."""

    def __init__(self, seed: int) -> None:
        import numpy as np

        self.rng = np.random.default_rng(seed)
        self.tensors: list[Any] = []

    def add(self, name: str, *shape: int, scale: float | None = None, offset: float = 0.0) -> str:
        import numpy as np
        from onnx import numpy_helper

        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        std = scale if scale is not None else (2.0 / max(fan_in, 1)) ** 0.5
        array = (self.rng.standard_normal(shape) * std + offset).astype("float32")
        self.tensors.append(numpy_helper.from_array(array, name))
        return name

    def const(self, name: str, values: list[int] | list[float], dtype: str = "int64") -> str:
        import numpy as np
        from onnx import numpy_helper

        self.tensors.append(numpy_helper.from_array(np.array(values, dtype=dtype), name))
        return name


def _model(name: str, nodes: list[Any], inputs: list[Any], output: Any, weights: Weights) -> Any:
    import onnx
    from onnx import helper

    graph = helper.make_graph(nodes, name, inputs, [output], weights.tensors)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="tvmc bench")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


class Builder:
    """Nodes with generated names."""

    def __init__(self, weights: Weights) -> None:
        self.w = weights
        self.nodes: list[Any] = []
        self.count = 0

    def node(self, op: str, inputs: list[str], **attrs: Any) -> str:
        from onnx import helper

        self.count += 1
        out = f"{op.lower()}{self.count}"
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def conv_bn(self, x: str, cin: int, cout: int, k: int, stride: int = 1, group: int = 1, relu: bool = True) -> str:
        n = self.count + 1
        w = self.w.add(f"conv{n}_w", cout, cin // group, k, k)
        pad = k // 2
        y = self.node("Conv", [x, w], kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4, group=group)
        scale = self.w.add(f"bn{n}_scale", cout, scale=0.1, offset=1.0)
        bias = self.w.add(f"bn{n}_bias", cout, scale=0.1)
        mean = self.w.add(f"bn{n}_mean", cout, scale=0.1)
        var = self.w.add(f"bn{n}_var", cout, scale=0.1, offset=1.0)
        self.w.tensors[-1].CopyFrom(_abs(self.w.tensors[-1]))  # a variance is positive
        y = self.node("BatchNormalization", [y, scale, bias, mean, var], epsilon=1e-5)
        return self.node("Relu", [y]) if relu else y

    def head(self, x: str, channels: int, classes: int) -> str:
        from onnx import helper

        pooled = self.node("GlobalAveragePool", [x])
        flat = self.node("Flatten", [pooled])
        w = self.w.add("fc_w", classes, channels)
        b = self.w.add("fc_b", classes, scale=0.1)
        self.nodes.append(helper.make_node("Gemm", [flat, w, b], ["y"], transB=1))
        return "y"


def _abs(tensor: Any) -> Any:
    import numpy as np
    from onnx import numpy_helper

    return numpy_helper.from_array(np.abs(numpy_helper.to_array(tensor)).astype("float32") + 0.5, tensor.name)


def _io(shape: list[int], out: list[int]) -> tuple[list[Any], Any]:
    from onnx import TensorProto, helper

    return [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)], helper.make_tensor_value_info(
        "y", TensorProto.FLOAT, out
    )


def make_resnet(size: int = 56, width: int = 16, blocks: int = 2) -> Any:
    b = Builder(Weights(SEED))
    x = b.conv_bn("x", 3, width, 3)
    channels = width
    for index in range(blocks + 1):
        stride, out = (2, channels * 2) if index == blocks else (1, channels)
        y = b.conv_bn(x, channels, out, 3, stride=stride)
        y = b.conv_bn(y, out, out, 3, relu=False)
        skip = x if stride == 1 else b.conv_bn(x, channels, out, 1, stride=2, relu=False)
        x = b.node("Relu", [b.node("Add", [y, skip])])
        channels = out
    b.head(x, channels, 10)
    inputs, output = _io([1, 3, size, size], [1, 10])
    return _model("resnet", b.nodes, inputs, output, b.w)


def make_mobilenet(size: int = 56, width: int = 16, blocks: int = 4) -> Any:
    b = Builder(Weights(SEED + 1))
    x = b.conv_bn("x", 3, width, 3, stride=2)
    channels = width
    for index in range(blocks):
        stride = 2 if index % 2 == 1 else 1
        x = b.conv_bn(x, channels, channels, 3, stride=stride, group=channels)  # depthwise
        out = channels * 2 if stride == 2 else channels
        x = b.conv_bn(x, channels, out, 1)  # pointwise
        channels = out
    b.head(x, channels, 10)
    inputs, output = _io([1, 3, size, size], [1, 10])
    return _model("mobilenet", b.nodes, inputs, output, b.w)


def make_transformer(seq: int = 64, dim: int = 128, heads: int = 4, ffn: int = 512) -> Any:
    from onnx import helper

    w = Weights(SEED + 2)
    b = Builder(w)
    head_dim = dim // heads

    def layer_norm(x: str, name: str) -> str:
        gamma = w.add(f"{name}_g", dim, scale=0.1, offset=1.0)
        beta = w.add(f"{name}_b", dim, scale=0.1)
        return b.node("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=1e-5)

    def linear(x: str, name: str, cin: int, cout: int) -> str:
        return b.node(
            "Add", [b.node("MatMul", [x, w.add(f"{name}_w", cin, cout)]), w.add(f"{name}_b", cout, scale=0.02)]
        )

    split = w.const("split_heads", [1, seq, heads, head_dim])
    merge = w.const("merge_heads", [1, seq, dim])
    h = layer_norm("x", "ln1")
    q, k, v = (
        b.node("Transpose", [b.node("Reshape", [linear(h, n, dim, dim), split])], perm=[0, 2, 1, 3])
        for n in ("q", "k", "v")
    )
    kt = b.node("Transpose", [k], perm=[0, 1, 3, 2])
    scores = b.node("Mul", [b.node("MatMul", [q, kt]), w.const("scale", [head_dim**-0.5], "float32")])
    attn = b.node("MatMul", [b.node("Softmax", [scores], axis=-1), v])
    attn = b.node("Reshape", [b.node("Transpose", [attn], perm=[0, 2, 1, 3]), merge])
    x = b.node("Add", ["x", linear(attn, "o", dim, dim)])
    h = linear(layer_norm(x, "ln2"), "ff1", dim, ffn)
    erf = b.node("Erf", [b.node("Mul", [h, w.const("inv_sqrt2", [2**-0.5], "float32")])])
    gelu = b.node(
        "Mul",
        [b.node("Mul", [h, w.const("half", [0.5], "float32")]), b.node("Add", [erf, w.const("one", [1.0], "float32")])],
    )
    b.nodes.append(helper.make_node("Add", [x, linear(gelu, "ff2", ffn, dim)], ["y"]))
    inputs, output = _io([1, seq, dim], [1, seq, dim])
    return _model("transformer", b.nodes, inputs, output, w)


def make_mlp_large(width: int = 1024, classes: int = 10) -> Any:
    from onnx import helper

    w = Weights(SEED + 3)
    b = Builder(w)
    x = b.node("Relu", [b.node("Gemm", ["x", w.add("w1", width, width), w.add("b1", width, scale=0.1)], transB=1)])
    x = b.node("Relu", [b.node("Gemm", [x, w.add("w2", width, width), w.add("b2", width, scale=0.1)], transB=1)])
    b.nodes.append(
        helper.make_node("Gemm", [x, w.add("w3", classes, width), w.add("b3", classes, scale=0.1)], ["y"], transB=1)
    )
    inputs, output = _io([1, width], [1, classes])
    return _model("mlp_large", b.nodes, inputs, output, w)


GENERATED: dict[str, Callable[..., Any]] = {
    "resnet": make_resnet,
    "mobilenet": make_mobilenet,
    "transformer": make_transformer,
    "mlp-large": make_mlp_large,
}
SHIPPED = {
    "mlp": (ROOT / "models" / "mlp.onnx", ["--input-shapes", "x:[1,8]"]),
    "cnn": (ROOT / "models" / "cnn.onnx", []),
}
MODELS = [*GENERATED, *SHIPPED]


# ---- building -------------------------------------------------------------------------------------


def tvmc(*args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "cli")}
    done = subprocess.run([sys.executable, "-m", "tvmc", *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"tvmc {' '.join(args)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


@dataclass
class Case:
    name: str
    model: Path
    flags: list[str]
    libraries: dict[str, Path] = field(default_factory=dict)  # runner label → library
    notes: list[str] = field(default_factory=list)
    kernels: dict[str, list[str]] = field(default_factory=dict)  # runner label → tune's per-task lines
    untuned: dict[str, str] = field(default_factory=dict)  # runner label → why compile built it untuned


APPLIED = re.compile(r"^([1-9][0-9]*) of [0-9]+ kernels from tuning records")


def tuning_line(output: str) -> str:
    """compile's `tuning  …` line (what it applied), without the label."""
    return next(
        (line.strip()[len("tuning") :].strip() for line in output.splitlines() if line.strip().startswith("tuning  ")),
        "",
    )


def tuned_label(budget: int, applied: str) -> str:
    """The row of a library compile built with a tuned database: `tuned 8`, or `tuned 8 = untuned`
    when compile's tuning line says no record applied (the end-to-end verdict, no records, …), so
    that an untuned library's time never reads as tuning's."""
    return f"tuned {budget}" if APPLIED.match(applied) else f"tuned {budget} = untuned"


def build_all(case: Case, work: Path, config: str, budgets: list[int], jobs: int) -> None:
    common = [str(case.model), "--config", config, *case.flags]
    for label, extra in (("tvm relax.build", ["--set", "build.pipeline=relax-build"]), ("tvmc untuned", [])):
        out = work / f"{case.name}-{label.split()[-1]}.so"
        tvmc("compile", *common, *extra, "--no-tuning", "-o", str(out))
        case.libraries[label] = out
    for budget in budgets:
        database = work / f"db-{case.name}-{budget}"
        started = time.perf_counter()
        # Per-task budget; --trials only caps the total, so it is set out of the way.
        tuned = tvmc("tune", *common, "--database", str(database), "--trials-per-task", str(budget),
                     "--trials", str(budget * 1000), "--jobs", str(jobs))  # fmt: skip
        seconds = time.perf_counter() - started
        out = work / f"{case.name}-tuned{budget}.so"
        built = tvmc("compile", *common, "--database", str(database), "-o", str(out))
        applied = tuning_line(built)
        label = tuned_label(budget, applied)
        if label.endswith("= untuned"):
            case.untuned[label] = applied
        case.libraries[label] = out
        if "the tuned library lost" in applied:
            # the verdict decided: the records applied all the same, to see what tuning made of the kernels
            forced = work / f"{case.name}-tuned{budget}-forced.so"
            for line in tvmc("tune", "db", "list", "--database", str(database)).splitlines():
                tvmc("tune", "db", "forget-verdict", line.split()[0], "--database", str(database))
            tvmc("compile", *common, "--database", str(database), "-o", str(forced))
            case.libraries[f"tuned {budget} forced"] = forced
        said = [line.strip() for line in tuned.splitlines() if line.startswith(("tvmc: tuned", "  end to end", "  "))]
        summary = [line for line in said if line.startswith(("tvmc: tuned", "end to end")) or "lost to" in line]
        case.notes.append(f"tuned {budget}: {seconds:.0f} s in all; " + "; ".join(summary) + f"; tuning {applied}")
        # tune's per-task lines (trials, best, untuned): shown when this budget misses a goal
        case.kernels[label] = [line.rstrip() for line in tuned.splitlines() if " trials  best " in line]


# ---- running --------------------------------------------------------------------------------------


def inputs_for(model: Path, flags: list[str]) -> dict[str, Any]:
    import numpy as np
    import onnx

    graph = onnx.load(str(model)).graph
    rng = np.random.default_rng(SEED)
    out = {}
    for value in graph.input:
        dims = [d.dim_value if d.dim_value > 0 else 1 for d in value.type.tensor_type.shape.dim]
        out[value.name] = rng.standard_normal(dims).astype("float32")
    return out


def ort_runner(model: Path, inputs: dict[str, Any], threads: int) -> Callable[[], list[Any]]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    return lambda: list(session.run(None, inputs))


def tvm_runner(library: Path, inputs: dict[str, Any]) -> Callable[[], list[Any]]:
    import tvm

    vm = tvm.relax.VirtualMachine(tvm.runtime.load_module(str(library)), tvm.cpu())
    main = vm["main"]
    args = [tvm.runtime.tensor(array) for array in inputs.values()]

    def run() -> list[Any]:
        result = main(*args)
        return [result] if hasattr(result, "numpy") else list(result)

    return run


def per_call_seconds(run: Callable[[], Any], target_seconds: float) -> tuple[float, int]:
    """Calls per timed batch so that one batch takes about `target_seconds` (at least one call)."""
    run()
    started = time.perf_counter()
    run()
    once = max(time.perf_counter() - started, 1e-7)
    return once, max(1, int(target_seconds / once))


def measure(runners: dict[str, Callable[[], Any]], rounds: int, batch_seconds: float) -> dict[str, tuple[float, float]]:
    """(median, min) per-call seconds of each runner over `rounds` interleaved rounds."""
    numbers = {label: per_call_seconds(run, batch_seconds)[1] for label, run in runners.items()}
    samples: dict[str, list[float]] = {label: [] for label in runners}
    for _ in range(rounds):
        for label, run in runners.items():
            number = numbers[label]
            started = time.perf_counter()
            for _ in range(number):
                run()
            samples[label].append((time.perf_counter() - started) / number)
    return {label: (statistics.median(values), min(values)) for label, values in samples.items()}


def check(outputs: list[Any], expected: list[Any], rtol: float, atol: float) -> str:
    import numpy as np

    errors = []
    for got, want in zip(outputs, expected, strict=True):
        got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
        if got.shape != want.shape:
            return f"shape {got.shape} != {want.shape}"
        errors.append(float(np.max(np.abs(got - want) / (atol + rtol * np.abs(want)))))
    worst = max(errors)
    return "ok" if worst <= 1.0 else f"MISMATCH ({worst:.1f}x the tolerance)"


# ---- per kernel (--kernels) ------------------------------------------------------------------------

KINDS = ["conv", "matmul/gemm", "norm", "softmax", "reduce/pool", "elementwise", "layout", "vm builtin", "other"]
_ELEMENTWISE = {
    "add", "subtract", "sub", "multiply", "mul", "divide", "div", "relu", "erf", "tanh", "sigmoid", "exp", "log",
    "sqrt", "rsqrt", "power", "pow", "clip", "maximum", "minimum", "negative", "neg", "gelu", "fastgelu",
    "biasgelu", "silu", "cast", "where", "less", "greater", "equal", "abs", "floor", "ceil", "round", "identity",
}  # fmt: skip
_LAYOUT = {
    "transpose", "reshape", "flatten", "squeeze", "unsqueeze", "expand", "dims", "concat", "concatenate", "split",
    "slice", "strided", "take", "gather", "broadcast", "layout", "reorderoutput", "reorderinput", "copy",
}  # fmt: skip
_REDUCE = {"mean", "sum", "max", "min", "prod", "argmax", "argmin", "variance", "std", "reducemean", "reducesum"}


def kind_of(name: str) -> str:
    """The kind of operation a tvmc kernel (`fused_matmul1_add1_relu`, `vm.builtin.alloc_storage`)
    or an ONNX Runtime node type (`FusedConv`, `LayerNormalization`) is; a fused kernel counts as
    its heaviest part (conv, then matmul, norm, softmax, reduce, elementwise, layout)."""
    lower = name.lower()
    if lower.startswith("vm.") or "builtin" in lower:
        return "vm builtin"
    tokens = {t.rstrip("0123456789") for t in re.split(r"[_.]", lower)} | {lower}
    if any("conv" in t for t in tokens):
        return "conv"
    if any("matmul" in t or "gemm" in t or t in ("dense", "linear") for t in tokens):
        return "matmul/gemm"
    if any("norm" in t for t in tokens):
        return "norm"
    if any("softmax" in t for t in tokens):
        return "softmax"
    if any("pool" in t or t.startswith("reduce") for t in tokens) or tokens & _REDUCE:
        return "reduce/pool"
    if tokens & _ELEMENTWISE:
        return "elementwise"
    if tokens & _LAYOUT:
        return "layout"
    return "other"


@dataclass
class Kernel:
    name: str
    kind: str
    us: float  # per call of the model
    count: int  # calls per call of the model


def profile_tvmc(library: Path, inputs: dict[str, Any], runs: int, rounds: int) -> list[Kernel]:
    """The library's kernels and VM builtins, timed with the VM's instrument hook (tvmc.backend.run,
    as `tvmc run --profile`), per call of the model: the median over `rounds` rounds of `runs`
    calls each (one preempted call on a loaded machine moves a mean, not the median)."""
    sys.path.insert(0, str(ROOT / "cli"))  # this checkout's tvmc, as the tvmc commands above
    from tvmc.backend import run

    samples: dict[str, list[float]] = {}
    counts: dict[str, int] = {}
    for _ in range(rounds):
        result = run.run_library(library, inputs, profile=True, repeat=runs)
        assert result.profile is not None
        for op in result.profile:
            samples.setdefault(op.name, []).append(op.total_us / runs)
            counts[op.name] = round(op.calls / runs)
    kernels = [Kernel(name, kind_of(name), statistics.median(us), counts[name]) for name, us in samples.items()]
    return sorted(kernels, key=lambda k: -k.us)


def profile_ort(model: Path, inputs: dict[str, Any], runs: int, work: Path) -> list[Kernel]:
    """ONNX Runtime's nodes (1 thread), from its own profiler (SessionOptions.enable_profiling), by
    node type, per call of the model: the median over `runs` calls after one warm-up call."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.enable_profiling = True
    options.profile_file_prefix = str(work / f"ort-profile-{model.stem}")
    session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    for _ in range(runs + 1):
        session.run(None, inputs)
    path = Path(session.end_profiling())
    try:
        events = json.loads(path.read_text(encoding="utf-8"))
    finally:
        path.unlink()
    windows = sorted((e["ts"], e["ts"] + e["dur"]) for e in events if e.get("name") == "model_run")[1:]
    per_run: dict[str, list[float]] = {}  # node type → microseconds in each call
    counts: dict[str, int] = {}
    for index, (start, end) in enumerate(windows):
        for event in events:
            name = str(event.get("name", ""))
            if event.get("cat") != "Node" or not name.endswith("_kernel_time") or not start <= event["ts"] <= end:
                continue
            op = str((event.get("args") or {}).get("op_name", name))
            times = per_run.setdefault(op, [0.0] * len(windows))
            times[index] += float(event["dur"])
            if index == 0:
                counts[op] = counts.get(op, 0) + 1
    kernels = [Kernel(op, kind_of(op), statistics.median(us), counts.get(op, 0)) for op, us in per_run.items()]
    return sorted(kernels, key=lambda k: -k.us)


def kernel_table(
    name: str, profiles: dict[str, list[Kernel]], runs: int, rounds: int, timed: dict[str, float], top: int = 4
) -> list[str]:
    """Per kind: each runner's microseconds per call (and kernels per call); totals; the timed
    median per call (`timed`, seconds, from the table above: the profilers add their own cost per
    kernel, the VM's hook a Python callback per call); the slowest kernels."""
    labels = list(profiles)
    sums = {label: {kind: [0.0, 0] for kind in KINDS} for label in labels}
    for label, kernels in profiles.items():
        for kernel in kernels:
            sums[label][kernel.kind][0] += kernel.us
            sums[label][kernel.kind][1] += kernel.count
    ort_label = next((label for label in labels if label.startswith("onnxruntime")), None)
    width = max(14, *(len(label) + 2 for label in labels))
    head = f"  {'kind':<13}" + "".join(f"{label:>{width}}" for label in labels)
    lines = [
        f"== {name} kernels: us per call (kernels per call), medians; tvmc: VM instrument hook (tvmc run "
        f"--profile), {rounds} rounds of {runs} calls; ONNX Runtime: its profiler, 1 thread, {rounds * runs} calls",
        head,
    ]
    for kind in KINDS:
        if not any(sums[label][kind][1] or sums[label][kind][0] for label in labels):
            continue
        cells = "".join(f"{f'{sums[label][kind][0]:.1f} ({sums[label][kind][1]})':>{width}}" for label in labels)
        lines.append(f"  {kind:<13}{cells}")
    totals = {label: sum(value[0] for value in sums[label].values()) for label in labels}
    lines.append(f"  {'total':<13}" + "".join(f"{f'{totals[label]:.1f}':>{width}}" for label in labels))
    if ort_label is not None and totals[ort_label] > 0:
        ratios = "".join(f"{f'{totals[label] / totals[ort_label]:.2f}x':>{width}}" for label in labels)
        lines.append(f"  {'/ ORT total':<13}{ratios}")
    cells = "".join(f"{f'{timed[label] * 1e6:.1f}' if label in timed else '-':>{width}}" for label in labels)
    lines.append(f"  {'timed':<13}{cells}   (not profiled: the hooks' own cost per kernel is out)")
    for label, kernels in profiles.items():
        slowest = ", ".join(f"{k.name} [{k.kind}] {k.us:.1f}" for k in kernels[:top])
        lines.append(f"  slowest, {label}: {slowest}")
    return lines


def fmt_time(seconds: float) -> str:
    return f"{seconds * 1e6:.3g} us" if seconds < 1e-3 else f"{seconds * 1e3:.3g} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=",".join(MODELS), help=f"comma-separated, of: {', '.join(MODELS)}")
    parser.add_argument("--budgets", default="64,512", help="tuning budgets per task, comma-separated; 0: none")
    parser.add_argument("--config", default="host/native", help="the config (default host/native)")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved timing rounds (default 15)")
    parser.add_argument("--batch-ms", type=float, default=20.0, help="milliseconds per timed batch (default 20)")
    parser.add_argument("--jobs", type=int, default=0, help="tvmc tune --jobs (default: the CPU count)")
    parser.add_argument("--rtol", type=float, default=1e-3, help="output check against ONNX Runtime")
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--quick", action="store_true", help="smoke run: untuned only, the shipped MLP, 3 rounds")
    parser.add_argument("--keep", type=Path, help="write models and libraries here (default: a temporary folder)")
    parser.add_argument(
        "--kernels", action="store_true", help="also where the time goes: per kernel kind, tvmc against ONNX Runtime"
    )
    parser.add_argument("--profile-runs", type=int, default=20, help="calls per profiled round (--kernels)")
    parser.add_argument("--profile-rounds", type=int, default=5, help="profiled rounds, median (--kernels)")
    args = parser.parse_args(argv)
    names = ["mlp"] if args.quick else [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error(f"unknown model {unknown[0]!r} (one of {', '.join(MODELS)})")
    budgets = [] if args.quick else [int(b) for b in args.budgets.split(",") if int(b) > 0]
    rounds = 3 if args.quick else args.rounds
    batch = min(args.batch_ms, 5.0) if args.quick else args.batch_ms
    with tempfile.TemporaryDirectory(prefix="tvmc-bench-models-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        mismatches = 0
        for name in names:
            if name in GENERATED:
                model = work / f"{name}.onnx"
                model.write_bytes(GENERATED[name]().SerializeToString())
                case = Case(name, model, [])
            else:
                case = Case(name, SHIPPED[name][0], list(SHIPPED[name][1]))
            build_all(case, work, args.config, budgets, args.jobs)
            inputs = inputs_for(case.model, case.flags)
            runners = {f"onnxruntime {t}T": ort_runner(case.model, inputs, t) for t in (1, 2)}
            runners.update({label: tvm_runner(lib, inputs) for label, lib in case.libraries.items()})
            expected = runners["onnxruntime 1T"]()
            checks = {label: check(run(), expected, args.rtol, args.atol) for label, run in runners.items()}
            measured = measure(runners, rounds, batch / 1e3)
            times = {label: median for label, (median, _) in measured.items()}
            ort1, untuned = times["onnxruntime 1T"], times["tvmc untuned"]
            print(f"== {name}  ({case.model.name}, median of {rounds} interleaved rounds, per call from Python)")
            width = max(18, *(len(label) for label in times))
            for label, seconds in times.items():
                print(
                    f"  {label:{width}s} {fmt_time(seconds):>10s}   {seconds / ort1:6.2f}x ORT-1T"
                    f"   {untuned / seconds:6.2f}x faster than untuned   (min {fmt_time(measured[label][1])})"
                    f"   check {checks[label]}"
                )
                mismatches += checks[label] != "ok"
            print(f"  untuned / TVM relax.build: {untuned / times['tvm relax.build']:.2f} (<= 1: not slower)")
            for label, why in case.untuned.items():
                print(f"  {label}: compile built it untuned, no tuning records applied ({why})")
            for note in case.notes:
                print(f"  {note}")
            if args.kernels:
                profiles = {
                    label: profile_tvmc(lib, inputs, args.profile_runs, args.profile_rounds)
                    for label, lib in case.libraries.items()
                    if label != "tvm relax.build"  # the untuned peer: not where the gap to ONNX Runtime is
                }
                ort_runs = args.profile_runs * args.profile_rounds
                profiles["onnxruntime 1T"] = profile_ort(case.model, inputs, ort_runs, work)
                print("\n".join(kernel_table(name, profiles, args.profile_runs, args.profile_rounds, times)))
            for label, lines in case.kernels.items():
                if label in case.untuned:
                    continue  # not a tuned library: said above
                missed = [
                    goal
                    for goal, failed in (
                        ("within 2x of ONNX Runtime (1 thread)", times[label] > 2 * ort1),
                        ("faster than untuned", times[label] >= untuned),
                    )
                    if failed
                ]
                if missed:  # the goal's per-kernel story: which kernels tuning could not make fast
                    print(f"  {label} is not {' nor '.join(missed)}; its kernels (tvmc tune):")
                    print("\n".join(f"    {line.strip()}" for line in lines))
            sys.stdout.flush()
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
