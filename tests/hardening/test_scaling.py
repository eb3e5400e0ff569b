"""Scale: resolving grows linearly with `extends` files and rewrites (the workload of
scripts/bench_startup.py). Quadratic bookkeeping once made 1000 rewrites of a growing list, or
merging thousands of keys, cost seconds to minutes."""

from __future__ import annotations

from types import ModuleType

import pytest
from testkit import load_script
from tvmc import api


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_script("bench_startup")


def test_the_workload_means_what_it_says(bench: ModuleType, tmp_path: pytest.TempPathFactory) -> None:
    top = bench.write_configs(tmp_path, 300, 100)
    resolved = api.resolve([str(top)], bench.rewrite_flags(1000), env={})
    assert len(resolved.tree.inputs) == 300
    config = resolved.config
    assert len(config.targets[0]["mattr"]) == 200 and config.targets[0]["mcpu"] == bench.cpu_name(996)
    assert sum(1 for k in config.pass_config["tirx.UnrollLoop"] if k.startswith("rw")) == 200


# The 100 ms goal for a 100-deep chain with 1000 rewrites is measured by scripts/bench_startup.py;
# tests only guard the growth rate, which does not depend on how busy the machine is.


@pytest.mark.parametrize(("what", "small", "large"), [("files", 100, 1000), ("rewrites", 300, 3000)])
def test_cost_grows_linearly(bench: ModuleType, what: str, small: int, large: int) -> None:
    def cost(n: int) -> float:
        return float(bench.resolve_ms(n, min(n, 100), 0, 3) if what == "files" else bench.resolve_ms(1, 1, n, 3))

    a, b = cost(small), cost(large)
    # 10x the input: about 10x the time; the quadratic code this guards against took 30-100x.
    assert b < 20 * a, f"{what}: {small} → {a:.1f} ms, {large} → {b:.1f} ms"
