"""Files and names: lookups stay in their search directory, config content is never run, every
write is atomic, inputs are never modified, and an input is never the output (however spelt)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from testkit import cli_env
from tvmc import api
from tvmc.backend import frontends, isolated, preflight, runner
from tvmc.errors import ConfigNotFoundError

from .harness import MODEL, ROOT, run_cli


@pytest.fixture
def search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A search directory (first on TVMC_CONFIG_PATH) with one config, and a secret outside it."""
    inside = tmp_path / "search"
    (inside / "team").mkdir(parents=True)
    (inside / "team" / "cpu.toml").write_text('targets = ["llvm"]\n')
    (tmp_path / "secret.toml").write_text('targets = ["c"]\ndescription = "outside"\n')
    monkeypatch.setenv("TVMC_CONFIG_PATH", str(inside))
    return inside


@pytest.mark.parametrize("name", ["team/../../secret", "team/./cpu", "team//cpu", "C:/x", "a\\b", "team/../cpu"])
def test_names_cannot_leave_their_directory(search: Path, name: str) -> None:
    with pytest.raises(ConfigNotFoundError):
        api.resolve([name])
    result = run_cli(["config", "show", "--config", name])
    assert result.exit_code == 1 and "outside" not in result.stdout


def test_symlinks_out_of_the_search_directory_are_reported(search: Path) -> None:
    (search / "leak.toml").symlink_to(search.parent / "secret.toml")
    (search / "linked").symlink_to(search.parent, target_is_directory=True)
    for name in ("leak", "linked/secret"):
        result = run_cli(["config", "show", "--config", name])
        assert result.exit_code == 1 and "outside its search directory" in result.stderr, name
    (search / "team" / "alias.toml").symlink_to(search / "team" / "cpu.toml")  # inside: fine
    assert api.resolve(["team/alias"]).config.targets[0]["kind"] == "llvm"


def test_config_content_is_never_executed_or_imported(search: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    code = f"import pathlib; pathlib.Path({str(marker)!r}).write_text('x')\n"
    for name in ("evil.py", "evil.toml", "team/evil.json", "__init__.py"):
        (search / name).write_text(code)
    sys.path.insert(0, str(search))  # even where Python would find the code as a module
    try:
        for ref in ("evil", "team/evil", str(search / "evil.py"), str(search / "__init__.py")):
            assert run_cli(["config", "show", "--config", ref]).exit_code == 1
        assert run_cli(["config", "list"]).exit_code == 0
    finally:
        sys.path.remove(str(search))
    assert not marker.exists() and "evil" not in sys.modules


# ---- atomic writes --------------------------------------------------------------------------------


def digest(paths: list[Path]) -> dict[Path, str]:
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


@pytest.fixture
def failing_replace(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def replace(_src: object, _dst: object, **_dir_fds: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", replace)
    yield


@pytest.fixture
def fake_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """`tvmc compile` without TVM: the write path is what is tested here."""
    monkeypatch.setattr(runner, "require_tvm", lambda: None)
    monkeypatch.setattr(preflight, "will_not_run_here", lambda target: [])
    monkeypatch.setattr(frontends, "check_available", lambda spec: None)
    monkeypatch.setattr(
        isolated, "build", lambda plan, on_stage=None, verbose=False, **_: runner.BuildResult(b"\x7fELF library")
    )


def writes(out: Path) -> list[list[str]]:
    old = ROOT / "tests" / "migrate" / "old_tvmc" / "tune_config_test.json"
    return [
        ["config", "show", "--config", "aws/c5", "-o", str(out)],
        ["config", "show", "--config", "aws/c5", "--format", "json", "--origin", "-o", str(out)],
        ["config", "schema", "-o", str(out)],
        ["config", "migrate", str(old), "-o", str(out)],
        ["compile", str(MODEL), "--config", "aws/c5", "--emit", "python", "-o", str(out)],
        ["compile", str(MODEL), "--config", "aws/c5", "-o", str(out)],
    ]


@pytest.mark.parametrize("index", range(6), ids=["show", "show-json", "schema", "migrate", "emit", "compile"])
def test_a_failed_write_leaves_the_previous_file_and_no_temporary(
    index: int, tmp_path: Path, fake_build: None, failing_replace: None
) -> None:
    out = tmp_path / "out" / "result.txt"
    out.parent.mkdir()
    out.write_text("previous\n")
    result = run_cli(writes(out)[index])
    assert result.exit_code == 1 and "No space left on device" in result.stderr
    assert out.read_text() == "previous\n"
    assert sorted(p.name for p in out.parent.iterdir()) == ["result.txt"]


@pytest.mark.parametrize("index", range(6), ids=["show", "show-json", "schema", "migrate", "emit", "compile"])
def test_writes_succeed_and_keep_the_mode(index: int, tmp_path: Path, fake_build: None) -> None:
    out = tmp_path / "result.txt"
    out.write_text("previous\n")
    out.chmod(0o640)
    assert run_cli(writes(out)[index]).exit_code == 0
    assert out.read_bytes() != b"previous\n" and (out.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.txt"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes to read-only directories")
def test_a_read_only_directory_is_an_error(tmp_path: Path) -> None:
    out = tmp_path / "ro" / "x.toml"
    out.parent.mkdir()
    out.write_text("previous\n")
    out.parent.chmod(0o555)
    try:
        result = run_cli(["config", "show", "--config", "aws/c5", "-o", str(out)])
    finally:
        out.parent.chmod(0o755)
    assert result.exit_code == 1 and out.read_text() == "previous\n"


# ---- inputs ---------------------------------------------------------------------------------------


@pytest.fixture
def configs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base.toml").write_text('targets = ["c"]\n[runtime]\nkind = "crt"\n')
    (tmp_path / "only-extends.toml").write_text('extends = ["base.toml"]\n')
    (tmp_path / "over.toml").write_text('targets = ["llvm"]\n[runtime]\nkind = "cpp"\n')  # overrides all of base
    (tmp_path / "link.toml").symlink_to(tmp_path / "base.toml")
    (tmp_path / "sub").mkdir()
    return tmp_path


@pytest.mark.parametrize(
    "output",
    ["base.toml", "./base.toml", "sub/../base.toml", "link.toml", "{tmp}/base.toml", "only-extends.toml", "over.toml"],
)
def test_an_input_is_never_the_output(configs: Path, output: str) -> None:
    """Also a file whose values were all overridden, or one holding nothing but `extends`."""
    before = digest([p for p in configs.iterdir() if p.is_file()])
    target = output.format(tmp=configs)
    for argv in (
        ["config", "show", "--config", "./only-extends.toml", "--config", "./over.toml", "-o", target],
        [
            "compile",
            str(MODEL),
            "--config",
            "./only-extends.toml",
            "--config",
            "./over.toml",
            "--emit",
            "plan",
            "-o",
            target,
        ],
    ):
        result = run_cli(argv)
        assert result.exit_code == 2 and "refusing to overwrite the input file" in result.stderr, argv
    assert digest([p for p in configs.iterdir() if p.is_file()]) == before


def test_another_name_for_an_input_is_refused_too(configs: Path) -> None:
    os.link(configs / "base.toml", configs / "hard.toml")  # a case-insensitive file system is alike
    result = run_cli(["config", "show", "--config", "./base.toml", "-o", "hard.toml"])
    assert result.exit_code == 2 and "refusing to overwrite the input file" in result.stderr


def test_inputs_are_never_modified(configs: Path, tmp_path: Path) -> None:
    inputs = [p for p in configs.iterdir() if p.is_file()] + [MODEL, ROOT / "configs" / "aws" / "c5.toml"]
    before = digest(inputs)
    out = tmp_path / "sub" / "out.txt"
    for argv in (
        ["config", "show", "--config", "./only-extends.toml", "--config", "aws/c5", "-o", str(out)],
        ["config", "show", "--config", "./over.toml", "--origin"],
        ["config", "validate", "base.toml", "over.toml", "only-extends.toml"],
        ["compile", str(MODEL), "--config", "./over.toml", "--emit", "relay", "-o", str(out)],
        ["config", "diff", "./base.toml", "./link.toml"],
    ):
        assert run_cli(argv).exit_code in (0, 1), argv
    assert digest(inputs) == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_listing_skips_what_is_not_a_regular_file(search: Path) -> None:
    """`config list` reads each config's description: a FIFO would block it forever."""
    os.mkfifo(search / "team" / "pipe.toml")
    (search / "team" / "loop").symlink_to(search, target_is_directory=True)
    (search / "team" / "broken.toml").write_text("[not toml")
    proc = subprocess.run(
        [sys.executable, "-m", "tvmc", "config", "list"],
        capture_output=True,
        text=True,
        env=cli_env(TVMC_CONFIG_PATH=str(search)),
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0
    listed = [line.split()[0] for line in proc.stdout.splitlines() if line.startswith("team/")]
    assert listed == ["team/broken", "team/cpu"]
    (broken,) = [line for line in proc.stdout.splitlines() if line.startswith("team/broken ")]
    assert "[error: " in broken and "invalid TOML" in broken
