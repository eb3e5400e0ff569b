"""Which tuning records `tvmc compile` applies: the partition of the config's target fingerprint in
the chosen database (--database, else build.tuning-records, else TVMC_TUNING_DB or the cache
directory; isolated: only --database or build.tuning-records), when it holds records and the
build's pipeline is the fused one. Records of any other fingerprint are never applied. No TVM here.

TVM's JSONDatabase fails on the first line it cannot parse (a compile error naming neither the file
nor the line), so a partition with bad lines is applied through a copy of its valid records, the
bad lines named in warnings.

A model whose tuned library `tvmc tune` measured clearly slower than its untuned one (its stored
verdict, `store.Verdict`: ratio below `store.LOST_BELOW`, measured with the records the partition
still applies) is built untuned, said in one warning:
MetaSchedule times each kernel alone in a warm loop, and a kernel that wins there can lose between
the VM's other calls, which no per-kernel baseline catches.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from tvmc import records
from tvmc.backend.plan import BuildPlan
from tvmc.config import CompilationConfig
from tvmc.errors import TvmcError
from tvmc.tune import DEFAULT_TRIALS_PER_TASK, store
from tvmc.tune.fingerprint import target_fingerprint

ISOLATED = "off (--isolated: no --database given)"
TUNE_SUGGESTION = (
    f"compile with --tune {DEFAULT_TRIALS_PER_TASK} to tune its kernels first, or tvmc tune MODEL with this config"
)


def choose(
    plan: BuildPlan,
    config: CompilationConfig,
    *,
    warn: store.Warn,
    enabled: bool = True,
    database: Path | None = None,
    env: Mapping[str, str] | None = None,
    implicit: bool = True,
    copy_if_bad: bool = True,
    verdicts: bool = True,
) -> tuple[BuildPlan, str]:
    """The plan with `tuning` set to the partition to apply (or unchanged), and a line saying why.
    `implicit` false (--isolated): no TVMC_TUNING_DB nor the user's database, only `database` or
    the config's build.tuning-records. `copy_if_bad` false (--emit): the partition as it is.
    `verdicts` false (tune's own end-to-end measurement): the records even where a verdict says
    the tuned library lost."""
    if not enabled:
        return plan, "off (--no-tuning)"
    if plan.pipeline == "relax-build":
        return plan, "not applied: build.pipeline 'relax-build' has no fusion to tune (tuning needs 'fused')"
    env = os.environ if env is None else env
    if database is not None:
        root = store.database_root(database, "--database")
    elif plan.tuning_records is not None:
        root = Path(plan.tuning_records)
    elif not implicit:
        return plan, ISOLATED
    else:
        try:
            root = store.implicit_root(env)
        except TvmcError as err:  # `TVMC_TUNING_DB=/dev/null`: said once, not per file it cannot read
            warn(f"tuning records not applied: {err.one_line()}")
            return plan, f"none applied: {err.one_line()}"
    partition = store.Partition(root, target_fingerprint(config))
    bad: list[str] = []

    def note(message: str) -> None:
        bad.append(message)
        warn(message)

    try:
        store.recover(partition, warn)
    except TvmcError as err:  # a database this user cannot write: its records still apply
        warn(f"{err.one_line()}: runs left in {partition.path} are not merged")
    try:
        db = partition.database(note)
    except (OSError, TvmcError) as err:
        reason = err.one_line() if isinstance(err, TvmcError) else str(err)
        warn(f"tuning records not applied: {reason}")
        return plan, f"none applied: the database {partition.path} cannot be read"
    if not db.records:
        why = " (its lines are bad)" if bad else ""
        return plan, (
            f"no records for target fingerprint {partition.fingerprint[:16]} in {root}{why} "
            f"(the untuned library works but is not fast: {TUNE_SUGGESTION})"
        )
    if verdicts:
        lost = _lost(partition, plan, db, warn)
        if lost is not None:
            return plan, lost
    if bad and copy_if_bad:
        copy = Path(tempfile.mkdtemp(prefix="tvmc-records-"))
        atexit.register(shutil.rmtree, copy, True)
        store.write(copy, db)
        warn(f"{partition.path}: {len(db.records)} valid records applied, the bad lines skipped")
        return records.replace(plan, tuning=str(copy)), f"database {partition.path} (bad lines skipped)"
    return records.replace(plan, tuning=str(partition.path)), f"database {partition.path}"


def _lost(partition: store.Partition, plan: BuildPlan, db: store.Database, warn: store.Warn) -> str | None:
    """The tuning line when the partition's verdict for this model says its tuned library lost
    (one warning says so, with the ratio and the way out); None to apply the records. A verdict
    measured with other records than the partition now applies (merged, or tuned since) no longer
    decides: the records apply, and a warning says the verdict is stale."""
    found = store.model_verdict(partition, plan.model.path, plan.model.shapes, warn)
    if found is None or not found[1].lost:
        return None
    key, verdict = found
    if not verdict.current(db):
        then = f"{verdict.records.records} records then" if verdict.records is not None else "records not kept"
        now = store.applied(db, verdict.records.workloads if verdict.records is not None else ())
        warn(
            f"the verdict that this model's tuned library lost ({verdict.ratio:.2f}x) is stale: it was measured "
            f"with other records than {partition.path} now gives ({then}, {now.records} now), so the records "
            f"apply; tune again to measure them (compile --tune N, or tvmc tune; tvmc tune db forget-verdict "
            f"{partition.fingerprint[:16]} {key[:16]} removes it)"
        )
        return None
    warn(
        f"tuning records left out: tvmc tune measured this model's tuned library slower than its untuned one "
        f"({verdict.ratio:.2f}x, tuned {store.format_seconds(verdict.tuned_seconds)} against untuned "
        f"{store.format_seconds(verdict.untuned_seconds)}), so it is built untuned; tuning it again with more "
        f"trials (compile --tune N, or tvmc tune --trials-per-task N) measures it again and applies them once "
        f"they win (the verdict: {partition.path / store.VERDICTS}; tvmc tune db forget-verdict removes it)"
    )
    return f"not applied: the tuned library lost to the untuned one ({verdict.ratio:.2f}x, {partition.path})"
