"""Rules that resolution and validation share are decided once: the pipeline's own check (reached
by `canonicalize_config`, which `api.resolve` runs after validation, and `migrate`'s self-check
without it) raises the first problem with the same rule id and message that `config validate`
reports for it (issue 13)."""

from __future__ import annotations

import json
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
