"""Builds and runs in a child process (issues 16 and 27): a native crash inside TVM (a segfault in a
codegen, an abort in LLVM, a SIGBUS loading a truncated library) becomes one line naming the stage,
never a core dump of tvmc.

The child (`python -m tvmc.backend.child JOB RESULT EVENTS_FD`) unpickles the job (`build` a plan, or
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

from tvmc.backend.plan import BuildPlan
from tvmc.backend.runner import BuildResult
from tvmc.errors import BuildError

CHILD = "tvmc.backend.child"
VERBOSE_HINT = "run with --verbose (or TVMC_VERBOSE=1) for TVM's output"


def _env() -> dict[str, str]:
    # The child imports the same tvmc as this process, whatever is installed. Its str hashes are
    # fixed (PYTHONHASHSEED=0): TVM's Python passes iterate sets and dicts, so a build is the same
    # build in every run (`compile --reproduce`), whatever the caller's seed.
    package_root = str(Path(__file__).resolve().parents[2])
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PYTHONPATH": package_root + (os.pathsep + path if path else ""), "PYTHONHASHSEED": "0"}


PREFIX = "tvmc-build-"
LOCK = ".lock"  # held (flock) by the process using the folder: an unlocked folder is abandoned


def remove_stale(directory: Path | None = None) -> list[Path]:
    """Remove the `tvmc-build-*` folders of this user that no live tvmc holds (a tvmc killed with
    SIGKILL leaves its folder, which may hold a built library). Whether a folder is abandoned is
    its lock, not whether a PID is alive here (a writer in another PID namespace has one we cannot
    see). A folder without a lock (an older tvmc's) is abandoned after a day."""
    import fcntl
    import shutil
    import stat
    import time

    removed = []
    folder = directory or Path(tempfile.gettempdir())
    try:
        entries = list(folder.glob(PREFIX + "*"))
    except OSError:
        return []
    for entry in entries:
        try:
            info = entry.lstat()
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
                continue  # never follow a link, never touch another user's folder
            lock = entry / LOCK
            if not lock.exists():
                if time.time() - info.st_mtime > 86400:
                    shutil.rmtree(entry, ignore_errors=True)
                    removed.append(entry)
                continue
            fd = os.open(lock, os.O_RDWR | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: a tvmc is using it
            os.close(fd)
            continue
        try:
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
        finally:
            os.close(fd)
    return removed


def _die_with_parent(parent: int) -> Callable[[], None]:
    """For the child, before it runs: die when tvmc dies (Linux's PR_SET_PDEATHSIG), so that a
    killed `tvmc compile` leaves no build running."""

    def setup() -> None:
        if sys.platform.startswith("linux"):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
        if os.getppid() != parent:  # tvmc died before the line above: nothing to run for
            os._exit(1)

    return setup


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
    import fcntl

    remove_stale()
    with tempfile.TemporaryDirectory(prefix=PREFIX) as tmp:
        lock = os.open(Path(tmp) / LOCK, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when this process ends, however it ends
        try:
            return _in_child(Path(tmp), job, on_stage, verbose, crashed, failed, child)
        finally:
            os.close(lock)


def _in_child(
    tmp: Path,
    job: tuple[str, dict[str, Any]],
    on_stage: Callable[[str], None],
    verbose: bool,
    crashed: Callable[[str, str], BuildError],
    failed: Callable[[str, str], BuildError],
    child: str,
) -> Any:
    """`call`'s work inside its locked folder `tmp`."""
    job_file, result_file = tmp / "job.pickle", tmp / "result.pickle"
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
            preexec_fn=_die_with_parent(os.getpid()),
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
        # ("error", text, from TVM, location): a TVM error's one line (--verbose shows all of it), and
        # the input at fault apart, so that the caller can tell which (an older child sent the text only)
        from_tvm = len(outcome) < 3 or outcome[2]
        where = outcome[3] if len(outcome) > 3 else None
        raise BuildError(
            outcome[1], where, hint="run with --verbose for TVM's full message" if from_tvm and not verbose else None
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
