"""`config validate` reports an error exactly when `config show` (api.resolve) and `compile --emit
plan` fail (issue 13, invariant 1), over the validation corpus, the shipped catalogue and the
issue's table rows. Known disagreements are strict xfails: each flips to a failure once fixed."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_expect import CORPUS, corpus_files
from tvmc import api
from tvmc.errors import TvmcError, suggestion_text
from tvmc.validate import runner
from tvmc.validate.diagnostics import Diagnostic

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "mlp.onnx"

# A config without targets is a mixin: valid as a layer, but there is nothing to show or build.
MIXINS = {"ok/mixin.toml"}
KNOWN: dict[str, str] = {}  # corpus files where the commands still disagree (strict xfails), with why


def _validate_errors(path: Path) -> list[str]:
    result = runner.Validator(runner.Settings()).file(str(path))
    return [d.rule for d in result.diagnostics if d.severity == "error"]


def _show_fails(path: Path) -> bool:
    try:
        api.resolve([str(path)], [], env={})
    except TvmcError:
        return True
    return False


def _cases() -> list[object]:
    cases: list[object] = []
    for rel in corpus_files():
        if rel in MIXINS:
            continue
        marks = [pytest.mark.xfail(reason=KNOWN[rel], strict=True)] if rel in KNOWN else []
        cases.append(pytest.param(CORPUS / rel, id=rel, marks=marks))
    for path in sorted((ROOT / "configs").rglob("*.toml")):
        cases.append(pytest.param(path, id=str(path.relative_to(ROOT))))
    return cases


@pytest.mark.parametrize("path", _cases())
def test_validate_errors_iff_show_fails(path: Path) -> None:
    errors = _validate_errors(path)
    assert bool(errors) == _show_fails(path), errors


TABLE = {
    "system-lib-int": 'targets = ["llvm"]\n[runtime]\nsystem-lib = 1\n',
    "host-cuda": 'targets = ["llvm"]\nhost = { kind = "cuda" }\n',
    "own-host-cuda": 'targets = [{ kind = "llvm", host = { kind = "cuda" } }]\n',
    "system-lib-int-cuda-host": 'targets = ["llvm"]\nhost = {kind = "cuda"}\n[runtime]\nsystem-lib = 1\n',
    "pass-config-maybe": 'targets = ["llvm"]\n[pass-config]\n"tir.disable_vectorize" = "maybe"\n',
    "pass-config-nested-unknown": 'targets = ["llvm"]\npass-config.tirx.no_such_config = true\n',
    "host-compiler": 'targets = ["llvm"]\nhost = { kind = "c", compiler = "ethos-u" }\n',
    "module-name-modern": 'tvm-version = ">=0.25"\ntargets = ["llvm"]\nbuild.module-name = "net"\n',
    "two-targets-modern": 'tvm-version = ">=0.25"\ntargets = ["cuda", "llvm"]\n',
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_issue_table_rows_read_the_same_in_every_column(name: str, tmp_path: Path, app: object) -> None:
    from typer.testing import CliRunner

    path = tmp_path / f"{name}.toml"
    path.write_text(TABLE[name])
    cli = CliRunner()
    validate = cli.invoke(app, ["config", "validate", str(path)])  # type: ignore[arg-type]
    show = cli.invoke(app, ["config", "show", "--config", str(path)])  # type: ignore[arg-type]
    plan = cli.invoke(app, ["compile", str(MODEL), "--config", str(path), "--emit", "plan"])  # type: ignore[arg-type]
    assert (validate.exit_code, show.exit_code, plan.exit_code) == (1, 1, 1), (validate.output, show.output)


# A missing `extends` name or path: `config show` (the raised error) and `config validate` (the
# diagnostic) offer the same did-you-mean; show once offered three names and validate one.
@pytest.mark.parametrize("ref", ["aws/c", "c5", "host/nativ", "aws/c5x", "./sibling-typ.toml", "zzzzzz"])
def test_show_and_validate_offer_the_same_did_you_mean_for_a_missing_extends(tmp_path: Path, ref: str) -> None:
    (tmp_path / "sibling-type.toml").write_text('targets = ["llvm"]\n', encoding="utf-8")
    path = tmp_path / "child.toml"
    path.write_text(f'extends = ["{ref}"]\ntargets = ["llvm"]\n', encoding="utf-8")
    with pytest.raises(TvmcError) as err:
        api.resolve([str(path)], [], env={})
    found = [d for d in runner.Validator(runner.Settings()).file(str(path)).diagnostics if d.severity == "error"]
    assert [d.rule for d in found] == ["extends-unresolved"], found
    assert list(err.value.suggestions) == ([found[0].suggestion] if found[0].suggestion else [])
    assert len(err.value.suggestions) <= 1


def _body(d: Diagnostic) -> str:
    """A diagnostic as `config validate` prints it after `FILE:LINE:COL: error: `, rule id left out."""
    return (f"{d.path}: " if d.path else "") + d.full_message


# One voice: what `config show` prints after `tvmc: error: LOCATION: ` is what `config validate`
# prints after `LOCATION: error: `: message, then the hint, then the did-you-mean (show once put the
# did-you-mean first), and an old tvmc JSON config's how-to-convert in both.
CASES = {
    "not-found": (["aws/c55"], None),  # a did-you-mean and a hint (where it searched)
    "cuda-arch": (None, 'targets = [{ kind = "cuda", arch = "80" }]\n'),  # a target error's hint
    "llvm-abi": (None, 'targets = [{ kind = "llvm", mtriple = "aarch64-linux-gnu", mfloat-abi = "hardd" }]\n'),
    "old-json": (None, '{"targets": [{"kind": "llvm"}], "opt_level": 3}'),
    "old-json-string-executor": (None, '{"targets": ["llvm"], "executor": "graph", "pass_config": {}}'),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_show_and_validate_print_a_problem_alike(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    configs, text = CASES[name]
    monkeypatch.chdir(tmp_path)
    if text is not None:
        file = f"{name}.json" if text.startswith("{") else f"{name}.toml"
        (tmp_path / file).write_text(text, encoding="utf-8")
        configs = [f"./{file}"]
        validated = runner.Validator(runner.Settings()).file(file)
    else:
        validated = api.validate_config(configs, [], env={})
    assert configs is not None
    with pytest.raises(TvmcError) as err:
        api.resolve(configs, [], env={})
    errors = [d for d in validated.diagnostics if d.severity == "error"]
    assert errors and _body(errors[0]) == err.value.detail()
    if name.startswith("old-json"):
        assert errors[0].hint is not None and "tvmc config migrate" in errors[0].hint
    if err.value.hint is not None:  # message; hint (did you mean …?)
        assert f"; {err.value.hint}" in _body(errors[0])
        assert _body(errors[0]).endswith(suggestion_text(err.value.suggestions) or err.value.hint)
