"""A target error points at the option at fault through the error's own `option`, never by reading
its message (issue 13: no pointer is recovered from message text)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tvmc.errors import TargetError
from tvmc.targets import canonicalize
from tvmc.validate import runner

ARM = {"kind": "llvm", "mtriple": "aarch64-linux-gnu"}


def _errors(tmp_path: Path, target: Any) -> list[tuple[str, str]]:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"targets": [target]}))
    result = runner.Validator(runner.Settings()).file(str(path))
    return [(d.rule, d.pointer) for d in result.diagnostics if d.severity == "error"]


@pytest.mark.parametrize(
    ("target", "option"),
    [
        ({**ARM, "mfloat-abi": "x"}, "mfloat-abi"),  # the message names no `key=`: reading it found nothing
        ({**ARM, "jit": "x"}, "jit"),
        ({**ARM, "vector-width": 0}, "vector-width"),
        ({"kind": "cuda", "arch": "80"}, "arch"),
        ({"kind": "rocm", "mcpu": "x"}, "mcpu"),
        ({"kind": "rocm", "mtriple": "x"}, "mtriple"),
        ({"kind": "webgpu", "thread_warp_size": 4}, "thread_warp_size"),
    ],
)
def test_an_option_error_points_at_the_option(tmp_path: Path, target: dict[str, Any], option: str) -> None:
    assert _errors(tmp_path, target) == [("invalid-target", f"/targets/0/{option}")]
    with pytest.raises(TargetError) as caught:
        canonicalize(target)
    assert caught.value.option == option


@pytest.mark.parametrize("host", [{**ARM, "mfloat-abi": "x"}, {**ARM, "jit": "x"}])
def test_a_nested_targets_error_points_at_the_target(tmp_path: Path, host: dict[str, Any]) -> None:
    # The top-level table has no such key to point at (its own `jit` would be the wrong one).
    target = {"kind": "llvm", "jit": "orcjit", "host": host}
    assert _errors(tmp_path, target) == [("invalid-target", "/targets/0")]
    with pytest.raises(TargetError) as caught:
        canonicalize(target)
    assert caught.value.option is None


def test_a_string_targets_error_points_at_the_string(tmp_path: Path) -> None:
    assert _errors(tmp_path, "llvm -mtriple=aarch64-linux-gnu -jit=x") == [("invalid-target", "/targets/0")]
