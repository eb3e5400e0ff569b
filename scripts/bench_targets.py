#!/usr/bin/env python3
"""Throughput of tvmc's target canonicalization against TVM's own `Target(x).export()`.

    python scripts/bench_targets.py [--repeats N] [--dicts N] [--seed S]

Both sides canonicalize the same batches in the same process: every registered tag name once
with tvmc's string cache empty, then `--repeats` times, then `--dicts` generated target dicts
(every modern kind, hosts, keys, composites). Prints targets/s for each and the ratio tvmc/TVM
(goal: >= 1.0). Without TVM installed only tvmc's numbers are printed.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tvmc import registry
from tvmc.targets import canonicalize
from tvmc.targets.canonical import clear_cache

_STR_POOL = ("skylake", "cortex-a72", "cortex-m55", "carmel", "generic", "x86-64-v3")
_TRIPLES = ("x86_64-linux-gnu", "riscv64-unknown-linux-gnu", "aarch64-linux-gnu", "armv7a-linux-gnueabihf")


def _value(kind: str, opt: str, typ: str, rng: random.Random) -> Any:
    if kind == "cuda" and opt == "arch":
        return rng.choice(("sm_70", "sm_80", "sm_90a"))
    if kind == "nvptx" and opt == "mcpu":
        return rng.choice(("sm_75", "sm_86"))
    if kind == "rocm" and opt == "mcpu":
        return rng.choice(("gfx900", "gfx90a"))
    if opt == "jit":
        return rng.choice(("orcjit", "mcjit"))
    if opt == "mfloat-abi":
        return rng.choice(("soft", "hard"))
    if opt == "cl-opt":
        return ["-unroll-threshold:uint=100"]
    if opt in ("vector-width", "thread_warp_size"):
        return rng.choice((1, 128, 256)) if opt == "vector-width" else 1
    if opt == "mtriple":
        forced = {"nvptx": "nvptx64-nvidia-cuda", "rocm": "amdgcn-amd-amdhsa-hcc"}
        return forced.get(kind, rng.choice(_TRIPLES))
    if typ == registry.STR:
        return rng.choice(_STR_POOL)
    if typ == registry.INT:
        return rng.randrange(1, 4096)
    if typ == registry.BOOL:
        return rng.random() < 0.5
    return [f"+f{rng.randrange(9)}" for _ in range(rng.randrange(3))]


def generate_dicts(n: int, seed: int) -> list[dict[str, Any]]:
    """Valid target dicts for TVM 0.27: random options of every modern kind, some hosts."""
    rng = random.Random(seed)
    kinds = [k for k in registry.kinds().values() if k.name not in ("composite", "webgpu")]
    out: list[dict[str, Any]] = []
    while len(out) < n:
        kind = rng.choice(kinds)
        spec: dict[str, Any] = {"kind": kind.name}
        # Give what TVM would otherwise detect (and log about) on every call.
        required = {"cuda": "arch", "nvptx": "mcpu", "rocm": "mcpu"}.get(kind.name)
        if required:
            spec[required] = _value(kind.name, required, registry.STR, rng)
        for opt, typ in rng.sample(sorted(kind.kind_options.items()), min(4, len(kind.kind_options))):
            spec[opt] = _value(kind.name, opt, typ, rng)
        if rng.random() < 0.2:
            spec["keys"] = [kind.name, "x"]
        if rng.random() < 0.2:
            spec["host"] = {"kind": "llvm", "mtriple": "x86_64-linux-gnu", "mcpu": "skylake"}
        out.append(spec)
    out.append({"kind": "composite", "devices": ["cuda", {"kind": "llvm", "mcpu": "skylake"}]})
    out.append({"kind": "webgpu", "supports_subgroups": True})
    return out


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """TVM's C++ logs a warning per ROCm target ("Unable to detect ROCm version"); hide them."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _rate(fn: Callable[[Any], Any], batch: Sequence[Any]) -> float:
    start = time.perf_counter()
    for x in batch:
        fn(x)
    return len(batch) / (time.perf_counter() - start)


def _tvm_export() -> Callable[[Any], Any] | None:
    try:
        target_class = importlib.import_module("tvm.target").Target
    except ImportError:
        return None

    def export(x: Any) -> Any:
        return target_class(x).export()

    return export


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=20, help="passes over all tags (default 20)")
    parser.add_argument("--dicts", type=int, default=20000, help="generated dicts (default 20000)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    names = registry.tag_names()
    dicts = generate_dicts(args.dicts, args.seed)
    batches = [
        # tvmc caches each tag's canonical form; the first pass shows the cost without that cache.
        ("tags, first pass", names, True),
        (f"tags x {args.repeats}", names * args.repeats, False),
        ("dicts", dicts, False),
    ]
    tvm_export = _tvm_export()
    for name in names:  # load the registry data once, as `import tvm` does for TVM's tags
        canonicalize(name)
    print(f"{len(names)} tags, {len(dicts)} generated dicts; TVM: {'yes' if tvm_export else 'not installed'}")
    for label, batch, cold in batches:
        if cold:
            clear_cache()
        ours = _rate(canonicalize, batch)
        line = f"{label:<18} tvmc {ours:>10,.0f}/s"
        if tvm_export is not None:
            with _quiet_stderr():
                theirs = _rate(tvm_export, batch)
            line += f"   TVM {theirs:>10,.0f}/s   ratio {ours / theirs:5.2f}"
        print(line)


if __name__ == "__main__":
    main()
