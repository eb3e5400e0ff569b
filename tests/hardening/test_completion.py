"""Shell completion through the real protocol (typer 0.25 / click 8: `_TVMC_COMPLETE=complete_bash`
with COMP_WORDS and COMP_CWORD, or complete_zsh with _TYPER_COMPLETE_ARGS), in subprocesses."""

from __future__ import annotations

import os
import shutil
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


# ---- issue 28: NAME:PART, values for the target at hand, key paths, enum flags, --isolated, shells


def bash_words(line: str) -> list[str]:
    """COMP_WORDS as bash builds them with its default COMP_WORDBREAKS: ':' (and '=') are words."""
    import re

    return [w for w in re.split(r"\s+|([:=])", line) if w is not None and w != ""] + (
        [""] if line.endswith(" ") else []
    )


def complete_bash(line: str, env: dict[str, str] | None = None) -> list[str]:
    """What tvmc offers bash for the last word of `line`, split as bash splits it."""
    words = bash_words(line)
    return complete("", env={"COMP_WORDS": "\n".join(words), "COMP_CWORD": str(len(words) - 1), **(env or {})})


def test_name_part_through_bash_word_breaks() -> None:
    # bash splits `nvidia/jetson-nano:c` into three words and replaces only the part after ':'.
    assert complete_bash("tvmc config show --config nvidia/jetson-nano:c") == ["cuda", "cpu"]
    assert complete_bash("tvmc config show --config nvidia/jetson-nano:") == ["cuda", "gpu", "llvm", "arm_cpu", "cpu"]
    assert complete_bash("tvmc compile m.onnx -c aws/c5:x") == ["x86"]
    assert complete_bash("tvmc config show --config=nvidia/jetson-nano:c") == ["cuda", "cpu"]
    assert complete_bash("tvmc config show --set targets[kind=cuda].arch=sm_8") == [
        "sm_80",
        "sm_86",
        "sm_87",
        "sm_88",
        "sm_89",
    ]
    assert complete_bash("tvmc config show --set executor.kind=") == ["graph", "aot", "vm"]
    # zsh (and bash without ':' in COMP_WORDBREAKS) sends the word whole and gets whole values.
    assert complete("tvmc config show --config nvidia/jetson-nano:c") == [
        "nvidia/jetson-nano:cuda",
        "nvidia/jetson-nano:cpu",
    ]
    assert complete("tvmc config show --config no/such:") == []  # nothing to resolve: nothing offered


def test_isolated_and_search_path_decide_the_names(tmp_path: Path) -> None:
    (tmp_path / "env" / "team").mkdir(parents=True)
    (tmp_path / "env" / "team" / "mine.toml").write_text('extends = ["aws/c5"]\n')
    (tmp_path / "repo" / "team").mkdir(parents=True)
    (tmp_path / "repo" / "team" / "ours.toml").write_text('extends = ["aws/c5"]\n')
    env = {"TVMC_CONFIG_PATH": str(tmp_path / "env")}
    assert complete("tvmc config show --config team/", env=env) == ["team/mine"]
    assert complete("tvmc config show --isolated --config team/", env=env) == []
    assert complete("tvmc config show --isolated --config team/", env={**env, "TVMC_ISOLATED": "0"}) == []
    assert complete("tvmc config show --config team/", env={**env, "TVMC_ISOLATED": "1"}) == []
    repo = str(tmp_path / "repo")
    assert complete(f"tvmc config validate --isolated --search-path {repo} -c team/", env=env) == ["team/ours"]
    assert complete(f"tvmc config show --search-path {repo} -c team/", env=env) == ["team/mine", "team/ours"]
    assert complete(f"tvmc config show --isolated --search-path {repo} -c team/ours:", env=env) == [
        "team/ours:llvm",
        "team/ours:x86",
        "team/ours:cpu",
    ]


def test_cpu_arch_and_mattr_values_for_the_target_at_hand() -> None:
    assert complete("tvmc config show --target-llvm-mcpu skylake-avx") == ["skylake-avx512"]
    arm = complete("tvmc config show --target-llvm-mtriple aarch64-linux-gnu --target-llvm-mcpu cortex-a7")
    assert "cortex-a76" in arm and all(name.startswith("cortex-a7") for name in arm)
    assert complete("tvmc config show --target-llvm-mtriple aarch64-linux-gnu --target-llvm-mcpu skylake") == []
    assert complete("tvmc config show -c aws/c5 --target-llvm-mcpu cortex-a7") == []  # x86_64 at hand
    assert "neoverse-n1" in complete("tvmc config show -c aws/c6g --target-llvm-mcpu neoverse")
    assert complete("tvmc config show --target-llvm-mcpu cortex-a76") != []  # no triple: every CPU architecture
    assert complete("tvmc config show --target-llvm-mattr +avx2,+fma") == ["+avx2,+fma", "+avx2,+fma4"]
    assert complete("tvmc config show --target-llvm-mattr +sse4.2,-avx512b") == [
        "+sse4.2,-avx512bf16",
        "+sse4.2,-avx512bitalg",
        "+sse4.2,-avx512bw",
    ]  # (a value that starts with '-' is an option to click: it completes option names)
    assert complete("tvmc config show --target-cuda-arch sm_8") == ["sm_80", "sm_86", "sm_87", "sm_88", "sm_89"]
    assert "sm_90a" in complete("tvmc config show --target-nvptx-mcpu sm_9")
    assert complete("tvmc config show --executor-aot-interface-api ") == ["packed", "c"]
    assert complete("tvmc config show --executor-vm-exec-mode ") == ["bytecode", "compiled"]


def test_key_paths_for_set_unset_get_and_explain() -> None:
    assert complete("tvmc config show --set targ") == ["targets["]
    assert complete("tvmc config show --set opt") == ["opt-level="]
    assert complete("tvmc config get exec") == ["executor", "executor."]
    assert "executor.interface-api" in complete("tvmc config explain executor.")
    assert complete("tvmc config show -c nvidia/jetson-nano --unset targets[") == ["targets[0].", "targets[kind=cuda]."]
    assert complete("tvmc config show -c nvidia/jetson-nano --unset host.mc") == ["host.mcpu"]
    assert complete("tvmc config show -c aws/c5 --set targets[0].mc") == ["targets[0].mcpu="]
    assert complete("tvmc config get -c nvidia/jetson-nano targets[0].ar") == ["targets[0].arch"]  # cuda first
    assert "targets[kind=cuda].arch" in complete("tvmc config explain targets[kind=cuda].")
    assert complete("tvmc config show -c aws/c5 --set targets[0].mcpu=skylake-av") == ["targets[0].mcpu=skylake-avx512"]
    assert complete("tvmc config show --set targets[kind=llvm].mattr+=+avx51") != []
    assert complete("tvmc config show --set executor.kind=") == [
        "executor.kind=graph",
        "executor.kind=aot",
        "executor.kind=vm",
    ]
    assert complete("tvmc config show --unset pass-config.tirx.disable_v") == ["pass-config.tirx.disable_vectorize"]


def test_every_enum_flag_completes_its_values() -> None:
    import click
    import typer
    from click.shell_completion import ShellComplete
    from testkit import commands
    from tvmc.cli.app import app

    root = typer.main.get_command(app)
    checked = 0
    for path, command in commands(root):
        for param in command.params:
            if isinstance(param, click.Option) and isinstance(param.type, click.Choice) and param.opts[0] != "--":
                shell = ShellComplete(root, {}, "tvmc", "_TVMC_COMPLETE")
                offered = [item.value for item in shell.get_completions([*path, param.opts[0]], "")]
                assert offered == list(param.type.choices), (path, param.opts)
                checked += 1
    assert checked >= 15
    assert complete("tvmc run lib.so --device ") == ["cpu", "cuda", "rocm", "vulkan", "opencl", "metal"]
    assert complete("tvmc run lib.so --fill ") == ["random", "zeros", "ones"]
    assert complete("tvmc run lib.so --format ") == ["text", "json"]
    assert complete("tvmc config validate --format s") == ["sarif"]


def test_install_completion_for_the_named_shell(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "SHELL": "/bin/bash"}

    def tvmc(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tvmc", *args], capture_output=True, text=True, env=cli_env(**env), timeout=60
        )

    zsh = tvmc("--install-completion", "zsh")  # from bash: zsh, as asked
    assert zsh.returncode == 0 and "zsh completion installed" in zsh.stdout, zsh.stderr
    assert (tmp_path / ".zfunc" / "_tvmc").read_text().startswith("#compdef tvmc")
    fish = tvmc("--install-completion", "fish")
    assert (
        fish.returncode == 0
        and "_TVMC_COMPLETE=complete_fish" in (tmp_path / ".config" / "fish" / "completions" / "tvmc.fish").read_text()
    )
    assert not (tmp_path / ".bashrc").exists()  # nothing for the shell it was run from
    assert "#compdef tvmc" in tvmc("--show-completion", "zsh").stdout
    bad = tvmc("--install-completion", "tcsh")
    assert bad.returncode == 2 and "'tcsh' is not one of" in bad.stderr


@pytest.mark.skipif(shutil.which("tmux") is None or shutil.which("bash") is None, reason="needs tmux and bash")
def test_real_bash_completes_name_part(tmp_path: Path) -> None:
    """bash itself (readline, its COMP_WORDBREAKS, the script tvmc installs), typed into a terminal."""
    import time

    bindir = Path(sys.executable).parent
    if not (bindir / "tvmc").exists():
        pytest.skip("the tvmc script is not installed beside this Python")
    script = tmp_path / "tvmc-completion.sh"
    shown = subprocess.run(
        [sys.executable, "-m", "tvmc", "--show-completion", "bash"],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=60,
    )
    script.write_text(shown.stdout)
    socket = f"tvmc-test-{os.getpid()}"
    env = cli_env(HOME=str(tmp_path), PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}", PS1="$ ")

    def tmux(*args: str) -> str:
        done = subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True, env=env, timeout=30)
        return done.stdout

    def screen_has(text: str) -> bool:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if text in tmux("capture-pane", "-p", "-J"):
                return True
            time.sleep(0.1)
        return False

    tmux("-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "40", "bash --norc --noprofile")
    try:
        tmux("send-keys", f"source {script}; echo sourced", "Enter")
        assert screen_has("sourced")
        tmux("send-keys", "tvmc config show --config nvidia/jetson-nano:cu", "Tab")
        assert screen_has("--config nvidia/jetson-nano:cuda "), tmux("capture-pane", "-p")
        tmux("send-keys", "C-u", "tvmc config show --set targets[kind=cuda].arch=sm_8", "Tab", "Tab")
        assert screen_has("sm_86"), tmux("capture-pane", "-p")
    finally:
        tmux("kill-server")


_COUNTING_CHILD = """
import atexit, sys
from tvmc.cli import rewrite_options
built = []
original = rewrite_options._all_generated
def counted():
    built.append(1)
    return original()
rewrite_options._all_generated = counted
if sys.argv[1] == "all":  # the command as before: every generated flag for every TAB
    rewrite_options._generated_for = lambda args, ctx, no_args_is_help: counted()
atexit.register(lambda: sys.stderr.write(f"all-generated={len(built)}\\n"))
sys.argv = ["tvmc"]
from tvmc.cli.entry import main
main()
"""


def _complete_counting(line: str, mode: str, shell: str) -> tuple[list[str], bool]:
    words = line.split()
    cword = len(words) if line.endswith(" ") else len(words) - 1
    variables = {"_TVMC_COMPLETE": f"complete_{shell}", "COMP_WORDS": line, "COMP_CWORD": str(cword)}
    proc = subprocess.run(
        [sys.executable, "-c", _COUNTING_CHILD, mode],
        capture_output=True,
        text=True,
        env=cli_env(**variables, _TYPER_COMPLETE_ARGS=line),
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout.split(), "all-generated=0" not in proc.stderr


@pytest.mark.parametrize("shell", ["bash", "zsh"])
@pytest.mark.parametrize(
    ("line", "needs_all"),
    [
        ("tvmc config show --config aws/", False),
        ("tvmc compile m.onnx -c aws/c5 --isolated --set targets[0].mc", False),
        ("tvmc config show --target-llvm-mcpu skylake --target-llvm-mattr +avx2 --config aws/c", False),
        ("tvmc config show --target-llvm-mcpu sky", False),
        ("tvmc config validate --target-cuda-arch ", False),
        ("tvmc config show --target-llvm-m", True),
        ("tvmc config show --target-llvm-mcpu=sky", True),
        ("tvmc config show --target-no-such-flag x --config aws/", True),
        ("tvmc config show --", True),
    ],
)
def test_a_tab_builds_the_generated_flags_only_when_the_word_may_be_one(line: str, needs_all: bool, shell: str) -> None:
    """Completing a value needs only the generated flags the line names (~370 options are most of
    a TAB's time); an option's name, or an unknown flag, needs them all. The offers are the same."""
    offered, built_all = _complete_counting(line, "named", shell)
    assert built_all == needs_all
    assert offered == _complete_counting(line, "all", shell)[0]
