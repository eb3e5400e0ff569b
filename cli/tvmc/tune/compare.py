"""The end of `tvmc tune`: the model built untuned and with the partition's records, both timed
here, and the tasks whose tuned kernel lost to the untuned one (the database keeps the untuned
kernel there: `tvmc.tune.worker.measure_baselines`). The ratio is stored as the model's verdict in
the partition (`store.Verdict`), with a digest of the records the tuned build applied: compile builds
a model untuned whose tuned library clearly lost, while the partition still gives those records.
"""

from __future__ import annotations

import statistics
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tvmc.backend import compile as build_compile
from tvmc.backend import preflight
from tvmc.backend.model import ModelSpec
from tvmc.backend.plan import BuildPlan
from tvmc.errors import TvmcError
from tvmc.records import record
from tvmc.tune import store
from tvmc.tune.fingerprint import target_fingerprint
from tvmc.tune.store import format_seconds

ROUNDS = 5  # interleaved: untuned, tuned, untuned, ... so that load on the machine hits both alike


@record
class EndToEnd:
    untuned_ms: float | None = None
    tuned_ms: float | None = None
    tuning: str = ""  # compile's tuning line for the tuned build
    skipped: str | None = None  # why nothing was measured

    def line(self) -> str:
        """`untuned 1.82 us, tuned 1.67 us: 1.09x faster (4 of 4 kernels from tuning records, …)`."""
        if self.untuned_ms is None or self.tuned_ms is None or self.tuned_ms <= 0:
            return self.skipped or "not measured"
        ratio = self.untuned_ms / self.tuned_ms
        untuned, tuned = format_seconds(self.untuned_ms / 1e3), format_seconds(self.tuned_ms / 1e3)
        speed = f"{ratio:.2f}x faster" if ratio >= 1 else f"{1 / ratio:.2f}x slower"
        line = f"untuned {untuned}, tuned {tuned}: {speed} ({self.tuning})"
        if ratio < store.LOST_BELOW:
            # MetaSchedule measures each kernel alone, in a loop that keeps the thread pool awake: a
            # parallel kernel of a few us can win there and lose between the VM's other calls.
            line += (
                "; the tuned library is slower here (kernels this small lose to parallel launch costs): "
                "compile builds this model untuned until a tune with more trials measures a win"
            )
        elif ratio < 1:
            line += f"; within {1 - store.LOST_BELOW:.0%} of even (noise here): compile applies the records"
        return line


def lost_tasks(
    tasks: Sequence[Mapping[str, Any]], baseline: Mapping[int, float | None], best: Mapping[int, float | None]
) -> list[tuple[str, float, float]]:
    """(task, best tuned seconds, untuned seconds) of the tasks this run measured whose best tuned
    candidate is slower than their untuned kernel."""
    out = []
    for index, task in enumerate(tasks):
        untuned, tuned = baseline.get(index), best.get(index)
        if untuned is not None and tuned is not None and tuned > untuned:
            out.append((str(task["name"]), tuned, untuned))
    return out


def end_to_end(
    resolved: build_compile.Resolution,
    spec: ModelSpec,
    plan: BuildPlan,
    database: Path,
    *,
    workloads: Sequence[str] = (),
    remote: bool = False,
    warn: store.Warn = lambda _message: None,
) -> EndToEnd:
    """Build the model untuned and tuned (the partition in `database`) and time both with the VM;
    the ratio becomes the model's verdict in the partition, tied to the records the tuned build
    applied for `workloads` (the model's tasks' structural hashes)."""
    from tvmc.backend import run

    if remote:
        return EndToEnd(skipped="measured on the board: compile and `tvmc run --print-time` there")
    if spec.format != "onnx":
        return EndToEnd(skipped="inputs are generated from ONNX models only")
    if preflight.will_not_run_here(plan.target) or preflight.no_runtime_here(plan.target):
        return EndToEnd(skipped="the target does not run on this machine")
    partition = store.Partition(database, target_fingerprint(resolved.config))
    records = store.applied(partition.database(quiet), workloads)
    try:
        with tempfile.TemporaryDirectory(prefix="tvmc-tune-compare-") as tmp:
            untuned = build_compile.build(resolved, spec, str(Path(tmp) / "untuned.so"), tuning=False)
            tuned = build_compile.build(resolved, spec, str(Path(tmp) / "tuned.so"), database=database, verdicts=False)
            model_inputs, _ = run.model_tensors(Path(spec.path))
            signature = [{"name": t.name, "shape": list(t.dims), "dtype": t.dtype} for t in model_inputs]
            # --input-shapes, as the libraries were built; one set of inputs for both.
            inputs = run.generate_inputs(signature, "random", 1, shapes=dict(spec.shapes or {}))
            times: dict[Path, list[float]] = {untuned.path: [], tuned.path: []}
            for _ in range(ROUNDS):
                for library, samples in times.items():
                    result = run.run_library(library, inputs, time_it=True, repeat=3, number=10)
                    assert result.timing is not None
                    samples.append(result.timing.median_ms)
            measured = EndToEnd(
                untuned_ms=statistics.median(times[untuned.path]),
                tuned_ms=statistics.median(times[tuned.path]),
                tuning=tuned.tuning,
            )
    except TvmcError as err:
        return EndToEnd(skipped=f"not measured: {err.one_line()}")
    if store.applied(partition.database(quiet), workloads) != records:
        # another command changed the records while the libraries were built: which ones the
        # tuned build applied is not known, so the ratio decides nothing
        warn(f"the records in {partition.path} changed while the tuned library was measured: the ratio is not kept")
        return measured
    remember(measured, resolved, spec, database, warn, records)
    return measured


def quiet(_message: str) -> None:
    """Warnings of a second read (the build names bad lines itself)."""


def remember(
    result: EndToEnd,
    resolved: build_compile.Resolution,
    spec: ModelSpec,
    database: Path,
    warn: store.Warn,
    records: store.Applied,
) -> None:
    """Store the measured ratio as the model's verdict (replacing an older one, win or loss), with
    the records the tuned build applied (`records`): it decides only while they are the partition's."""
    key = store.model_id(spec.path, spec.shapes)
    if key is None or result.untuned_ms is None or result.tuned_ms is None or result.tuned_ms <= 0:
        return
    verdict = store.Verdict(result.untuned_ms / 1e3, result.tuned_ms / 1e3, Path(spec.path).name, records)
    partition = store.Partition(database, target_fingerprint(resolved.config))
    try:
        store.write_verdict(partition, key, verdict, warn)
    except TvmcError as err:  # a database this user cannot write: the line still says it
        warn(f"{err.one_line()}: the end-to-end ratio is not remembered")
