"""Every stage is linear in the size of its input (issue 14): validating 20,000 targets once took 89 s
because each structural finding was checked against every target. Each workload is run at n and 8n
through the CLI; 8x the input may cost up to 24x the time (noise, caches), while the quadratic
code this guards against cost 64x. Best of three runs, so a busy machine does not fail it."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from .harness import MODEL, run_cli

Workload = Callable[[Path, int], list[str]]


def _file(tmp: Path, name: str, text: str) -> str:
    path = tmp / name
    path.write_text(text)
    return str(path)


def empty_targets_json(tmp: Path, n: int) -> str:
    return _file(tmp, f"e{n}.json", json.dumps({"targets": [{}] * n}))


def integer_targets_toml(tmp: Path, n: int) -> str:
    return _file(tmp, f"i{n}.toml", "targets = [" + ",".join(["1"] * n) + "]\n")


def many_target_tables(tmp: Path, n: int) -> str:
    return _file(tmp, f"t{n}.toml", '[[targets]]\nkind = "llvm"\n' * n)


def many_pass_configs(tmp: Path, n: int) -> str:
    body = "".join(f'"x.option{i}" = {i}\n' for i in range(n))
    return _file(tmp, f"p{n}.toml", 'targets = ["llvm"]\n[pass-config]\n' + body)


WORKLOADS: dict[str, Workload] = {
    "validate-empty-targets": lambda t, n: ["config", "validate", empty_targets_json(t, n)],
    "validate-integer-targets": lambda t, n: ["config", "validate", integer_targets_toml(t, n)],
    "validate-target-tables": lambda t, n: ["config", "validate", many_target_tables(t, n)],
    "validate-pass-configs": lambda t, n: ["config", "validate", many_pass_configs(t, n)],
    "show-empty-targets": lambda t, n: ["config", "show", "--config", empty_targets_json(t, n)],
    "show-target-tables": lambda t, n: ["config", "show", "--config", many_target_tables(t, n)],
    "show-pass-configs": lambda t, n: ["config", "show", "--config", many_pass_configs(t, n)],
    "canonicalize": lambda t, n: ["target", "canonicalize", json.dumps({"kind": "llvm", "mattr": ["+avx2"] * n})],
    "migrate": lambda t, n: ["config", "migrate", "tvmc compile --target llvm " + "--disabled-pass x " * n + "m.onnx"],
    "emit-plan": lambda t, n: ["compile", str(MODEL), "--config", many_pass_configs(t, n), "--emit", "plan"],
}


def _seconds(argv: list[str]) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        run_cli(argv, report=argv[:2] == ["config", "validate"])
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize("stage", sorted(WORKLOADS))
def test_each_stage_grows_linearly(stage: str, tmp_path: Path) -> None:
    small, large = 500, 4000
    t_small = _seconds(WORKLOADS[stage](tmp_path, small))
    t_large = _seconds(WORKLOADS[stage](tmp_path, large))
    # The constant part (a few ms) is allowed on top, so tiny workloads do not fail on noise.
    assert t_large < 24 * t_small + 0.05, f"{stage}: n={small} {t_small:.3f} s, n={large} {t_large:.3f} s"
