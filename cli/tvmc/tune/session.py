"""A tuning run: the parent side of `tvmc tune`. No TVM here (the child imports it).

The child (`tvmc.tune.worker`) runs in its own session, so a native crash or a Ctrl-C never leaves
TVM half-way in this process; it dies with this process (PR_SET_PDEATHSIG). Whatever happens
(success, error, Ctrl-C, a crash, a SIGKILL of either process), what was measured is in the run
directory and is merged into the partition by `store.recover`, now or by the next command.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tvmc.build.isolated import _env
from tvmc.build.plan import BuildPlan
from tvmc.config import CompilationConfig
from tvmc.errors import BuildError
from tvmc.tune import store
from tvmc.tune.fingerprint import target_fingerprint, target_key
from tvmc.tune.worker import Job

CHILD = "tvmc.tune.worker"


@dataclass
class Outcome:
    partition: store.Partition
    tasks: list[dict[str, Any]] = field(default_factory=list)
    measured: int = 0
    added: int = 0
    interrupted: bool = False
    seconds: float = 0.0
    best: dict[int, float | None] = field(default_factory=dict)
    trials: dict[int, int] = field(default_factory=dict)
    baseline: dict[int, float | None] = field(default_factory=dict)  # the untuned kernel's seconds


def prepare(root: Path, config: CompilationConfig) -> store.Partition:
    """The config's partition, its killed runs recovered and its partition.json up to date."""
    partition = store.Partition(root, target_fingerprint(config))
    store.recover(partition)
    meta = partition.meta()
    canonical = config.to_dict()
    wanted = {
        "fingerprint": partition.fingerprint,
        "key": target_key(config),
        "config": canonical,
        "description": config.description,
    }
    if any(meta.get(k) != v for k, v in wanted.items()):
        partition.write_meta({**meta, **wanted, "tasks": meta.get("tasks", {})})
    return partition


def tune(
    plan: BuildPlan,
    config: CompilationConfig,
    root: Path,
    *,
    trials: int,
    trials_per_task: int | None,
    timeout: float,
    jobs: int,
    rpc: tuple[str, int, str] | None = None,
    verbose: bool = False,
    on_event: Callable[[Mapping[str, Any]], None] = lambda _e: None,
    child: str = CHILD,
) -> Outcome:
    try:
        partition = prepare(root, config)
    except OSError as err:
        raise BuildError(f"cannot use the tuning database {root}: {err.strerror or err}", "--database") from None
    outcome = Outcome(partition)
    run_dir = partition.path / f"{store.RUN_PREFIX}{os.getpid()}"
    existing = partition.database()
    store.write(run_dir, existing)  # the run starts from what is known (MetaSchedule seeds its search with it)
    job = Job(plan, str(run_dir), trials, trials_per_task, timeout, jobs, existing.trials(), rpc)
    started = time.perf_counter()
    error: str | None = None
    try:
        with tempfile.TemporaryDirectory(prefix="tvmc-tune-") as tmp:
            job_file = Path(tmp) / "job.pickle"
            job_file.write_bytes(pickle.dumps(job))
            log_path = Path(tmp) / "tvm.log"
            events_read, events_write = os.pipe()
            with open(log_path, "wb") as log:
                try:
                    proc = subprocess.Popen(
                        [sys.executable, "-m", child, str(job_file), str(events_write)],
                        stdin=subprocess.DEVNULL,
                        stdout=sys.stderr if verbose else log,
                        stderr=subprocess.STDOUT,
                        pass_fds=(events_write,),
                        env=_env(),
                        start_new_session=True,
                    )
                finally:
                    os.close(events_write)
            try:
                with os.fdopen(events_read, "r", encoding="utf-8") as events:
                    for line in events:
                        try:
                            event = json.loads(line)
                        except ValueError:
                            continue
                        error = _take(outcome, event) or error
                        on_event(event)
                proc.wait()
            except KeyboardInterrupt:
                outcome.interrupted = True
                _stop(proc)
            if proc.returncode and proc.returncode < 0 and not outcome.interrupted:
                name = signal.Signals(-proc.returncode).name
                error = error or f"TVM crashed ({name}) while tuning"
            elif proc.returncode and error is None and not outcome.interrupted:
                lines = [x for x in log_path.read_text("utf-8", "replace").splitlines() if x.strip()]
                error = f"tuning failed: {lines[-1].strip() if lines else f'exit status {proc.returncode}'}"
    finally:
        outcome.seconds = time.perf_counter() - started
        outcome.added = store.recover(partition, include_own=True)
    if error is not None:
        kept = f" ({outcome.added} new records kept in {partition.path})" if outcome.added else ""
        raise BuildError(error + kept, "tune", hint=None if verbose else "run with --verbose for TVM's output")
    return outcome


def _take(outcome: Outcome, event: Mapping[str, Any]) -> str | None:
    if "tasks" in event:
        outcome.tasks = list(event["tasks"])
    elif "task" in event:
        outcome.trials[int(event["task"])] = int(event["trials"])
        outcome.best[int(event["task"])] = event.get("best")
    elif "baseline" in event:
        outcome.baseline[int(event["baseline"])] = event.get("seconds")
    elif "done" in event:
        outcome.measured = int(event["done"])
    elif "error" in event:
        return str(event["error"])
    return None


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the child and its builder/runner workers (its own process group)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
