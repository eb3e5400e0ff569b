"""scripts/bench_models.py (issue 29) in its quickest mode, so that it cannot rot: the shipped MLP,
untuned, against ONNX Runtime; every library's outputs checked, every ratio printed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from testkit import cli_env, load_script

pytestmark = pytest.mark.tvm
pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -e '.[tvm]')")
pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (pip install -e '.[test]')")

ROOT = Path(__file__).resolve().parents[2]


def test_quick_run_checks_and_prints_ratios(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_models.py"), "--quick", "--keep", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        env=cli_env(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {
        m[1]: m
        for m in re.finditer(r"^  (\S+ ?\S*)\s+([0-9.]+) (us|ms)\s+([0-9.]+)x ORT-1T.*check (\S+)$", done.stdout, re.M)
    }
    assert set(rows) == {"onnxruntime 1T", "onnxruntime 2T", "tvm relax.build", "tvmc untuned"}, done.stdout
    assert all(row[5] == "ok" for row in rows.values())
    assert float(rows["onnxruntime 1T"][4]) == 1.0
    assert re.search(r"untuned / TVM relax.build: [0-9.]+", done.stdout)


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_script("bench_models")


@pytest.mark.parametrize("name", ["resnet", "mobilenet", "transformer", "mlp-large"])
def test_generated_models_are_valid_and_fixed(bench: ModuleType, name: str) -> None:
    first, second = bench.GENERATED[name](), bench.GENERATED[name]()
    assert first.SerializeToString() == second.SerializeToString()  # fixed weights: the same bytes
    ops = {node.op_type for node in first.graph.node}
    expected = {"resnet": {"BatchNormalization", "Add"}, "mobilenet": {"Conv"}, "transformer": {"Erf", "Softmax"}}
    assert expected.get(name, {"Gemm"}) <= ops
