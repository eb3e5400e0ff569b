"""`tvmc tune MODEL` (MetaSchedule, records kept per target fingerprint) and `tvmc tune db ...`.

`tvmc tune db ...` is read before MODEL: `TuneCommand.make_context` hands arguments starting with
`db` to the `db` group (a model file named `db` is given as ./db).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Any

import click
import typer

from tvmc.cli.common import LazyGroup, lazy_group, reports_errors, warn, write_stdout
from tvmc.cli.options import (
    Configs,
    InputShapes,
    Isolated,
    Model,
    ModelFormatOption,
    RpcKey,
    RpcTimeout,
    RpcTracker,
    SearchPaths,
    rpc_device,
    search_dirs,
)
from tvmc.cli.rewrite_options import RewriteCommand, ordered_rewrite_flags

DATABASE_HELP = (
    "The tuning database directory (default: TVMC_TUNING_DB, else ~/.cache/tvmc/tuning; none with --isolated)."
)
_Database = Annotated[Path | None, typer.Option("--database", metavar="DIR", help=DATABASE_HELP)]


def _root(database: Path | None, isolated: bool = False) -> Path:
    """--database, else (not isolated) TVMC_TUNING_DB or the user's cache directory."""
    from tvmc import sources
    from tvmc.errors import UsageError
    from tvmc.tune import store

    if database is not None:
        return store.database_root(database, "--database")
    if isolated or sources.is_isolated():
        raise UsageError("--isolated uses no implicit tuning database: give --database DIR", "--isolated")
    return store.implicit_root()


class TuneCommand(RewriteCommand):
    """`tvmc tune MODEL ...`, or `tvmc tune db ...` handed to the db group."""

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        if args and args[0] == "db":
            return _db_group().make_context("tune db", args[1:], parent=parent, **extra)
        return super().make_context(info_name, args, parent=parent, **extra)


class Warnings:
    """`tvmc: warning: ...` on stderr, each message once (a bad record line is met by every read)."""

    def __init__(self, sink: Any = None) -> None:
        self.seen: set[str] = set()
        self.sink = sink or warn

    def __call__(self, message: str) -> None:
        if message not in self.seen:
            self.seen.add(message)
            self.sink(message)


def _eta(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class Display:
    """Progress on stderr. On a terminal, one line rewritten in place (task, trials, best latency,
    the run's trials and an ETA); otherwise one line per measured batch, for logs."""

    def __init__(self, fingerprint: str, *, terminal: bool | None = None, stream: Any = None) -> None:
        self.fingerprint = fingerprint
        self.stream = stream or sys.stderr
        self.terminal = self.stream.isatty() if terminal is None else terminal
        self.tasks: list[dict[str, Any]] = []
        self.shown: dict[int, tuple[Any, ...]] = {}  # what was last shown per task
        self.counts: dict[int, int] = {}
        self.total = 0  # the run's trials to measure
        self.started = time.monotonic()
        self.open_line = False

    def __call__(self, event: Any) -> None:
        from tvmc.tune.store import format_seconds

        if "tasks" in event:
            self.tasks = list(event["tasks"])
            self.fingerprint = str(event.get("fingerprint", self.fingerprint))
            states = [t["state"] for t in self.tasks]
            pending = [t for t in self.tasks if t["state"] == "pending"]
            self.total = sum(max(0, int(t["budget"]) - int(t["done"])) for t in pending)
            text = f"{len(self.tasks)} tasks for target fingerprint {self.fingerprint[:12]}: "
            text += f"{states.count('pending')} to tune"
            if states.count("done"):
                text += f", {states.count('done')} already done"
            if states.count("dynamic"):
                text += f", {states.count('dynamic')} with dynamic shapes skipped (give --input-shapes)"
            self.stream.write(f"tvmc: {text}\n")
            self.started = time.monotonic()
        elif "task" in event:
            index = int(event["task"])
            if self.shown.get(index) == (event["trials"], event.get("best")):
                return  # the scheduler picked a task whose search space is exhausted: nothing new
            self.shown[index] = (event["trials"], event.get("best"))
            self.counts[index] = int(event["trials"])
            task = self.tasks[index] if index < len(self.tasks) else {"name": "?", "budget": "?"}
            text = (
                f"tvmc: task {index + 1}/{len(self.tasks)} {task['name']}: {event['trials']}/{task['budget']} trials, "
                f"best {format_seconds(event.get('best'))}"
            )
            if self.terminal:
                done = sum(self.counts.values())
                elapsed = time.monotonic() - self.started
                total = max(self.total, done)
                eta = _eta(elapsed / done * (total - done)) if done else "?"
                self.stream.write(f"\r\033[K{text}; {done}/{total} in all, ETA {eta}")
                self.open_line = True
            else:
                self.stream.write(text + "\n")
        elif "done" in event or "error" in event:
            self.close()
        self.stream.flush()

    def close(self) -> None:
        """End the terminal's progress line (before anything else is printed)."""
        if self.open_line:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.open_line = False


def report(outcome: Any, model: str, trials: int | None, trials_per_task: int | None, say: Any) -> list[str]:
    """The lines a tune ends with (stdout), its warnings passed to `say`."""
    from tvmc.tune.store import format_seconds

    if outcome.skipped:
        head = f"tvmc: nothing to tune for {model}: every task is done"
    else:
        head = "interrupted" if outcome.interrupted else "tuned"
        head = (
            f"tvmc: {head} {model} in {outcome.seconds:.1f} s: {sum(outcome.trials.values())} candidates measured"
            f"{f' ({outcome.failed} failed)' if outcome.failed else ''}, {outcome.added} new records"
        )
    lines = [head, f"  database  {outcome.partition.path}"]
    if outcome.cost_model is not None:
        name = {"xgb": "XGBoost"}.get(outcome.cost_model, outcome.cost_model)
        lines.append(f"  search    MetaSchedule's evolutionary search, {name} cost model ({outcome.cost_model_why})")
    if outcome.no_baselines is not None:
        lines.append(f"  untuned   {outcome.no_baselines}")
    for index, task in enumerate(outcome.tasks):
        trials_done = task["done"] + outcome.trials.get(index, 0)
        best = outcome.best.get(index)
        state = {"dynamic": "  (dynamic shapes: not tuned)", "done": "  (done before)"}.get(task["state"], "")
        if task["name"] in outcome.untuned:
            state = "  (not tuned)"
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
    if outcome.end_to_end is not None:
        lines.append(f"  end to end  {outcome.end_to_end}")
    if outcome.untuned and not outcome.interrupted:
        names = ", ".join(outcome.untuned[:4]) + (
            f" and {len(outcome.untuned) - 4} more" if len(outcome.untuned) > 4 else ""
        )
        count = f"{len(outcome.untuned)} of {len(outcome.tasks)} tasks"
        if outcome.budget_short:
            wanted = sum(1 for t in outcome.tasks if t["state"] != "dynamic")
            given = f"--trials {trials}" if trials is not None else f"--trials-per-task {trials_per_task}"
            say(f"{given} left {count} untuned ({names}): give --trials {wanted} or more")
        else:
            say(
                f"{count} have no successful measurement ({names}): {outcome.failed} measurements failed "
                "(run with --verbose for TVM's output)"
            )
    return lines


@reports_errors
def tune_command(
    ctx: typer.Context,
    model: Model,
    config: Configs = None,
    model_format: ModelFormatOption = None,
    input_shapes: InputShapes = None,
    trials: Annotated[
        int | None,
        typer.Option("--trials", metavar="N", min=1, help="Candidates in all, shared by the tasks."),
    ] = None,
    trials_per_task: Annotated[
        int | None,
        typer.Option("--trials-per-task", metavar="N", min=1, help="Per task (64 unless --trials)."),
    ] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", min=1, metavar="S", show_default=False, help="Per build and run (30 s).")
    ] = 30.0,
    database: _Database = None,
    rpc_tracker: RpcTracker = None,
    rpc_key: RpcKey = None,
    rpc_timeout: RpcTimeout = 60.0,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs", "-j", metavar="N", min=0, show_default=False, help="Candidates built at once (CPU count)."
        ),
    ] = 0,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show TVM's own output.")] = False,
    isolated: Isolated = False,
    search: SearchPaths = None,
) -> None:
    """Tune MODEL with MetaSchedule; `tvmc compile` applies the records (tvmc tune db --help: the database)."""
    from tvmc import api

    rpc = rpc_device(rpc_tracker, rpc_key)
    say = Warnings()
    display = Display("")
    try:
        outcome = api.tune(
            model,
            config or [],
            ordered_rewrite_flags(ctx),
            trials=trials,
            trials_per_task=trials_per_task,
            timeout=timeout,
            jobs=jobs,
            model_format=model_format.value if model_format else None,
            input_shapes=input_shapes,
            isolated=isolated,
            search=search_dirs(search, isolated=isolated),
            database=database,
            rpc=rpc,
            rpc_timeout=rpc_timeout,
            verbose=verbose,
            on_warning=say,
            on_event=display,
        )
    finally:
        display.close()
    lines = report(outcome, model, trials, trials_per_task, say)
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
def db_list(database: _Database = None, isolated: Isolated = False) -> None:
    """List the partitions: target fingerprint, the config's description, tasks, best latencies."""
    from tvmc.errors import TvmcError
    from tvmc.text import one_line  # descriptions, task names: another's file, shown on one line each
    from tvmc.tune import store

    root = _root(database, isolated)
    say = Warnings()
    lines = []
    broken = 0
    for part in store.partitions(root):
        try:
            store.recover(part, say)
            meta = part.meta()
            tasks = store.summary(part, say)
        except TvmcError as err:  # one broken partition does not hide the others
            broken += 1
            lines.append(f"{part.fingerprint[:16]}  error: {err.one_line()}")
            continue
        measured = [t for t in tasks if t.best_seconds is not None]
        total = sum(t.best_seconds for t in measured if t.best_seconds is not None)
        lines.append(
            f"{part.fingerprint[:16]}  {len(tasks)} tasks, {sum(t.trials for t in tasks)} records, "
            f"best total {store.format_seconds(total if measured else None)}  "
            f"{one_line(meta.get('description') or '-')}"
        )
    if not lines:
        lines.append(f"no tuning records in {root}")
    write_stdout("\n".join(lines) + "\n")
    if broken:
        raise typer.Exit(1)


@db_app.command("show")
@reports_errors
def db_show(
    fingerprint: Annotated[str, typer.Argument(metavar="FINGERPRINT", help="A partition (a unique prefix).")],
    database: _Database = None,
    isolated: Isolated = False,
) -> None:
    """One partition: its config (canonical), target key, and each task's records and best latency."""
    import json

    from tvmc.text import one_line
    from tvmc.tune import store

    say = Warnings()
    part = store.find(_root(database, isolated), fingerprint)
    store.recover(part, say)
    meta = part.meta()
    lines = [f"fingerprint  {part.fingerprint}", f"path         {one_line(str(part.path))}"]
    lines.append(f"description  {one_line(meta.get('description') or '-')}")
    if "key" in meta:
        lines.append(f"target key   {json.dumps(meta['key'], sort_keys=True)}")
    verdicts = store.read_verdicts(part.path, say)
    fastest: dict[str, store.Record] | None = {} if verdicts else None  # read in the same pass
    for task in store.summary(part, say, fastest):
        lines.append(
            f"  {one_line(task.name):<40} {task.trials:>5} records  best {store.format_seconds(task.best_seconds)}"
        )
    if verdicts and fastest is not None:
        lines.append("verdicts     (tvmc tune's end-to-end ratio per model; tvmc tune db forget-verdict removes one)")
        for key, verdict in sorted(verdicts.items(), key=lambda kv: (kv[1].model, kv[0])):
            lines.append(f"  {key[:16]}  {one_line(verdict.model or '-'):<24} {_verdict_state(verdict, fastest)}")
    write_stdout("\n".join(lines) + "\n")


def _verdict_state(verdict: Any, db: Any) -> str:
    """`0.90x (tuned 1.65 us, untuned 1.49 us): lost, compile builds it untuned`, or why it decides nothing."""
    from tvmc.tune.store import format_seconds

    measured = (
        f"{verdict.ratio:.2f}x (tuned {format_seconds(verdict.tuned_seconds)}, "
        f"untuned {format_seconds(verdict.untuned_seconds)})"
    )
    if not verdict.current(db):
        return f"{measured}: stale, measured with other records (compile applies them; tune again to measure)"
    if verdict.lost:
        return f"{measured}: lost, compile builds it untuned"
    return f"{measured}: compile applies the records"


@db_app.command("merge")
@reports_errors
def db_merge(
    sources: Annotated[list[Path], typer.Argument(metavar="SRC...", help="Tuning databases to merge.")],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="DST", help="The database to merge into.")],
) -> None:
    """Merge databases into DST: the fastest record per workload and target; DST keeps its own."""
    from tvmc.tune import store

    verdicts: dict[str, tuple[int, int]] = {}
    written = store.merge(sources, output, Warnings(), verdicts)
    lines = []
    for fp, count in sorted(written.items()):
        kept, dropped = verdicts.get(fp, (0, 0))
        said = f", {kept} verdicts kept" if kept else ""
        if dropped:
            said += f", {dropped} verdicts dropped (measured with other records: tune again to measure)"
        lines.append(f"{fp[:16]}  {count} records{said}")
    write_stdout("\n".join([f"tvmc: merged {len(sources)} databases into {output}", *lines]) + "\n")


@db_app.command("export")
@reports_errors
def db_export(
    fingerprint: Annotated[str, typer.Argument(metavar="FINGERPRINT", help="A partition (a unique prefix).")],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="DIR", help="The directory to write.")],
    database: _Database = None,
    isolated: Isolated = False,
) -> None:
    """Write one partition as a plain MetaSchedule database (ms.database.JSONDatabase(work_dir=DIR))."""
    from tvmc.tune import store

    part = store.find(_root(database, isolated), fingerprint)
    count = store.export(part, output, Warnings())
    write_stdout(f"tvmc: exported {count} records of {part.fingerprint[:16]} to {output}\n")


@db_app.command("forget-verdict")
@reports_errors
def db_forget_verdict(
    fingerprint: Annotated[str, typer.Argument(metavar="FINGERPRINT", help="A partition (a unique prefix).")],
    key: Annotated[
        str | None,
        typer.Argument(metavar="[KEY]", help="A verdict's key as db show lists it (a unique prefix); none: all."),
    ] = None,
    database: _Database = None,
    isolated: Isolated = False,
) -> None:
    """Remove a model's end-to-end verdict (all of the partition's without KEY): compile applies the records."""
    from tvmc.tune import store

    say = Warnings()
    part = store.find(_root(database, isolated), fingerprint)
    gone = store.forget_verdicts(part, key, say)
    names = ", ".join(f"{k[:16]} {v.model or '-'} {v.ratio:.2f}x" for k, v in sorted(gone.items()))
    text = f"tvmc: forgot {len(gone)} verdict{'s' if len(gone) != 1 else ''} of {part.fingerprint[:16]}"
    write_stdout(text + (f" ({names})" if names else "") + "\n")


@db_app.command("prune")
@reports_errors
def db_prune(
    database: _Database = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", "-n", help="Only list what would be removed.")] = False,
    isolated: Isolated = False,
) -> None:
    """Remove the partitions that no config maps to: none on the search path (nor host/native),
    none of the config files it was tuned with (by path). TVMC_* settings play no part."""
    from tvmc import api
    from tvmc.text import one_line
    from tvmc.tune import store

    root = _root(database, isolated)
    lines = []
    for part, verdict in api.prune_verdicts(root, isolated=isolated):
        description = one_line(verdict.description or "-")  # partition.json: another's text
        if verdict.keep:
            if verdict.reason:
                lines.append(f"kept {part.fingerprint[:16]}  {description}  ({one_line(verdict.reason)})")
            continue
        lines.append(
            f"{'would remove' if dry_run else 'removed'} {part.fingerprint[:16]}  {description}  "
            f"({one_line(verdict.reason)})"
        )
        if not dry_run:
            store.remove(part)
    write_stdout("\n".join(lines or [f"nothing to prune in {root}"]) + "\n")


def register(app: typer.Typer) -> None:
    """Add the top-level `tune` command (with `tune db ...`)."""
    app.command("tune", cls=TuneCommand, no_args_is_help=True)(tune_command)
