#!/usr/bin/env python3
"""Benchmark `tvmc config validate` against check-jsonschema with the generated schema.

    python scripts/bench_validate.py [--files 2000] [--repeat 5] [--memory 1000,10000] [--keep DIR]

Generates varied configs (TOML and JSON; tags, tables, legacy strings, hosts, executors, pass
configs, `extends`; about a fifth of them invalid, a few not even parseable) in a temporary
directory, then validates the same files with both tools, one command each, and prints wall and
CPU times and their ratio — for tvmc as it runs by default (files spread over the cores available)
and with --jobs 1 (one process). The tools take turns, run after run (so a busy spell on a shared
machine hits them alike), with warm bytecode caches; the best of --repeat runs is reported, and the
median for comparison. A tvmc run
that does not report every file stops the benchmark. Then tvmc's peak RSS for the first N files
of a larger set, for each N of --memory: streaming keeps it flat.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "cli"))

import tomli_w  # noqa: E402
from tvmc import registry  # noqa: E402

SCHEMA = ROOT / "schemas" / "compilation-config.schema.json"

# Runs `tvmc config validate` in one process, as the console script does (through `main`).
_TVMC = """
import sys
from tvmc.cli.app import main
sys.argv = ["tvmc", "config", "validate", *sys.argv[1:]]
main()
"""

# ---- generation -------------------------------------------------------------------------------

_MISTAKES = (
    "unknown-key",
    "wrong-type",
    "unknown-option",
    "unknown-tag",
    "unknown-kind",
    "opt-level",
    "executor-option",
    "pass-config-type",
    "extends-missing",
    "syntax",
)


def _pools() -> tuple[list[str], list[str]]:
    """Tags without a host of their own (so the configs' hosts never conflict): CPU ones and GPU ones."""
    cpu, gpu = [], []
    for name in registry.tag_names():
        config = registry.tag_config(name) or {}
        if "host" not in config:
            (cpu if config.get("kind") == "llvm" else gpu if config.get("kind") == "cuda" else []).append(name)
    return cpu, gpu


def _cpu_target(rng: random.Random, tags: list[str]) -> Any:
    return rng.choice(
        [
            lambda: rng.choice(tags),
            lambda: f"llvm -mcpu={rng.choice(['skylake', 'znver3', 'cascadelake'])} -mtriple=x86_64-linux-gnu",
            lambda: {
                "kind": "llvm",
                "mtriple": "aarch64-linux-gnu",
                "mcpu": "cortex-a72",
                "mattr": ["+neon"],
                "num-cores": rng.choice([2, 4, 8]),
            },
            lambda: {"kind": "c", "mcpu": "cortex-m55"},
        ]
    )()


def _gpu_target(rng: random.Random, tags: list[str]) -> Any:
    return rng.choice(
        [
            lambda: rng.choice(tags),
            lambda: {"tag": rng.choice(tags), "l2_cache_size_bytes": 4194304},
            lambda: {
                "kind": "cuda",
                "arch": rng.choice(["sm_80", "sm_86", "sm_90"]),
                "max_num_threads": 1024,
            },
            lambda: {"kind": "opencl", "device": "mali"},
            lambda: {"kind": "vulkan", "supports_float16": True, "max_num_threads": 256},
            lambda: {"kind": "rocm", "mcpu": "gfx908"},
        ]
    )()


def _config(rng: random.Random, pools: tuple[list[str], list[str]], bases: list[str]) -> dict[str, Any]:
    targets: list[Any] = []
    if rng.random() < 0.6:
        targets.append(_cpu_target(rng, pools[0]))
    if not targets or rng.random() < 0.6:
        targets.append(_gpu_target(rng, pools[1]))
    config: dict[str, Any] = {"description": f"generated {rng.random():.6f}", "targets": targets}
    if rng.random() < 0.3:
        config["extends"] = rng.choice(bases)
        if rng.random() < 0.5:
            del config["targets"]
    if rng.random() < 0.5:
        config["opt-level"] = rng.randint(0, 3)
    if rng.random() < 0.4:
        config["host"] = {"kind": "llvm", "mtriple": "x86_64-linux-gnu"}
    if rng.random() < 0.5:
        config["executor"] = {"kind": "vm", "exec-mode": rng.choice(["bytecode", "compiled"])}
    if rng.random() < 0.3:
        config["runtime"] = {"kind": "cpp", "system-lib": rng.random() < 0.5}
    if rng.random() < 0.5:
        config["pass-config"] = {"tirx.disable_vectorize": rng.random() < 0.5, "relax.FuseOps.max_depth": 8}
    if rng.random() < 0.4:
        config["build"] = {"output-format": "tar", "module-name": "net", "dump-code": ["ll"]}
    return config


def _break(config: dict[str, Any], mistake: str) -> dict[str, Any] | str:
    if mistake == "unknown-key":
        config["opt_level"] = 2
    elif mistake == "wrong-type":
        config["opt-level"] = "3"
    elif mistake == "unknown-option":
        config["targets"] = [{"kind": "llvm", "mcpux": "skylake"}]
    elif mistake == "unknown-tag":
        config["targets"] = ["nvidia/jetson-nanoo"]
    elif mistake == "unknown-kind":
        config["targets"] = [{"kind": "lvm"}]
    elif mistake == "opt-level":
        config["opt-level"] = 7
    elif mistake == "executor-option":
        config["executor"] = {"kind": "vm", "unpacked-api": True}
    elif mistake == "pass-config-type":
        config["pass-config"] = {"tirx.disable_vectorize": "yes"}
    elif mistake == "extends-missing":
        config["extends"] = "bases/no-such-base"
    else:
        return 'description = "broken"\nopt-level = = 3\n'
    return config


def generate(directory: Path, count: int, seed: int = 0) -> list[Path]:
    """`count` configs below `directory` (plus three bases in directory/bases), sorted paths."""
    rng = random.Random(seed)
    pools = _pools()
    (directory / "bases").mkdir(parents=True, exist_ok=True)
    bases = ["bases/cpu", "bases/gpu", "bases/vm"]
    (directory / "bases" / "cpu.toml").write_text('targets = [{ kind = "llvm", mtriple = "x86_64-linux-gnu" }]\n')
    (directory / "bases" / "gpu.toml").write_text('targets = ["nvidia/nvidia-a100"]\nopt-level = 3\n')
    (directory / "bases" / "vm.toml").write_text('extends = "bases/cpu"\n[executor]\nkind = "vm"\n')
    paths = [directory / "bases" / f"{b.split('/')[1]}.toml" for b in bases]
    for index in range(count):
        group = directory / f"group{index % 20:02d}"
        group.mkdir(exist_ok=True)
        config: dict[str, Any] | str = _config(rng, pools, bases)
        if rng.random() < 0.2:
            assert isinstance(config, dict)
            config = _break(config, rng.choice(_MISTAKES))
        as_json = isinstance(config, dict) and rng.random() < 0.2
        path = group / f"config{index:05d}.{'json' if as_json else 'toml'}"
        if isinstance(config, str):
            path.write_text(config)
        elif as_json:
            path.write_text(json.dumps(config, indent=2) + "\n")
        else:
            path.write_text("#:schema ../../schemas/compilation-config.schema.json\n" + tomli_w.dumps(config))
        paths.append(path)
    return sorted(paths)


# ---- measuring --------------------------------------------------------------------------------


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, exit code) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def _check_report(argv: list[str], env: dict[str, str], count: int) -> None:
    """A run that does not validate every file (a broken install, a wrong argument) must not be timed."""
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    expected = f"checked {count} files:"
    if done.returncode not in (0, 1) or expected not in done.stderr:
        raise SystemExit(f"tvmc did not validate the {count} files (exit {done.returncode}): {done.stderr[-500:]}")


class Timing:
    def __init__(self, runs: list[tuple[float, float, int]]) -> None:
        self.wall = min(r[0] for r in runs)
        self.cpu = min(r[1] for r in runs)
        self.median_wall = statistics.median(r[0] for r in runs)
        self.exit_codes = {r[2] for r in runs}


def _take_turns(commands: list[list[str]], env: dict[str, str], repeat: int) -> list[Timing]:
    """Each command `repeat` times, in turns (a, b, c, a, b, c, ...)."""
    runs: list[list[tuple[float, float, int]]] = [[] for _ in commands]
    for _ in range(repeat):
        for argv, out in zip(commands, runs, strict=True):
            out.append(_run(argv, env))
    return [Timing(r) for r in runs]


def _peak_rss_mb(argv: list[str], env: dict[str, str]) -> float:
    """Peak RSS of a child, measured in a fresh wrapper so earlier children do not count."""
    probe = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
        "stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", probe, *argv], env=env, capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 1024  # Linux reports KiB


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=2000, help="configs for the timing comparison")
    parser.add_argument("--repeat", type=int, default=5, help="runs per tool; the best is reported")
    parser.add_argument("--memory", default="1000,10000", help="file counts for the peak-memory runs ('' skips)")
    parser.add_argument("--keep", type=Path, help="generate into this directory and keep it")
    args = parser.parse_args(argv)
    checker = shutil.which("check-jsonschema")
    if checker is None:
        print("check-jsonschema is not installed (pip install check-jsonschema)", file=sys.stderr)
        return 2
    work = args.keep or Path(tempfile.mkdtemp(prefix="tvmc-bench-"))
    try:
        configs = work / "configs"
        files = [str(p) for p in generate(configs, args.files)]
        env = {**os.environ, "TVMC_CONFIG_PATH": str(configs), "NO_COLOR": "1", "TYPER_USE_RICH": "0"}
        env.pop("GITHUB_STEP_SUMMARY", None)
        # Both tools as installed: bytecode cached (a private cache, warmed by the first run), not
        # recompiled on every run as PYTHONDONTWRITEBYTECODE would make them.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        tvmc = [sys.executable, "-c", _TVMC, *files]  # default text report, like check-jsonschema
        cjs = [checker, "--schemafile", str(SCHEMA), *files]
        print(f"{len(files)} files ({sum(f.endswith('.json') for f in files)} JSON) in {configs}")
        _check_report(tvmc, env, len(files))
        from tvmc.sources.loader import TOML_PARSER
        from tvmc.validate.parallel import default_jobs

        print(f"tvmc: {default_jobs()} processes (--jobs default), TOML parser {TOML_PARSER}")
        serial = [*tvmc[:3], "--jobs", "1", *tvmc[3:]]
        t, s, c = _take_turns([tvmc, serial, cjs], env, args.repeat)
        if (t.exit_codes | s.exit_codes | c.exit_codes) - {0, 1}:
            codes = f"tvmc {t.exit_codes}, tvmc --jobs 1 {s.exit_codes}, check-jsonschema {c.exit_codes}"
            raise SystemExit(f"a tool failed to run (exit codes: {codes})")
        print(f"best of {args.repeat} runs each, taking turns:")
        print(f"tvmc config validate : {t.wall:6.3f} s wall, {t.cpu:6.3f} s CPU (median {t.median_wall:6.3f} s)")
        print(f"  ... with --jobs 1  : {s.wall:6.3f} s wall, {s.cpu:6.3f} s CPU (median {s.median_wall:6.3f} s)")
        print(f"check-jsonschema     : {c.wall:6.3f} s wall, {c.cpu:6.3f} s CPU (median {c.median_wall:6.3f} s)")
        print(
            f"ratio                : {c.wall / t.wall:5.1f}x wall, {c.cpu / t.cpu:5.1f}x CPU "
            f"(medians {c.median_wall / t.median_wall:4.1f}x; goal >= 10x)"
        )
        print(
            f"ratio with --jobs 1  : {c.wall / s.wall:5.1f}x wall, {c.cpu / s.cpu:5.1f}x CPU "
            f"(medians {c.median_wall / s.median_wall:4.1f}x)"
        )
        sizes = [int(n) for n in args.memory.split(",") if n.strip()]
        if sizes:
            big = work / "memory"
            every = generate(big, max(sizes), seed=1)
            env["TVMC_CONFIG_PATH"] = str(big)
            for n in sizes:
                subset = work / f"memory-{n}"
                subset.mkdir()
                for path in every[:n]:  # the same first n files, linked into a directory of their own
                    target = subset / path.relative_to(big)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    os.link(path, target)
                rss = _peak_rss_mb([sys.executable, "-c", _TVMC, "--format", "json", str(subset)], env)
                print(f"tvmc peak RSS, {n:>6} files: {rss:6.1f} MiB")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
