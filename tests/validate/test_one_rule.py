"""Rules that resolution and validation share are decided once: the pipeline's own check (reached
by `canonicalize_config`, which `api.resolve` runs after validation, and `migrate`'s self-check
without it) raises the first problem with the same rule id and message that `config validate`
reports for it (issue 13)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from tvmc import api
from tvmc.config import canonicalize_config
from tvmc.errors import TvmcError
from tvmc.provenance import display_path
from tvmc.validate.rules import semantic_findings

CUTLASS = {"kind": "cuda", "compiler": "cutlass"}
DEVICE_CASES = {
    "two-plain-cpu": ["llvm", "c"],
    "two-plain-cuda": ["cuda", {"kind": "cuda", "arch": "sm_80"}],
    "codegen-twice": [{"kind": "cuda", "arch": "sm_80"}, CUTLASS, CUTLASS],
    "legacy-codegen-twice": ["c", "cmsis-nn", "cmsis-nn"],
    "tag-and-kind": ["nvidia/nvidia-a100", "llvm", {"kind": "cuda", "arch": "sm_80"}],
    "device-type-override": ["cuda", {"kind": "c", "target_device_type": 2}],
}


def _pipeline_error(data: dict[str, Any]) -> TvmcError:
    with pytest.raises(TvmcError) as info:
        canonicalize_config(data, {})
    return info.value


def _errors(data: dict[str, Any]) -> list[tuple[str | None, str]]:
    return [
        (f.rule, f"{display_path(f.pointer)}: {f.message}")
        for f in semantic_findings(data, [])
        if f.severity == "error"
    ]


@pytest.mark.parametrize("name", sorted(DEVICE_CASES))
def test_device_types_one_rule(name: str, tmp_path: Path) -> None:
    data = {"targets": DEVICE_CASES[name]}
    errors = _errors(data)
    assert errors and {rule for rule, _ in errors} == {"duplicate-device"}
    err = _pipeline_error(data)
    assert (err.rule, err.message) == errors[0]
    with pytest.raises(TvmcError) as resolved:  # validation first: the same error again
        path = tmp_path / "c.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        api.resolve([str(path)], [], env={})
    assert (resolved.value.rule, resolved.value.message) == errors[0]


def test_every_clash_is_reported_by_validation() -> None:
    data = {"targets": ["llvm", CUTLASS, "c", CUTLASS, {"kind": "llvm", "mcpu": "skylake"}]}
    assert _errors(data) == [
        (
            "duplicate-device",
            "targets[2]: a second plain target for device type cpu (targets[0] is 'llvm'); keep one, "
            "or add a 'compiler' to this one to make it a BYOC refinement",
        ),
        ("duplicate-device", "targets[3]: compiler 'cutlass' is given twice for device type cuda (also targets[1])"),
        (
            "duplicate-device",
            "targets[4]: a second plain target for device type cpu (targets[0] is 'llvm'); keep one, "
            "or add a 'compiler' to this one to make it a BYOC refinement",
        ),
    ]
    assert (_pipeline_error(data).rule, _pipeline_error(data).message) == _errors(data)[0]


HOST_CASES: dict[str, dict[str, Any]] = {
    "own-host-vs-config-host": {"targets": [{"kind": "cuda", "host": "c"}], "host": "llvm"},
    "tag-host-vs-config-host": {"targets": ["nvidia/jetson-agx-xavier"], "host": "llvm"},
    "two-own-hosts": {"targets": [{"kind": "cuda", "host": "llvm"}, {"kind": "opencl", "host": "c"}]},
    "own-host-cuda": {"targets": [{"kind": "llvm", "host": {"kind": "cuda"}}]},
    "config-host-cuda": {"targets": ["llvm"], "host": {"kind": "cuda"}},
    "config-host-codegen": {"targets": ["cuda"], "host": {"kind": "c", "compiler": "cmsis-nn"}},
}
_PATH = re.compile(r"^(?:targets\[\d+\]|host)(?:\.[\w-]+|\[\d+\])*: ")


@pytest.mark.parametrize("name", sorted(HOST_CASES))
def test_host_rules_one_rule(name: str) -> None:
    """host-not-cpu and host-conflict: the same rule id and message (the path before it may be
    shorter in resolution, which sees parsed targets, not where the config wrote the host)."""
    data = HOST_CASES[name]
    errors = _errors(data)
    assert errors and {rule for rule, _ in errors} <= {"host-not-cpu", "host-conflict"}
    err = _pipeline_error(data)
    rule, message = errors[0]
    assert err.rule == rule
    assert _PATH.sub("", message) == _PATH.sub("", err.message)


def test_every_host_conflict_is_reported_by_validation() -> None:
    data = {
        "targets": [{"kind": "cuda", "host": "llvm"}, {"kind": "opencl", "host": "c"}, {"kind": "vulkan", "host": "c"}]
    }
    assert _errors(data) == [
        (
            "host-conflict",
            f"targets[{i}].host: this target's host differs from the host of targets[0] "
            "(kind 'c' vs 'llvm'); one build has one host: set it once, as 'host'",
        )
        for i in (1, 2)
    ]
    err = _pipeline_error(data)
    assert (err.rule, err.message) == (
        "host-conflict",
        "targets[1]: this target's host differs from the host of targets[0] (kind 'c' vs 'llvm'); "
        "one build has one host: set it once, as 'host'",
    )


@pytest.mark.parametrize(
    "target",
    [{"kind": "llvm", "compiler": "tensorrt"}, {"kind": "cuda", "compiler": "cmsis-nn"}],
    ids=["tensorrt-on-llvm", "cmsis-nn-on-cuda"],
)
def test_compiler_mismatch_one_rule(target: dict[str, Any]) -> None:
    data = {"targets": [target]}
    errors = _errors(data)
    assert [rule for rule, _ in errors] == ["compiler-mismatch"]
    err = _pipeline_error(data)
    assert err.rule == "compiler-mismatch" and f"targets[0].compiler: {err.message}" == errors[0][1]
    assert "cannot refine a" in err.message and "; it refines " in err.message
