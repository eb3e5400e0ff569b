"""The child process of `isolated.build`: run one plan, report stages, pickle the outcome."""

from __future__ import annotations

import os
import pickle
import sys

from tvmc.build import runner
from tvmc.deps import MissingPackageError
from tvmc.errors import TvmcError


def main(plan_file: str, result_file: str, events_fd: str) -> None:
    events = os.fdopen(int(events_fd), "w", encoding="utf-8", buffering=1)

    def on_stage(stage: str) -> None:
        events.write(stage + "\n")

    with open(plan_file, "rb") as source:
        plan = pickle.load(source)
    try:
        outcome: tuple[str, object] = ("ok", runner.run(plan, on_stage=on_stage))
    except MissingPackageError as err:  # its hint is the whole fix: no TVM output to show
        outcome = ("missing", err.one_line())
    except TvmcError as err:
        outcome = ("error", err.one_line())
        if err.__cause__ is not None:  # TVM's whole message: the parent shows it with --verbose
            print(f"{type(err.__cause__).__name__}: {err.__cause__}", file=sys.stderr, flush=True)
    with open(result_file + ".part", "wb") as sink:
        pickle.dump(outcome, sink)
    os.replace(result_file + ".part", result_file)
    events.close()


if __name__ == "__main__":
    main(*sys.argv[1:4])
