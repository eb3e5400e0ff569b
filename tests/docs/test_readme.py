"""Every `sh`, `toml` and `python` example in README.md runs as written, and prints what the README
shows.

Conventions (README source; each directive is an HTML comment right above the block it is for,
`<!-- readme-test: KEY ARGUMENT -->`):
- An `sh` block runs in bash (`set -e -o pipefail`) from a fresh folder laid out like a clone's
  root (`configs/` copied, `models/` and `schemas/` linked), with every file written by a `toml`
  block above it in the same section, `tvmc`/`python` meaning this tree's code, and a HOME of its
  own (shared by the README's blocks, so `host/native` is detected once). It must exit 0.
- A plain block right after an `sh` block is what that block prints (stdout and stderr, in
  order). In it `…` stands for any text on its line (a time, a size, a path, this machine's
  fingerprint), and a line that is only `…` for any number of lines.
- A `toml` block is written as files: each `# NAME.toml` line starts one (or `file PATH` names the
  whole block), and `tvmc config validate` must accept them.
- A `python` block runs as a script with this tree's `tvmc`, from such a folder.
- Directives: `skip REASON` (not run; reported as skipped with the reason), `omit "TEXT"… REASON`
  (the quoted texts are removed before running), `setup SHELL` (runs first, unseen by the reader:
  e.g. the input files a command names), `exit N` (the block must exit N), `ignore "PREFIX"…
  REASON` (output lines starting with PREFIX are not compared), `file PATH`.
- Blocks that compile, run or tune, or use `host/native`, need TVM (marked `tvm`). Blocks of other
  languages (yaml, plain) are not run; `skip` on one is reported.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from readme_blocks import Block, ReadmeError, matches, normalize_output, parse

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
BLOCKS = parse(README.read_text(encoding="utf-8"))
RUN = ("sh", "toml", "python")
NEEDS_TVM = re.compile(
    r"\btvmc (?:compile|run|tune)\b(?![^\n]*--emit)|\bapi\.(?:compile|run|tune)\b"
    r"|host/native|config detect|tvmc doctor|python -m tvm\b"
)
TIMEOUT = 300


def _has_tvm() -> bool:
    return importlib.util.find_spec("tvm") is not None


def _section_files(block: Block) -> dict[str, str]:
    """The files the toml blocks above `block` in its section write (a later one wins)."""
    files: dict[str, str] = {}
    for other in BLOCKS:
        if other is block:
            break
        if other.section == block.section and other.language == "toml" and other.skip_reason is None:
            files.update(other.files())
    return files


def _params() -> list[Any]:
    params = []
    for block in BLOCKS:
        if block.language not in RUN and block.skip_reason is None:
            continue
        name = re.sub(r"[^a-z0-9]+", "-", block.section.lower()).strip("-")
        marks: list[pytest.MarkDecorator] = []
        if block.skip_reason is not None:
            marks.append(pytest.mark.skip(reason=f"README.md:{block.line}: {block.skip_reason}"))
        elif block.language in ("sh", "python") and NEEDS_TVM.search(block.script()):
            marks.append(pytest.mark.tvm)
        params.append(pytest.param(block, id=f"L{block.line}-{block.language or 'plain'}-{name}", marks=marks))
    return params


@pytest.fixture(scope="session")
def readme_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("readme-home")


@pytest.fixture(scope="session")
def shims(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`tvmc` and `python` on PATH as this interpreter with this tree's code."""
    bin_dir = tmp_path_factory.mktemp("readme-bin")
    for name, command in (("tvmc", f"{sys.executable} -m tvmc"), ("python", sys.executable)):
        for alias in (name, "python3") if name == "python" else (name,):
            shim = bin_dir / alias
            shim.write_text(f'#!/bin/sh\nexec {command} "$@"\n', encoding="utf-8")
            shim.chmod(0o755)
    return bin_dir


def _clone(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir()
    shutil.copytree(ROOT / "configs", folder / "configs")
    for shared in ("models", "schemas"):
        (folder / shared).symlink_to(ROOT / shared, target_is_directory=True)
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def _env(home: Path, shims: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TVMC_", "XDG_"))}
    env.update(
        HOME=str(home),
        PATH=f"{shims}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(ROOT / "cli"),
        TYPER_USE_RICH="0",
        NO_COLOR="1",
        COLUMNS="120",
    )
    return env


def _bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    with subprocess.Popen(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group: a timeout ends everything it started
    ) as proc:
        try:
            out, _ = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            pytest.fail(f"timed out after {TIMEOUT} s:\n{script}\n--- printed ---\n{out}")
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, "")


@pytest.mark.parametrize("block", _params())
def test_readme_example(block: Block, tmp_path: Path, readme_home: Path, shims: Path) -> None:
    if block.language in ("sh", "python") and NEEDS_TVM.search(block.script()) and not _has_tvm():
        pytest.skip("needs TVM (pip install -e '.[tvm]')")
    files = block.files() if block.language == "toml" else {}
    clone = _clone(tmp_path / "clone", {**_section_files(block), **files})
    if files:
        script = "tvmc config validate " + " ".join(shlex.quote(name) for name in files)
    elif block.language == "python":
        (tmp_path / "readme_example.py").write_text(block.script(), encoding="utf-8")
        script = "\n".join([*block.directive("setup"), f"python {shlex.quote(str(tmp_path / 'readme_example.py'))}"])
    else:
        script = "\n".join([*block.directive("setup"), block.script()])
    where = f"README.md:{block.line} ({block.section})"
    env = _env(readme_home, shims)
    env["TMPDIR"] = str(tmp_path / "tmp")  # what a block leaves in temporary folders goes with tmp_path
    (tmp_path / "tmp").mkdir()
    result = _bash(script, clone, env)
    if result.returncode != block.expected_exit:
        pytest.fail(
            f"{where}: exit {result.returncode}, expected {block.expected_exit}\n{script}"
            f"--- printed ---\n{result.stdout}",
            pytrace=False,
        )
    if block.output is not None:
        ignored = block.ignored_prefixes()
        if not matches(block.output.text, result.stdout, ignored):
            pytest.fail(
                f"{where}: the output shown at README.md:{block.output.line} drifted from what the block prints "
                f"(mark what varies with …)\n--- shown ---\n{block.output.text}--- printed ---\n"
                f"{normalize_output(result.stdout, ignored)}",
                pytrace=False,
            )


def test_every_skip_says_why() -> None:
    unexplained = [block.line for block in BLOCKS if block.skip_reason is not None and not block.skip_reason.strip()]
    assert not unexplained, f"README.md lines {unexplained}: `skip` needs a reason"


def test_examples_are_found() -> None:
    """A parser that silently finds nothing would pass every example."""
    run = [block for block in BLOCKS if block.language in RUN and block.skip_reason is None]
    assert sum(block.language == "sh" for block in run) >= 5 and sum(block.language == "toml" for block in run) >= 2
    assert any(block.output is not None for block in run)


# --- the harness itself --------------------------------------------------------------------------

SAMPLE = """# Title

## Build
<!-- readme-test: ignore "tvmc: warning:" (machine-dependent) -->
```sh
tvmc compile m.onnx
```

```
tvmc: built m.so (… KiB) in … s
…
  tuning  none
```

<!-- readme-test: skip needs a board -->
```sh
ssh board
```

```toml
# a.toml
x = 1
# sub/b.toml
extends = ["../a.toml"]
```
"""


def test_parse_attaches_directives_and_outputs() -> None:
    compile_, _, board, toml = parse(SAMPLE)
    assert (compile_.section, compile_.ignored_prefixes(), compile_.output is not None) == (
        "Build",
        ["tvmc: warning:"],
        True,
    )
    assert board.skip_reason == "needs a board" and board.output is None
    assert toml.files() == {"a.toml": "# a.toml\nx = 1\n", "sub/b.toml": '# sub/b.toml\nextends = ["../a.toml"]\n'}


def test_output_wildcards_match_what_varies_and_nothing_else() -> None:
    shown = parse(SAMPLE)[0].output
    assert shown is not None
    printed = "tvmc: built m.so (66.5 KiB) in 4.69 s\n  target x\n  host y\n  tuning  none\n"
    assert matches(shown.text, printed)
    assert matches(shown.text, "tvmc: warning: no AVX-512\n" + printed, ["tvmc: warning:"])
    assert not matches(shown.text, "tvmc: warning: no AVX-512\n" + printed)
    assert not matches(shown.text, printed.replace("none", "3 of 3 kernels"))
    assert not matches(shown.text, printed.replace("m.so", "n.so"))
    assert matches("a\n…\nb\n", "a\nb\n") and not matches("a\n…\nb\n", "a\nb\nc\n")


def test_a_block_inside_a_list_item_is_found_and_dedented() -> None:
    (block,) = parse("- step one:\n\n  <!-- readme-test: exit 1 -->\n  ```sh\n  false\n  ```\n")
    assert (block.language, block.text, block.expected_exit) == ("sh", "false\n", 1)


def test_unreadable_blocks_are_errors_naming_the_line() -> None:
    with pytest.raises(ReadmeError, match=r"README.md:1: unknown readme-test directive 'skp'"):
        parse("<!-- readme-test: skp x -->\n```sh\nx\n```\n")
    (nameless,) = parse("```toml\nx = 1\n```\n")
    with pytest.raises(ReadmeError, match="needs a file name"):
        nameless.files()
    (escaping,) = parse("```toml\n# ../x.toml\nx = 1\n```\n")
    with pytest.raises(ReadmeError, match="must stay in the example's folder"):
        escaping.files()
    (omitting,) = parse('<!-- readme-test: omit "pip install" CI does -->\n```sh\ntvmc --version\n```\n')
    with pytest.raises(ReadmeError, match="is not in the block"):
        omitting.script()
