"""The invariants every hardening property checks, and the guard that turns a hang into a failure.

Core calls may raise only `TvmcError`s, whose one-line message names where the input came from.
CLI runs (through typer's CliRunner) may exit only 0, 1 or 2, never with an exception or a
traceback, and every line they write to stderr is a `tvmc:` message (or click's usage block).
"""

from __future__ import annotations

import atexit
import faulthandler
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from click.testing import Result
from tvmc.errors import TvmcError
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "mlp.onnx"
CASE_SECONDS = float(os.environ.get("HARDENING_CASE_SECONDS", "10"))
T = TypeVar("T")


class CaseTimeout(Exception):
    """One case ran longer than `CASE_SECONDS`: tvmc hangs (or is pathologically slow) on it."""


@contextmanager
def time_limit(seconds: float = CASE_SECONDS) -> Iterator[None]:
    """Fail a case that runs too long. SIGALRM interrupts Python code; faulthandler is the backstop
    for code stuck inside C (a regex), where it dumps the stacks and ends the process."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(_signum: int, _frame: Any) -> None:
        raise CaseTimeout(f"no result after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    faulthandler.dump_traceback_later(seconds * 6, exit=True)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        faulthandler.cancel_dump_traceback_later()


def check_error(err: TvmcError, source: str | None = None) -> None:
    """A reported error: exit code 1 or 2, one line, and (when given) naming `source`."""
    text = err.one_line()
    assert err.exit_code in (1, 2), f"exit code {err.exit_code}: {text}"
    assert "\n" not in text and "\r" not in text, f"message is not one line: {text!r}"
    if source is not None:
        assert source in text, f"message does not name {source!r}: {text!r}"


def core(call: Callable[[], T], source: str | None = None) -> T | TvmcError:
    """Run a core call: its result, or the `TvmcError` it raised (checked). Anything else escapes."""
    with time_limit():
        try:
            return call()
        except TvmcError as err:
            check_error(err, source)
            return err


_RUNNER = CliRunner()


def run_cli(args: Sequence[str], stdin: str | None = None, *, report: bool = False) -> Result:
    """Run `tvmc ARGS` in-process and check the CLI invariants; the result for further checks.
    `report`: the command reports problems on stdout (`config validate`), not as `tvmc: error:`."""
    from tvmc.cli.app import app

    with time_limit():
        result = _RUNNER.invoke(app, list(args), input=stdin, catch_exceptions=True)
    check_cli(result, args, report=report)
    return result


def check_cli(result: Result, args: Sequence[str], *, report: bool = False) -> None:
    exc = result.exception
    if isinstance(exc, CaseTimeout):
        raise exc
    if exc is not None and not isinstance(exc, SystemExit):
        raise AssertionError(f"tvmc {list(args)!r}: {type(exc).__name__} escaped: {exc}") from exc
    check_output(result.exit_code, result.stdout, result.stderr, args, report=report)


def check_output(code: int, stdout: str, stderr: str, args: Sequence[str], *, report: bool = False) -> None:
    """The output invariants, shared by in-process and subprocess runs."""
    where = f"tvmc {list(args)!r} exited {code}"
    assert code in (0, 1, 2), f"{where}; stderr: {stderr[-500:]!r}"
    assert "Traceback (most recent call last)" not in stdout + stderr, f"{where} with a traceback: {stderr!r}"
    lines = [line for line in stderr.split("\n") if line]
    if any(line.startswith("Error: ") for line in lines):  # click's usage-error block
        assert code == 2, f"{where} but printed a usage error: {stderr!r}"
        return
    assert all(line.startswith("tvmc: ") for line in lines), f"{where}; stray stderr line: {stderr!r}"
    if code == 1 and report:
        reported = ": error: " in stdout or "\n::error " in "\n" + stdout  # text or github format
        assert reported, f"{where} without reporting an error: {stdout[-500:]!r}"
    elif code != 0:
        assert any(line.startswith("tvmc: error: ") for line in lines), f"{where} without an error: {stderr!r}"


_WORKDIR: Path | None = None


def workdir() -> Path:
    """A per-process scratch directory for generated config files, removed at exit."""
    global _WORKDIR
    if _WORKDIR is None:
        _WORKDIR = Path(tempfile.mkdtemp(prefix="tvmc-hardening-"))
        atexit.register(shutil.rmtree, _WORKDIR, True)
    return _WORKDIR
