#!/usr/bin/env python3
"""Fuzz tvmc with the hardening properties of tests/hardening for as many cases as asked.

    scripts/fuzz.py --cases 100000 [--seed S] [--surface all|files|targets|rewrites|emit] [--jobs 2]

Invariants (see tests/hardening/harness.py): only tvmc's typed errors escape the core, with a
one-line message naming the source; the CLI exits 0, 1 or 2 without a traceback; nothing hangs
(`--case-seconds`); the same input prints the same bytes. The cases are split into chunks, each
run by a worker process, so a hard hang or crash loses one chunk and is still reported with its
input. Failures are grouped by where they were raised; the smallest input of each is printed.
Exit status: 0 nothing found, 1 something broke, 2 usage error.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHUNK = 2_000  # cases per worker run: small enough that a crash loses little, large enough to amortize start-up
SHOWN = 1_500  # characters of an input printed in the report (the whole input is in the JSON report)


def _isolate_environment(case_seconds: float) -> None:
    """What tests/conftest.py does for the tests: no user configs, no TVMC_* from the shell."""
    for var in [v for v in os.environ if v.startswith("TVMC_")]:
        del os.environ[var]
    xdg = tempfile.mkdtemp(prefix="tvmc-fuzz-xdg-")
    atexit.register(shutil.rmtree, xdg, True)  # runs also when the run ends with SystemExit
    os.environ["XDG_CONFIG_HOME"] = xdg
    os.environ.update(TYPER_USE_RICH="0", NO_COLOR="1", COLUMNS="120", HARDENING_CASE_SECONDS=str(case_seconds))


def _signature(err: BaseException) -> str:
    """Where an unexpected error was raised (innermost tvmc frame, else innermost frame)."""
    frames = traceback.extract_tb(err.__traceback__)
    ours = [f for f in frames if "/tvmc/" in f.filename] or frames
    where = f"{Path(ours[-1].filename).name}:{ours[-1].lineno}" if ours else "?"
    first_line = str(err).split("\n", 1)[0]
    kind = type(err).__name__
    if isinstance(err, AssertionError):  # group assertion failures by their message's stable start
        return f"{kind}: {first_line[:60]}"
    return f"{kind} at {where}"


def run_worker(name: str, cases: int, seed: int, out: Path) -> None:
    """Run one property for `cases` cases; write {found: {signature: {...}}, cases} to `out`."""
    sys.path.insert(0, str(ROOT))
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    from tests.hardening.properties import PROPERTIES

    prop = next(p for p in PROPERTIES if p.name == name)
    found: dict[str, dict[str, Any]] = {}
    current = os.open(f"{out}.current", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    ran = 0

    def case(value: Any) -> None:
        nonlocal ran
        ran += 1
        shown = repr(value)
        # Written before the case runs, so that a parent whose worker died can say on what.
        os.ftruncate(current, 0)
        os.pwrite(current, shown[:100_000].encode("utf-8", "backslashreplace"), 0)
        try:
            prop.check(value)
        except Exception as err:  # collect and go on: one run finds every distinct failure
            key = _signature(err)
            known = found.get(key)
            if known is None or len(shown) < len(known["input"]):
                tb = "".join(traceback.format_exception(err)[-6:])
                found[key] = {
                    "input": shown,
                    "error": f"{type(err).__name__}: {err}"[:2000],
                    "traceback": tb,
                    "count": (known or {}).get("count", 0),
                }
            found[key]["count"] += 1

    test = settings(
        max_examples=cases,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.generate,),
    )(given(prop.strategy)(case))
    hypothesis_seed(seed)(test)()
    out.write_text(json.dumps({"found": found, "cases": ran}))


def _plan(names: list[tuple[str, int]], cases: int, seed: int) -> list[tuple[str, int, int]]:
    """(property, cases, seed) chunks: the cases shared out by weight (exactly `cases` in all,
    the remainder to the first properties), at least one per property."""
    total = sum(weight for _, weight in names)
    shares = [cases * weight // total for _, weight in names]
    for index in range(cases - sum(shares)):
        shares[index % len(shares)] += 1
    jobs: list[tuple[str, int, int]] = []
    for index, ((name, _), share) in enumerate(zip(names, shares, strict=True)):
        share = max(1, share)
        for chunk, start in enumerate(range(0, share, CHUNK)):
            jobs.append((name, min(CHUNK, share - start), seed + 1_000 * index + chunk))
    return jobs


def _finish(
    proc: subprocess.Popen[bytes],
    job: tuple[str, int, int],
    out: Path,
    results: dict[str, dict[str, Any]],
    counts: dict[str, int],
) -> None:
    name, _cases, chunk_seed = job
    found = results.setdefault(name, {})
    if proc.returncode == 0 and out.exists():
        report = json.loads(out.read_text())
        counts[name] = counts.get(name, 0) + report["cases"]
        for key, item in report["found"].items():
            known = found.get(key)
            if known is None or len(item["input"]) < len(known["input"]):
                item["count"] += (known or {}).get("count", 0)
                found[key] = item
            else:
                known["count"] += item["count"]
        return
    current = Path(f"{out}.current")
    last = current.read_text(errors="replace") if current.exists() else "?"
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    why = "hang (faulthandler ended it)" if "Timeout (" in stderr else f"worker died with status {proc.returncode}"
    found[f"{why} (seed {chunk_seed})"] = {"input": last, "error": why, "traceback": stderr[-3000:], "count": 1}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1_000, help="total cases, shared out by property weight")
    parser.add_argument("--seed", type=int, default=None, help="seed (default: random, printed)")
    parser.add_argument("--surface", choices=["all", "files", "targets", "rewrites", "emit"], default="all")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    parser.add_argument("--case-seconds", type=float, default=10.0, help="a case running longer is a hang")
    parser.add_argument("--report", type=Path, help="also write every failure, with whole inputs, as JSON here")
    parser.add_argument("--worker", nargs=4, metavar=("PROPERTY", "CASES", "SEED", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    _isolate_environment(args.case_seconds)
    if args.worker:
        name, cases, seed, out = args.worker
        run_worker(name, int(cases), int(seed), Path(out))
        return 0
    if args.cases < 1 or args.jobs < 1:
        parser.error("--cases and --jobs must be positive")
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    sys.path.insert(0, str(ROOT))
    from tests.hardening.properties import PROPERTIES

    chosen = [(p.name, p.weight) for p in PROPERTIES if args.surface in ("all", p.surface)]
    jobs = _plan(chosen, args.cases, seed)
    print(
        f"fuzz: {args.cases} cases over {len(chosen)} properties ({args.surface}), seed {seed}, "
        f"{len(jobs)} chunks on {args.jobs} workers",
        flush=True,
    )
    results: dict[str, dict[str, Any]] = {}
    counts: dict[str, int] = {}
    started = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix="tvmc-fuzz-"))
    running: list[tuple[subprocess.Popen[bytes], tuple[str, int, int], Path]] = []
    pending = list(jobs)
    try:
        while pending or running:
            while pending and len(running) < args.jobs:
                job = pending.pop(0)
                out = scratch / f"{job[0]}-{job[2]}.json"
                cmd = [
                    sys.executable,
                    __file__,
                    "--case-seconds",
                    str(args.case_seconds),
                    "--worker",
                    job[0],
                    str(job[1]),
                    str(job[2]),
                    str(out),
                ]
                running.append((subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE), job, out))
            time.sleep(0.05)
            for item in [r for r in running if r[0].poll() is not None]:
                running.remove(item)
                _finish(item[0], item[1], item[2], results, counts)
                done = sum(counts.values())
                print(
                    f"  {done} cases, {sum(len(f) for f in results.values())} distinct failures, "
                    f"{time.perf_counter() - started:.0f} s",
                    flush=True,
                )
    except KeyboardInterrupt:  # report what the finished chunks found
        for proc, _, _ in running:
            proc.kill()
            proc.wait()
        print("fuzz: interrupted; the report covers the finished chunks", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return _report(results, counts, seed, time.perf_counter() - started, args.report)


def _report(
    results: dict[str, dict[str, Any]], counts: dict[str, int], seed: int, seconds: float, path: Path | None
) -> int:
    failures = 0
    for name, found in sorted(results.items()):
        print(f"{name}: {counts.get(name, 0)} cases, {len(found)} distinct failures")
        for key, item in sorted(found.items()):
            failures += 1
            shown = item["input"] if len(item["input"]) <= SHOWN else item["input"][:SHOWN] + "…"
            print(f"  FAIL {key} ({item['count']} cases)\n    error: {item['error'][:500]}\n    input: {shown}")
            print("    " + item["traceback"].rstrip().replace("\n", "\n    "))
    if path is not None:
        path.write_text(json.dumps({"seed": seed, "cases": counts, "failures": results}, indent=1))
    print(
        f"fuzz: {sum(counts.values())} cases in {seconds:.0f} s, seed {seed}: "
        + (f"{failures} distinct failures" if failures else "nothing found")
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
