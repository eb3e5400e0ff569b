"""Shared fixtures: TVM (imported once per session, skipped with a reason when absent)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .helpers import Outcome, plain


@pytest.fixture(scope="session")
def tvm_export() -> Callable[[Any], Outcome]:
    """`Target(x).export()` of the installed TVM as an outcome; skips when TVM is missing."""
    tvm_target = pytest.importorskip("tvm.target", reason="apache-tvm not installed")

    def run(spec: Any) -> Outcome:
        try:
            return "ok", plain(tvm_target.Target(spec).export())
        except Exception as err:  # ValueError, TVMError, InternalError...
            return "error", str(err)

    return run
