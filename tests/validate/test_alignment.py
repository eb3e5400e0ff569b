"""Byte alignments (`workspace-byte-alignment`, `constant(s)-byte-alignment` of the AOT executor
and the c target) are powers of two: the generated C declares buffers `aligned(N)`, which C
compilers refuse otherwise. Checked where the value is written: a table (both engines, and the
schema editors read), a target string (the rule engine), a flag."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tvmc import api
from tvmc.errors import TvmcError
from tvmc.validate import model, runner


@given(st.integers(min_value=-(2**40), max_value=2**40))
def test_an_alignment_is_a_power_of_two_that_fits_32_bits(value: int) -> None:
    fine = value >= 1 and value & (value - 1) == 0 and value < 2**31
    assert (model.alignment_problem("workspace-byte-alignment", value) is None) == fine
    assert model.alignment_problem("opt-level", value) is None  # only alignments


@pytest.mark.parametrize(
    "text",
    [
        '[executor]\nkind = "aot"\nworkspace-byte-alignment = 24\n',
        '[executor]\nkind = "aot"\nconstant-byte-alignment = 2147483648\n',
        'host = { kind = "c", workspace-byte-alignment = 12 }\n',
        'host = "c -constants-byte-alignment=6"\n',
    ],
)
def test_every_command_refuses_an_alignment_that_is_not_a_power_of_two(text: str, tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(f'tvm-version = "<=0.19"\ntargets = ["c"]\n{text}', encoding="utf-8")
    found = [d for d in runner.Validator(runner.Settings()).file(str(path)).diagnostics if d.severity == "error"]
    assert [d.rule for d in found] == ["invalid-value"] and "power of two" in found[0].message
    with pytest.raises(TvmcError, match="power of two"):
        api.resolve([str(path)], [], env={})


def test_powers_of_two_pass(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        'tvm-version = "<=0.19"\ntargets = ["c -workspace-byte-alignment=64"]\n'
        '[executor]\nkind = "aot"\nworkspace-byte-alignment = 1\nconstant-byte-alignment = 1073741824\n',
        encoding="utf-8",
    )
    assert runner.Validator(runner.Settings()).file(str(path)).ok
    api.resolve([str(path)], [], env={})
