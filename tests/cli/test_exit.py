"""`tvmc.cli.app.exit_now`: the console script exits without the interpreter's teardown, and loses
nothing by it (output, exit code, exit handlers), unless a thread or TVM needs the normal exit."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from testkit import ROOT, cli_env


def env() -> dict[str, str]:
    """Built per call, after the autouse fixture has isolated os.environ."""
    return cli_env(TYPER_USE_RICH="0", NO_COLOR="1")


def python(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env(),
        cwd=tmp_path,
        timeout=60,
        check=False,
    )


def tvmc(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tvmc", *args],
        capture_output=True,
        text=True,
        env=env(),
        cwd=cwd,
        timeout=60,
        check=False,
    )


def test_buffered_output_and_exit_handlers_survive_the_fast_exit(tmp_path: Path) -> None:
    done = python(
        """
        import atexit, sys
        from tvmc.cli.app import exit_now
        atexit.register(lambda: open("handler-ran", "w").close())
        sys.stdout.write("x" * 100_000)  # more than one buffer's worth, the rest still buffered
        sys.stderr.write("last words")
        exit_now(3)
        """,
        tmp_path,
    )
    assert done.returncode == 3
    assert done.stdout == "x" * 100_000 and done.stderr == "last words"
    assert (tmp_path / "handler-ran").exists()


@pytest.mark.parametrize(
    ("code", "status", "stderr"), [(None, 0, ""), (0, 0, ""), (2, 2, ""), (256 + 7, 7, ""), ("bye", 1, "bye\n")]
)
def test_exit_codes_are_those_of_sys_exit(tmp_path: Path, code: object, status: int, stderr: str) -> None:
    done = python(f"from tvmc.cli.app import exit_now; exit_now({code!r})", tmp_path)
    assert (done.returncode, done.stderr) == (status, stderr)


# An object finalised only by the interpreter's teardown: its marker shows whether a teardown happened.
_TEARDOWN_PROBE = """
import sys, threading, time
from tvmc.cli.app import exit_now

class Probe:
    def __del__(self, write=__import__("os").write):  # bound now: the teardown clears globals
        write(2, b"torn-down")

probe = Probe()
{setup}
exit_now(0)
"""


def test_a_plain_run_skips_the_teardown(tmp_path: Path) -> None:
    done = python(_TEARDOWN_PROBE.format(setup=""), tmp_path)
    assert done.returncode == 0 and "torn-down" not in done.stderr


def test_a_running_thread_gets_the_normal_exit(tmp_path: Path) -> None:
    setup = "threading.Thread(target=lambda: (time.sleep(0.2), open('thread-done', 'w').close())).start()"
    done = python(_TEARDOWN_PROBE.format(setup=setup), tmp_path)
    assert done.returncode == 0 and done.stderr == "torn-down"
    assert (tmp_path / "thread-done").exists()


def test_a_loaded_tvm_gets_the_normal_exit(tmp_path: Path) -> None:
    setup = "import types; sys.modules['tvm'] = types.ModuleType('tvm')"  # stands for TVM, loaded
    done = python(_TEARDOWN_PROBE.format(setup=setup), tmp_path)
    assert done.returncode == 0 and done.stderr == "torn-down"


def test_the_console_script_keeps_its_output_and_exit_codes(tmp_path: Path) -> None:
    schema = tvmc("config", "schema", cwd=tmp_path)
    assert schema.returncode == 0
    assert schema.stdout == (ROOT / "schemas" / "compilation-config.schema.json").read_text()
    (tmp_path / "good.toml").write_text('targets = ["llvm"]\n')
    (tmp_path / "bad.toml").write_text('targets = ["llvm"]\nopt-level = 9\n')
    assert tvmc("config", "validate", "good.toml", cwd=tmp_path).returncode == 0
    bad = tvmc("config", "validate", "good.toml", "bad.toml", cwd=tmp_path)
    assert bad.returncode == 1 and bad.stdout.startswith("bad.toml:2:")
    assert "checked 2 files: 1 valid, 1 invalid" in bad.stderr
    usage = tvmc("config", "validate", "--format", "nope", "good.toml", cwd=tmp_path)
    assert usage.returncode == 2 and "Traceback" not in usage.stderr
