"""Old TVM's (0.18/0.19) object-typed pass configs are checked field by field, as TVM 0.27's are.

`tir.UnrollLoop = { bogus = 1 }` in a config for TVM <= 0.19 used to pass `config validate`/`show`
and fail only when old TVM ran it (its attrs node has no field `bogus`). The fields come from
apache/tvm's source at each release tag (scripts/registry_sources, `pass_config_fields`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tvmc import registry
from tvmc.cli.app import app
from tvmc.validate import schema
from tvmc.validate.runner import Settings, Validator
from typer.testing import CliRunner

Write = Callable[[str, str], Path]
runner = CliRunner()
LEGACY = 'tvm-version = "<=0.19"\ntargets = ["llvm"]\n[pass-config]\n'


def tvmc(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_an_unknown_field_of_an_old_config_object_is_refused_everywhere(write: Write) -> None:
    path = write("c.toml", LEGACY + '"tir.UnrollLoop" = {bogus = 1}\n')
    code, out, _ = tvmc("config", "validate", str(path))
    assert code == 1 and "UnrollLoopConfig has no field 'bogus'" in out and "[pass-config-type]" in out
    assert "fields: auto_max_step, auto_max_depth" in out  # the message shape of TVM 0.27's check
    emits = (["compile", "m.onnx", "--emit", "relay"], ["compile", "m.onnx", "--emit", "tvmc"])
    for command in (["config", "show"], *emits):
        code, out, err = tvmc(*command, "-c", str(path))
        assert code == 1 and "UnrollLoopConfig has no field 'bogus'" in err and not out, command


@pytest.mark.parametrize("engine", ["fast", "jsonschema"])
@pytest.mark.parametrize(
    ("head", "name", "tvm_type"),
    [(LEGACY, "tir.UnrollLoop", "UnrollLoopConfig"), ('targets = ["llvm"]\n[pass-config]\n', "tirx.UnrollLoop", None)],
)
def test_both_engines_say_it_alike(write: Write, engine: str, head: str, name: str, tvm_type: str | None) -> None:
    path = write("c.toml", head + f'"{name}" = {{bogus = 1}}\n')
    code, out, _ = tvmc("config", "validate", "--engine", engine, str(path))
    typed = tvm_type or "tirx.transform.UnrollLoopConfig"  # TVM 0.27's type key
    assert code == 1 and out.startswith(f"{path}:4:21: " if tvm_type else f"{path}:3:22: "), out
    assert f"{name}\".bogus: {typed} has no field 'bogus' (fields: auto_max_step," in out, out
    assert out.splitlines()[0].endswith("[pass-config-type]"), out


def test_a_field_of_the_old_release_is_accepted_and_emitted(write: Write) -> None:
    path = write("c.toml", LEGACY + '"tir.UnrollLoop" = {auto_max_step = 8, explicit_unroll = true}\n')
    assert tvmc("config", "validate", str(path))[0] == 0
    code, out, _ = tvmc("config", "show", "-c", str(path))
    assert code == 0 and 'pass-config."tir.UnrollLoop"' in out
    code, out, _ = tvmc("compile", "m.onnx", "--emit", "relay", "-c", str(path))
    assert code == 0 and "'tir.UnrollLoop': {'auto_max_step': 8, 'explicit_unroll': True}" in out


def test_a_field_of_the_wrong_type_is_refused(write: Write) -> None:
    path = write("c.toml", LEGACY + '"tir.UnrollLoop" = {auto_max_step = "x"}\n')
    code, out, _ = tvmc("config", "validate", str(path))
    assert code == 1 and "auto_max_step: expected type 'IntImm' but got 'str'" in out and "[pass-config-type]" in out
    code, _, err = tvmc("compile", "m.onnx", "--emit", "relay", "-c", str(path))
    assert code == 1 and "auto_max_step: expected type 'IntImm'" in err


def test_the_old_spelling_of_a_field_is_the_one_old_tvm_takes(write: Write) -> None:
    # 0.19's HoistIfThenElseConfig spells `support_block_scope_hosting`; TVM 0.27 `..._hoisting`.
    assert registry.pass_config_fields("HoistIfThenElseConfig") == {"support_block_scope_hosting": "IntImm"}
    old = write("old.toml", LEGACY + '"tir.HoistIfThenElse" = {support_block_scope_hoisting = true}\n')
    code, out, _ = tvmc("config", "validate", str(old))
    assert code == 1 and "did you mean 'support_block_scope_hosting'?" in out
    modern = 'tvm-version = ">=0.25"\ntargets = ["llvm"]\n[pass-config]\n'
    new = write("new.toml", modern + '"tir.HoistIfThenElse" = {support_block_scope_hoisting = true}\n')
    assert tvmc("config", "validate", str(new))[0] == 0


def test_legacy_and_modern_types_are_answered_from_their_own_release() -> None:
    modern = registry.pass_config_fields("tirx.transform.UnrollLoopConfig")
    legacy = registry.pass_config_fields("UnrollLoopConfig")
    assert modern is not None and legacy is not None and set(modern) == set(legacy)
    assert modern["auto_max_step"] == "int" and legacy["auto_max_step"] == "IntImm"
    assert registry.pass_config_fields("bool") is None and registry.pass_config_fields("NoSuchConfig") is None
    for version in registry.generation_versions():  # every object type of every release has its fields
        gen = registry.generation(version)
        objects = {t for t in gen.pass_configs.values() if t not in ("bool", "int", "str") and "<" not in t}
        assert objects == set(gen.pass_config_fields), version


# ---- every recorded field accepts a value of its type, from both engines ---------------------


def _cases() -> list[tuple[str, str, str, str]]:
    """(tvm-version, config name, field, the field's recorded type) of every release's objects."""
    out = []
    for version in registry.generation_versions():
        gen = registry.generation(version)
        for name, tvm_type in sorted(gen.pass_configs.items()):
            for field, field_type in gen.pass_config_fields.get(tvm_type, {}).items():
                out.append((version, name, field, field_type))
    return out


CASES = _cases()
VALUES: dict[str, st.SearchStrategy[Any]] = {
    "int": st.integers(-(2**31), 2**31 - 1) | st.booleans(),  # old attrs set an int from a bool too
    "bool": st.booleans() | st.integers(0, 1),
    "str": st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12),
    "Array<int>": st.lists(st.integers(0, 99), max_size=3),
    "Array<str>": st.lists(st.text(max_size=5), max_size=3),
}
_SCHEMA = jsonschema.Draft202012Validator(schema.build_schema())


def test_the_cases_cover_every_release_and_type() -> None:
    assert {c[0] for c in CASES} == set(registry.generation_versions())
    assert {c[3] for c in CASES} <= set(VALUES) and {"int", "bool", "str", "Array<int>"} <= {c[3] for c in CASES}


def _errors(doc: dict[str, Any], tmp_path: Path) -> list[str]:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = Validator(Settings(engine="fast")).file(str(path))
    return [f"{d.rule}: {d.message}" for d in result.diagnostics if d.severity == "error"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(CASES).flatmap(lambda case: st.tuples(st.just(case), VALUES[case[3]])))
def test_every_recorded_field_accepts_a_value_of_its_type(tmp_path: Path, drawn: tuple[Any, Any]) -> None:
    (version, name, field, _), value = drawn
    doc = {"tvm-version": version, "targets": ["llvm"], "pass-config": {name: {field: value}}}
    assert _SCHEMA.is_valid(doc), doc
    assert not [e for e in _errors(doc, tmp_path) if e.startswith("pass-config")], doc


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
def test_every_recorded_field_refuses_a_value_of_another_type(tmp_path: Path, case: tuple[str, ...]) -> None:
    version, name, field, field_type = case
    wrong = {"int": "1", "bool": "true", "str": 1, "Array<int>": ["1"], "Array<str>": [1]}[field_type]
    for bad in ({field: wrong}, {f"{field}_": 1}):  # a wrong type, and a field the node lacks
        doc = {"tvm-version": version, "targets": ["llvm"], "pass-config": {name: bad}}
        assert not _SCHEMA.is_valid(doc), doc
        assert any(e.startswith("pass-config-type: ") for e in _errors(doc, tmp_path)), doc
