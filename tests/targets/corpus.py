"""A generated corpus of target specs for the differential tests against TVM.

Every modern kind × every option × valid and invalid values of its type, hosts (kind names,
dicts, tags, tags with their own host → host-of-host), keys/device, composites, feature entries,
kind-specific canonicalizer cases, plus seeded random combinations.

Left out on purpose (tested separately as known differences): Arm triples LLVM does not know
(TVM crashes), `None` inside composite `devices` (TVM keeps a null Target; tvmc rejects it),
strings with spaces as host/devices (legacy strings: TVM 0.27 rejects them, tvmc reads them).
"""

from __future__ import annotations

import random
from typing import Any

from tvmc import registry

TRIPLES = [
    "x86_64-linux-gnu",
    "aarch64-linux-gnu",
    "armv7a-linux-gnueabihf",
    "arm-none-eabi",
    "thumbv7em-none-eabi",
    "riscv64-unknown-linux-gnu",
    "aarch64-apple-darwin",
    "",
]
MCPUS = [
    "skylake",
    "cortex-a72",
    "cortex-m0",
    "cortex-m4",
    "cortex-m55",
    "cortex-m85+nomve",
    "cortex-m7+nodsp",
    "cortex-m33",
    "carmel",
    "",
    "cortex-m3x",
]
STRS = ["x", "", " padded ", "a b", "it's", "ünï", "with,comma", "back\\slash"]
BAD_COMMON: list[Any] = [None, 4.5, ["x"], {"a": 1}]

HOSTS: list[Any] = [
    "llvm",
    "c",
    {"kind": "llvm", "mcpu": "skylake"},
    "nvidia/jetson-nano",
    "nvidia/jetson-agx-xavier",
    {"kind": "c", "host": "llvm"},
    None,
    '{"kind": "c"}',
    {"tag": "raspberry-pi/4b-aarch64"},
    {"kind": "llvm", "mtriple": "aarch64-linux-gnu"},
    5,
    "nope",
    {"kind": "cuda", "arch": "x"},
    {"mcpu": "x"},
    [1],
    True,
]

SPECIAL: dict[tuple[str, str], list[Any]] = {
    ("llvm", "mtriple"): TRIPLES,
    ("llvm", "mcpu"): MCPUS,
    ("c", "mcpu"): MCPUS,
    ("llvm", "jit"): ["orcjit", "mcjit", "x"],
    ("llvm", "mfloat-abi"): ["hard", "soft", "softfp"],
    ("llvm", "vector-width"): [0, 1, 128, 65536, 65537],
    ("llvm", "cl-opt"): [["-unroll-threshold:uint=100"], ["x"], ["-x:int"], ["--x=true"], []],
    ("llvm", "mattr"): [["+neon"], ["+nodsp"], ["+v8.2a", "+dotprod"], [], "+neon", ["a", 1]],
    ("cuda", "arch"): ["sm_80", "sm_90a", "sm_", "compute_80", "", 80],
    ("nvptx", "mcpu"): ["sm_75", "x", ""],
    ("nvptx", "mtriple"): ["nvptx64-nvidia-cuda", "x"],
    ("rocm", "mcpu"): ["gfx900", "gfx90a", "gfx", "gfx-1", "gfx90a-xnack", "xyz"],
    ("rocm", "mtriple"): ["amdgcn-amd-amdhsa-hcc", "x"],
    ("webgpu", "thread_warp_size"): [0, 1, 2, 32, True],
    ("webgpu", "supports_subgroups"): [True, False, 2, 0],
    ("composite", "devices"): [
        ["cuda", {"kind": "llvm"}, "nvidia/jetson-nano"],
        [],
        [{"tag": "nvidia/nvidia-a100"}],
        [{"kind": "composite", "devices": ["llvm"]}],
        [1],
        "cuda",
        None,
        [["llvm"]],
        ["nope"],
        [{"kind": "cuda", "arch": "x"}],
    ],
    ("*", "keys"): [["a"], [], ["cpu", "cpu"], ["arm_cpu"], "cpu", [1], None],
    ("*", "device"): ["arm_cpu", "mali", "", 5],
    ("*", "tag"): ["foo", "", "nvidia/nvidia-a100", 5, None],
    ("*", "from_device"): [-1, 0, 3.0, "x", None, True],
    ("*", "host"): HOSTS,
    ("*", "target_device_type"): [1, 2, True, "2"],
    ("*", "kind"): [],
}


def _values(kind: str, opt: str, typ: str) -> list[Any]:
    special = SPECIAL.get((kind, opt), SPECIAL.get(("*", opt)))
    if special is not None:
        return list(special)
    if typ == registry.STR:
        return [*STRS, 5, True, *BAD_COMMON]
    if typ == registry.INT:
        return [0, -1, 4, 2**40, 2**63 - 1, 2**63, -(2**63), True, "4", *BAD_COMMON]
    if typ == registry.BOOL:
        return [True, False, 0, 1, 2, "true", *BAD_COMMON]
    if typ == registry.STR_ARRAY:
        return [[], ["+a"], ["a b", "c,d", "it's"], "+a", ["a", 1], [None], (("x",)), None]
    return []


def option_corpus() -> list[dict[str, Any]]:
    """Each modern kind alone, and with each option set to each candidate value."""
    out: list[dict[str, Any]] = []
    for kind in registry.kinds().values():
        out.append({"kind": kind.name})
        for opt, typ in kind.options.items():
            for value in _values(kind.name, opt, typ):
                out.append({"kind": kind.name, opt: value})
    return out


def misc_corpus() -> list[Any]:
    """Kind/tag-level cases and canonicalizer interactions."""
    return [
        {},
        {"kind": 5},
        {"kind": None},
        {"kind": "nope"},
        {"kind": "LLVM"},
        {"kind": ""},
        {"tag": "nope"},
        {"tag": 5},
        {"tag": "nvidia/gtx1080ti"},
        {"kind": "llvm", "foo": 1},
        {"kind": "llvm", "foo": 1, "mcpu": 5},
        {"kind": "llvm", "feature.x": 3},
        {"kind": "llvm", "feature.": 3},
        {"kind": "llvm", "feature.x": [1, {"a": 2}]},
        {"kind": "llvm", "mcpu": "cortex-m4", "feature.has_dsp": 7, "feature.y": 1},
        {"kind": "llvm", "mtriple": "aarch64-linux-gnu", "feature.has_sve": "yes", "keys": ["foo"]},
        {"kind": "llvm", "mcpu": "cortex-m4", "keys": ["cpu", "x"], "device": "foo"},
        {"kind": "llvm", "mtriple": "aarch64-linux-gnu", "keys": ["cpu"], "device": "foo"},
        {"kind": "llvm", "mtriple": "arm-none-eabi", "mcpu": "cortex-a53", "jit": "x"},
        {"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mcpu": "cortex-m4", "jit": "x"},
        {"kind": "c", "mcpu": "cortex-m55+nomve"},
        {"kind": "c", "mtriple": "aarch64"},
        {"kind": "test", "feature.is_test": False},
        {"kind": "webgpu", "thread_warp_size": 16, "supports_subgroups": True},
        {"kind": "opencl", "device": "mali"},
        {"kind": "cuda", "keys": ["foo"], "device": "bar"},
        {"kind": "llvm", "host": {"kind": "llvm", "host": {"kind": "c", "host": "llvm"}}},
        {"kind": "cuda", "host": "nvidia/jetson-agx-xavier", "arch": "sm_87"},
        {"kind": "llvm", "host": {"kind": "llvm"}, "foo": 1},
        {"kind": "llvm", "host": 5, "mcpu": 5},
        {"kind": "composite", "host": "llvm", "keys": ["x"], "devices": ["llvm"], "device": "y"},
        "llvm",
        "cuda",
        "ext_dev",
        "",
        "LLVM",
        "nope",
        '{"kind": "c", "mcpu": "x"}',
        '{"kind": 5}',
        "{bad",
        "[1]",
        '{"kind": "llvm"} ',
        "nvidia/jetson-nano",
    ]


def tag_corpus() -> list[Any]:
    """Every tag by name, as {"tag": ...}, and with overrides of each kind of value."""
    out: list[Any] = []
    for name in registry.tag_names():
        config = registry.tag_config(name) or {}
        kind = registry.kinds()[config["kind"]]
        out += [
            name,
            {"tag": name},
            {"tag": name, "host": None},
            {"tag": name, "keys": ["x", "cpu"]},
            {"tag": name, "device": "dev"},
            {"tag": name, "kind": config["kind"]},
            {"tag": name, "foo": 1},
            {"tag": name, "host": {"kind": "cuda", "arch": "x"}},
        ]
        for opt, typ in list(kind.kind_options.items())[:3]:
            values = _values(kind.name, opt, typ)
            for value in [*values[:3], values[-1]]:  # the last candidate is usually a wrong type
                out.append({"tag": name, opt: value})
    return out


def random_corpus(n: int, seed: int) -> list[dict[str, Any]]:
    """Seeded combinations of several options (mostly valid ones) and hosts."""
    rng = random.Random(seed)
    kinds = list(registry.kinds().values())
    out: list[dict[str, Any]] = []
    for _ in range(n):
        kind = rng.choice(kinds)
        spec: dict[str, Any] = {"kind": kind.name}
        opts = list(kind.options.items())
        for opt, typ in rng.sample(opts, min(len(opts), rng.randrange(1, 5))):
            values = _values(kind.name, opt, typ)
            if values:
                spec[opt] = rng.choice(values[: max(1, len(values) * 2 // 3)])
        out.append(spec)
    return out
