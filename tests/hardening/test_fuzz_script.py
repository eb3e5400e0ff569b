"""scripts/fuzz.py: a short real run, and what a worker reports when a property breaks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import strategies as st
from testkit import load_script

from . import properties
from .harness import ROOT


def test_a_short_run_finds_nothing_and_leaves_nothing_behind(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "fuzz.py"), "--cases", "40", "--seed", "1", "--surface", "targets"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "TMPDIR": str(scratch)},
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "seed 1: nothing found" in proc.stdout and "target-cli:" in proc.stdout
    assert list(scratch.iterdir()) == []


def test_a_worker_collects_each_distinct_failure_with_its_smallest_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def check(n: int) -> None:
        if n >= 1000:
            raise ValueError("too big")
        assert n % 7, "a multiple of 7"

    broken = properties.Property("broken", "targets", st.integers(0, 10**6), check)
    stand_in = ModuleType("tests.hardening.properties")  # the name the worker imports
    stand_in.PROPERTIES = (broken,)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tests.hardening.properties", stand_in)
    out = tmp_path / "report.json"
    load_script("fuzz").run_worker("broken", 300, 1, out)
    report = json.loads(out.read_text())
    assert report["cases"] == 300
    found = report["found"]
    assert len(found) == 2 and "AssertionError: a multiple of 7" in found  # grouped by message
    assert any(key.startswith("ValueError at test_fuzz_script.py:") for key in found)  # by where it was raised
    assert all(item["count"] >= 1 and item["input"] for item in found.values())
    assert int(found["AssertionError: a multiple of 7"]["input"]) % 7 == 0
