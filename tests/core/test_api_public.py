"""The public API (issue 26, "thin CLI"): `tvmc.api.__all__`, and `validate` returning the problems
of a config (never printing them, never raising them) as `tvmc config validate` finds them."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
import tvmc.api
from tvmc.api import validate, validate_config, validate_paths
from tvmc.errors import TvmcError
from tvmc.validate.diagnostics import RULES, Diagnostic, FileResult


def test_all_lists_what_exists_and_every_public_function() -> None:
    names = tvmc.api.__all__
    assert len(set(names)) == len(names)
    assert all(hasattr(tvmc.api, name) for name in names)
    public = {
        name
        for name, value in vars(tvmc.api).items()
        if not name.startswith("_")
        and (inspect.isfunction(value) or inspect.isclass(value))
        and getattr(value, "__module__", None) == "tvmc.api"
    }
    assert public <= set(names), sorted(public - set(names))
    assert {"validate", "validate_paths", "validate_config", "resolve", "compile", "run"} <= set(names)


def test_validate_returns_the_problems_without_printing(capsys: pytest.CaptureFixture[str]) -> None:
    found = validate([], [("--target", "llvm"), ("-O", "7")], env={})
    assert [(d.rule, d.severity, d.path, d.source) for d in found] == [("invalid-value", "error", "opt-level", "-O 7")]
    assert all(isinstance(d, Diagnostic) and d.rule in RULES for d in found)
    assert validate(["aws/c5"], env={}) == []
    assert capsys.readouterr() == ("", "")


def test_validate_agrees_with_resolve() -> None:
    """validate ok <=> resolve ok, and resolve's error is validate's first error (one rule engine)."""
    cases = [
        [("--target", "llvm")],
        [("--target", "llvm -mcpu=notacpu")],
        [("--target", "bogus")],
        [("--target", "llvm"), ("--set", "executor.kind=bogus")],
        [("--target", "llvm"), ("--pass-config", "tirx.no_such_config=1")],
    ]
    for flags in cases:
        errors = [d for d in validate([], flags, env={}) if d.severity == "error"]
        try:
            tvmc.api.resolve([], flags, env={})
        except TvmcError as err:
            assert errors and err.rule == errors[0].rule, (flags, err, errors)
        else:
            assert not errors, (flags, errors)


def test_validate_paths_reports_each_file_and_a_parents_error_once(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text('targets = ["llvm"]\nopt-level = 9\n', encoding="utf-8")
    for name in ("a", "b"):
        (tmp_path / f"{name}.toml").write_text('extends = "./base.toml"\n', encoding="utf-8")
    results = list(validate_paths([str(tmp_path)]))
    assert all(isinstance(r, FileResult) for r in results)
    by_file = {Path(r.name).name: [d.rule for d in r.diagnostics] for r in results}
    # a.toml reports the base's error (the first in the run), b.toml only says it is invalid
    # through it; the base's own result reports its own error
    assert by_file == {
        "a.toml": ["extends-invalid", "invalid-value"],
        "b.toml": ["extends-invalid"],
        "base.toml": ["invalid-value"],
    }
    flat = validate(paths=[str(tmp_path / "b.toml")])
    assert [d.rule for d in flat] == ["extends-invalid", "invalid-value"]


def test_validate_config_and_its_arguments(tmp_path: Path) -> None:
    result = validate_config(["aws/c5"], [("--set", "opt-level=9")], env={})
    assert [d.rule for d in result.errors] == ["invalid-value"]
    with pytest.raises(TypeError, match="configs or paths"):
        validate(["aws/c5"], paths=[str(tmp_path)])
    with pytest.raises(TypeError, match="engine"):
        validate_paths([str(tmp_path)], engine="slow")
    with pytest.raises(TypeError, match="paths"):
        validate_paths(str(tmp_path))  # type: ignore[arg-type]


def test_emit_is_what_compile_emit_prints(tmp_path: Path) -> None:
    from tvmc.cli.app import app
    from tvmc.cli.compile_cmd import EmitFormat
    from typer.testing import CliRunner

    assert {f.value for f in EmitFormat} == set(tvmc.api.EMIT_FORMS)
    model = tmp_path / "m.onnx"
    model.write_bytes(b"not read: --emit reads no model")
    said: list[str] = []
    emitted = tvmc.api.emit(model, ["aws/c5"], [("-O", "2")], form="plan", tuning=False, on_warning=said.append)
    args = ["compile", str(model), "-c", "aws/c5", "-O", "2", "--emit", "plan", "--no-tuning"]
    printed = CliRunner().invoke(app, args)
    assert printed.exit_code == 0 and printed.stdout == emitted.text
    assert emitted.resolved.config.opt_level == 2 and model in emitted.inputs
    with pytest.raises(tvmc.api.UsageError, match="--tvm-version applies"):
        tvmc.api.emit(model, ["aws/c5"], form="plan", tvm_version="0.19")


def test_check_includes_the_completeness_findings() -> None:
    """api.check is the whole rule engine: a resolved executor without a kind is refused there
    (completeness), with its rule id, before canonicalization could say it differently."""
    tree = tvmc.api.resolve_tree([], [("--target", "llvm"), ("--set", "executor={link-params=true}")], env={})
    with pytest.raises(TvmcError) as err:
        tvmc.api.check(tree)
    assert (err.value.rule, err.value.pointer) == ("missing-key", "/executor")


def test_migrate_asks_the_rule_engine_before_canonicalizing(monkeypatch: pytest.MonkeyPatch) -> None:
    import tvmc.migrate as migrating

    order: list[str] = []
    findings, canonicalize = migrating.config_findings, migrating.canonicalize_config

    def spy_findings(doc: Any, **options: Any) -> Any:
        order.append("rules")
        return findings(doc, **options)

    def spy_canonicalize(data: Any, origins: Any) -> Any:
        order.append("canonicalize")
        return canonicalize(data, origins)

    monkeypatch.setattr(migrating, "config_findings", spy_findings)
    monkeypatch.setattr(migrating, "canonicalize_config", spy_canonicalize)
    migrating.migrate("llvm -mcpu=skylake")
    assert order == ["rules", "canonicalize", "rules"]  # the result is checked by the engine, last
    order.clear()
    with pytest.raises(TvmcError) as err:
        migrating.migrate("llvm -mcpu=notacpu")
    assert err.value.rule == "unknown-cpu" and order == ["rules"]  # refused before any canonicalization
