#!/usr/bin/env python3
"""`tvmc run --print-time` against a plain Relax VM `time_evaluator` loop on the same library.

    scripts/bench_run.py [--rounds 5] [--repeat 20] [--number 50] [--library mlp.so]

Builds models/mlp.onnx for host/native (unless --library is given), then takes turns, round after
round: `tvmc run LIB --inputs X --print-time` (the median it prints) and the same measurement
written by hand with TVM's API. Goal: the same median within 5 % (tvmc adds nothing to the
measured time). Prints both medians and their ratio; exits 1 when the goal is missed.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def plain_median(library: Path, inputs: Path, repeat: int, number: int) -> float:
    import numpy as np
    import tvm

    vm = tvm.relax.VirtualMachine(tvm.runtime.load_module(str(library)), tvm.cpu())
    with np.load(inputs) as data:
        args = [tvm.runtime.tensor(data[name]) for name in data.files]
    results = vm.time_evaluator("main", tvm.cpu(), number=number, repeat=repeat)(*args).results
    return float(statistics.median(results)) * 1000


def tvmc_median(library: Path, inputs: Path, repeat: int, number: int) -> float:
    argv = [sys.executable, "-m", "tvmc", "run", str(library), "--inputs", str(inputs), "--print-time"]
    argv += ["--repeat", str(repeat), "--number", str(number)]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    match = re.search(r"median ([0-9.e+-]+) (ns|µs|ms|s)\b", out)  # tvmc prints the unit that fits
    if match is None:
        raise SystemExit(f"no median in tvmc's output: {out!r}")
    return float(match.group(1)) * {"ns": 1e-6, "µs": 1e-3, "ms": 1.0, "s": 1e3}[match.group(2)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--number", type=int, default=50)
    parser.add_argument("--library", type=Path)
    args = parser.parse_args(argv)
    import numpy as np

    with tempfile.TemporaryDirectory(prefix="tvmc-bench-run-") as tmp:
        library = args.library or Path(tmp) / "mlp.so"
        if args.library is None:
            build = [sys.executable, "-m", "tvmc", "compile", str(ROOT / "models" / "mlp.onnx")]
            subprocess.run([*build, "--config", "host/native", "-o", str(library)], check=True, capture_output=True)
        inputs = Path(tmp) / "in.npz"
        np.savez(inputs, x=np.random.default_rng(0).standard_normal((16, 8)).astype("float32"))
        ours, plain = [], []
        for _ in range(args.rounds):  # taking turns: a busy spell on the machine hits both alike
            ours.append(tvmc_median(library, inputs, args.repeat, args.number))
            plain.append(plain_median(library, inputs, args.repeat, args.number))
    a, b = statistics.median(ours), statistics.median(plain)
    ratio = a / b
    print(f"tvmc run --print-time: median {a:.5f} ms (rounds: {', '.join(f'{x:.5f}' for x in ours)})")
    print(f"plain time_evaluator:  median {b:.5f} ms (rounds: {', '.join(f'{x:.5f}' for x in plain)})")
    print(f"ratio tvmc / plain: {ratio:.3f} (goal: within 5 %)")
    return 0 if abs(ratio - 1) <= 0.05 else 1


if __name__ == "__main__":
    sys.exit(main())
