#!/usr/bin/env python3
"""Benchmark `tvmc tune` (issue 18): a small CNN tuned with a fixed trial budget, timed before and after.

Generates the CNN (ONNX, NCHW: Conv 3→16 3x3, Relu, MaxPool 2x2, Conv 16→32 3x3, Relu,
GlobalAveragePool, Flatten, Gemm 32→10; fixed weights, batch 1, 3x56x56) unless --model is given,
then, in one run and one fresh tuning database:

    1. tvmc compile --no-tuning     → tvmc run --print-time: the untuned median
    2. tvmc tune --trials N         → its wall time
    3. tvmc compile (records used)  → tvmc run --print-time --check: the tuned median

and prints the two medians, their ratio (untuned / tuned: above 1 means tuning made it faster)
and the tuning wall time.

    python scripts/bench_tune.py [--trials 64] [--config host/native] [--model M.onnx] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHAPE = (1, 3, 56, 56)


def make_cnn(size: int = 56) -> Any:
    """A small NCHW CNN with fixed weights (seed 0): what `tvmc tune`'s tests and benchmark tune."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)

    def weight(name: str, *shape: int) -> Any:
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.1).astype("float32"), name)

    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], transB=1),
    ]
    inits = [
        weight("w1", 16, 3, 3, 3),
        weight("b1", 16),
        weight("w2", 32, 16, 3, 3),
        weight("b2", 32),
        weight("w3", 10, 32),
        weight("b3", 10),
    ]
    graph = helper.make_graph(
        nodes,
        "cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="tvmc bench_tune")
    model.ir_version = 8
    return model


def tvmc(*args: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-m", "tvmc", *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"tvmc {' '.join(args)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return done.stdout


def median_ms(output: str) -> float:
    match = re.search(r"median ([0-9.eE+-]+) ms", output)
    if match is None:
        raise SystemExit(f"no median in:\n{output}")
    return float(match[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=64, help="the trial budget (default 64)")
    parser.add_argument("--config", default="host/native", help="the config (default host/native)")
    parser.add_argument("--model", type=Path, help="an ONNX model (default: the generated CNN)")
    parser.add_argument("--jobs", type=int, default=0, help="tvmc tune --jobs (default: the CPU count)")
    parser.add_argument("--repeat", type=int, default=20, help="tvmc run --repeat (default 20)")
    args = parser.parse_args(argv)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "cli")}
    with tempfile.TemporaryDirectory(prefix="tvmc-bench-tune-") as tmp:
        work = Path(tmp)
        model = args.model or work / "cnn.onnx"
        if args.model is None:
            model.write_bytes(make_cnn().SerializeToString())
        database = work / "db"
        common = [str(model), "--config", args.config, "--database", str(database)]
        timing = ["--print-time", "--repeat", str(args.repeat), "--number", "20", "--check", str(model)]

        tvmc("compile", *common, "--no-tuning", "-o", str(work / "untuned.so"), env=env)
        untuned = median_ms(tvmc("run", str(work / "untuned.so"), *timing, env=env))

        started = time.perf_counter()
        tvmc("tune", *common, "--trials", str(args.trials), "--jobs", str(args.jobs), env=env)
        tune_seconds = time.perf_counter() - started

        built = tvmc("compile", *common, "-o", str(work / "tuned.so"), env=env)
        used = next((line.strip() for line in built.splitlines() if line.strip().startswith("tuning")), "")
        tuned = median_ms(tvmc("run", str(work / "tuned.so"), *timing, env=env))
    print(f"model             {args.model or 'generated CNN ' + 'x'.join(map(str, SHAPE))}")
    print(f"trials            {args.trials}")
    print(f"tuning wall time  {tune_seconds:.1f} s")
    print(f"records           {used}")
    print(f"untuned median    {untuned:.6g} ms")
    print(f"tuned median      {tuned:.6g} ms")
    print(f"ratio             {untuned / tuned:.2f}x (untuned / tuned; > 1: the tuned build is faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
