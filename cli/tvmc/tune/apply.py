"""Which tuning records `tvmc compile` applies: the partition of the config's target fingerprint in
the chosen database (--database, else build.tuning-records, else TVMC_TUNING_DB or the cache
directory), when it holds records and the build's pipeline is the fused one. Records of any other
fingerprint are never applied. No TVM here.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path

from tvmc.build.plan import BuildPlan
from tvmc.config import CompilationConfig
from tvmc.errors import TvmcError
from tvmc.tune import store
from tvmc.tune.fingerprint import target_fingerprint

TUNE_SUGGESTION = "tvmc tune MODEL with this config, then compile again"


def choose(
    plan: BuildPlan,
    config: CompilationConfig,
    *,
    enabled: bool = True,
    database: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[BuildPlan, str]:
    """The plan with `tuning` set to the partition to apply (or unchanged), and a line saying why."""
    if not enabled:
        return plan, "off (--no-tuning)"
    if plan.pipeline == "relax-build":
        return plan, "not applied: build.pipeline 'relax-build' has no fusion to tune (tuning needs 'fused')"
    env = os.environ if env is None else env
    if database is not None:
        root = database
    elif plan.tuning_records is not None:
        root = Path(plan.tuning_records)
    else:
        root = store.default_root(env)
    partition = store.Partition(root, target_fingerprint(config))
    try:
        store.recover(partition)
        records = len(partition.database().records)
    except (OSError, TvmcError):
        records = 0
    if not records:
        return plan, (
            f"no records for target fingerprint {partition.fingerprint[:16]} in {root} "
            f"(the untuned library works but is not fast: {TUNE_SUGGESTION})"
        )
    return dataclasses.replace(plan, tuning=str(partition.path)), f"database {partition.path}"
