"""`tvmc config validate` as a command: inputs, modes, exit codes, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from corpus_expect import ROOT, Invoke
from tvmc.validate import runner


def test_usage_errors_exit_2(tvmc: Invoke, in_corpus: Path) -> None:
    assert tvmc("validate").exit_code == 2  # nothing to validate
    missing = tvmc("validate", "no/such/file.toml")
    assert missing.exit_code == 1 and "no/such/file.toml: error: no such config file" in missing.stdout
    assert tvmc("validate", "ok/full.toml", "--config", "lib/base-cpu").exit_code == 2
    assert tvmc("validate", "-", "-", input="").exit_code == 2
    assert tvmc("validate", "--format", "sarif2", "ok/full.toml").exit_code == 2
    assert "Traceback" not in missing.stdout + missing.stderr


def test_valid_with_warnings_exits_0(tvmc: Invoke, in_corpus: Path) -> None:
    result = tvmc("validate", "ok/full.toml", "semantic/legacy-kind.toml")
    assert result.exit_code == 0
    assert result.stdout.startswith("semantic/legacy-kind.toml:5:5: warning: targets[0].kind:")
    assert "checked 2 files: 2 valid, 0 invalid; 0 errors, 1 warning" in result.stderr
    assert tvmc("validate", "--strict", "semantic/legacy-kind.toml").exit_code == 1


def test_text_line_format(tvmc: Invoke, in_corpus: Path) -> None:
    result = tvmc("validate", "schema/unknown-key.toml")
    assert result.stdout.splitlines()[0] == (
        "schema/unknown-key.toml:7:1: error: opt_level: unknown key (did you mean 'opt-level'?) [unknown-key]"
    )
    assert result.exit_code == 1


def test_stdin(tvmc: Invoke, in_corpus: Path) -> None:
    text = 'targets = ["llvm"]\nopt-levl = 1\n'
    plain = tvmc("validate", "-", input=text)
    assert plain.stdout.startswith("<stdin>:2:1: error: opt-levl: unknown key") and plain.exit_code == 1
    named = tvmc(
        "validate", "-", "--stdin-filename", "extends/from-stdin.toml", input='extends = "../lib/typo-base.toml"\n'
    )  # relative to the stdin file's directory
    assert named.stdout.startswith("extends/from-stdin.toml:1:1: error: extends: invalid through what it extends")
    assert "\nlib/typo-base.toml:5:1: error: opt_level" in named.stdout and named.exit_code == 1
    as_json = tvmc("validate", "-", "--stdin-filename", "x.json", input='{"targets": ["llvm"],}')
    assert as_json.stdout.startswith("x.json:1:21: error: invalid JSON") and as_json.exit_code == 1
    assert tvmc("validate", "-", input='targets = ["llvm"]\n').exit_code == 0


def test_directories_and_unreadable_files(tvmc: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.toml").write_text('targets = ["llvm"]\n')
    (tmp_path / "a" / "y.json").write_text('{"targets": ["nope"]}')
    (tmp_path / "a" / "notes.txt").write_text("not a config")
    (tmp_path / "a" / ".hidden").mkdir()
    (tmp_path / "a" / ".hidden" / "z.toml").write_text("broken = = 1")
    result = tvmc("validate", "--format", "json", "a")
    doc = json.loads(result.stdout)
    assert [f["file"] for f in doc["files"]] == ["a/x.toml", "a/y.json"]
    assert [f["status"] for f in doc["files"]] == ["ok", "fail"] and result.exit_code == 1
    empty = tvmc("validate", "--format", "json", "a/.hidden/..", "--strict")  # same dir, walked again
    assert json.loads(empty.stdout)["summary"]["files"] == 2
    (tmp_path / "b").mkdir()
    none = tvmc("validate", "--format", "json", "b")  # a directory without configs found nothing: an error
    doc = json.loads(none.stdout)
    assert [(f["file"], f["status"]) for f in doc["files"]] == [("b", "fail")]
    assert doc["files"][0]["errors"][0]["rule"] == "config-not-found"
    assert doc["files"][0]["errors"][0]["message"] == "no config found: the directory holds no *.toml or *.json file"
    assert none.exit_code == 1
    # A directory given where a file is read (e.g. a FIFO or a path that vanished) is a diagnostic.
    result = runner.Validator(runner.Settings(), dirs=[]).file("b")
    assert [d.rule for d in result.diagnostics] == ["unreadable"]


def test_several_directories(tvmc: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Regression: walking the first directory rebound `iter_paths`'s `dirs`, so the second one was read as a file.
    monkeypatch.chdir(tmp_path)
    for name in ("a", "b"):
        (tmp_path / name / "sub").mkdir(parents=True)
        (tmp_path / name / "sub" / "x.toml").write_text('targets = ["llvm"]\n')
    expected = ["a/sub/x.toml", "b/sub/x.toml"]
    assert list(runner.iter_paths(["a", "b"])) == expected
    assert list(runner.iter_paths(["a", "b"], dirs={"a", "b"})) == expected
    result = tvmc("validate", "--format", "json", "a", "b")  # the command passes the `dirs` it found
    assert [f["file"] for f in json.loads(result.stdout)["files"]] == expected and result.exit_code == 0


def test_a_parent_extending_too_many_configs_is_refused_in_both_modes(
    tvmc: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Validating the file agrees with resolving it: before, the parent's 33rd entry was silently dropped.
    monkeypatch.chdir(tmp_path)
    for i in range(33):
        (tmp_path / f"p{i}.toml").write_text('description = "part"\n')
    entries = ", ".join(f'"./p{i}.toml"' for i in range(33))
    (tmp_path / "wide.toml").write_text(f"extends = [{entries}]\n")
    (tmp_path / "child.toml").write_text('extends = "./wide.toml"\ntargets = ["llvm"]\n')
    as_file = tvmc("validate", "child.toml")
    assert as_file.exit_code == 1
    assert "wide.toml:1:1: error: extends: extends lists more than 32 configs [limit]" in as_file.stdout
    assert tvmc("validate", "--config", "./child.toml").exit_code == 1


def test_resolved_config_mode(tvmc: Invoke, in_corpus: Path) -> None:
    ok = tvmc("validate", "--config", "lib/base-cpu")
    assert ok.exit_code == 0, ok.stdout
    typo = tvmc("validate", "--config", "lib/base-cpux")
    assert typo.exit_code == 1
    assert "[config-not-found]" in typo.stdout and "did you mean 'lib/base-cpu'?" in typo.stdout
    parent = tvmc("validate", "--config", "lib/typo-base")
    assert parent.stdout.startswith("lib/typo-base.toml:5:1: error: opt_level: unknown key")
    legacy = tvmc("validate", "--config", "semantic/legacy-kind.toml")  # warnings of every file are kept
    assert legacy.stdout.startswith("semantic/legacy-kind.toml:5:5: warning:") and legacy.exit_code == 0
    partial = tvmc("validate", "--config", "ok/mixin.toml")  # used alone, a config must be complete
    assert partial.exit_code == 1 and partial.stdout.count("[missing-key]") == 2


def test_rewrites_apply_and_are_located_at_the_flag(tvmc: Invoke, in_corpus: Path) -> None:
    resolved = tvmc("validate", "--config", "lib/base-cpu", "--opt-level", "5")
    assert resolved.stdout.startswith("--opt-level=5: error: opt-level: 5 is not in 0..3 [invalid-value]")
    assert resolved.exit_code == 1
    on_file = tvmc("validate", "lib/base-cpu.toml", "--opt-level", "5")
    assert on_file.stdout.startswith("--opt-level=5: error: opt-level: 5 is not in 0..3") and on_file.exit_code == 1
    fine = tvmc("validate", "--config", "lib/base-cpu", "--target-llvm-mcpu", "skylake")
    assert fine.exit_code == 0, fine.stdout
    # A flag that does not apply: a usage error for --config, a diagnostic per file for PATHs.
    assert tvmc("validate", "--config", "lib/base-cpu", "--target-cuda-arch", "sm_80").exit_code == 2
    per_file = tvmc("validate", "lib/base-cpu.toml", "--target-cuda-arch", "sm_80")
    assert "[rewrite]" in per_file.stdout and per_file.exit_code == 1


def test_a_bug_in_a_check_is_a_diagnostic_not_a_traceback(
    tvmc: Invoke, in_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object, **_kwargs: object) -> list[object]:
        raise KeyError("boom")

    monkeypatch.setattr(runner, "semantic_findings", broken)
    result = tvmc("validate", "lib/base-cpu.toml", "ok/mixin.toml")
    assert result.exit_code == 1 and "Traceback" not in result.stdout + result.stderr
    assert result.stdout.count("[internal]") == 2


def test_engine_jsonschema_matches_the_fast_engine(tvmc: Invoke, in_corpus: Path) -> None:
    files = ["schema/unknown-option.toml", "schema/wrong-type.json", "schema/unknown-tag.toml", "ok/full.json"]
    fast = json.loads(tvmc("validate", "--format", "json", *files).stdout)
    slow = json.loads(tvmc("validate", "--format", "json", "--engine", "jsonschema", *files).stdout)

    def places(doc: dict[str, list[dict[str, object]]]) -> list[set[tuple[object, ...]]]:
        return [{(e["file"], e["line"], e["column"], e["rule"]) for e in f["errors"]} for f in doc["files"]]

    assert places(fast) == places(slow)  # type: ignore[arg-type]


def test_help_lists_the_rules(tvmc: Invoke) -> None:
    result = tvmc("validate", "--help")
    assert result.exit_code == 0
    from tvmc.validate.diagnostics import RULES

    text = "".join(result.stdout.split())  # click wraps lines, also at hyphens
    for word in (*RULES, "Exit codes: 0", "--strict", "--stdin-filename"):
        assert word.replace(" ", "") in text


_IMPORTS = """
import json, sys
from typer.testing import CliRunner
from tvmc.cli.app import app
result = CliRunner().invoke(app, ["config", *sys.argv[1:]])
print(json.dumps(["jsonschema" in sys.modules, result.exit_code]))
"""


@pytest.mark.parametrize(
    ("argv", "imported"),
    [
        (["show", "--config", "host/default"], False),
        (["list"], False),
        (["schema"], False),
        (["validate", "configs/host/default.toml"], False),
        (["validate", "--engine", "jsonschema", "configs/host/default.toml"], True),
    ],
)
def test_jsonschema_is_imported_only_by_the_jsonschema_engine(argv: list[str], imported: bool) -> None:
    out = subprocess.run([sys.executable, "-c", _IMPORTS, *argv], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded, code = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded is imported
    assert code == 0


@pytest.mark.parametrize("text", ["LLVM", "LLVM -mcpu=skylake", "Cuda", "cudax -arch=sm_80", "nvidia/a100x"])
def test_a_bad_target_string_is_one_rule_in_a_file_a_flag_and_the_environment(
    tvmc: Invoke, tmp_path: Path, text: str
) -> None:
    """`LLVM` was `unknown-tag` in a file and `invalid-target` in `--target`: one string, one rule
    (and the same did-you-mean), wherever it is written."""
    config = tmp_path / "c.toml"
    config.write_text(f"targets = [{json.dumps(text)}]\n", encoding="utf-8")
    runs = [
        tvmc("validate", "--format", "json", str(config)),
        tvmc("validate", "--format", "json", "--target", text),
        tvmc("validate", "--format", "json", "-c", "host/default", env={"TVMC_TARGET": text}),
    ]
    found = []
    for run in runs:
        assert run.exit_code == 1, run.stdout
        (problem,) = json.loads(run.stdout)["files"][0]["errors"]
        found.append((problem["rule"], problem["suggestion"]))
    assert found[0] == found[1] == found[2], found
    assert found[0][0] == "unknown-tag"
    if text.lower().startswith(("llvm", "cuda ")) or text == "Cuda":
        assert found[0][1] == text.split()[0].lower()


def test_an_unknown_option_in_a_target_string_is_one_rule_and_one_place(tvmc: Invoke, tmp_path: Path) -> None:
    """`llvm -bogus=1` was `invalid-target` (the table form `unknown-option`), and `config show`
    located it at the string's start while `config validate` pointed at the option."""
    from tvmc import api
    from tvmc.errors import TvmcError

    config = tmp_path / "c.toml"
    config.write_text('targets = ["llvm -bogus=1"]\n', encoding="utf-8")
    validated = tvmc("validate", "--format", "json", str(config))
    (problem,) = json.loads(validated.stdout)["files"][0]["errors"]
    assert (problem["rule"], problem["line"], problem["column"]) == ("unknown-option", 1, 18)
    with pytest.raises(TvmcError) as shown:
        api.resolve([str(config)], [], env={})
    where = shown.value.location
    assert where is not None and (shown.value.rule, where.line, where.col) == ("unknown-option", 1, 18)
    flagged = tvmc("validate", "--format", "json", "--target", "llvm -bogus=1")
    assert json.loads(flagged.stdout)["files"][0]["errors"][0]["rule"] == "unknown-option"
