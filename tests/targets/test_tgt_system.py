"""The target system of a compilation: host rules, device types, specialisations."""

from __future__ import annotations

from typing import Any

import pytest
from tvmc.errors import Location, TargetError
from tvmc.targets import DeviceClash, canonicalize, device_clashes, least_specialised, parse_targets, resolve_system

LLVM = canonicalize("llvm")


def test_the_config_host_is_a_field_not_nested_into_the_targets() -> None:
    system = resolve_system(["cuda", {"kind": "cuda", "compiler": "cutlass"}], {"kind": "llvm", "mcpu": "x"})
    host = canonicalize({"kind": "llvm", "mcpu": "x"})
    assert system.host == host
    assert all("host" not in t for t in system.targets)
    assert system.targets[1]["compiler"] == "cutlass"


def test_a_target_host_equal_to_the_config_host_is_fine_and_detached() -> None:
    system = resolve_system([{"kind": "cuda", "host": "llvm"}], "llvm")
    assert system.host == LLVM and "host" not in system.targets[0]


def test_a_different_own_host_is_an_error_naming_both() -> None:
    with pytest.raises(TargetError) as info:
        resolve_system([{"kind": "cuda", "host": "c"}], "llvm", source_of=lambda i: Location("cfg.toml", 5 + i))
    assert "'c'" in info.value.message and "'llvm'" in info.value.message
    assert info.value.location == Location("cfg.toml", 5)


def test_without_config_host_the_first_own_host_wins_and_is_not_nested() -> None:
    system = resolve_system(["opencl", {"kind": "cuda", "host": {"kind": "llvm", "mcpu": "a"}}], None)
    assert system.host == canonicalize({"kind": "llvm", "mcpu": "a"})
    assert all("host" not in t for t in system.targets)  # the own host is the build's: a field
    with pytest.raises(TargetError, match=r"targets\[1\]: this target's host differs from the host of targets\[0\]"):
        resolve_system([{"kind": "cuda", "host": "llvm"}, {"kind": "opencl", "host": "c"}], None)


def test_tag_hosts_count_as_own_hosts() -> None:
    system = resolve_system(["nvidia/jetson-agx-xavier"], None)
    assert system.host["mcpu"] == "carmel"


def test_first_cpu_target_is_the_host() -> None:
    targets: list[Any] = ["cuda", {"kind": "c", "compiler": "cmsis-nn"}, {"kind": "llvm", "mcpu": "skylake"}]
    system = resolve_system(targets, None)
    assert system.host == canonicalize({"kind": "llvm", "mcpu": "skylake"})
    assert "host" not in system.targets[0]
    assert system.notes and "CPU" in system.notes[0]


def test_llvm_is_the_fallback_host() -> None:
    system = resolve_system(["cuda", "opencl"], None)
    assert system.host == LLVM
    assert all("host" not in t for t in system.targets)


def test_one_plain_target_per_device_type() -> None:
    with pytest.raises(TargetError, match=r"targets\[1\]: a second plain target for device type cuda \(targets\[0\]"):
        resolve_system(["cuda", {"kind": "cuda", "arch": "sm_80"}], None)
    with pytest.raises(TargetError, match="a second plain target for device type cpu") as info:
        resolve_system(["llvm", "c"], None, source_of=lambda i: Location("cfg.toml", 5 + i))
    assert info.value.rule == "duplicate-device" and info.value.location == Location("cfg.toml", 6)
    with pytest.raises(
        TargetError, match=r"compiler 'cutlass' is given twice for device type cuda \(also targets\[0\]\)"
    ):
        cutlass = {"kind": "cuda", "compiler": "cutlass"}
        resolve_system([cutlass, cutlass], None)


def _clashes(targets: list[Any]) -> list[DeviceClash]:
    return device_clashes([(t, t.get("compiler")) for t in (canonicalize(t) for t in targets)])


def test_device_clashes_are_found_once_each_in_order() -> None:
    cutlass = {"kind": "cuda", "compiler": "cutlass"}
    assert _clashes(["llvm", "cuda", cutlass, "c", cutlass, {"kind": "llvm", "mcpu": "skylake"}]) == [
        DeviceClash(0, 3, 1, None, "llvm"),
        DeviceClash(2, 4, 2, "cutlass", "cuda"),
        DeviceClash(0, 5, 1, None, "llvm"),
    ]
    # Refinements (a compiler, a legacy BYOC kind) and composites take no plain slot; two
    # codegens on one device type are no clash.
    assert _clashes([cutlass, "cuda", {"kind": "cuda", "compiler": "tensorrt"}, "llvm", "cmsis-nn"]) == []
    assert _clashes(["llvm", {"kind": "composite", "devices": ["llvm"]}]) == []
    assert _clashes(["cmsis-nn", "cmsis-nn"]) == [DeviceClash(0, 1, 1, "cmsis-nn", "cmsis-nn")]
    # An explicit target_device_type moves a target to another slot.
    assert _clashes(["llvm", {"kind": "c", "target_device_type": 2}, "cuda"]) == [DeviceClash(1, 2, 2, None, "c")]


def test_least_specialised() -> None:
    system = resolve_system([{"kind": "cuda", "compiler": "tensorrt"}, "cuda", "llvm"], None)
    assert least_specialised(system, 2) == system.targets[1]
    assert least_specialised(system, "cuda") == system.targets[1]
    assert least_specialised(system, "cpu")["kind"] == "llvm"
    only_byoc = resolve_system([{"kind": "cuda", "compiler": "tensorrt"}], None)
    assert least_specialised(only_byoc, "cuda")["compiler"] == "tensorrt"
    with pytest.raises(TargetError, match="No target is specified for device type opencl"):
        least_specialised(system, "opencl")


def test_tvmc_byoc_lists_resolve() -> None:
    parsed = parse_targets("ethos-u -accelerator_config=ethos-u55-256, cmsis-nn, c")
    system = resolve_system(parsed.targets, parsed.host)
    assert least_specialised(system, "cpu")["kind"] == "c"
    assert system.host == canonicalize("c")


def test_composites_are_containers() -> None:
    system = resolve_system([{"kind": "composite", "devices": ["cuda", "llvm"]}, "llvm"], "llvm")
    assert system.host == LLVM and "host" not in system.targets[0]
    assert least_specialised(system, "cpu")["kind"] == "llvm"


def test_errors_of_single_targets_have_their_location() -> None:
    with pytest.raises(TargetError) as info:
        resolve_system(["llvm", {"kind": "cuda", "arch": "x"}], None, source_of=lambda i: Location(f"t{i}"))
    assert info.value.location == Location("t1")
    with pytest.raises(TargetError, match="at least one target"):
        resolve_system([], None)


@pytest.mark.parametrize(
    ("configs", "flags"),
    [
        # A device layer over a board whose first target is a legacy codegen kind keeps the board's
        # CPU (the c target) as host, not the codegen (its host was 'ethos-u', refused with "TVM 0.18
        # has no target kind 'ethos-u'; TVM 0.18 has it").
        (["boards/corstone-300"], [("--target", "cuda")]),
        # `--set host.<attr>=<the value get prints>` edits the host `get` printed: the c target.
        (["boards/corstone-300"], [("--set", "host.mcpu=cortex-m55")]),
        (["boards/corstone-300"], [("--set", "host.kind=c")]),
    ],
)
def test_a_codegen_kind_is_never_the_derived_host(configs: list[str], flags: list[tuple[str, str]]) -> None:
    from tvmc import api

    host = api.resolve(configs, flags, env={}).to_dict()["host"]
    assert (host["kind"], host["mcpu"]) == ("c", "cortex-m55")
    if flags[0][0] == "--set":  # the value `get` printed, set again: the same config
        assert api.resolve(configs, flags, env={}).to_dict() == api.resolve(configs, [], env={}).to_dict()


def test_a_hexagon_target_is_a_possible_host_but_not_the_default_one() -> None:
    from tvmc import api

    # With no host written the host is llvm (TVM builds hexagon's host code with llvm); setting the
    # value `get host.tag` prints made the hexagon target the host.
    target = [("--target", "hexagon -mcpu=hexagonv68")]
    plain = api.resolve([], target, env={}).to_dict()
    assert plain["host"]["kind"] == "llvm"
    assert api.resolve([], [*target, ("--set", "host.tag=")], env={}).to_dict() == plain
    assert api.resolve([], [*target, ("--target-host", "hexagon -mcpu=hexagonv68")], env={}).config.host is not None


@pytest.mark.parametrize("host", [{"kind": "cmsis-nn"}, {"kind": "ethos-u"}, "cmsis-nn"])
def test_a_codegen_kind_written_as_host_is_host_not_cpu(host: Any) -> None:
    # `host = { kind = "cmsis-nn" }` was valid (and for TVM <= 0.18 refused as "TVM 0.18 has no
    # target kind 'cmsis-nn'; TVM 0.18 has it").
    with pytest.raises(TargetError) as info:
        resolve_system([{"kind": "c"}], host)
    assert info.value.rule == "host-not-cpu" and "BYOC codegen" in info.value.message
