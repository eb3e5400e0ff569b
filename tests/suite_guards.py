"""Hooks that keep the suite honest, used by tests/conftest.py: every test folder is collected, and
under CI no TVM test is skipped."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


def _test_folders(tests: Path) -> set[Path]:
    return {p.parent for p in tests.rglob("test_*.py") if not any(part.startswith(".") for part in p.parts)}


@pytest.hookimpl(tryfirst=True)  # before -k/-m deselect anything
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A whole-suite run (no paths given) must collect tests from every folder holding test files:
    a folder pytest skips (it once skipped tests/build/) or a collection that silently breaks would
    otherwise leave its tests unrun while the suite stays green."""
    if config.args_source is not pytest.Config.ArgsSource.TESTPATHS:
        return
    root = config.rootpath
    collected = {Path(item.path).parent for item in items}
    missing = sorted(str(folder.relative_to(root)) for folder in _test_folders(root / "tests") - collected)
    if missing:
        raise pytest.UsageError(f"no test collected from {', '.join(missing)} (they hold test_*.py files)")


def _tvm_expected() -> bool:
    """CI installs TVM for the main interpreter; scripts/test reruns the suite under other Pythons
    without it and says so with TESTS_WITHOUT_TVM=1."""
    return os.environ.get("CI") == "true" and os.environ.get("TESTS_WITHOUT_TVM") != "1"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    """Under CI (CI=true) TVM is installed: a skipped `tvm` test means it did not run, which fails."""
    report: pytest.TestReport = yield
    under_ci = _tvm_expected()
    if report.skipped and under_ci and not hasattr(report, "wasxfail") and item.get_closest_marker("tvm") is not None:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        reason = reason.removeprefix("Skipped: ")
        report.outcome = "failed"
        report.longrepr = f"a test marked tvm was skipped under CI=true: {reason}"
    return report


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under CI the TVM integration tests must run: a module that skips itself at import (no TVM)
    never reaches the per-test check above, so check for the packages once, up front."""
    if not _tvm_expected():
        return
    for package in ("tvm", "onnx"):
        try:
            __import__(package)
        except ImportError as err:
            message = f"CI=true but {package} cannot be imported ({err}): the TVM tests would not run"
            raise pytest.UsageError(message) from None
