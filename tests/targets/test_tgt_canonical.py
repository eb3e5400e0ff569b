"""canonicalize without TVM: expected values written out from TVM 0.27's rules (TVM 0.27 src/target/target.cc and the
kinds' canonicalizers)."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from tvmc.errors import Location, TargetError
from tvmc.targets import (
    canonicalize,
    check_modern,
    env_dependent_keys,
    is_legacy,
    kind_of,
)
from tvmc.targets.canonicalizers import cpu_profile


def err(spec: Any, **kwargs: Any) -> TargetError:
    with pytest.raises(TargetError) as info:
        canonicalize(spec, **kwargs)
    return info.value


def test_bare_kinds() -> None:
    assert canonicalize("llvm") == {"kind": "llvm", "tag": "", "keys": ["cpu"]}  # mtriple is the machine's
    assert canonicalize({"kind": "cuda"}) == {
        "kind": "cuda",
        "tag": "",
        "keys": ["cuda", "gpu"],
        "max_num_threads": 1024,
        "thread_warp_size": 32,
    }
    assert canonicalize("nvptx") == {
        "kind": "nvptx",
        "tag": "",
        "keys": ["cuda", "gpu"],
        "mtriple": "nvptx64-nvidia-cuda",
        "max_num_threads": 1024,
        "thread_warp_size": 32,
    }
    assert canonicalize("rocm")["mtriple"] == "amdgcn-amd-amdhsa-hcc"
    assert "mcpu" not in canonicalize("rocm")
    assert canonicalize("test") == {"kind": "test", "tag": "", "keys": [], "feature.is_test": True}
    assert canonicalize("trn") == {"kind": "trn", "tag": "", "keys": []}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"kind": "llvm", "num-cores": True}, 1),
        ({"kind": "llvm", "num-cores": 2**63 - 1}, 2**63 - 1),
        ({"kind": "llvm", "fast-math": 1}, True),
        ({"kind": "llvm", "fast-math": 0}, False),
        ({"kind": "llvm", "mattr": ("a", "b")}, ["a", "b"]),
    ],
)
def test_type_coercions(spec: dict[str, Any], expected: Any) -> None:
    key = next(k for k in spec if k != "kind")
    value = canonicalize(spec)[key]
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"kind": "llvm", "mcpu": 5}, "Option 'mcpu': expected type 'str' but got 'int'"),
        ({"kind": "llvm", "mcpu": True}, "Option 'mcpu': expected type 'str' but got 'bool'"),
        ({"kind": "llvm", "mcpu": None}, "Option 'mcpu': expected type 'str' but got 'None'"),
        ({"kind": "llvm", "num-cores": 4.0}, "Option 'num-cores': expected type 'int' but got 'float'"),
        ({"kind": "llvm", "num-cores": "4"}, "Option 'num-cores': expected type 'int' but got 'str'"),
        ({"kind": "llvm", "num-cores": 2**63}, "expected type 'int' but got 'int outside the 64-bit range'"),
        ({"kind": "llvm", "fast-math": "1"}, "Option 'fast-math': expected type 'bool' but got 'str'"),
        ({"kind": "llvm", "mattr": "+neon"}, "Option 'mattr': expected type 'Array<str>' but got 'str'"),
        ({"kind": "llvm", "mattr": ["a", 1]}, "but got 'list' (element [1] is 'int')"),
        ({"kind": "llvm", "keys": "cpu"}, "Option 'keys': expected type 'Array<str>' but got 'str'"),
        ({"kind": "llvm", "tag": 5}, "Option 'tag': expected type 'str' but got 'int'"),
        ({"kind": "llvm", "from_device": None}, "Option 'from_device': expected type 'int' but got 'None'"),
        ({"kind": "llvm", "foo": 1, "mcpu": 5}, "Option 'mcpu'"),  # declared options are checked first
        ({"kind": "llvm", "host": 5, "mcpu": 5}, "Cannot create target with type: int"),  # the host before them
        ({"kind": "llvm", "foo": 1}, "Unknown config option 'foo'. Known options: 'kind', 'keys'"),
        ({"kind": "llvm", "feature.": 1}, "Unknown config option 'feature.'"),
        ({"kind": 5}, 'Expect type of field "kind" is String, but get type: int'),
        ({}, "no 'kind'"),
        ({"kind": "nope"}, 'Target kind "nope" is not defined'),
        ({"tag": "nope"}, "Unknown target tag: nope"),
        ({"tag": 5}, 'Expect type of field "tag" is String'),
        ({"kind": "cuda", "arch": "compute_80"}, "CUDA target gets an invalid CUDA arch: -arch=compute_80"),
        ({"kind": "nvptx", "mcpu": "x"}, "NVPTX target gets an invalid CUDA arch: -mcpu=x"),
        ({"kind": "nvptx", "mtriple": "x"}, 'Expects "mtriple" to be "nvptx64-nvidia-cuda", but gets: "x"'),
        ({"kind": "rocm", "mcpu": "gfx"}, "ROCm target gets an invalid GFX version: -mcpu=gfx"),
        ({"kind": "webgpu", "thread_warp_size": 32}, "thread_warp_size=32 requires supports_subgroups=true"),
        ({"kind": "llvm", "host": {"kind": "cuda", "arch": "x"}}, "host: CUDA target gets an invalid CUDA arch"),
        ({"kind": "composite", "devices": [1]}, "Expected Target, string, or dict in 'devices' array, got 'int'"),
        ({"kind": "composite", "devices": ["llvm", None]}, "got 'None' (element [1])"),
        ({"kind": "composite", "devices": "cuda"}, "Option 'devices': expected type 'Array<target.Target>'"),
        ({"kind": "llvm", "mtriple": "aarch64-linux-gnu", "jit": "x"}, "invalid jit option x"),
        ({"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mfloat-abi": "softfp"}, "invalid -mfloat-abi option"),
        ({"kind": "llvm", "mtriple": "aarch64-linux-gnu", "vector-width": 0}, "Invalid -vector-width value: 0"),
        ({"kind": "llvm", "mtriple": "aarch64-linux-gnu", "cl-opt": ["-x:int"]}, "errors parsing command-line"),
    ],
)
def test_errors(spec: dict[str, Any], message: str) -> None:
    assert message in err(spec).message


def test_llvm_option_checks_apply_only_where_tvm_runs_them() -> None:
    # TVM validates these while computing Arm A-profile features, i.e. not for x86.
    assert canonicalize({"kind": "llvm", "jit": "x"})["jit"] == "x"


def test_did_you_mean() -> None:
    assert err({"kind": "lvm"}).suggestions == ("llvm",)
    assert err({"kind": "llvm", "mcpuu": "x"}).suggestions == ("mcpu",)
    assert err({"tag": "nvidia/jetson-nan"}).suggestions == ("nvidia/jetson-nano",)
    renamed = err({"tag": "nvidia/gtx1080ti"})
    assert renamed.suggestions == ("nvidia/geforce-gtx-1080-ti",) and "renamed" in (renamed.hint or "")


def test_errors_carry_the_source_location() -> None:
    where = Location("a.toml", 3, 1)
    assert err({"kind": "llvm", "mcpu": 5}, source=where).location == where
    assert err({"kind": "llvm", "mcpu": 5}, source="--target").one_line().startswith("--target: ")


@pytest.mark.parametrize(
    ("spec", "keys", "features"),
    [
        ({"kind": "llvm", "mcpu": "cortex-m55"}, ["arm_cpu", "cpu"], {"has_dsp": True, "has_mve": True}),
        (
            {"kind": "llvm", "mcpu": "cortex-m4", "device": "foo"},
            ["arm_cpu", "cpu", "foo"],
            {"has_dsp": True, "has_mve": False},
        ),
        (
            {"kind": "llvm", "mcpu": "cortex-m4", "mattr": ["+nodsp"]},
            ["arm_cpu", "cpu"],
            {"has_dsp": False, "has_mve": False},
        ),
        ({"kind": "c", "mcpu": "cortex-m55+nomve"}, ["arm_cpu", "cpu"], {"has_dsp": True, "has_mve": False}),
        (
            {"kind": "llvm", "mcpu": "cortex-m0", "keys": ["foo"]},
            ["foo", "arm_cpu", "cpu"],
            {"has_dsp": False, "has_mve": False},
        ),
        (
            {"kind": "llvm", "mcpu": "cortex-m4", "keys": ["cpu", "x"]},
            ["cpu", "x", "arm_cpu"],
            {"has_dsp": True, "has_mve": False},
        ),
        (
            {"kind": "llvm", "mcpu": "cortex-m4", "feature.has_dsp": 7},
            ["arm_cpu", "cpu"],
            {"has_dsp": True, "has_mve": False},
        ),  # the canonicalizer overwrites user features
    ],
)
def test_arm_mprofile(spec: dict[str, Any], keys: list[str], features: dict[str, bool]) -> None:
    canonical = canonicalize(spec)
    assert canonical["keys"] == keys
    assert {k[8:]: v for k, v in canonical.items() if k.startswith("feature.")} == features


def test_arm_aprofile_keys_are_computed_and_llvm_features_left_out() -> None:
    canonical = canonicalize(
        {"kind": "llvm", "mtriple": "aarch64-linux-gnu", "keys": ["foo"], "feature.has_sve": "yes", "feature.mine": 1}
    )
    assert canonical["keys"] == ["foo", "arm_cpu", "cpu"]
    assert "feature.has_sve" not in canonical and canonical["feature.mine"] == 1
    assert env_dependent_keys(canonical)[0] == ("feature.is_aarch64",)
    assert canonicalize({"kind": "llvm", "mtriple": "arm-none-eabi", "mcpu": "cortex-m7"})["keys"] == [
        "arm_cpu",
        "cpu",
    ]  # M-profile cpu on an arm triple: M-profile rules


def test_webgpu_and_defaults() -> None:
    assert canonicalize({"kind": "webgpu", "supports_subgroups": True})["thread_warp_size"] == 32
    forced = canonicalize({"kind": "webgpu", "thread_warp_size": 16, "supports_subgroups": 1})
    assert forced["thread_warp_size"] == 32
    assert canonicalize({"kind": "webgpu"})["supports_subgroups"] is False


def test_tags_and_overrides() -> None:
    a100 = canonicalize({"tag": "nvidia/nvidia-a100", "l2_cache_size_bytes": 5})
    assert a100["tag"] == "nvidia/nvidia-a100" and a100["l2_cache_size_bytes"] == 5
    assert a100["arch"] == "sm_80"
    assert canonicalize("nvidia/nvidia-a100")["tag"] == ""
    labelled = canonicalize({"kind": "rocm", "tag": "nvidia/nvidia-a100"})  # kind given: tag is a label
    assert labelled["kind"] == "rocm" and labelled["tag"] == "nvidia/nvidia-a100"
    xavier = canonicalize({"tag": "nvidia/jetson-agx-xavier", "host": None})
    assert "host" not in xavier
    assert canonicalize({"tag": "nvidia/jetson-agx-xavier", "keys": ["x"]})["keys"] == ["x"]


def test_hosts_and_composites() -> None:
    assert canonicalize({"kind": "cuda", "host": None}) == canonicalize("cuda")
    deep = canonicalize({"kind": "cuda", "host": {"kind": "llvm", "host": "c"}})
    assert deep["host"]["host"] == {"kind": "c", "tag": "", "keys": ["cpu"]}
    assert canonicalize({"kind": "llvm", "host": '{"kind": "c"}'})["host"]["kind"] == "c"
    composite = canonicalize({"kind": "composite", "devices": ["cuda", {"tag": "nvidia/nvidia-a100"}]})
    assert [d["kind"] for d in composite["devices"]] == ["cuda", "cuda"]
    assert composite["devices"][1]["tag"] == "nvidia/nvidia-a100"


def test_from_device_is_dropped() -> None:
    assert canonicalize({"kind": "llvm", "from_device": 0}) == canonicalize("llvm")


def test_compiler_specialisations() -> None:
    spec = {"kind": "cuda", "arch": "sm_80", "compiler": "tensorrt"}
    assert canonicalize(spec)["compiler"] == "tensorrt"
    assert canonicalize({"kind": "c", "compiler": "cmsis-nn"})["compiler"] == "cmsis-nn"
    assert "cannot refine a 'llvm' target" in err({"kind": "llvm", "compiler": "tensorrt"}).message
    assert err({"kind": "cuda", "compiler": "tensorrtt"}).suggestions == ("tensorrt",)
    assert "top-level" in err({"kind": "cuda", "host": {"kind": "llvm", "compiler": "nnapi"}}).message
    # target_device_type decides the device type, as in TVM's GetTargetDeviceType
    as_cuda = canonicalize({"kind": "llvm", "target_device_type": 2, "compiler": "cutlass"})
    assert as_cuda["compiler"] == "cutlass"


def test_legacy_kinds() -> None:
    assert canonicalize("stackvm") == {"kind": "stackvm", "tag": "", "keys": []}
    cmsis = canonicalize({"kind": "cmsis-nn", "mcpu": "cortex-m55"})
    assert cmsis["keys"] == ["arm_cpu", "cpu"] and cmsis["feature.has_mve"] is True
    assert canonicalize("sdaccel")["keys"] == ["sdaccel", "hls"]
    assert is_legacy(canonicalize("stackvm")) and not is_legacy(canonicalize("llvm"))
    assert is_legacy(canonicalize({"kind": "cuda", "host": "stackvm"}))
    with pytest.raises(TargetError, match=r"kind 'stackvm' was removed after TVM 0\.19"):
        check_modern(canonicalize("stackvm"))
    with pytest.raises(TargetError) as info:
        check_modern(canonicalize("tensorrt"))
    assert "'compiler': 'tensorrt'" in (info.value.hint or "")
    check_modern(canonicalize("nvidia/jetson-agx-xavier"))


def test_kind_of() -> None:
    assert kind_of({"kind": "llvm"}) == "llvm"
    assert kind_of({"tag": "nvidia/jetson-nano"}) == "cuda"
    assert kind_of("qcom/hexagon-v68") == "hexagon"
    assert kind_of("llvm -mcpu=x") == "llvm"
    assert kind_of('{"kind": "c"}') == "c"
    with pytest.raises(TargetError):
        kind_of({"tag": "nope"})
    with pytest.raises(TargetError):
        kind_of("nope")


def test_env_dependent_keys() -> None:
    assert env_dependent_keys({"kind": "cuda", "host": "llvm"}) == (("arch",), ("host", "mtriple"))
    assert env_dependent_keys({"kind": "composite", "devices": ["nvptx", "rocm"]}) == (
        ("devices", 0, "mcpu"),
        ("devices", 1, "mcpu"),
    )
    assert env_dependent_keys({"kind": "llvm", "mcpu": "skylake"}) == ()
    assert env_dependent_keys({"kind": "cuda", "arch": "sm_80"}) == ()
    # Regression: M-profile is decided first, so an aarch64 triple does not make LLVM fill A-profile features.
    assert env_dependent_keys({"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mcpu": "cortex-m4"}) == ()
    assert env_dependent_keys({"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mcpu": "cortex-a72"})[0] == (
        "feature.is_aarch64",
    )


@pytest.mark.parametrize(
    ("kind", "mtriple", "mcpu", "profile"),
    [
        ("llvm", "aarch64-linux-gnu", "cortex-m4", "M"),  # mcpu first, whatever the triple
        ("llvm", "aarch64-linux-gnu", "cortex-a72", "A"),
        ("llvm", "arm-none-eabi", "cortex-m3x", "M"),  # a prefix test, as TVM's
        ("llvm", "arm-none-eabi", "cortex-m99", None),  # not an M-profile cpu, and cortex-m* on arm is not A-profile
        ("llvm", "armv7a-linux-gnueabihf", None, "A"),
        ("c", "aarch64-linux-gnu", "cortex-m55", "M"),
        ("c", "aarch64-linux-gnu", None, None),  # A-profile features are llvm's only
        ("cmsis-nn", None, "cortex-m7", "M"),
        ("cuda", None, "cortex-m4", None),
        ("llvm", "x86_64-linux-gnu", "skylake", None),
    ],
)
def test_cpu_profile(kind: str, mtriple: str | None, mcpu: str | None, profile: str | None) -> None:
    assert cpu_profile(kind, mtriple, mcpu) == profile


def test_fill_from_machine_without_tvm_explains(monkeypatch: pytest.MonkeyPatch) -> None:
    from tvmc.targets import machine

    machine.tvm_machine.cache_clear()
    monkeypatch.setitem(sys.modules, "tvm", None)
    monkeypatch.setitem(sys.modules, "tvm.target", None)
    try:
        with pytest.raises(TargetError, match="fill_from_machine needs apache-tvm"):
            canonicalize("cuda", fill_from_machine=True)
    finally:
        machine.tvm_machine.cache_clear()


def test_results_are_independent_copies() -> None:
    first = canonicalize("nvidia/jetson-agx-xavier")
    first["host"]["keys"].append("mutated")
    first["keys"].clear()
    again = canonicalize("nvidia/jetson-agx-xavier")
    assert again["keys"] == ["cuda", "gpu"] and "mutated" not in again["host"]["keys"]


def test_input_is_not_mutated() -> None:
    spec = {"kind": "llvm", "mcpu": "cortex-m4", "keys": ["a"], "mattr": ["+x"], "host": {"kind": "c"}}
    snapshot = repr(spec)
    canonicalize(spec)
    assert repr(spec) == snapshot


def test_mapping_and_subclass_values_are_normalized() -> None:
    class Text(str):
        pass

    class Items(list[Any]):
        pass

    canonical = canonicalize({"kind": Text("llvm"), "mcpu": Text("x"), "mattr": Items(["+a"])})
    assert type(canonical["mcpu"]) is str and type(canonical["mattr"]) is list
    assert canonical == canonicalize({"kind": "llvm", "mcpu": "x", "mattr": ["+a"]})


def test_json_idempotence_on_examples() -> None:
    specs: list[Any] = [
        "nvidia/jetson-agx-xavier",
        "qcom/hexagon-v68",
        "stackvm",
        {"kind": "llvm", "mcpu": "cortex-m55"},
        {"kind": "llvm", "keys": []},
        {"kind": "composite", "devices": ["cuda", "llvm"]},
    ]
    for spec in specs:
        canonical = canonicalize(spec)
        assert canonicalize(canonical) == canonical
