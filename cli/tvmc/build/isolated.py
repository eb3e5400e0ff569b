"""Builds and runs in a child process (issues 16 and 27): a native crash inside TVM (a segfault in a
codegen, an abort in LLVM, a SIGBUS loading a truncated library) becomes one line naming the stage,
never a core dump of tvmc.

The child (`python -m tvmc.build.child JOB RESULT EVENTS_FD`) unpickles the job (`build` a plan, or
`run` a library), reports each stage on the EVENTS_FD pipe (TVM's own stdout and stderr stay apart,
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
from typing import Any

from tvmc.build.plan import BuildPlan
from tvmc.build.runner import BuildResult
from tvmc.errors import BuildError

CHILD = "tvmc.build.child"
VERBOSE_HINT = "run with --verbose (or TVMC_VERBOSE=1) for TVM's output"


def _env() -> dict[str, str]:
    # The child imports the same tvmc as this process, whatever is installed.
    package_root = str(Path(__file__).resolve().parents[2])
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PYTHONPATH": package_root + (os.pathsep + path if path else "")}


def call(
    job: tuple[str, dict[str, Any]],
    *,
    on_stage: Callable[[str], None],
    verbose: bool,
    crashed: Callable[[str, str], BuildError],
    failed: Callable[[str, str], BuildError],
    child: str = CHILD,
) -> Any:
    """Run `job` in a child process and return its result. `crashed(signal name, stage)` and
    `failed(last line of its output, stage)` make the errors of a child that died or ended
    without a result; an error the job raised comes back as a BuildError with its one line."""
    with tempfile.TemporaryDirectory(prefix="tvmc-build-") as tmp:
        job_file, result_file = Path(tmp) / "job.pickle", Path(tmp) / "result.pickle"
        job_file.write_bytes(pickle.dumps(job))
        events_read, events_write = os.pipe()
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", child, str(job_file), str(result_file), str(events_write)],
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
            raise crashed(signal.Signals(-proc.returncode).name, stage)
        if not result_file.is_file():
            last = next((x for x in reversed(log.splitlines()) if x.strip()), f"exit status {proc.returncode}")
            raise failed(last.strip(), stage)
        outcome = pickle.loads(result_file.read_bytes())
    if outcome[0] == "error":
        from_tvm = len(outcome) < 3 or outcome[2]  # the one line of a TVM error: --verbose shows all of it
        raise BuildError(
            outcome[1], None, hint="run with --verbose for TVM's full message" if from_tvm and not verbose else None
        )
    return outcome[1]


def build(
    plan: BuildPlan,
    on_stage: Callable[[str], None] = lambda _stage: None,
    *,
    verbose: bool = False,
    child: str = CHILD,
    manifest_base: dict[str, Any] | None = None,
) -> BuildResult:
    """`runner.run(plan)` in a child process; BuildError for its errors and for its crashes."""

    def crashed(name: str, stage: str) -> BuildError:
        return BuildError(
            f"TVM crashed ({name}) in the {stage} stage building for {plan.target.get('kind')!r}",
            "compile",
            hint=VERBOSE_HINT,
        )

    def failed(last: str, stage: str) -> BuildError:
        return BuildError(f"the build failed in the {stage} stage: {last}", "compile")

    result: BuildResult = call(
        ("build", {"plan": plan, "manifest_base": manifest_base}),
        on_stage=on_stage,
        verbose=verbose,
        crashed=crashed,
        failed=failed,
        child=child,
    )
    return result
