"""`tirx.add_lower_pass`, the (level, pass name) pairs old tvmc's `--pass-config
tir.add_lower_pass=LEVEL,PASS` wrote: validate, show and `--emit plan` accepted them, and the real
build failed in TVM ("Expect config tirx.add_lower_pass to have type ffi.Array"). The build, the
tuning child and the emitted scripts now make them into TVM objects with one function."""

from __future__ import annotations

import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from tvmc.backend.lower_passes import pass_context_config

Invoke = Callable[..., Result]


# ---- the function itself, against a stand-in TVM (also where TVM is not installed) -------------------


class FakePass:
    def __init__(self, name: str) -> None:
        self.name = name


def fake_tvm(*, modern: bool, globals_: dict[str, Callable[[], Any]] | None = None) -> Any:
    """What `pass_context_config` uses of TVM: get_global_func, transform.Pass and IntImm."""
    tir = types.SimpleNamespace(IntImm=lambda dtype, value: ("IntImm", dtype, value))
    registered = globals_ or {}
    tvm = types.SimpleNamespace(
        get_global_func=lambda name, allow_missing=False: registered.get(name),
        transform=types.SimpleNamespace(Pass=FakePass),
        **({"tirx": tir} if modern else {"tir": tir}),
    )
    return tvm


@pytest.fixture
def pass_module(monkeypatch: pytest.MonkeyPatch) -> str:
    """A module `fakepkg.tirx.transform` with a pass maker `Unroll` (and a non-pass `version`)."""
    for name in ("fakepkg", "fakepkg.tirx"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    module = types.ModuleType("fakepkg.tirx.transform")
    module.Unroll = lambda: FakePass("unroll")  # type: ignore[attr-defined]
    module.version = lambda: "1.0"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fakepkg.tirx.transform", module)
    return "fakepkg.tirx.transform"


@pytest.mark.parametrize("modern", [True, False])
def test_pairs_become_an_intimm_level_and_the_pass(modern: bool, pass_module: str) -> None:
    made = {"x": FakePass("global")}
    tvm = fake_tvm(modern=modern, globals_={"x.transform.Global": lambda: made["x"]})
    key = "tirx.add_lower_pass" if modern else "tir.add_lower_pass"
    config = {key: [[1, f"{pass_module}.Unroll"], [3, "x.transform.Global"]], "tirx.disable_vectorize": True}
    out = pass_context_config(tvm, config)
    assert out["tirx.disable_vectorize"] is True
    (level1, pass1), (level3, pass3) = out[key]
    assert level1 == ("IntImm", "int32", 1) and pass1.name == "unroll"
    assert level3 == ("IntImm", "int32", 3) and pass3 is made["x"]
    assert config[key] == [[1, f"{pass_module}.Unroll"], [3, "x.transform.Global"]]  # not changed


def test_a_pass_tvm_moved_out_of_tir_is_found_under_its_new_package(pass_module: str) -> None:
    # TVM 0.24 moved tvm.tir.transform.X to tvm.tirx.transform.X (or tvm.s_tir...): old command lines
    # and the configs migrated from them name the old place.
    out = pass_context_config(fake_tvm(modern=True), {"tirx.add_lower_pass": [[1, "fakepkg.tir.transform.Unroll"]]})
    assert out["tirx.add_lower_pass"][0][1].name == "unroll"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("fakepkg.tirx.transform.Nothere", "this TVM has no pass 'fakepkg.tirx.transform.Nothere'"),
        ("nomodule.Pass", "this TVM has no pass 'nomodule.Pass'"),
        ("Bare", "this TVM has no pass 'Bare'"),
        ("fakepkg.tirx.transform.version", "fakepkg.tirx.transform.version() made a str, not a TVM Pass"),
        ("builtins.divmod", "builtins.divmod() failed: TypeError"),
    ],
)
def test_a_name_that_is_no_pass_is_one_line_naming_it(name: str, message: str, pass_module: str) -> None:
    with pytest.raises(LookupError) as caught:
        pass_context_config(fake_tvm(modern=True), {"tirx.add_lower_pass": [[1, name]]})
    text = str(caught.value)
    assert text.startswith("pass-config tirx.add_lower_pass: ") and message in text and "\n" not in text


# ---- with TVM: the build, the error, the scripts ---------------------------------------------------


@pytest.mark.tvm
def test_compile_builds_with_lower_passes_and_the_library_runs(
    tmp_path: Path, invoke: Invoke, mlp_path: Path, run_library: Callable[[Path, Any], Any]
) -> None:
    np = pytest.importorskip("numpy")
    out = tmp_path / "lowered.so"
    # the old tvmc spelling of both the config and the pass (tvm.tir.transform.UnrollLoop, TVM <= 0.23)
    result = invoke(
        "compile", str(mlp_path), "--pass-config", "tir.add_lower_pass=1,tvm.tir.transform.UnrollLoop", "-o", str(out)
    )
    assert result.exit_code == 0, result.output
    x = np.ones((2, 8), dtype="float32")
    assert run_library(out, x).shape[0] == 2


@pytest.mark.tvm
def test_compile_names_a_lower_pass_tvm_lacks_in_one_line(tmp_path: Path, invoke: Invoke, mlp_path: Path) -> None:
    pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -e '.[tvm]')")
    out = tmp_path / "x.so"
    result = invoke("compile", str(mlp_path), "--pass-config", "tirx.add_lower_pass=1,tvm.nothere.Pass", "-o", str(out))
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "tvmc: error: pass-config tirx.add_lower_pass: this TVM has no pass 'tvm.nothere.Pass'"
        " (a global function or module.function)"
    )
    assert not out.exists()


@pytest.mark.tvm
def test_the_python_script_builds_with_lower_passes(tmp_path: Path, invoke: Invoke, mlp_path: Path) -> None:
    pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -e '.[tvm]')")
    script = tmp_path / "build.py"
    flag = "tirx.add_lower_pass=1,tirx.transform.StmtSimplify,2,tvm.s_tir.transform.LoopPartition"
    emitted = invoke("compile", str(mlp_path), "--pass-config", flag, "--emit", "python", "-o", str(script))
    assert emitted.exit_code == 0, emitted.output
    assert "config=pass_context_config(tvm, PASS_CONFIG)" in script.read_text()
    out = tmp_path / "from-script.so"
    done = subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"


def test_the_relay_script_makes_the_pairs_into_pass_objects(tmp_path: Path, invoke: Invoke) -> None:
    config = tmp_path / "old.toml"
    config.write_text(
        'tvm-version = "<=0.19"\ntargets = ["llvm"]\n'
        '[pass-config]\n"tir.add_lower_pass" = [[1, "tvm.tir.transform.UnrollLoop"]]\n'
    )
    script = tmp_path / "build.py"
    emitted = invoke("compile", "m.onnx", "-c", str(config), "--emit", "relay", "-o", str(script))
    assert emitted.exit_code == 0, emitted.output
    text = script.read_text()
    assert "config = pass_context_config(tvm, PASS_CONFIG)" in text
    namespace: dict[str, Any] = {}
    start = text.index("from typing import Any")
    end = text.index("\n\n\ndef ", text.index("def pass_context_config"))
    exec(compile(text[start:end], str(script), "exec"), namespace)  # the copied function, as the script has it
    module = types.ModuleType("tvm.tir.transform")
    module.UnrollLoop = lambda: FakePass("unroll")  # type: ignore[attr-defined]
    with pytest.MonkeyPatch.context() as patch:
        for name in ("tvm", "tvm.tir"):
            patch.setitem(sys.modules, name, types.ModuleType(name))
        patch.setitem(sys.modules, "tvm.tir.transform", module)
        out = namespace["pass_context_config"](
            fake_tvm(modern=False), {"tir.add_lower_pass": [[1, "tvm.tir.transform.UnrollLoop"]]}
        )
    assert out["tir.add_lower_pass"][0][1].name == "unroll"
