"""`tvmc tune MODEL` (MetaSchedule, records kept per target fingerprint) and `tvmc tune db ...`.

`tvmc tune db ...` is read before MODEL: `TuneCommand.make_context` hands arguments starting with
`db` to the `db` group (a model file named `db` is given as ./db).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any

import click
import typer

from tvmc.cli.common import LazyGroup, lazy_group, reports_errors, warn, write_stdout
from tvmc.cli.options import Configs, InputShapes, Isolated, Model, ModelFormatOption, RpcKey, RpcTracker, rpc_device
from tvmc.cli.rewrite_options import RewriteCommand, ordered_rewrite_flags

DATABASE_HELP = "The tuning database directory (default: TVMC_TUNING_DB, else ~/.cache/tvmc/tuning)."
_Database = Annotated[Path | None, typer.Option("--database", metavar="DIR", help=DATABASE_HELP)]


def _root(database: Path | None) -> Path:
    from tvmc.tune import store

    return database if database is not None else store.default_root()


class TuneCommand(RewriteCommand):
    """`tvmc tune MODEL ...`, or `tvmc tune db ...` handed to the db group."""

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        if args and args[0] == "db":
            return _db_group().make_context("tune db", args[1:], parent=parent, **extra)
        return super().make_context(info_name, args, parent=parent, **extra)


class Display:
    """Progress on stderr: one line per measured batch (tasks, trials, best latency so far)."""

    def __init__(self, fingerprint: str) -> None:
        self.fingerprint = fingerprint
        self.tasks: list[dict[str, Any]] = []
        self.shown: dict[int, tuple[Any, ...]] = {}  # what was last shown per task

    def __call__(self, event: Any) -> None:
        from tvmc.tune.store import format_seconds

        if "tasks" in event:
            self.tasks = list(event["tasks"])
            states = [t["state"] for t in self.tasks]
            text = f"{len(self.tasks)} tasks for target fingerprint {self.fingerprint[:12]}: "
            text += f"{states.count('pending')} to tune"
            if states.count("done"):
                text += f", {states.count('done')} already done"
            if states.count("dynamic"):
                text += f", {states.count('dynamic')} with dynamic shapes skipped (give --input-shapes)"
            sys.stderr.write(f"tvmc: {text}\n")
        elif "task" in event:
            index = int(event["task"])
            if self.shown.get(index) == (event["trials"], event.get("best")):
                return  # the scheduler picked a task whose search space is exhausted: nothing new
            self.shown[index] = (event["trials"], event.get("best"))
            task = self.tasks[index] if index < len(self.tasks) else {"name": "?", "budget": "?"}
            sys.stderr.write(
                f"tvmc: task {index + 1}/{len(self.tasks)} {task['name']}: {event['trials']}/{task['budget']} trials, "
                f"best {format_seconds(event.get('best'))}\n"
            )
        sys.stderr.flush()


@reports_errors
def tune_command(
    ctx: typer.Context,
    model: Model,
    config: Configs = None,
    model_format: ModelFormatOption = None,
    input_shapes: InputShapes = None,
    trials: Annotated[
        int, typer.Option("--trials", metavar="N", min=1, show_default=False, help="Candidates in all (200).")
    ] = 200,
    trials_per_task: Annotated[
        int | None,
        typer.Option("--trials-per-task", metavar="N", min=1, help="Per task (default: --trials / tasks)."),
    ] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", min=1, metavar="S", show_default=False, help="Per build and run (30 s).")
    ] = 30.0,
    database: _Database = None,
    rpc_tracker: RpcTracker = None,
    rpc_key: RpcKey = None,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", metavar="N", min=0, show_default=False, help="Parallel builds (CPU count).")
    ] = 0,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show TVM's own output.")] = False,
    isolated: Isolated = False,
) -> None:
    """Tune MODEL with MetaSchedule; `tvmc compile` applies the records (tvmc tune db --help: the database)."""
    from tvmc import api
    from tvmc.build import frontends, runner
    from tvmc.build.model import check_exists, model_spec
    from tvmc.build.plan import plan_build
    from tvmc.shapes import parse_input_shapes
    from tvmc.tune import session
    from tvmc.tune.fingerprint import target_fingerprint
    from tvmc.tune.store import format_seconds

    shapes = parse_input_shapes(input_shapes) if input_shapes is not None else None
    spec = model_spec(model, model_format.value if model_format else None, shapes)
    resolved = api.resolve(config or [], ordered_rewrite_flags(ctx), isolated=isolated)
    for note in resolved.notes:
        warn(note)
    rpc = rpc_device(rpc_tracker, rpc_key)
    plan = plan_build(resolved.config, resolved.origins, spec)
    check_exists(spec)
    runner.require_tvm()
    from tvmc.build.compile import resolve_native

    plan = resolve_native(plan, warn)  # as compile builds it: mcpu "native" is this machine's CPU
    frontends.check_available(spec)
    root = _root(database)
    fingerprint = target_fingerprint(resolved.config)
    outcome = session.tune(
        plan,
        resolved.config,
        root,
        trials=trials,
        trials_per_task=trials_per_task,
        timeout=timeout,
        jobs=jobs or os.cpu_count() or 1,
        rpc=rpc,
        verbose=verbose or os.environ.get("TVMC_VERBOSE", "") not in ("", "0"),
        on_event=Display(fingerprint),
    )
    head = "interrupted" if outcome.interrupted else "tuned"
    lines = [
        f"tvmc: {head} {spec.path} in {outcome.seconds:.1f} s: {sum(outcome.trials.values())} candidates measured, "
        f"{outcome.added} new records",
        f"  database  {outcome.partition.path}",
    ]
    for index, task in enumerate(outcome.tasks):
        trials_done = task["done"] + outcome.trials.get(index, 0)
        best = outcome.best.get(index)
        state = {"dynamic": "  (dynamic shapes: not tuned)", "done": "  (done before)"}.get(task["state"], "")
        untuned = outcome.baseline.get(index)
        baseline = f"  untuned {format_seconds(untuned)}" if untuned is not None else ""
        lines.append(f"  {task['name']:<40} {trials_done:>5} trials  best {format_seconds(best)}{baseline}{state}")
    from tvmc.tune import compare

    lost = compare.lost_tasks(outcome.tasks, outcome.baseline, outcome.best)
    if lost:
        lines.append(
            f"  {len(lost)} of {len(outcome.tasks)} tuned kernels lost to the untuned one (which compile keeps):"
        )
        lines.extend(f"    {name}: tuned {format_seconds(t)}, untuned {format_seconds(u)}" for name, t, u in lost)
    if not outcome.interrupted:
        measured = compare.end_to_end(resolved, spec, plan, root, remote=rpc is not None)
        lines.append(f"  end to end  {measured.line()}")
    write_stdout("\n".join(lines) + "\n")
    if outcome.interrupted:
        raise typer.Exit(130)


# ---- tvmc tune db ---------------------------------------------------------------------------------

db_app = typer.Typer(name="db", cls=LazyGroup, help="The tuning database.", no_args_is_help=True, rich_markup_mode=None)


def _db_group() -> click.Group:
    global _DB
    if _DB is None:
        _DB = lazy_group(db_app)
    return _DB


_DB: click.Group | None = None


@db_app.command("list")
@reports_errors
def db_list(database: _Database = None) -> None:
    """List the partitions: target fingerprint, the config's description, tasks, best latencies."""
    from tvmc.tune import store

    root = _root(database)
    lines = []
    for part in store.partitions(root):
        store.recover(part)
        meta = part.meta()
        tasks = store.summary(part)
        measured = [t for t in tasks if t.best_seconds is not None]
        total = sum(t.best_seconds for t in measured if t.best_seconds is not None)
        lines.append(
            f"{part.fingerprint[:16]}  {len(tasks)} tasks, {sum(t.trials for t in tasks)} records, "
            f"best total {store.format_seconds(total if measured else None)}  {meta.get('description') or '-'}"
        )
    if not lines:
        lines.append(f"no tuning records in {root}")
    write_stdout("\n".join(lines) + "\n")


@db_app.command("show")
@reports_errors
def db_show(
    fingerprint: Annotated[str, typer.Argument(metavar="FINGERPRINT", help="A partition (a unique prefix).")],
    database: _Database = None,
) -> None:
    """One partition: its config (canonical), target key, and each task's records and best latency."""
    import json

    from tvmc.tune import store

    part = store.find(_root(database), fingerprint)
    store.recover(part)
    meta = part.meta()
    lines = [f"fingerprint  {part.fingerprint}", f"path         {part.path}"]
    lines.append(f"description  {meta.get('description') or '-'}")
    if "key" in meta:
        lines.append(f"target key   {json.dumps(meta['key'], sort_keys=True)}")
    for task in store.summary(part):
        lines.append(f"  {task.name:<40} {task.trials:>5} records  best {store.format_seconds(task.best_seconds)}")
    write_stdout("\n".join(lines) + "\n")


@db_app.command("merge")
@reports_errors
def db_merge(
    sources: Annotated[list[Path], typer.Argument(metavar="SRC...", help="Tuning databases to merge.")],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="DST", help="The database to merge into.")],
) -> None:
    """Merge databases into DST: one record per workload and target, the fastest kept."""
    from tvmc.tune import store

    written = store.merge(sources, output)
    lines = [f"{fp[:16]}  {count} records" for fp, count in sorted(written.items())]
    write_stdout("\n".join([f"tvmc: merged {len(sources)} databases into {output}", *lines]) + "\n")


@db_app.command("export")
@reports_errors
def db_export(
    fingerprint: Annotated[str, typer.Argument(metavar="FINGERPRINT", help="A partition (a unique prefix).")],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="DIR", help="The directory to write.")],
    database: _Database = None,
) -> None:
    """Write one partition as a plain MetaSchedule database (ms.database.JSONDatabase(work_dir=DIR))."""
    from tvmc.tune import store

    part = store.find(_root(database), fingerprint)
    count = store.export(part, output)
    write_stdout(f"tvmc: exported {count} records of {part.fingerprint[:16]} to {output}\n")


@db_app.command("prune")
@reports_errors
def db_prune(
    database: _Database = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", "-n", help="Only list what would be removed.")] = False,
) -> None:
    """Remove the partitions that no config on the search path (nor host/native) maps to."""
    from tvmc import api, sources
    from tvmc.errors import TvmcError
    from tvmc.tune import store
    from tvmc.tune.fingerprint import target_fingerprint

    root = _root(database)
    names = [e.name for e in sources.list_configs(sources.search_path()) if not e.shadowed and not e.error]
    wanted = set()
    for name in [*names, "host/native"]:
        try:
            wanted.add(target_fingerprint(api.resolve([name]).config))
        except TvmcError:
            continue
    lines = []
    for part in store.partitions(root):
        if part.fingerprint in wanted:
            continue
        description = part.meta().get("description") or "-"
        lines.append(f"{'would remove' if dry_run else 'removed'} {part.fingerprint[:16]}  {description}")
        if not dry_run:
            store.remove(part)
    write_stdout("\n".join(lines or [f"nothing to prune in {root}"]) + "\n")


def register(app: typer.Typer) -> None:
    """Add the top-level `tune` command (with `tune db ...`)."""
    app.command("tune", cls=TuneCommand, no_args_is_help=True)(tune_command)
