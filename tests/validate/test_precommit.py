"""The pre-commit hook agrees with the CLI: its entry runs, its file filter selects the configs;
the README's pre-commit section works with the real pre-commit in a consumer repository."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

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
    assert hook["entry"] == "tvmc config validate --isolated"  # the verdict is the repository's alone
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


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=tvmc tests", "-c", "user.email=tests@invalid", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout.strip()


def _hook_repo(tmp: Path) -> tuple[Path, str]:
    """This repository's working tree as pre-commit will clone it: what installing tvmc needs, committed."""
    repo = tmp / "hook"
    # Every file but the tests: what building the package may read (the build backend's includes).
    listed = _git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ".", ":!tests")
    for rel in filter(None, listed.split("\0")):
        source = ROOT / rel
        if source.is_file():  # a file deleted in the working tree but not yet in git is gone
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / rel)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "hook")
    return repo, _git(repo, "rev-parse", "HEAD")


def _readme_examples() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n### pre-commit\n", 1)[1].split("\n#", 1)[0]
    return re.findall(r"```yaml\n(.*?)```", section, flags=re.DOTALL)


def _isolated_env(home: Path, cache: Path) -> dict[str, str]:
    """A developer whose HOME holds a personal config dir; their pip settings (the index, the wheel
    cache) kept so installing the hook needs nothing but the package index."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TVMC_") and not k.startswith("XDG_")}
    real_home = Path.home()  # the test session's XDG_* point at temporary directories
    user_pip = real_home / ".config" / "pip" / "pip.conf"
    if "PIP_CONFIG_FILE" not in env and user_pip.is_file():
        env["PIP_CONFIG_FILE"] = str(user_pip)
    if (real_home / ".cache" / "pip").is_dir():
        env.setdefault("PIP_CACHE_DIR", str(real_home / ".cache" / "pip"))
    env.update(HOME=str(home), PRE_COMMIT_HOME=str(cache), PRE_COMMIT_COLOR="never", NO_COLOR="1")
    return env


def test_readme_examples_with_the_real_pre_commit(tmp_path: Path) -> None:
    examples = _readme_examples()
    assert len(examples) == 2
    repo, rev = _hook_repo(tmp_path)
    home = tmp_path / "home"
    personal = home / ".config" / "tvmc" / "configs" / "nvidia"
    personal.mkdir(parents=True)
    (personal / "nvidia-a100.toml").write_text("bogus = 1\n", encoding="utf-8")  # a shipped name, broken
    env = _isolated_env(home, tmp_path / "pre-commit-cache")
    for number, (example, configs) in enumerate(zip(examples, ("configs", "deploy/tvmc"), strict=True)):
        consumer = tmp_path / f"consumer{number}"
        (consumer / configs / "team").mkdir(parents=True)
        (consumer / configs / "team" / "a100.toml").write_text('extends = ["nvidia/nvidia-a100"]\n', encoding="utf-8")
        (consumer / configs / "prod.toml").write_text('extends = ["team/a100"]\nopt-level = 2\n', encoding="utf-8")
        (consumer / "other").mkdir()
        (consumer / "other" / "not-a-config.toml").write_text("x = 1\n", encoding="utf-8")  # outside files:
        config = re.sub(r"repo: .*", f"repo: {repo}", example).replace("rev: <tag>", f"rev: {rev}")
        (consumer / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
        _git(consumer, "init", "-q")
        _git(consumer, "add", "-A")

        def pre_commit(cwd: Path = consumer) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [sys.executable, "-m", "pre_commit", "run", "--all-files"],
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )

        passed = pre_commit()
        assert passed.returncode == 0, passed.stdout + passed.stderr
        assert re.search(r"Validate tvmc compilation configs\.+Passed", passed.stdout)
        (consumer / configs / "typo.toml").write_text('extends = ["team/a10"]\n', encoding="utf-8")
        _git(consumer, "add", "-A")
        failed = pre_commit()
        assert failed.returncode == 1, failed.stdout + failed.stderr
        assert f"{configs}/typo.toml:1:12: error: extends[0]: config 'team/a10' not found" in failed.stdout
        assert "did you mean 'team/a100'?" in failed.stdout and "not-a-config" not in failed.stdout
