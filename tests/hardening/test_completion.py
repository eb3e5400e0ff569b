"""Shell completion through the real protocol (typer 0.25 / click 8: `_TVMC_COMPLETE=complete_bash`
with COMP_WORDS and COMP_CWORD, or complete_zsh with _TYPER_COMPLETE_ARGS), in subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import cli_env


def complete(line: str, env: dict[str, str] | None = None, shell: str = "bash") -> list[str]:
    """What tvmc offers for the last word of `line` (a trailing space means a new, empty word)."""
    words = line.split()
    cword = len(words) if line.endswith(" ") else len(words) - 1
    variables = {
        "_TVMC_COMPLETE": f"complete_{shell}",
        "COMP_WORDS": line,
        "COMP_CWORD": str(cword),
        "_TYPER_COMPLETE_ARGS": line,
    }
    proc = subprocess.run(
        [sys.executable, "-m", "tvmc"],
        capture_output=True,
        text=True,
        env=cli_env(**{**variables, **(env or {})}),
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout.split()


def test_command_and_subcommand_names() -> None:
    assert complete("tvmc co") == ["config", "compile"]
    assert complete("tvmc config s") == ["show", "schema"]


def test_config_names_a_level_at_a_time_then_tags() -> None:
    top = complete("tvmc config show --config aw")
    assert top[0] == "aws/" and "aws/cpu/c5.large" in top  # the catalogue's directory, then TVM tags
    assert {"aws/c5", "aws/c6g", "aws/c5.large"} <= set(complete("tvmc config show --config aws/"))
    assert "nvidia/jetson-nano" in complete("tvmc compile m.onnx --config nvidia/jet")
    assert complete("tvmc config show --config ../") == []  # a path: the shell completes files


def test_host_native_is_completed_though_no_file_holds_it() -> None:
    assert {"host/default", "host/native"} <= set(complete("tvmc compile m.onnx --config host/"))
    assert complete("tvmc compile m.onnx --config host/na") == ["host/native"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_config_names_come_from_listings_never_from_reading_files(tmp_path: Path) -> None:
    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "broken.toml").write_text("this is [not toml")
    os.mkfifo(tmp_path / "team" / "blocking.toml")  # reading it would wait forever
    (tmp_path / "team" / ".hidden.toml").write_text("")
    (tmp_path / "team" / "notes.txt").write_text("")
    offered = complete("tvmc config show --config team/", env={"TVMC_CONFIG_PATH": str(tmp_path)})
    assert offered == ["team/broken"]  # the FIFO is no regular file; hidden and other files are skipped


def test_target_values_and_generated_flags() -> None:
    assert "llvm" in complete("tvmc config show --target ll")
    assert "nvidia/jetson-nano" in complete("tvmc config show --target-host nvidia/jetson-n")
    assert "--target-llvm-mcpu" in complete("tvmc config show --target-llvm-mc")
    assert complete("tvmc config show --executor ") == ["graph", "aot", "vm"]
    assert complete("tvmc compile m.onnx --runtime c") == ["cpp", "crt"]
    assert complete("tvmc config show --target-llvm-fast-math ") == ["true", "false"]
    assert "tirx.disable_vectorize=" in complete("tvmc config show --pass-config tirx.disable_v")


def test_zsh_protocol() -> None:
    out = complete("tvmc config show --config aws/c", shell="zsh")
    assert any("aws/c5" in item for item in out)


def test_hidden_generated_flags_still_complete() -> None:
    """--help hides the ~370 generated flags (issue 15); TAB still offers them, with their help."""
    assert complete("tvmc config show --target-llvm-mc") == ["--target-llvm-mcpu"]
    assert complete("tvmc compile m.onnx --target-cuda-max-num") == ["--target-cuda-max-num-threads"]
    assert complete("tvmc config validate --executor-vm-") == ["--executor-vm-exec-mode"]
    assert complete("tvmc config show --target-llvm-fast-math-n") == [
        "--target-llvm-fast-math-nnan",
        "--target-llvm-fast-math-ninf",
        "--target-llvm-fast-math-nsz",
    ]
    zsh = " ".join(complete("tvmc config show --target-llvm-mc", shell="zsh"))
    assert "--target-llvm-mcpu" in zsh and "llc -mcpu" in zsh  # a description, not the name restated
    assert "--origin" in complete("tvmc config show --or")  # the command's own options as before


def test_internal_test_kinds_are_never_offered() -> None:
    assert not [w for w in complete("tvmc config show --target-te") if w.startswith("--target-test-")]
    assert complete("tvmc config show --target-ex") and not [
        w for w in complete("tvmc config show --target-ex") if "example" in w
    ]
    assert "test" not in complete("tvmc config show --target te")
    assert complete("tvmc target show te") == ["tensorrt"]
    assert complete("tvmc target show ll") == ["llvm"]
    assert "example_target_hook" not in complete("tvmc target list --kind e")
    assert "ethos-u" in complete("tvmc target list --kind e")
