"""The pre-commit hook agrees with the CLI: its entry runs, its file filter selects the configs."""

from __future__ import annotations

import re
import shlex
import tomllib

from corpus_expect import ROOT, Invoke
from ruamel.yaml import YAML  # check-jsonschema's YAML parser (a declared test dependency)

HOOKS = ROOT / ".pre-commit-hooks.yaml"


def _hook() -> dict[str, object]:
    hooks = YAML(typ="safe").load(HOOKS.read_text(encoding="utf-8"))
    assert isinstance(hooks, list) and [h["id"] for h in hooks] == ["tvmc-validate"]
    return hooks[0]  # type: ignore[no-any-return]


def test_hook_fields() -> None:
    hook = _hook()
    assert hook["language"] == "python"
    assert hook["types_or"] == ["toml", "json"]
    assert str(hook["minimum_pre_commit_version"]) == "2.9.0"  # types_or needs 2.9
    assert hook["entry"] == "tvmc config validate"
    assert hook.get("pass_filenames", True) is True  # the CLI takes many paths


def test_entry_is_the_installed_command(tvmc: Invoke) -> None:
    program, *argv = shlex.split(str(_hook()["entry"]))
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts[program] == "tvmc.cli.entry:main"
    assert argv[0] == "config"
    shipped = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "configs").rglob("*.toml"))[:5]
    result = tvmc(*argv[1:], *[str(ROOT / p) for p in shipped])  # as pre-commit calls it: filenames appended
    assert result.exit_code == 0, result.stdout


def test_files_regex_selects_configs_only() -> None:
    pattern = re.compile(str(_hook()["files"]))
    for path in ("configs/aws/c5.toml", "configs/host/default.toml", "configs/x/y/z.json"):
        assert pattern.search(path), path
    for path in (
        "tests/validate/corpus/ok/full.toml",
        "configs/README.md",
        "pyproject.toml",
        "xconfigs/a.toml",
    ):
        assert not pattern.search(path), path
    for path in (ROOT / "configs").rglob("*"):
        if path.suffix in (".toml", ".json"):
            assert pattern.search(path.relative_to(ROOT).as_posix()), path
