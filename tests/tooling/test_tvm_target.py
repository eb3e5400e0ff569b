"""`tvmc.emit.tvm_target`: the config as the one JSON `tvm.target.Target(...)` takes (TVM >= 0.25)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tvmc import api, sources
from tvmc.emit.tvm_target import to_tvm_target, to_tvm_target_text
from tvmc.errors import TargetError
from tvmc.targets import env_dependent_keys, is_legacy

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
CATALOGUE = [e.name for e in sources.list_configs([sources.SearchDir(CONFIGS, "shipped")])]


def _modern(name: str) -> bool:
    config = api.resolve([name]).config
    return not any(is_legacy(t) for t in (*config.targets, config.host))


MODERN = [name for name in CATALOGUE if _modern(name)]


def test_a_device_target_carries_its_host() -> None:
    target, dropped = to_tvm_target(api.resolve(["nvidia/jetson-nano"]).config)
    assert target["kind"] == "cuda" and target["arch"] == "sm_53"
    assert target["host"]["mcpu"] == "cortex-a57"
    assert dropped == [
        "opt-level = 3: not part of a TVM target; use tvm.transform.PassContext(opt_level=3)",
        'build.cross-compiler = "aarch64-linux-gnu-gcc": a build option, not part of a TVM target',
    ]


def test_a_cpu_target_is_its_own_host() -> None:
    target, _ = to_tvm_target(api.resolve(["aws/c5"]).config)
    assert "host" not in target and target["mcpu"] == "skylake-avx512"  # TVM's default host: the target


def test_several_devices_make_a_composite_target() -> None:
    config = api.resolve(
        [],
        [
            ("--target", "nvidia/nvidia-a100"),
            ("--target", "opencl"),
            ("--target-host", "llvm -mtriple=x86_64-linux-gnu"),
        ],
    ).config
    target, _ = to_tvm_target(config)
    assert target["kind"] == "composite" and set(target) == {"kind", "devices", "host"}
    assert [d["kind"] for d in target["devices"]] == ["cuda", "opencl"]
    assert all("host" not in d for d in target["devices"]) and target["host"]["mtriple"] == "x86_64-linux-gnu"


def test_compiler_specialisations_are_reported_not_emitted() -> None:
    cutlass = '{"kind": "cuda", "arch": "sm_80", "compiler": "cutlass"}'
    config = api.resolve([], [("--target", "nvidia/nvidia-a100"), ("--target", cutlass)]).config
    target, dropped = to_tvm_target(config)
    assert target["kind"] == "cuda" and "compiler" not in target
    assert dropped[0] == (
        "targets[1].compiler = 'cutlass': a TVM target has no BYOC compiler; partition the "
        "module with tvm.relax.backend.cuda.cutlass.partition_for_cutlass"
    )


def test_what_a_target_cannot_hold_is_reported() -> None:
    target, dropped = to_tvm_target(api.resolve(["boards/stm32f746-disco"]).config)
    assert target["kind"] == "c" and target["mcpu"] == "cortex-m7"
    assert [line.split(" = ")[0] for line in dropped] == [
        "executor",
        "runtime",
        "pass-config",
        "opt-level",
        "build.output-format",
    ]
    assert "relay.build" in dropped[0]


def test_legacy_kinds_cannot_be_a_modern_target() -> None:
    with pytest.raises(TargetError, match=r"'ethos-u' was removed after TVM 0\.18"):
        to_tvm_target(api.resolve(["boards/corstone-300"]).config)


def test_text_is_sorted_json() -> None:
    text, _ = to_tvm_target_text(api.resolve(["aws/c5"]).config)
    assert text.endswith("}\n") and json.loads(text) == to_tvm_target(api.resolve(["aws/c5"]).config)[0]
    assert list(json.loads(text)) == sorted(json.loads(text))


def _without(tree: dict[str, Any], paths: tuple[tuple[str | int, ...], ...]) -> dict[str, Any]:
    out = json.loads(json.dumps(tree))
    for path in paths:
        node = out
        for step in path[:-1]:
            node = node.get(step, {}) if isinstance(node, dict) else {}
        if isinstance(node, dict):
            node.pop(str(path[-1]), None)
    return out


@pytest.mark.tvm
@pytest.mark.parametrize("name", MODERN)
def test_tvm_accepts_it_and_means_the_same(name: str) -> None:
    tvm_target = pytest.importorskip("tvm.target", reason="apache-tvm not installed")
    target, _ = to_tvm_target(api.resolve([name]).config)
    built = tvm_target.Target(json.dumps(target))
    if target["kind"] == "composite":
        devices = [json.loads(str(d)) for d in built.attrs["devices"]]
        assert [d["kind"] for d in devices] == [d["kind"] for d in target["devices"]]
        return
    exported = json.loads(str(built))  # TVM >= 0.24 prints a target as its JSON
    assert _without(exported, env_dependent_keys(target)) == target


@pytest.mark.tvm
def test_tvm_accepts_a_composite_target() -> None:
    tvm_target = pytest.importorskip("tvm.target", reason="apache-tvm not installed")
    config = api.resolve(
        [],
        [
            ("--target", "nvidia/nvidia-a100"),
            ("--target", "qcom/adreno-opencl"),
            ("--target-host", "llvm -mtriple=aarch64-linux-gnu"),
        ],
    ).config
    target, _ = to_tvm_target(config)
    built = tvm_target.Target(json.dumps(target))
    assert built.kind.name == "composite" and built.host.attrs["mtriple"] == "aarch64-linux-gnu"
    assert [json.loads(str(d))["keys"] for d in built.attrs["devices"]] == [
        ["cuda", "gpu"],
        ["adreno", "opencl", "gpu"],
    ]


def test_the_modern_catalogue_is_most_of_it() -> None:
    assert len(MODERN) >= 20 and "boards/corstone-300" not in MODERN
