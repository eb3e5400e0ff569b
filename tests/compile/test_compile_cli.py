"""`tvmc compile` through the CLI without building: argument errors, refusals, --emit, no TVM."""

from __future__ import annotations

import ast
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

Invoke = Callable[..., Result]


@pytest.fixture
def no_tvm(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `import tvm` fail, as on a machine without the `tvm` extra."""
    monkeypatch.setitem(sys.modules, "tvm", None)


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "net.onnx"
    path.write_bytes(b"not read by --emit")
    return path


def test_without_tvm_compile_names_the_package_and_the_command(invoke: Invoke, model: Path, no_tvm: None) -> None:
    result = invoke("compile", str(model))
    assert result.exit_code == 1
    # (and 'apache-tvm-ffi' where that is missing too)
    assert re.search(
        r"compiling needs the Python packages? 'apache-tvm'.*, which (is|are) not installed", result.stderr
    )
    assert "pip install 'apache-tvm==0.27.0.post1'" in result.stderr and "--emit python" in result.stderr
    assert "--verbose" not in result.stderr
    assert "Traceback" not in result.output and result.stdout == ""


@pytest.mark.parametrize("fmt", ["python", "tvmc", "relay", "plan"])
def test_emit_needs_no_tvm(invoke: Invoke, model: Path, no_tvm: None, fmt: str) -> None:
    result = invoke("compile", str(model), "--emit", fmt, "--input-shapes", "x:[1,8]")
    assert result.exit_code == 0, result.output
    if fmt in ("python", "relay"):
        ast.parse(result.stdout)
    elif fmt == "plan":
        assert json.loads(result.stdout)["model"]["input-shapes"] == {"x": [1, 8]}
    else:
        assert result.stdout.startswith("tvmc compile ")


def test_emit_uses_the_same_config_resolution(invoke: Invoke, model: Path) -> None:
    result = invoke(
        "compile",
        str(model),
        "--emit",
        "plan",
        "--config",
        "aws/c5",
        "--target-llvm-mcpu",
        "cascadelake",
        "-O",
        "2",
        "--executor",
        "vm",
        "--executor-vm-exec-mode",
        "compiled",
    )
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert plan["target"]["mcpu"] == "cascadelake" and plan["config"]["opt-level"] == 2
    build = next(step for step in plan["steps"] if step["step"] == "build")
    assert build["args"]["exec_mode"] == "compiled"
    assert plan["output"] == "net.so"


def test_emit_to_a_file(invoke: Invoke, model: Path, tmp_path: Path) -> None:
    out = tmp_path / "build.py"
    result = invoke("compile", str(model), "--emit", "python", "-o", str(out))
    assert result.exit_code == 0 and result.stdout == ""
    ast.parse(out.read_text(encoding="utf-8"))
    clobber = invoke("compile", str(model), "--emit", "python", "-o", str(model))
    assert clobber.exit_code == 2 and "refusing to overwrite the input file" in clobber.stderr
    assert model.read_bytes() == b"not read by --emit"


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["m.xyz"], 2, "cannot guess the model format of 'm.xyz'"),
        (["m.onnx", "--input-shapes", "x:[1] junk"], 2, "--input-shapes: cannot parse 'junk' at column 7"),
        (["m.onnx", "--model-format", "caffe"], 2, "caffe"),
        (["m.onnx", "--target-llvm-mcpu"], 2, "requires an argument"),
        (["missing.onnx"], 1, "MODEL: missing.onnx does not exist"),
        (["m.onnx", "--executor", "graph"], 1, "--executor=graph: executor.kind: executor 'graph' has no TVM >= 0.25"),
        (["m.onnx", "--config", "boards/corstone-300"], 1, "use --emit tvmc or --emit relay"),
        (
            ["m.onnx", "--target", "cuda", "--target-host", "stackvm", "--emit", "plan"],
            1,
            "--target-host=stackvm: host.kind: target kind 'stackvm' does not exist in TVM >= 0.25",  # the host field
        ),
        (["m.h5"], 1, "TVM >= 0.25 has no Keras frontend"),
        (["m.onnx", "--emit", "relay", "--executor", "vm"], 1, "use --emit python"),
        (["m.onnx", "--emit", "tvmc", "--target", '{"kind": "cuda", "compiler": "cublas"}'], 1, "no 'cublas' codegen"),
    ],
)
def test_errors_are_one_line(invoke: Invoke, args: list[str], code: int, message: str) -> None:
    result = invoke("compile", *args)
    assert result.exit_code == code, result.output
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_model_format_overrides_the_suffix(invoke: Invoke, tmp_path: Path) -> None:
    result = invoke("compile", str(tmp_path / "model.bin"), "--model-format", "onnx", "--emit", "plan")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["model"]["format"] == "onnx"


def test_legacy_configs_emit_for_legacy_tvm(invoke: Invoke, model: Path) -> None:
    result = invoke("compile", str(model), "--config", "boards/corstone-300", "--emit", "tvmc")
    assert result.exit_code == 0, result.output
    assert "'--target=ethos-u -accelerator_config=ethos-u55-256, cmsis-nn -mcpu=cortex-m55, c " in result.stdout
    assert "--executor=aot" in result.stdout and "--output-format=mlf" in result.stdout


def test_notes_are_warnings(invoke: Invoke, model: Path) -> None:
    result = invoke("compile", str(model), "--emit", "python", "--pass-config", "tir.disable_vectorize=1")
    assert result.exit_code == 0
    assert "tvmc: warning: pass-config 'tir.disable_vectorize' is 'tirx.disable_vectorize'" in result.stderr
    assert "'tirx.disable_vectorize': True" in result.stdout


def test_output_is_checked_before_building(invoke: Invoke, model: Path, tmp_path: Path) -> None:
    for out, message, code in (
        (tmp_path / "no" / "x.so", "does not exist", 1),  # as for every command's -o
        (model, "refusing to overwrite the input file", 2),
    ):
        result = invoke("compile", str(model), "-o", str(out))
        assert result.exit_code == code and message in result.stderr


def test_progress_ticks_on_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    from tvmc.cli.progress import Progress

    with Progress(enabled=True) as progress:
        progress.stage("build")
        time.sleep(0.5)
    err = capsys.readouterr().err
    assert "\rtvmc: build… " in err.replace("\x1b[K", "") and err.endswith("\r\x1b[K")
    with Progress(enabled=False) as progress:
        progress.stage("build")
        time.sleep(0.3)
    assert capsys.readouterr().err == ""


def test_help_lists_model_and_rewrite_options(invoke: Invoke) -> None:
    result = invoke("compile", "--help")
    assert result.exit_code == 0
    for text in ("--input-shapes", "--model-format", "--emit", "--target-KIND-ATTR", "--set", "TVMC_CONFIG"):
        assert text in result.stdout


def test_output_into_a_directory(invoke: Invoke, model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """-o DIR/ (or an existing directory) receives MODEL.so; a missing DIR/ is an error, never a file
    named DIR (issue 16)."""
    from tvmc.backend import frontends, isolated, preflight, runner

    # No TVM, no onnx needed: the write path is what is tested here.
    monkeypatch.setattr(runner, "require_tvm", lambda: None)
    monkeypatch.setattr(preflight, "will_not_run_here", lambda target: [])
    monkeypatch.setattr(frontends, "check_available", lambda spec: None)
    monkeypatch.setattr(isolated, "build", lambda plan, on_stage, verbose, **_: runner.BuildResult(b"\x7fELF"))
    missing = invoke("compile", str(model), "-o", f"{tmp_path / 'sub'}/")
    assert missing.exit_code == 1 and "the directory does not exist" in missing.stderr
    assert not (tmp_path / "sub").exists()
    (tmp_path / "sub").mkdir()
    for out in (f"{tmp_path / 'sub'}/", str(tmp_path / "sub")):
        result = invoke("compile", str(model), "-o", out)
        assert result.exit_code == 0, result.output
        assert (tmp_path / "sub" / f"{model.stem}.so").read_bytes() == b"\x7fELF"


def test_a_missing_cross_compiler_is_reported_before_the_build(
    invoke: Invoke, model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from tvmc.backend import isolated, preflight

    real_which = shutil.which
    monkeypatch.setattr(preflight.shutil, "which", lambda cmd: None if "linux-gnu" in cmd else real_which(cmd))
    monkeypatch.setattr(isolated, "build", lambda *a, **k: pytest.fail("built despite the missing compiler"))
    result = invoke("compile", str(model), "--config", "aws/c6g", "-o", str(tmp_path / "x.so"))
    assert result.exit_code == 1
    line = result.stderr.strip()
    assert "configs/base/aarch64-linux.toml:14" in line and "'aarch64-linux-gnu-gcc' is not on PATH" in line
    assert "apt-get install gcc-aarch64-linux-gnu" in line and "--unset build.cross-compiler" in line
    assert len(result.stderr.splitlines()) == 1
