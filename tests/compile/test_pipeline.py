"""build.pipeline (issue 29): one relax pipeline, fused by default, with or without tuning records.

TVM keeps relax.build unfused on CPU because its fused pipeline's FoldConstant drops a
`call_pure_packed` whose result is unused even when the packed function has side effects
(apache/tvm#19384); tvmc's pipeline (and the `--emit python` script) builds such a module unfused.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from tvmc import api, records
from tvmc.backend.model import model_spec
from tvmc.backend.plan import FUSED_PASSES, plan_build
from tvmc.emit import python as emit_python
from tvmc.tune.fingerprint import target_fingerprint

pytestmark = pytest.mark.tvm
tvm = pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -e '.[tvm]')")
np = pytest.importorskip("numpy")

ROOT = Path(__file__).resolve().parents[2]
Invoke = Callable[..., Result]
SIDE_EFFECT = "tvmc.test.count_calls"
CALLS: list[int] = []


@tvm.register_global_func(SIDE_EFFECT, override=True)
def _count_calls(x: Any) -> Any:
    CALLS.append(1)
    return x


def side_effect_module(*, used: bool) -> Any:
    """main(x) = (x+x)*(x+x), calling SIDE_EFFECT on x+x through call_pure_packed: its result is
    used (added to the output times zero) or left unused (the case FoldConstant drops)."""
    from tvm.script import ir as I
    from tvm.script import relax as R

    if used:

        @I.ir_module
        class Used:
            @R.function
            def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
                with R.dataflow():
                    y = R.add(x, x)
                    called = R.call_pure_packed(SIDE_EFFECT, y, ty_args=R.Tensor((4,), "float32"))
                    z = R.add(R.multiply(y, y), R.multiply(called, R.const(0.0, "float32")))
                    R.output(z)
                return z

        return Used

    @I.ir_module
    class Unused:
        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            with R.dataflow():
                y = R.add(x, x)
                _called = R.call_pure_packed(SIDE_EFFECT, y, ty_args=R.Tensor((4,), "float32"))
                z = R.multiply(y, y)
                R.output(z)
            return z

    return Unused


def plan_for(*sets: str) -> Any:
    resolved = api.resolve([], [("--set", text) for text in sets])
    return plan_build(resolved.config, resolved.origins, model_spec("m.onnx", None, None))


def run_main(executable: Any) -> Any:
    vm = tvm.relax.VirtualMachine(executable, tvm.cpu())
    return vm["main"](tvm.runtime.tensor(np.ones(4, "float32"))).numpy()


@pytest.mark.parametrize("used", [False, True], ids=["unused-result", "used-result"])
def test_fused_pipeline_keeps_side_effecting_pure_packed_calls(used: bool) -> None:
    from tvmc.tune import tvmside

    target = tvm.target.Target("llvm")
    # TVM's own fused CPU pipeline drops the unused call: the reason for the guard (apache/tvm#19384).
    CALLS.clear()
    run_main(
        tvm.relax.build(side_effect_module(used=used), target, relax_pipeline=tvm.relax.get_default_pipeline(target))
    )
    assert len(CALLS) == (1 if used else 0)
    CALLS.clear()
    executable, report = tvmside.build(tvm, plan_for(), side_effect_module(used=used), target)
    np.testing.assert_array_equal(run_main(executable), np.full(4, 4.0, "float32"))
    assert len(CALLS) == 1  # the side effect happens, fused or not
    if used:
        assert report.fallback is None  # nothing to lose: fused as any other module
    else:
        assert report.fallback is not None and repr(SIDE_EFFECT) in report.fallback and "19384" in report.fallback


def test_emitted_script_guards_the_same_calls() -> None:
    """The `--emit python` script's fused_pipeline is the build's: same passes, same guard."""
    text, _ = emit_python.render(plan_for())
    namespace: dict[str, Any] = {"__name__": "emitted"}
    exec(compile(text, "build.py", "exec"), namespace)  # defines the functions; main() does not run
    assert namespace["FUSED_PASSES"] == list(FUSED_PASSES)
    target = tvm.target.Target("llvm")
    for used in (False, True):
        CALLS.clear()
        executable = tvm.relax.build(
            side_effect_module(used=used), target, relax_pipeline=namespace["fused_pipeline"](target)
        )
        np.testing.assert_array_equal(run_main(executable), np.full(4, 4.0, "float32"))
        assert len(CALLS) == 1


def test_relax_build_pipeline_is_relax_builds_default() -> None:
    from tvmc.tune import tvmside

    plan = plan_for("build.pipeline=relax-build")
    assert plan.pipeline == "relax-build" and plan.steps("m.so")[-2]["args"]["relax_pipeline"] == "default"
    target = tvm.target.Target("llvm")
    CALLS.clear()
    executable, report = tvmside.build(tvm, plan, side_effect_module(used=False), target)
    assert report.fallback is None and len(CALLS) == 0
    run_main(executable)
    assert len(CALLS) == 1


def test_pipeline_keys_are_in_the_fingerprint_and_default_to_fused() -> None:
    default = api.resolve([], []).config
    written = api.resolve([], [("--set", "build.pipeline=fused"), ("--set", "build.fast-math=false")]).config
    assert target_fingerprint(default) == target_fingerprint(written)  # the default written out: same code
    others = {
        target_fingerprint(api.resolve([], [("--set", flag)]).config)
        for flag in ("build.pipeline=relax-build", "build.fast-math=true")
    }
    assert len(others) == 2 and target_fingerprint(default) not in others
    assert plan_for().pipeline == "fused" and not plan_for().fast_math


def test_bad_pipeline_value_is_one_line(invoke: Invoke, tmp_path: Path) -> None:
    result = invoke("compile", str(ROOT / "models" / "mlp.onnx"), "--set", "build.pipeline=fast", "-o", str(tmp_path))
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "pipeline" in result.output and "relax-build" in result.output


def test_relax_build_pipeline_applies_no_records(tmp_path: Path) -> None:
    from tvmc.tune import store
    from tvmc.tune.apply import choose

    config = api.resolve([], [("--set", "build.pipeline=relax-build")]).config
    partition = store.Partition(tmp_path, target_fingerprint(config))
    partition.path.mkdir(parents=True)
    plan = plan_for("build.pipeline=relax-build")
    chosen, why = choose(plan, config, database=tmp_path, warn=lambda _message: None)
    assert chosen.tuning is None and "relax-build" in why


def test_fast_math_is_a_step_before_the_build() -> None:
    plan = plan_for("build.fast-math=true")
    steps = [s["step"] for s in plan.steps("m.so")]
    assert steps.index("fast-math") < steps.index("build")
    text, _ = emit_python.render(plan)
    assert "mod = relax.transform.FastMathTransform()(mod)" in text
    assert "FastMathTransform" not in emit_python.render(records.replace(plan, fast_math=False))[0]


SMALL = {  # bench_models' generators at test sizes: BatchNorm folding, depthwise convs, Erf/Softmax
    "resnet": {"size": 16, "width": 8, "blocks": 1},
    "mobilenet": {"size": 16, "width": 8, "blocks": 2},
    "transformer": {"seq": 8, "dim": 32, "heads": 2, "ffn": 64},
}
VARIANTS = {"fused": ((), 1e-4), "relax-build": (("--set", "build.pipeline=relax-build"), 1e-4)}
VARIANTS["fast-math"] = (("--set", "build.fast-math=true"), 1e-3)  # approximations: a looser tolerance


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("name", list(SMALL))
def test_generated_models_match_the_onnx_reference(name: str, variant: str, invoke: Invoke, tmp_path: Path) -> None:
    pytest.importorskip("onnx", reason="onnx is not installed (pip install -e '.[tvm]')")
    from testkit import load_script

    model = tmp_path / f"{name}.onnx"
    model.write_bytes(load_script("bench_models").GENERATED[name](**SMALL[name]).SerializeToString())
    flags, rtol = VARIANTS[variant]
    library = tmp_path / f"{name}.so"
    built = invoke("compile", str(model), "--config", "host/native", *flags, "-o", str(library))
    assert built.exit_code == 0, built.output
    ran = invoke("run", str(library), "--check", str(model), "--rtol", str(rtol), "--atol", "1e-4")
    assert ran.exit_code == 0, ran.output
    assert ran.stdout.count(": ok") == 1, ran.stdout


def test_pipeline_keys_are_refused_for_legacy_tvm(tmp_path: Path, invoke: Invoke) -> None:
    config = tmp_path / "legacy.toml"
    config.write_text('tvm-version = "<=0.19"\ntargets = ["llvm"]\n[build]\nfast-math = true\n', encoding="utf-8")
    result = invoke("compile", str(ROOT / "models" / "mlp.onnx"), "--config", str(config), "--emit", "tvmc")
    assert result.exit_code == 1
    assert "build.fast-math: a relax pipeline option: it exists only in TVM >= 0.25" in result.stderr
    config.write_text('tvm-version = "<=0.19"\ntargets = ["llvm"]\n[build]\nfast-math = false\n', encoding="utf-8")
    assert (
        invoke("compile", str(ROOT / "models" / "mlp.onnx"), "--config", str(config), "--emit", "tvmc").exit_code == 0
    )
