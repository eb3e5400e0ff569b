"""Integration: `tvmc compile` builds with the installed TVM; the libraries load and run with the VM.

Skipped (with the reason shown by `-ra`) only when apache-tvm is not installed.
"""

from __future__ import annotations

import glob
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
    assert result.stderr.startswith("tvmc: error: import failed: ") and "Traceback" not in result.output
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


# ---- every shipped config that a CPU-only x86-64 machine can build -------------------------------

SHIPPED = sorted(
    Path(p).relative_to(ROOT / "configs").with_suffix("").as_posix()
    for p in glob.glob(str(ROOT / "configs" / "**" / "*.toml"), recursive=True)
)


def cpu_buildable(name: str) -> str | None:
    """Why this machine cannot build the config into a library (None: it can)."""
    config = api.resolve([name], []).config
    if config.tvm_version and config.tvm_version.startswith(("<", "==0.1")):
        return f"a legacy-TVM config (tvm-version {config.tvm_version}): see --emit tvmc"
    for target in (*config.targets, config.host):
        if target["kind"] not in ("llvm", "c"):
            return f"needs TVM's {target['kind']} code generator and device"
        triple = target.get("mtriple")
        cross = config.build.get("cross-compiler")
        if triple and not triple.startswith("x86_64") and not (cross and shutil.which(cross)):
            return f"cross-compiles for {triple} (cross compiler {cross} not on PATH)"
    return None


# Decided at collection, so that no build test is skipped: .ci/run installs the cross compilers.
REASONS = {name: cpu_buildable(name) for name in SHIPPED}
# Shipped configs that claim to build but do not yet (issue 16 holds every config to its claim).
KNOWN_BROKEN = {"arm/rasp4b": "the armhf link of TVM 0.27's objects fails ('file in wrong format')"}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN_BROKEN[n], strict=True)) if n in KNOWN_BROKEN else n
        for n in SHIPPED
        if REASONS[n] is None
    ],
)
def test_shipped_config_builds(
    name: str, tmp_path: Path, invoke: Invoke, mlp_path: Path, run_library: RunLibrary, make_model: ModuleType
) -> None:
    out = tmp_path / "lib.so"
    result = invoke("compile", str(mlp_path), "--config", name, "-o", str(out))
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(ELF)
    config = api.resolve([name], []).config
    native = all(t.get("mtriple", "x86_64").startswith("x86_64") for t in (*config.targets, config.host))
    if native and not any("mcpu" in t for t in config.targets):  # runs on any x86-64 CPU
        x = sample(2)
        np.testing.assert_allclose(run_library(out, x), make_model.reference(x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", [n for n in SHIPPED if REASONS[n] is not None])
def test_shipped_config_not_built_here_still_plans(name: str, invoke: Invoke, mlp_path: Path) -> None:
    """A config this machine cannot build still gives its build invocation: the plan for TVM >= 0.25,
    old tvmc's command line for a legacy-TVM config."""
    legacy = REASONS[name].startswith("a legacy-TVM config")  # type: ignore[union-attr]
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
