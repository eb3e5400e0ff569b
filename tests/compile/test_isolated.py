"""The build runs in a child process (issue 16): a native crash is one line naming the stage and the
target; an error keeps its one line; --verbose shows what the child printed. No TVM needed: stub
children stand in for the build."""

from __future__ import annotations

from pathlib import Path

import pytest
from tvmc import api
from tvmc.backend import isolated
from tvmc.backend.model import model_spec
from tvmc.backend.plan import plan_build
from tvmc.errors import BuildError

CRASH = """
import os, signal, sys
events = os.fdopen(int(sys.argv[3]), "w", buffering=1)
events.write("build\\n")
print("native noise before the crash", flush=True)
os.kill(os.getpid(), signal.SIGSEGV)
"""
FAIL = """
import pickle, sys
with open(sys.argv[2], "wb") as f:
    pickle.dump(("error", "import failed: ValueError: bad model"), f)
"""
EXIT = """
import sys
print("a last line about what went wrong")
sys.exit(3)
"""


@pytest.fixture
def plan() -> object:
    resolved = api.resolve(["aws/c5"], [], env={})
    return plan_build(resolved.config, resolved.origins, model_spec("m.onnx", None, None))


def stub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, code: str) -> str:
    (tmp_path / f"{name}.py").write_text(code)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    return name


def test_a_segfault_is_one_line_naming_the_stage_and_target(
    plan: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stages: list[str] = []
    with pytest.raises(BuildError) as err:
        isolated.build(plan, stages.append, child=stub(tmp_path, monkeypatch, "crashy", CRASH))  # type: ignore[arg-type]
    assert err.value.one_line().startswith("compile: TVM crashed (SIGSEGV) in the build stage building for 'llvm';")
    assert stages == ["build"] and "--verbose" in (err.value.hint or "")
    assert "native noise" not in capsys.readouterr().err  # only with --verbose


def test_verbose_shows_the_childs_output(
    plan: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(BuildError):
        isolated.build(plan, verbose=True, child=stub(tmp_path, monkeypatch, "crashy2", CRASH))  # type: ignore[arg-type]
    assert "native noise before the crash" in capsys.readouterr().err


def test_an_error_keeps_its_line(plan: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(BuildError, match=r"^import failed: ValueError: bad model; run with --verbose"):
        isolated.build(plan, child=stub(tmp_path, monkeypatch, "failing", FAIL))  # type: ignore[arg-type]


def test_an_exit_without_a_result_names_its_last_line(
    plan: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(BuildError, match="a last line about what went wrong"):
        isolated.build(plan, child=stub(tmp_path, monkeypatch, "exiting", EXIT))  # type: ignore[arg-type]


def test_the_line_that_says_what_went_wrong_is_kept() -> None:
    from tvmc.backend.runner import short

    link = RuntimeError(
        "Compilation error:\n/usr/bin/ld: lib0.o: Relocations in generic ELF (EM: 183)\n"
        "/usr/bin/ld: lib0.o: error adding symbols: file in wrong format\n"
        "collect2: error: ld returned 1 exit status\n\nCommand line: /usr/bin/g++ -shared -o lib.so lib0.o"
    )
    assert short(link) == "RuntimeError: /usr/bin/ld: lib0.o: error adding symbols: file in wrong format"
    assert short(ValueError("one line")) == "ValueError: one line"
    assert short(ValueError("first\nsecond")) == "ValueError: second"


def test_a_crash_names_the_configs_built(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`compile --config X` that crashes TVM says which configs it was building (no TVM needed)."""
    from tvmc import api
    from tvmc.backend import frontends, isolated, preflight, runner

    def crash(
        plan: object, on_stage: object = None, verbose: bool = False, manifest_base: object = None
    ) -> runner.BuildResult:
        raise BuildError("TVM crashed (SIGSEGV) in the build stage building for 'llvm'", "compile")

    monkeypatch.setattr(runner, "require_tvm", lambda: None)
    monkeypatch.setattr(preflight, "will_not_run_here", lambda target: [])
    monkeypatch.setattr(preflight, "no_runtime_here", lambda target: [])
    monkeypatch.setattr(frontends, "check_available", lambda spec: None)
    monkeypatch.setattr(isolated, "build", crash)
    model = Path(__file__).resolve().parents[2] / "models" / "mlp.onnx"
    with pytest.raises(BuildError) as err:
        api.compile(model, ["host/default"], output=tmp_path / "x.so")
    assert err.value.one_line().startswith(
        "compile: TVM crashed (SIGSEGV) in the build stage building for 'llvm' (--config host/default)"
    )


def test_an_abandoned_build_folder_is_removed_by_the_next_run(tmp_path: Path) -> None:
    """Issue 27: a tvmc killed mid-build leaves its tvmc-build-* folder; the next one removes it, judged
    by its lock (held by a live tvmc, in any PID namespace), never a folder in use or someone else's link."""
    import fcntl
    import os

    abandoned = tmp_path / f"{isolated.PREFIX}dead"
    abandoned.mkdir()
    (abandoned / isolated.LOCK).touch()
    (abandoned / "result.pickle").write_bytes(b"a built library")
    in_use = tmp_path / f"{isolated.PREFIX}live"
    in_use.mkdir()
    held = os.open(in_use / isolated.LOCK, os.O_RDWR | os.O_CREAT)
    fcntl.flock(held, fcntl.LOCK_EX)
    other = tmp_path / "elsewhere"
    other.mkdir()
    (tmp_path / f"{isolated.PREFIX}link").symlink_to(other)
    try:
        assert isolated.remove_stale(tmp_path) == [abandoned]
    finally:
        os.close(held)
    assert not abandoned.exists() and in_use.is_dir() and other.is_dir()


SLEEPER = """
import os, sys, time
with open(os.environ["PID_FILE"] + ".part", "w") as f:
    f.write(str(os.getpid()))
os.replace(os.environ["PID_FILE"] + ".part", os.environ["PID_FILE"])
time.sleep(120)
"""
PARENT = """
from tvmc.backend import isolated
from tvmc.errors import BuildError
isolated.call(("build", {}), on_stage=print, verbose=False, crashed=BuildError, failed=BuildError, child="sleeper")
"""


def test_a_killed_tvmc_leaves_no_build_running(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    from testkit import cli_env

    (tmp_path / "sleeper.py").write_text(SLEEPER)
    pid_file = tmp_path / "child.pid"
    env = cli_env(PID_FILE=str(pid_file), TMPDIR=str(tmp_path))
    env["PYTHONPATH"] += os.pathsep + str(tmp_path)
    parent = subprocess.Popen([sys.executable, "-c", PARENT], env=env, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not pid_file.exists():
            assert time.monotonic() < deadline and parent.poll() is None, "the child did not start"
            time.sleep(0.1)
        child = int(pid_file.read_text())
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        while _alive(child):
            assert time.monotonic() < deadline, "the build child outlived its tvmc"
            time.sleep(0.1)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if pid_file.exists() and _alive(int(pid_file.read_text())):  # this test's failure: stop what it started
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
    assert [p.name for p in tmp_path.glob(f"{isolated.PREFIX}*")] != []  # left behind: SIGKILL runs no cleanup
    assert isolated.remove_stale(tmp_path) != [] and not list(tmp_path.glob(f"{isolated.PREFIX}*"))


def _alive(pid: int) -> bool:
    """Running (not a zombie waiting for a parent that no longer reaps it)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status
