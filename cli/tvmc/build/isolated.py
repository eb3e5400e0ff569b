"""The build in a child process (issue 16): a native crash inside TVM (a segfault in a codegen, an
abort in LLVM) becomes one line naming the stage and the target, never a core dump of tvmc.

The child (`python -m tvmc.build.child PLAN RESULT EVENTS_FD`) unpickles the plan, runs
`runner.run`, reports each stage on the EVENTS_FD pipe (TVM's own stdout and stderr stay apart,
shown with --verbose) and pickles the result, or the error's one line, to RESULT.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from tvmc.build.plan import BuildPlan
from tvmc.build.runner import BuildResult
from tvmc.errors import BuildError

CHILD = "tvmc.build.child"


def _env() -> dict[str, str]:
    # The child imports the same tvmc as this process, whatever is installed.
    package_root = str(Path(__file__).resolve().parents[2])
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PYTHONPATH": package_root + (os.pathsep + path if path else "")}


def build(
    plan: BuildPlan,
    on_stage: Callable[[str], None] = lambda _stage: None,
    *,
    verbose: bool = False,
    child: str = CHILD,
) -> BuildResult:
    """`runner.run(plan)` in a child process; BuildError for its errors and for its crashes."""
    with tempfile.TemporaryDirectory(prefix="tvmc-build-") as tmp:
        plan_file, result_file = Path(tmp) / "plan.pickle", Path(tmp) / "result.pickle"
        plan_file.write_bytes(pickle.dumps(plan))
        events_read, events_write = os.pipe()
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", child, str(plan_file), str(result_file), str(events_write)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                pass_fds=(events_write,),
                env=_env(),
            )
        finally:
            os.close(events_write)
        stage = "start-up"
        with os.fdopen(events_read, "r", encoding="utf-8") as events:
            for line in events:
                stage = line.strip() or stage
                on_stage(stage)
        output, _ = proc.communicate()
        log = output.decode("utf-8", "replace")
        if verbose and log:
            sys.stderr.write(log if log.endswith("\n") else log + "\n")
        if proc.returncode < 0:
            name = signal.Signals(-proc.returncode).name
            raise BuildError(
                f"TVM crashed ({name}) in the {stage} stage building for {plan.target.get('kind')!r}",
                "compile",
                hint="run with --verbose (or TVMC_VERBOSE=1) for TVM's output",
            )
        if not result_file.is_file():
            last = next((x for x in reversed(log.splitlines()) if x.strip()), f"exit status {proc.returncode}")
            raise BuildError(f"the build failed in the {stage} stage: {last.strip()}", "compile")
        outcome = pickle.loads(result_file.read_bytes())
    if outcome[0] == "missing":
        raise BuildError(outcome[1], None)
    if outcome[0] == "error":
        raise BuildError(outcome[1], None, hint="run with --verbose for TVM's full message" if not verbose else None)
    result: BuildResult = outcome[1]
    return result
