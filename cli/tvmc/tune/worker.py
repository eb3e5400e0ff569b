"""The tuning child: `python -m tvmc.tune.worker JOB EVENTS_FD` (started by `tvmc.tune.session`).

JOB is a pickled `Job`. The child imports the model as `compile` does (same plan, same transforms),
fuses it with compile's pipeline, extracts MetaSchedule's tasks for the plan's target, measures each
pending task's default schedule (the untuned kernel: its baseline, kept as a record) and tunes the
ones not done yet into the run directory's JSONDatabase (MetaSchedule appends one line per measured
candidate). Progress goes to EVENTS_FD as JSON lines: {"tasks": [...]}, {"baseline": i, "seconds":
s or null} (CPUs) or {"no_baselines": why} (GPUs), {"cost_model": "xgb" or "random", "why": text},
{"task": i, "trials": n, "best": s}, {"done": n}, or {"error": "one line"}.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import math
import os
import pickle
import signal
import sys
from typing import Any, TextIO

from tvmc import deps
from tvmc.backend.frontends import import_model
from tvmc.backend.plan import BuildPlan
from tvmc.backend.runner import require_tvm, short, transform, tvm_pass_config
from tvmc.deps import MissingPackageError
from tvmc.errors import TvmcError
from tvmc.records import record
from tvmc.tune import DEFAULT_TRIALS_PER_TASK, tvmside


def per_task_budget(trials: int | None, trials_per_task: int | None, count: int) -> int:
    """Candidates per task: --trials-per-task; else --trials (in all) shared among the `count`
    tasks; else DEFAULT_TRIALS_PER_TASK."""
    if trials_per_task is not None:
        return trials_per_task
    if trials is not None:
        return max(1, math.ceil(trials / max(count, 1)))
    return DEFAULT_TRIALS_PER_TASK


@record
class Job:
    plan: BuildPlan
    run_dir: str
    trials: int | None  # in all (None: no cap beyond the per-task budget)
    trials_per_task: int | None
    timeout: float
    jobs: int
    done: dict[str, int]  # measured candidates per workload hash, before this run
    rpc: tuple[str, int, str] | None = None  # tracker host, port, key
    seed: int | None = None
    cores: int = 0  # the core count tuned for (the target's num-cores, else this machine's); not jobs


def _die_with_parent() -> None:
    """Linux: a SIGKILLed `tvmc tune` takes this child with it (PR_SET_PDEATHSIG)."""
    try:
        libc = ctypes.CDLL(None)
        libc.prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def budget_of(job: Job, count: int) -> int:
    return per_task_budget(job.trials, job.trials_per_task, count)


def search(ms: Any, budget: int) -> Any:
    """MetaSchedule's evolutionary search, its population scaled to the budget: the default 512
    candidates per generation cost more than measuring a small budget (64 is the floor)."""
    population = min(512, max(64, 8 * budget))
    return ms.search_strategy.EvolutionarySearch(
        population_size=population, init_min_unmeasured=min(50, population // 2)
    )


def static(func: Any) -> bool:
    """Whether every buffer of a kernel has a constant shape (MetaSchedule measures only those)."""
    arg_info = importlib.import_module("tvm.s_tir.meta_schedule.arg_info")
    try:
        infos = arg_info.ArgInfo.from_prim_func(func)
    except Exception:
        return False
    for info in infos:
        for dim in getattr(info, "shape", []):
            try:
                int(dim)
            except (TypeError, ValueError):
                return False
    return True


def device_type(target: Any) -> str:
    """MetaSchedule runner's device name for a target kind (llvm code runs on the cpu device)."""
    kind = str(target.kind.name)
    return "cpu" if kind in ("llvm", "c") else kind


def default_schedule(tvm: Any, task: Any) -> Any:
    """The kernel exactly as the untuned build compiles it, as a schedule whose trace is not empty
    (JSONDatabase returns no record with an empty trace): one `get_sblock("root")`, which changes
    nothing, so that MetaScheduleApplyDatabase can apply it like any other record."""
    mod = task.dispatched[0]
    sch = tvm.s_tir.Schedule(mod)
    sch.work_on(str(mod.get_global_vars()[0].name_hint))
    sch.get_sblock("root")
    return sch


def measure_baselines(
    tvm: Any, ms: Any, pending: list[tuple[Any, str]], builder: Any, runner: Any, database: Any
) -> list[float | None]:
    """Measure each pending task's default schedule (what the untuned build runs) with the tuning
    builder and runner, and store it in the database as one more record: the database then returns
    a workload's tuned schedule only where it beats the untuned kernel (MetaSchedule applies a
    workload's fastest record), so tuning never makes a kernel slower. A failed measurement is not
    stored. Returns the seconds per task (None: not measured)."""
    schedules = [default_schedule(tvm, task) for task, _ in pending]
    built = builder.build(
        [ms.builder.BuilderInput(sch.mod, task.target) for sch, (task, _) in zip(schedules, pending, strict=True)]
    )
    found: list[float | None] = [None] * len(pending)
    inputs, where = [], []
    for position, ((task, _), result) in enumerate(zip(pending, built, strict=True)):
        if result.error_msg is None and result.artifact_path:
            func = next(iter(task.dispatched[0].functions.values()))
            info = ms.arg_info.ArgInfo.from_prim_func(func)
            inputs.append((ms.runner.RunnerInput(result.artifact_path, device_type(task.target), info), info))
            where.append(position)
    futures = runner.run([runner_input for runner_input, _ in inputs]) if inputs else []
    for position, (_, info), future in zip(where, inputs, futures, strict=True):
        result = future.result()
        secs = [float(x) for x in (result.run_secs or [])]
        if result.error_msg is not None or not secs or max(secs) >= 1e9:
            continue
        task = pending[position][0]
        workload = database.commit_workload(task.dispatched[0])
        database.commit_tuning_record(
            ms.database.TuningRecord(schedules[position].trace, workload, result.run_secs, task.target, info)
        )
        found[position] = sum(secs) / len(secs)
    return found


def choose_cost_model() -> tuple[str, str]:
    """MetaSchedule's default cost model, XGBoost ("xgb": xgboost, which tvmc's tvm extra declares),
    else its random one; with what was found or why XGBoost cannot be used. XGBoost ranks the
    candidates of the next batch by what was measured; the random model measures them blindly."""
    try:
        xgboost = importlib.import_module("xgboost")
    except Exception as err:  # not installed, or broken: a missing shared library, a bad numpy
        reason = "is not installed" if isinstance(err, ModuleNotFoundError) else f"cannot be imported ({short(err)})"
        return "random", f"xgboost {reason}"
    return "xgb", f"xgboost {getattr(xgboost, '__version__', '?')}"


# On GPUs the untuned build schedules each kernel with DLight after the database is consulted, so
# the default schedule (no thread binding: it does not even build there) is not what it runs, and
# DLight's kernels are not measured: said, not pretended.
GPU_BASELINES = (
    "not measured on this target: its untuned build runs DLight's schedules, which tuning does not "
    "time, so a record applies even where DLight's kernel is faster (compare with compile --no-tuning)"
)


def tune(job: Job, events: TextIO) -> None:
    def emit(event: dict[str, Any]) -> None:
        events.write(json.dumps(event) + "\n")
        events.flush()

    tvm = require_tvm("tuning", alternative=None)
    plan = job.plan
    if plan.pipeline != "fused":
        raise TvmcError(
            f"build.pipeline {plan.pipeline!r} applies no tuning records: tune with build.pipeline 'fused' "
            "(the default)"
        )
    target_dict = dict(plan.target)
    if target_dict.get("kind") == "llvm" and "num-cores" not in target_dict:
        target_dict["num-cores"] = job.cores or os.cpu_count() or 1  # MetaSchedule's llvm rules need it
    target = tvm.target.Target(target_dict)
    if tvmside.is_cpu(target):
        tvmside.light_tensor_intrinsics()
    ms = importlib.import_module("tvm.s_tir.meta_schedule")
    derived_object = importlib.import_module("tvm.ir.utils").derived_object

    mod = import_model(plan.model)
    with tvm.transform.PassContext(
        opt_level=plan.opt_level, config=tvm_pass_config(tvm, plan), disabled_pass=list(plan.disabled_pass)
    ):
        mod = transform(tvm, plan, mod)
        with target:
            mod = tvm.transform.Sequential(tvmside.fuse_passes(tvm, target))(mod)
        extracted = list(ms.relax_integration.extract_tasks(mod, target))
    database = ms.database.JSONDatabase(work_dir=job.run_dir)
    tasks = []
    for task in extracted:
        func = task.dispatched[0]
        shash = str(database.commit_workload(func).as_json()[0])
        tasks.append((task, shash, all(static(f) for f in func.functions.values())))
    names = {shash: str(task.task_name) for task, shash, _ in tasks}
    tmp = os.path.join(job.run_dir, ".tasks.json")
    with open(tmp, "w", encoding="utf-8") as sink:
        json.dump(names, sink)
    os.replace(tmp, os.path.join(job.run_dir, "tasks.json"))
    budget = budget_of(job, len(tasks))
    pending = [(t, s) for t, s, ok in tasks if ok and job.done.get(s, 0) < budget]
    emit(
        {
            "tasks": [
                {
                    "name": str(t.task_name),
                    "shash": s,
                    "done": job.done.get(s, 0),
                    "budget": budget,
                    "state": "dynamic" if not ok else ("done" if job.done.get(s, 0) >= budget else "pending"),
                }
                for t, s, ok in tasks
            ]
        }
    )
    if not pending:
        emit({"done": 0})
        return
    index = {s: i for i, (_, s, _) in enumerate(tasks)}
    order = [index[s] for _, s in pending]
    best: dict[int, float] = {}
    counts: dict[int, int] = {}

    base: Any = ms.measure_callback.PyMeasureCallback

    class Progress(base):  # type: ignore[misc]
        def apply(self, _scheduler: Any, task_id: int, _cands: Any, _builds: Any, runs: Any) -> None:
            which = order[task_id]
            counts[which] = counts.get(which, 0) + len(runs)
            for result in runs:
                secs = [float(x) for x in (result.run_secs or [])]
                if result.error_msg is None and secs and max(secs) < 1e9:
                    value = sum(secs) / len(secs)
                    best[which] = min(best.get(which, value), value)
            emit({"task": which, "trials": counts[which], "best": best.get(which)})

    progress = derived_object(Progress)

    contexts = []
    for position, (task, _shash) in enumerate(pending):
        contexts.append(
            ms.TuneContext(
                mod=task.dispatched[0],
                target=task.target,
                space_generator="post-order-apply",
                search_strategy=search(ms, budget),
                task_name=str(task.task_name),
                num_threads=job.jobs,
                rand_state=(job.seed or 0) + position + 1,
                logger=ms.logging.get_logger(f"tvmc.tune.{position}"),
            )
        )
    evaluator = ms.runner.EvaluatorConfig(number=3, repeat=1, min_repeat_ms=20)
    initializer = tvmside.light_tensor_intrinsics if tvmside.is_cpu(target) else None
    builder = ms.builder.LocalBuilder(max_workers=job.jobs, timeout_sec=job.timeout, initializer=initializer)
    if job.rpc is not None:
        host, port, key = job.rpc
        config = ms.runner.RPCConfig(
            tracker_host=host, tracker_port=port, tracker_key=key, session_timeout_sec=job.timeout
        )
        runner: Any = ms.runner.RPCRunner(config, evaluator, max_workers=1)
    else:
        runner = ms.runner.LocalRunner(timeout_sec=job.timeout, evaluator_config=evaluator)
    if tvmside.is_cpu(target):
        for (_, shash), seconds in zip(
            pending, measure_baselines(tvm, ms, pending, builder, runner, database), strict=True
        ):
            emit({"baseline": index[shash], "seconds": seconds})
    else:
        emit({"no_baselines": GPU_BASELINES})
    cost_model, why = choose_cost_model()
    emit({"cost_model": cost_model, "why": why})
    per_task = budget
    total = sum(budget - job.done.get(s, 0) for _, s in pending)
    if job.trials is not None:
        total = min(job.trials, total)
    ms.tune_tasks(
        tasks=contexts,
        task_weights=[float(t.weight) for t, _ in pending],
        work_dir=job.run_dir,
        max_trials_global=max(total, 1),
        max_trials_per_task=per_task,
        # Progress (and a Ctrl-C) every 16 measurements at most, and batches no larger than each
        # pending task's share of a --trials cap: MetaSchedule measures a whole batch before it
        # checks the cap, so a batch of 16 under `--trials 2` measured 16 for one task, none for
        # the other.
        num_trials_per_iter=min(16, per_task, max(1, math.ceil(total / max(len(pending), 1)))),
        builder=builder,
        runner=runner,
        database=database,
        cost_model=cost_model,
        measure_callbacks=[*ms.MeasureCallback.create("default"), progress()],
    )
    emit({"done": sum(counts.values())})


def _error_event(err: TvmcError) -> dict[str, Any]:
    """An error for the parent, its location apart (the parent names the input at fault as `compile`
    does: `--input-shapes: …`, not `tune: --input-shapes: …`). One tvmc raised itself, or a missing
    package's (its hint is the whole fix), is complete: the parent adds no "run with --verbose"
    (TVM's output would say no more); one that wraps TVM's (its cause) is not. As tvmc.backend.child."""
    event: dict[str, Any] = {"error": err.detail()}
    if err.location is not None:
        event["where"] = str(err.location)
    if isinstance(err, MissingPackageError) or err.__cause__ is None:
        event["complete"] = True
    return event


def main(job_file: str, events_fd: str) -> None:
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # the parent keeps what was measured
    events = os.fdopen(int(events_fd), "w", encoding="utf-8", buffering=1)
    with open(job_file, "rb") as source:
        job: Job = pickle.load(source)
    run_job(job, events)
    events.close()


def run_job(job: Job, events: TextIO) -> None:
    """Tune; an error becomes one event (a package tvmc declares, missing: which, and its command)."""
    try:
        tune(job, events)
    except TvmcError as err:
        events.write(json.dumps(_error_event(err)) + "\n")
    except Exception as err:  # TVM raises many types
        print(f"{type(err).__name__}: {err}", file=sys.stderr, flush=True)
        package = deps.package_of(err.name) if isinstance(err, ModuleNotFoundError) else None
        if package is not None:  # a package tvmc declares: say which and how to install it
            event = _error_event(deps.missing_error([package], "tuning"))
        else:
            event = {"error": f"tuning failed: {short(err)}"}
        events.write(json.dumps(event) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:3])
