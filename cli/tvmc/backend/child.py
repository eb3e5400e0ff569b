"""The child process of `isolated.call`: run one job (build a plan, run a library), report stages,
pickle the outcome."""

from __future__ import annotations

import os
import pickle
import sys
from typing import Any

from tvmc.deps import MissingPackageError
from tvmc.errors import TvmcError


def _job(kind: str, arguments: dict[str, Any], on_stage: Any) -> object:
    if kind == "build":
        from tvmc.backend import runner

        return runner.run(arguments["plan"], on_stage=on_stage, manifest_base=arguments.get("manifest_base"))
    if kind == "run":
        from tvmc.backend import run

        return run.run(**arguments, on_stage=on_stage)
    raise TvmcError(f"unknown job {kind!r}")


def main(job_file: str, result_file: str, events_fd: str) -> None:
    events = os.fdopen(int(events_fd), "w", encoding="utf-8", buffering=1)

    def on_stage(stage: str) -> None:
        events.write(stage + "\n")

    with open(job_file, "rb") as source:
        kind, arguments = pickle.load(source)
    try:
        outcome: tuple[object, ...] = ("ok", _job(kind, arguments, on_stage))
    except MissingPackageError as err:  # its hint is the whole fix: no TVM output to show
        outcome = ("error", err.detail(), False, err.location)
    except TvmcError as err:
        outcome = ("error", err.detail(), err.__cause__ is not None, err.location)
        if err.__cause__ is not None:  # TVM's whole message: the parent shows it with --verbose
            print(f"{type(err.__cause__).__name__}: {err.__cause__}", file=sys.stderr, flush=True)
    with open(result_file + ".part", "wb") as sink:
        pickle.dump(outcome, sink)
    os.replace(result_file + ".part", result_file)
    events.close()


if __name__ == "__main__":
    main(*sys.argv[1:4])
