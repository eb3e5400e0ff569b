"""Integration: `tvmc compile` builds with the installed TVM; the libraries load and run with the VM.

Skipped (with the reason shown by `-ra`) only when apache-tvm is not installed.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import Result
from tvmc import api

pytestmark = pytest.mark.tvm
tvm = pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -e '.[tvm]')")
np = pytest.importorskip("numpy")

ROOT = Path(__file__).resolve().parents[2]
Invoke = Callable[..., Result]
RunLibrary = Callable[[Path, Any], Any]
ELF = b"\x7fELF"


def sample(batch: int, seed: int = 0) -> Any:
    return np.random.default_rng(seed).standard_normal((batch, 8)).astype("float32")


@pytest.fixture(scope="session")
def default_library(tmp_path_factory: pytest.TempPathFactory, invoke: Invoke, mlp_path: Path) -> tuple[Path, str]:
    """The model built with the default config (plain llvm: runs on any x86-64 or aarch64 CPU)."""
    out = tmp_path_factory.mktemp("default") / "mlp.so"
    result = invoke("compile", str(mlp_path), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert result.stderr == ""  # no warnings, and no progress line when stderr is not a terminal
    return out, result.stdout


def test_compiled_model_matches_numpy(
    default_library: tuple[Path, str], run_library: RunLibrary, make_model: ModuleType
) -> None:
    path, _ = default_library
    for batch in (1, 5):  # the batch dimension is symbolic in the model
        x = sample(batch)
        np.testing.assert_allclose(run_library(path, x), make_model.reference(x), rtol=1e-5, atol=1e-5)


def test_summary(default_library: tuple[Path, str]) -> None:
    path, stdout = default_library
    lines = stdout.splitlines()
    assert lines[0].startswith(f"tvmc: built {path} (") and " KiB) from " in lines[0]
    assert lines[1].startswith('  target  {"keys":["cpu"],"kind":"llvm"')
    assert lines[2] == "  host    (the target)"
    assert lines[3] == "  vm      exec-mode bytecode, system-lib auto"
    assert lines[4].startswith("  time    import ") and ", build " in lines[4] and ", export " in lines[4]
    assert path.read_bytes().startswith(ELF)


def test_input_shapes_are_applied(
    tmp_path: Path, invoke: Invoke, mlp_path: Path, run_library: RunLibrary, make_model: ModuleType
) -> None:
    out = tmp_path / "fixed.so"
    result = invoke("compile", str(mlp_path), "-o", str(out), "--input-shapes", "x:[2,8]", "-O", "1")
    assert result.exit_code == 0, result.output
    x = sample(2, seed=1)
    np.testing.assert_allclose(run_library(out, x), make_model.reference(x), rtol=1e-5, atol=1e-5)
    with pytest.raises(Exception, match=r"(?i)shape|dim"):
        run_library(out, sample(3))


def test_default_output_name_and_inputs_untouched(
    tmp_path: Path, invoke: Invoke, mlp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    before = mlp_path.read_bytes()
    result = invoke("compile", str(mlp_path), "--set", 'build.output-format="tar"')
    assert result.exit_code == 0, result.output
    with tarfile.open(tmp_path / "mlp.tar") as archive:  # TVM writes object files, gzipped
        assert any(name.endswith(".o") for name in archive.getnames())
    assert mlp_path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mlp.tar"]  # no temporary left behind


def test_aws_c5_builds_for_skylake_avx512(tmp_path: Path, invoke: Invoke, mlp_path: Path) -> None:
    """The README's main job. Only built: running needs an AVX-512 CPU."""
    out = tmp_path / "c5.so"
    result = invoke("compile", str(mlp_path), "--config", "aws/c5", "-o", str(out), "--set", 'build.dump-code=["ll"]')
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(ELF)
    ir = Path(f"{out}.ll").read_text(encoding="utf-8")
    assert '"target-cpu"="skylake-avx512"' in ir and "x86_64-linux-gnu" in ir
    assert '"mcpu":"skylake-avx512"' in result.stdout and f"  dump    {out}.ll" in result.stdout


def test_build_options_reach_tvm(
    tmp_path: Path, invoke: Invoke, mlp_path: Path, run_library: RunLibrary, make_model: ModuleType
) -> None:
    out = tmp_path / "opts.so"
    result = invoke(
        "compile",
        str(mlp_path),
        "-o",
        str(out),
        "--executor",
        "vm",
        "--executor-vm-exec-mode",
        "compiled",
        "--pass-config",
        "tirx.disable_vectorize=true",
        "--set",
        'build={cross-compiler="gcc", cross-compiler-options=["-O1"], dump-code=["tir", "relax", "asm"]}',
    )
    assert result.exit_code == 0, result.output
    assert "exec-mode compiled" in result.stdout
    x = sample(3)
    np.testing.assert_allclose(run_library(out, x), make_model.reference(x), rtol=1e-5, atol=1e-5)
    assert "T.prim_func" in Path(f"{out}.tir").read_text(encoding="utf-8")
    assert "R.function" in Path(f"{out}.relax").read_text(encoding="utf-8")
    assert Path(f"{out}.asm").stat().st_size > 0


def test_unknown_input_name(invoke: Invoke, mlp_path: Path, tmp_path: Path) -> None:
    result = invoke("compile", str(mlp_path), "-o", str(tmp_path / "x.so"), "--input-shapes", "xx:[1,8]")
    assert result.exit_code == 1
    assert "--input-shapes: the model has no input 'xx' (inputs: x) (did you mean 'x'?)" in result.stderr


def test_tvm_errors_are_one_line(invoke: Invoke, tmp_path: Path) -> None:
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"\x08\x07garbage")
    result = invoke("compile", str(broken), "-o", str(tmp_path / "b.so"))
    assert result.exit_code == 1
    # the model is named: a damaged model's DecodeError names no file
    assert result.stderr.startswith(f"tvmc: error: {broken}: import failed: ") and "Traceback" not in result.output
    assert not (tmp_path / "b.so").exists()


def test_emitted_script_builds_the_same_library(
    tmp_path: Path, invoke: Invoke, mlp_path: Path, run_library: RunLibrary, default_library: tuple[Path, str]
) -> None:
    script = tmp_path / "build.py"
    emitted = invoke("compile", str(mlp_path), "--emit", "python", "-o", str(script))
    assert emitted.exit_code == 0, emitted.output
    out = tmp_path / "from-script.so"
    done = subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out)
    x = sample(4, seed=2)
    np.testing.assert_array_equal(run_library(out, x), run_library(default_library[0], x))


# ---- every shipped config is held to its build claim ----------------------------------------------

SHIPPED = sorted(
    Path(p).relative_to(ROOT / "configs").with_suffix("").as_posix()
    for p in glob.glob(str(ROOT / "configs" / "**" / "*.toml"), recursive=True)
)
# What a config that TVM 0.27 cannot build says in its description (and so in `config list`).
CANNOT_BUILD = "Does not build with TVM 0.27"


def claim(name: str) -> str:
    """What the config says of itself: "builds", "cannot build" (its description says why) or
    "legacy" (its tvm-version excludes TVM >= 0.25: --emit tvmc)."""
    config = api.resolve([name], []).config
    if config.tvm_version and config.tvm_version.startswith(("<", "==0.1")):
        return "legacy"
    return "cannot build" if CANNOT_BUILD in (config.description or "") else "builds"


def missing_tool(name: str) -> str | None:
    """A tool the build needs that this machine lacks: nvcc for CUDA. (A missing cross compiler is
    not one: the config is then built the way the error suggests, as a tar of objects.)"""
    config = api.resolve([name], []).config
    if any(t["kind"] == "cuda" for t in config.targets) and not shutil.which("nvcc"):
        return "nvcc not on PATH"
    return None


CLAIMS = {name: claim(name) for name in SHIPPED}
MISSING = {name: missing_tool(name) for name in SHIPPED}


def test_every_shipped_config_has_a_claim_this_machine_checks() -> None:
    """Each claim is held by one of the tests below: none is left unchecked for want of a tool."""
    unchecked = {n: why for n, why in MISSING.items() if why and CLAIMS[n] == "builds"}
    if os.environ.get("CI") == "true":
        assert not unchecked, unchecked
    assert {"builds", "cannot build", "legacy"} >= set(CLAIMS.values())


def assert_reproduces(invoke: Invoke, library: Path, model: Path) -> None:
    """Issue 27: the same config, model and versions make a byte-identical library (`--reproduce`
    builds it again from the library's manifest, in another temporary folder, later)."""
    verdict = invoke("compile", "--reproduce", str(library), str(model))
    assert verdict.exit_code == 0 and ": byte-identical (" in verdict.stdout, verdict.output


@pytest.mark.parametrize("name", [n for n in SHIPPED if CLAIMS[n] == "builds" and not MISSING[n]])
def test_shipped_config_builds(
    name: str, tmp_path: Path, invoke: Invoke, mlp_path: Path, run_library: RunLibrary, make_model: ModuleType
) -> None:
    config = api.resolve([name], []).config
    cross = config.build.get("cross-compiler")
    if cross and not shutil.which(cross):
        # The error names the way to build without it: a tar of the objects, linked elsewhere.
        refused = invoke("compile", str(mlp_path), "--config", name, "-o", str(tmp_path / "lib.so"))
        assert refused.exit_code == 1 and f"the cross compiler {cross!r} is not on PATH" in refused.stderr
        out = tmp_path / "lib.tar"
        alternative = ("--unset", "build.cross-compiler", "--set", "build.output-format=tar")
        result = invoke("compile", str(mlp_path), "--config", name, *alternative, "-o", str(out))
        assert result.exit_code == 0, result.output
        with tarfile.open(out) as archive:
            assert any(n.endswith(".o") for n in archive.getnames())
        assert_reproduces(invoke, out, mlp_path)
        return
    out = tmp_path / "lib.so"
    result = invoke("compile", str(mlp_path), "--config", name, "-o", str(out))
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(ELF)
    assert_reproduces(invoke, out, mlp_path)
    native = all(t.get("mtriple", "x86_64").startswith("x86_64") for t in (*config.targets, config.host))
    cpu_only = all(t["kind"] == "llvm" for t in config.targets)
    if native and cpu_only and not any("mcpu" in t for t in config.targets):  # runs on any x86-64 CPU
        x = sample(2)
        np.testing.assert_allclose(run_library(out, x), make_model.reference(x), rtol=1e-5, atol=1e-5)
        # Issue 27: the library needs nothing else to run (inputs from its manifest).
        alone = invoke("run", str(out), "--batch", "2")
        assert alone.exit_code == 0 and ": shape (2, " in alone.stdout, alone.output


@pytest.mark.parametrize("name", [n for n in SHIPPED if CLAIMS[n] == "cannot build"])
def test_shipped_config_that_says_it_cannot_build_fails_in_one_line(
    name: str, tmp_path: Path, invoke: Invoke, mlp_path: Path
) -> None:
    """The description's claim holds: the build fails (one line, exit 1, no crash of tvmc). Once TVM
    builds it, this fails and the description must change. `config list` shows the claim."""
    result = invoke("compile", str(mlp_path), "--config", name, "-o", str(tmp_path / "lib.so"))
    assert result.exit_code == 1, result.output
    errors = [line for line in result.stderr.splitlines() if not line.startswith("tvmc: warning: ")]
    assert len(errors) == 1 and errors[0].startswith("tvmc: error: "), result.stderr
    assert not (tmp_path / "lib.so").exists()
    listed = [line for line in invoke("config", "list").stdout.splitlines() if line.startswith(name + " ")]
    assert len(listed) == 1 and CANNOT_BUILD in listed[0]


@pytest.mark.parametrize("name", [n for n in SHIPPED if CLAIMS[n] == "legacy" or MISSING[n]])
def test_shipped_config_not_built_here_still_plans(name: str, invoke: Invoke, mlp_path: Path) -> None:
    """A legacy-TVM config gives old tvmc's command line; one whose nvcc is missing here, its plan."""
    legacy = CLAIMS[name] == "legacy"
    result = invoke("compile", str(mlp_path), "--config", name, "--emit", "tvmc" if legacy else "plan")
    assert result.exit_code == 0, result.output
    assert ("tvmc compile" if legacy else '"steps"') in result.stdout


@pytest.mark.parametrize(("suffix", "package"), [(".tflite", "tflite"), (".pt2", "torch"), (".onnx", "onnx")])
def test_missing_frontend_package_is_named(
    tmp_path: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, suffix: str, package: str
) -> None:
    monkeypatch.setitem(sys.modules, package, None)
    model = tmp_path / f"m{suffix}"
    model.write_bytes(b"never read")
    result = invoke("compile", str(model), "-o", str(tmp_path / "m.so"))
    assert result.exit_code == 1, result.output
    assert f"needs the Python package {package!r}, which is not installed; pip install {package}" in result.stderr
    assert "Traceback" not in result.output
