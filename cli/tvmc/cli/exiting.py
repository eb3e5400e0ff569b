"""How every tvmc command ends (the console script's path and tvmc.cli.fast's): small, imported
without click."""

from __future__ import annotations

import atexit
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


def exit_now(code: str | int | None) -> NoReturn:
    """Exit as `sys.exit(code)` does, without the interpreter's teardown when that is safe.

    Tearing down frees every module and object one by one: ~15 ms per run, more than validating a
    hundred files. It is safe once the exit handlers have run and stdout/stderr are flushed, while no
    other Python thread runs and TVM is not loaded (its native code may hold buffered output and
    static destructors that only a normal exit runs)."""
    threading = sys.modules.get("threading")
    if "tvm" in sys.modules or (threading is not None and threading.active_count() > 1):
        sys.exit(code)
    if code is None or isinstance(code, int):
        status = code or 0
    else:  # what sys.exit does with a message
        sys.stderr.write(f"{code}\n")
        status = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # the reader went away (`| head`): end quietly
            pass
        except (OSError, ValueError) as err:  # a full disk; a stream closed by a handler
            if status == 0:  # an output error not reported yet
                try:
                    sys.stderr.write(f"tvmc: error: cannot write the output: {getattr(err, 'strerror', err)}\n")
                    sys.stderr.flush()
                except (OSError, ValueError):
                    pass
                status = 1
    os._exit(status & 0xFF)
