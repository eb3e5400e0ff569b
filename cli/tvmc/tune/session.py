"""A tuning run: the parent side of `tvmc tune` (and `tvmc compile --tune`). TVM is imported only
to ask whether this machine can run the target (`cannot_measure_here`); the child imports the rest.

The child (`tvmc.tune.worker`) runs in its own session, so a native crash or a Ctrl-C never leaves
TVM half-way in this process; it dies with this process (PR_SET_PDEATHSIG). Whatever happens
(success, error, Ctrl-C, a crash, a SIGKILL of either process), what was measured is in the run
directory and is merged into the partition by `store.recover`, now or by the next command.

The run's temporary folder (`$TMPDIR/tvmc-tune-*`: the pickled job, TVM's log) holds a lock file
for as long as the run lives; a folder whose lock nobody holds was left by a killed run and is
removed by the next one.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib
import importlib.metadata
import json
import os
import pickle
import platform
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from tvmc import deps, records
from tvmc.backend import preflight
from tvmc.backend.isolated import _env
from tvmc.backend.plan import BuildPlan
from tvmc.backend.runner import require_tvm
from tvmc.config import CompilationConfig
from tvmc.errors import BuildError, TvmcError
from tvmc.records import field, record
from tvmc.tune import store
from tvmc.tune.fingerprint import target_fingerprint, target_key
from tvmc.tune.worker import Job, per_task_budget

CHILD = "tvmc.tune.worker"
TEMP_PREFIX = "tvmc-tune-"
TEMP_LOCK = "lock"
UNLOCKED_GRACE = 24 * 3600  # a folder without a lock file (killed before it made one) is stale after this
RPC_FIX = "measure on a device that runs it: --rpc-tracker HOST:PORT --rpc-key KEY (tvmc tune --help)"


@record
class Outcome:
    partition: store.Partition
    tasks: list[dict[str, Any]] = field(default_factory=list)
    measured: int = 0
    added: int = 0
    failed: int = 0  # measurements of this run that failed (not counted as done)
    interrupted: bool = False
    seconds: float = 0.0
    best: dict[int, float | None] = field(default_factory=dict)
    trials: dict[int, int] = field(default_factory=dict)
    baseline: dict[int, float | None] = field(default_factory=dict)  # the untuned kernel's seconds
    end_to_end: str | None = None  # both libraries timed here (compare.end_to_end), set by api.tune
    untuned: list[str] = field(default_factory=list)  # tasks to tune with no successful measurement
    skipped: bool = False  # every task was done before: no child was started
    cost_model: str | None = None  # MetaSchedule's cost model the search used ("xgb", "random")
    cost_model_why: str = ""  # what was found (`xgboost 3.2.0`) or why not (`xgboost is not installed`)
    no_baselines: str | None = None  # why no untuned kernel was measured (GPUs: DLight's are not)

    @property
    def budget_short(self) -> bool:
        """Whether the untuned tasks were left by the budget (not by failures)."""
        return bool(self.untuned) and self.failed == 0


def model_key(plan: BuildPlan) -> str:
    """What decides a model's tasks: the model file's bytes, TVM's and tvmc's versions, and every
    field of the plan but its path and the database. A rerun with the same key knows its tasks
    without starting TVM."""
    digest = hashlib.sha256()
    try:
        with open(plan.model.path, "rb") as source:
            for block in iter(lambda: source.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        digest.update(os.fsencode(plan.model.path))
    for package in ("apache-tvm", "tvmc"):  # another TVM (or tvmc) may extract other tasks
        try:
            digest.update(f"{package}={importlib.metadata.version(package)}".encode())
        except importlib.metadata.PackageNotFoundError:
            digest.update(f"{package}=?".encode())
    fields = records.asdict(records.replace(plan, tuning=None, tuning_records=None, notes=()))
    fields["model"] = {k: v for k, v in fields["model"].items() if k != "path"}
    digest.update(json.dumps(fields, sort_keys=True, default=str).encode("utf-8"))
    return digest.hexdigest()


def prepare(root: Path, config: CompilationConfig, warn: store.Warn, sources: Sequence[str] = ()) -> store.Partition:
    """The config's partition, its killed runs recovered and its partition.json up to date.
    `sources` are the configs given by path (absolute): `db prune` keeps the partition while one
    of them still maps to it."""
    partition = store.Partition(root, target_fingerprint(config))
    store.recover(partition, warn)
    with store.locked(partition.path):
        meta = partition.meta()
        wanted = {
            "fingerprint": partition.fingerprint,
            "key": target_key(config),
            "config": config.to_dict(),
            "description": config.description,
        }
        known = list(meta.get("sources", []))
        paths = [s for s in sources if s not in known]
        if paths or any(meta.get(k) != v for k, v in wanted.items()):
            partition.write_meta({**meta, **wanted, "tasks": meta.get("tasks", {}), "sources": known + paths})
    return partition


def check_ready() -> None:
    """Before a tuning run: the packages tuning needs are installed (one error naming them and the
    command), no installed version is known to crash it, and TVM is recent enough."""
    deps.require("tune", what="tuning", location="tune")
    deps.refuse_known_bad("tune", "tune")
    require_tvm("tuning", alternative=None)


def cannot_measure_here(plan: BuildPlan) -> str | None:
    """Why this machine cannot run (so cannot measure) the plan's code, or None. Said before any
    work: MetaSchedule would record every candidate as failed (1e10 s) and exit 0."""
    target = plan.target
    kind = str(target.get("kind"))
    if kind == "llvm":
        here = _arch(platform.machine())
        for node in (target, target.get("host")):
            triple = node.get("mtriple") if isinstance(node, Mapping) else None
            if isinstance(triple, str) and _arch(triple.split("-", 1)[0]) != here:
                return f"the code is for {triple}, which this {here} machine cannot run"
        lacking = preflight.missing_isa(target)
        if lacking:
            what, features = lacking[0]
            return f"{what} needs {', '.join(features[:6])}, which this machine lacks"
        return None
    if kind in preflight.GPU_KINDS:
        tvm = importlib.import_module("tvm")
        if not tvm.runtime.enabled(kind):
            return f"this TVM has no {kind} runtime"
        if not tvm.device(kind, 0).exist:
            return f"this machine has no {kind} device"
        return None
    return f"{kind} code cannot be measured on this machine"


def _arch(name: str) -> str:
    name = name.lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(name, name)


def cores_of(plan: BuildPlan) -> int:
    """The core count MetaSchedule tunes for: the target's num-cores, else this machine's CPUs
    (never --jobs, which is how many candidates are built at once)."""
    value = plan.target.get("num-cores")
    if isinstance(value, int) and value > 0:
        return value
    return os.cpu_count() or 1


# ---- the run's temporary folder --------------------------------------------------------------------


def remove_stale_temporaries(directory: Path | None = None) -> list[Path]:
    """Remove the `tvmc-tune-*` folders of killed runs: this user's, whose lock file nobody holds
    (a live run holds its own); one without a lock file only after a day. Returns what was removed."""
    directory = Path(tempfile.gettempdir()) if directory is None else directory
    removed = []
    try:
        candidates = sorted(directory.glob(f"{TEMP_PREFIX}*"))
    except OSError:
        return []
    for path in candidates:
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            continue
        try:
            fd = os.open(path / TEMP_LOCK, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
        except FileNotFoundError:
            if time.time() - info.st_mtime > UNLOCKED_GRACE:
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
            continue
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # its run is alive
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
        finally:
            os.close(fd)
    return removed


@contextlib.contextmanager
def run_folder() -> Iterator[Path]:
    """A `tvmc-tune-*` temporary folder whose lock this process holds while it is used. The lock
    file gets its name only once locked, so a cleaner never sees it unlocked in a live run."""
    with tempfile.TemporaryDirectory(prefix=TEMP_PREFIX) as tmp:
        folder = Path(tmp)
        fd = os.open(folder / f".{TEMP_LOCK}", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.rename(folder / f".{TEMP_LOCK}", folder / TEMP_LOCK)
            yield folder
        finally:
            os.close(fd)


# ---- a run -----------------------------------------------------------------------------------------


def _known_tasks(partition: store.Partition, key: str) -> list[dict[str, Any]] | None:
    try:
        models = partition.meta().get("models", {})
    except TvmcError:
        return None
    known = models.get(key) if isinstance(models, dict) else None
    if not isinstance(known, list) or not all(isinstance(t, dict) for t in known):
        return None
    return known


budget_of = per_task_budget


def tune(
    plan: BuildPlan,
    config: CompilationConfig,
    root: Path,
    *,
    trials: int | None,
    trials_per_task: int | None,
    timeout: float,
    jobs: int,
    warn: store.Warn,
    rpc: tuple[str, int, str] | None = None,
    verbose: bool = False,
    on_event: Callable[[Mapping[str, Any]], None] = lambda _e: None,
    child: str = CHILD,
    sources: Sequence[str] = (),
) -> Outcome:
    """Tune what the partition lacks for `plan`'s model. A target this machine cannot run is
    refused (without `rpc`) before any work; a rerun whose tasks are all done starts no child."""
    if rpc is None:
        problem = cannot_measure_here(plan)
        if problem is not None:
            raise BuildError(f"cannot tune here: {problem}", "tune", hint=RPC_FIX)
    remove_stale_temporaries()
    try:
        partition = prepare(root, config, warn, sources)
    except OSError as err:
        raise BuildError(f"cannot use the tuning database {root}: {err.strerror or err}", "--database") from None
    outcome = Outcome(partition)
    existing = partition.database(warn)
    done = existing.measured()
    key = model_key(plan)
    known = _known_tasks(partition, key)
    if known is not None:
        budget = budget_of(trials, trials_per_task, len(known))
        if all(t.get("state") == "dynamic" or done.get(str(t.get("shash")), 0) >= budget for t in known):
            outcome.skipped = True
            outcome.tasks = [
                {**t, "done": done.get(str(t.get("shash")), 0), "budget": budget}
                | ({} if t.get("state") == "dynamic" else {"state": "done"})
                for t in known
            ]
            on_event({"tasks": outcome.tasks, "fingerprint": partition.fingerprint})
            return outcome
    run_dir, run_lock = store.start_run(partition)
    job = Job(plan, str(run_dir), trials, trials_per_task, timeout, jobs, done, rpc, cores=cores_of(plan))
    started = time.perf_counter()
    error: str | None = None
    where = "tune"  # the input at fault, when the child's error names one
    complete = False  # the error says all there is (a missing package and its command): no --verbose hint
    try:
        store.write(run_dir, existing)  # the run starts from what is known (MetaSchedule seeds its search with it)
        with run_folder() as tmp:
            job_file = tmp / "job.pickle"
            job_file.write_bytes(pickle.dumps(job))
            log_path = tmp / "tvm.log"
            events_read, events_write = os.pipe()
            with open(log_path, "wb") as log:
                try:
                    proc = subprocess.Popen(
                        [sys.executable, "-m", child, str(job_file), str(events_write)],
                        stdin=subprocess.DEVNULL,
                        stdout=sys.stderr if verbose else log,
                        stderr=subprocess.STDOUT,
                        # the run's lock too: held while the child lives, even if this process dies first
                        pass_fds=(events_write, run_lock),
                        # TVM's builders and runners make their temporaries in the run's folder,
                        # so what a killed run leaves is removed with it
                        env={**_env(), "TMPDIR": str(tmp)},
                        start_new_session=True,
                        umask=0o022,  # what it writes in the run directory is not writable by others
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
                        where = str(event["where"]) if event.get("where") and "error" in event else where
                        complete = complete or bool(event.get("complete"))
                        on_event({**event, "fingerprint": partition.fingerprint} if "tasks" in event else event)
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
        try:
            outcome.added = store.recover(partition, warn, finished=run_dir)
        finally:
            store.end_run(run_dir)
    if error is not None:
        kept = f" ({outcome.added} new records kept in {partition.path})" if outcome.added else ""
        hint = None if verbose or complete else "run with --verbose for TVM's output"
        raise BuildError(error + kept, where, hint=hint)
    _account(outcome, existing, warn)
    say_cost_model(outcome, warn)
    if not outcome.interrupted and outcome.tasks:
        _remember(partition, key, outcome.tasks)
    return outcome


def say_cost_model(outcome: Outcome, warn: store.Warn) -> None:
    """Warn when the search fell back to MetaSchedule's random cost model (why, and the fix)."""
    if outcome.cost_model == "random":
        warn(
            f"{outcome.cost_model_why}: MetaSchedule searched with its random cost model, which finds fast kernels "
            f"later than its XGBoost one; {deps.install_command([deps.PACKAGES['xgboost']])}"
        )


def _account(outcome: Outcome, before: store.Database, warn: store.Warn) -> None:
    """Failed measurements of this run, and the tasks to tune left without a successful one."""
    after = outcome.partition.database(warn)
    measured, trials = after.measured(), after.trials()
    old_measured, old_trials = before.measured(), before.trials()
    shashes = {str(t.get("shash")) for t in outcome.tasks}
    new_trials = sum(trials.get(s, 0) - old_trials.get(s, 0) for s in shashes)
    new_measured = sum(measured.get(s, 0) - old_measured.get(s, 0) for s in shashes)
    outcome.failed = max(0, new_trials - new_measured)
    outcome.untuned = [
        str(t["name"]) for t in outcome.tasks if t.get("state") == "pending" and not measured.get(str(t.get("shash")))
    ]
    best = after.best_seconds()
    for index, task in enumerate(outcome.tasks):  # the best known, not only this run's
        known = best.get(str(task.get("shash")))
        if known is not None:
            outcome.best[index] = known


def _remember(partition: store.Partition, key: str, tasks: list[dict[str, Any]]) -> None:
    """Which tasks this model has (so a rerun with everything done needs no TVM)."""
    entry = [
        {"name": t["name"], "shash": t["shash"], "state": "dynamic" if t["state"] == "dynamic" else ""} for t in tasks
    ]
    with store.locked(partition.path):
        meta = partition.meta()
        found = meta.get("models")
        models: dict[str, Any] = found if isinstance(found, dict) else {}
        if models.get(key) == entry:
            return
        partition.write_meta({**meta, "models": {**models, key: entry}})


def _take(outcome: Outcome, event: Mapping[str, Any]) -> str | None:
    if "tasks" in event:
        outcome.tasks = list(event["tasks"])
    elif "task" in event:
        outcome.trials[int(event["task"])] = int(event["trials"])
        outcome.best[int(event["task"])] = event.get("best")
    elif "baseline" in event:
        outcome.baseline[int(event["baseline"])] = event.get("seconds")
    elif "no_baselines" in event:
        outcome.no_baselines = str(event["no_baselines"])
    elif "cost_model" in event:
        outcome.cost_model, outcome.cost_model_why = str(event["cost_model"]), str(event.get("why", ""))
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
