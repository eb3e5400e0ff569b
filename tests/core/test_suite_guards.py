"""The suite's own guards fail loudly: an uncollected test folder, a TVM test skipped under CI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _pytest(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_test_folder_left_out_of_collection_fails_the_run() -> None:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    proc = _pytest("--collect-only", "--ignore=tests/compile", cwd=ROOT, env=env)
    assert proc.returncode != 0
    assert "no test collected from tests/compile" in proc.stdout + proc.stderr


def test_a_tvm_test_skipped_under_ci_fails(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'tests')!r})\n"
        "from suite_guards import pytest_collection_modifyitems, pytest_runtest_makereport\n"
    )
    (tmp_path / "test_x.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.tvm\ndef test_needs_tvm():\n    pytest.skip('apache-tvm is not installed')\n\n"
        "def test_other():\n    pytest.skip('not about TVM')\n"
    )
    args = ("-o", "markers=tvm: needs TVM", str(tmp_path))
    base = {k: v for k, v in os.environ.items() if k != "TESTS_WITHOUT_TVM"}
    outside_ci = _pytest(*args, cwd=tmp_path, env={**base, "CI": "false"})
    assert outside_ci.returncode == 0 and "2 skipped" in outside_ci.stdout, outside_ci.stdout
    under_ci = _pytest(*args, cwd=tmp_path, env={**base, "CI": "true"})
    assert under_ci.returncode == 1, under_ci.stdout
    assert "1 failed, 1 skipped" in under_ci.stdout
    assert "a test marked tvm was skipped under CI=true: apache-tvm is not installed" in under_ci.stdout
    # scripts/test's reruns under other Pythons have no TVM on purpose, and say so.
    without_tvm = _pytest(*args, cwd=tmp_path, env={**base, "CI": "true", "TESTS_WITHOUT_TVM": "1"})
    assert without_tvm.returncode == 0 and "2 skipped" in without_tvm.stdout, without_tvm.stdout
