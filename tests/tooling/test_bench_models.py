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


def test_a_tuned_row_says_when_compile_built_untuned(bench: ModuleType) -> None:
    """compile's tuning line decides the row's label: a verdict's loss, or no record, is no tuning."""
    built = "tvmc: built m.so\n  config  host/native\n  tuning  2 of 2 kernels from tuning records, database db/fp\n"
    assert bench.tuning_line(built) == "2 of 2 kernels from tuning records, database db/fp"
    assert bench.tuned_label(8, bench.tuning_line(built)) == "tuned 8"
    for line in (
        "not applied: the tuned library lost to the untuned one (0.82x, db/fp)",
        "no records for target fingerprint 9cee in db (the untuned library works but is not fast: …)",
        "0 of 2 kernels from tuning records, database db/fp",
        "",
    ):
        assert bench.tuned_label(8, line) == "tuned 8 = untuned", line


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("fused_conv2d1_add1_relu", "conv"),
        ("FusedConv", "conv"),
        ("fused_matmul1_add1_relu1", "matmul/gemm"),
        ("FusedGemm", "matmul/gemm"),
        ("fused_layer_norm1", "norm"),
        ("LayerNormalization", "norm"),
        ("softmax", "softmax"),
        ("mean", "reduce/pool"),
        ("GlobalAveragePool", "reduce/pool"),
        ("fused_multiply_erf_add2_multiply1", "elementwise"),
        ("Erf", "elementwise"),
        ("fused_transpose_reshape", "layout"),
        ("ReorderOutput", "layout"),
        ("vm.builtin.alloc_storage", "vm builtin"),
        ("something_else", "other"),
    ],
)
def test_kernels_are_grouped_by_kind(bench: ModuleType, name: str, kind: str) -> None:
    assert bench.kind_of(name) == kind


def test_kernels_mode_profiles_tvmc_against_onnx_runtime(tmp_path: Path) -> None:
    """--kernels on the shipped MLP (untuned: quick): per kind, tvmc's kernels from the VM's hook next
    to ONNX Runtime's nodes from its profiler, with totals that add up, and the slowest of each."""
    flags = ["--quick", "--kernels", "--keep", str(tmp_path), "--profile-runs", "5", "--profile-rounds", "3"]
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_models.py"), *flags],
        capture_output=True,
        text=True,
        timeout=600,
        env=cli_env(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("== mlp kernels: us per call"))
    assert "3 rounds of 5 calls" in lines[start] and "1 thread, 15 calls" in lines[start]
    assert lines[start + 1].split() == ["kind", "tvmc", "untuned", "onnxruntime", "1T"]
    rows: dict[str, list[tuple[float, int]]] = {}
    index = start + 2
    while not lines[index].startswith("  total"):
        kind, cells = lines[index][2:15].strip(), re.findall(r"([0-9.]+) \((\d+)\)", lines[index])
        rows[kind] = [(float(us), int(count)) for us, count in cells]
        index += 1
    totals = [float(x) for x in lines[index].split()[1:]]
    assert set(rows) <= set(load_script("bench_models").KINDS) and "matmul/gemm" in rows
    for column, total in enumerate(totals):
        assert total == pytest.approx(sum(r[column][0] for r in rows.values()), abs=0.1 * len(rows))
    # the MLP's two Gemm+Relu: two fused matmul kernels in tvmc, two FusedGemm nodes in ONNX Runtime
    assert [count for _us, count in rows["matmul/gemm"]] == [2, 2]
    assert all(us > 0 for us, _count in rows["matmul/gemm"])
    assert lines[index + 1].startswith("  / ORT total") and lines[index + 1].split()[-1] == "1.00x"
    assert lines[index + 2].startswith("  timed")
    slowest = [line for line in lines if line.startswith("  slowest, ")]
    assert [line.split(":")[0] for line in slowest] == ["  slowest, tvmc untuned", "  slowest, onnxruntime 1T"]
    assert "[matmul/gemm]" in slowest[1]
