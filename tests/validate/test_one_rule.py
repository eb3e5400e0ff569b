"""Rules that resolution and validation share are decided once: the pipeline's own check (reached
by `canonicalize_config`, which `api.resolve` runs after validation, and `migrate`'s self-check
without it) raises the first problem with the same rule id, pointer and message that `config
validate` reports for it, each in its own field of the problem record (issue 13)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tvmc import api
from tvmc.config import canonicalize_config
from tvmc.errors import TargetError, TvmcError
from tvmc.pointers import display_path
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


def _errors(data: dict[str, Any]) -> list[tuple[str | None, str | None, str]]:
    """validation's errors as problem records: (rule, pointer, message)."""
    return [(f.rule, f.pointer, f.message) for f in semantic_findings(data, []) if f.severity == "error"]


def _record(err: TvmcError) -> tuple[str | None, str | None, str]:
    return (err.rule, err.pointer, err.message)


@pytest.mark.parametrize("name", sorted(DEVICE_CASES))
def test_device_types_one_rule(name: str, tmp_path: Path) -> None:
    data = {"targets": DEVICE_CASES[name]}
    errors = _errors(data)
    assert errors and {rule for rule, _, _ in errors} == {"duplicate-device"}
    assert _record(_pipeline_error(data)) == errors[0]
    with pytest.raises(TvmcError) as resolved:  # validation first: the same error again
        path = tmp_path / "c.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        api.resolve([str(path)], [], env={})
    assert _record(resolved.value) == errors[0]
    # The pointer is shown once, before the message, as users read it.
    _, pointer, message = errors[0]
    assert str(resolved.value) == f"{resolved.value.location}: {display_path(str(pointer))}: {message}"


def test_every_clash_is_reported_by_validation() -> None:
    data = {"targets": ["llvm", CUTLASS, "c", CUTLASS, {"kind": "llvm", "mcpu": "skylake"}]}
    second = (
        "a second plain target for device type cpu (targets[0] is 'llvm'); keep one, "
        "or add a 'compiler' to this one to make it a BYOC refinement"
    )
    assert _errors(data) == [
        ("duplicate-device", "/targets/2", second),
        ("duplicate-device", "/targets/3", "compiler 'cutlass' is given twice for device type cuda (also targets[1])"),
        ("duplicate-device", "/targets/4", second),
    ]
    assert _record(_pipeline_error(data)) == _errors(data)[0]


HOST_CASES: dict[str, dict[str, Any]] = {
    "own-host-vs-config-host": {"targets": [{"kind": "cuda", "host": "c"}], "host": "llvm"},
    "tag-host-vs-config-host": {"targets": ["nvidia/jetson-agx-xavier"], "host": "llvm"},
    "two-own-hosts": {"targets": [{"kind": "cuda", "host": "llvm"}, {"kind": "opencl", "host": "c"}]},
    "own-host-cuda": {"targets": [{"kind": "llvm", "host": {"kind": "cuda"}}]},
    "config-host-cuda": {"targets": ["llvm"], "host": {"kind": "cuda"}},
    "config-host-codegen": {"targets": ["cuda"], "host": {"kind": "c", "compiler": "cmsis-nn"}},
}


@pytest.mark.parametrize("name", sorted(HOST_CASES))
def test_host_rules_one_rule(name: str) -> None:
    """host-not-cpu and host-conflict: the same rule id and message, at the same target (the pointer
    may be shorter in resolution, which sees parsed targets, not where the config wrote the host)."""
    data = HOST_CASES[name]
    errors = _errors(data)
    assert errors and {rule for rule, _, _ in errors} <= {"host-not-cpu", "host-conflict"}
    err = _pipeline_error(data)
    rule, pointer, message = errors[0]
    assert (err.rule, err.message) == (rule, message)
    assert err.pointer is not None and str(pointer).startswith(err.pointer)


def test_every_host_conflict_is_reported_by_validation() -> None:
    data = {
        "targets": [{"kind": "cuda", "host": "llvm"}, {"kind": "opencl", "host": "c"}, {"kind": "vulkan", "host": "c"}]
    }
    message = (
        "this target's host differs from the host of targets[0] (kind 'c' vs 'llvm'); "
        "one build has one host: set it once, as 'host'"
    )
    assert _errors(data) == [("host-conflict", f"/targets/{i}/host", message) for i in (1, 2)]
    assert _record(_pipeline_error(data)) == ("host-conflict", "/targets/1", message)


@pytest.mark.parametrize(
    "target",
    [{"kind": "llvm", "compiler": "tensorrt"}, {"kind": "cuda", "compiler": "cmsis-nn"}],
    ids=["tensorrt-on-llvm", "cmsis-nn-on-cuda"],
)
def test_compiler_mismatch_one_rule(target: dict[str, Any]) -> None:
    data = {"targets": [target]}
    errors = _errors(data)
    assert [rule for rule, _, _ in errors] == ["compiler-mismatch"]
    err = _pipeline_error(data)
    # Canonicalization sees one target, not the config: its record names the key (`option`), and
    # the pipeline's error is validation's (api.check) whenever a config is resolved.
    assert isinstance(err, TargetError) and err.option == "compiler" and err.pointer is None
    assert err.rule == "compiler-mismatch" and ("/targets/0/compiler", err.message) == errors[0][1:]
    assert "cannot refine a" in err.message and "; it refines " in err.message


def test_a_resolution_error_carries_its_pointer_in_the_record(tmp_path: Path) -> None:
    """api.check raises validation's first error with the pointer in its own field, not in the
    message; the printed line shows it once, as users read it."""
    path = tmp_path / "c.json"
    path.write_text('{"targets": [{"kind": "llvm", "mcpu": "skylake-avx51"}]}', encoding="utf-8")
    with pytest.raises(TvmcError) as info:
        api.resolve([str(path)], [], env={})
    err = info.value
    assert (err.rule, err.pointer) == ("unknown-cpu", "/targets/0/mcpu")
    assert not err.message.startswith("targets") and "/targets" not in err.message
    assert str(err) == f"{path}:1:31: targets[0].mcpu: {err.message} (did you mean 'skylake-avx512'?)"
    # A value a flag set: the same error (exit 1) naming the flag, with the same record.
    with pytest.raises(TvmcError) as flagged:
        api.resolve([], [("--target", "llvm"), ("--target-llvm-mcpu", "skylake-avx51")], env={})
    assert flagged.value.exit_code == 1
    assert (flagged.value.rule, flagged.value.pointer, flagged.value.message) == (err.rule, err.pointer, err.message)
    assert str(flagged.value).startswith("--target-llvm-mcpu=skylake-avx51: targets[0].mcpu: ")
