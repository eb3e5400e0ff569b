"""`--emit python`, `--emit relay` and `--emit plan`: what they contain (no TVM needed)."""

from __future__ import annotations

import ast
import json
import os
from typing import Any

import pytest
from tvmc import api
from tvmc.backend.model import model_spec
from tvmc.backend.plan import plan_build
from tvmc.emit import plan as plan_json
from tvmc.emit import python, relay
from tvmc.emit.legacy import plan_legacy
from tvmc.errors import BuildError

MODEL = model_spec("models/mlp.onnx", None, {"x": (None, 8)})


def constants(text: str) -> dict[str, Any]:
    """The module-level `NAME = literal` assignments of a script (OUTPUT: its default)."""
    out = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value.orelse if isinstance(node.value, ast.IfExp) else node.value
            out[node.targets[0].id] = ast.literal_eval(value)
    return out


def modern(*flags: tuple[str, str], configs: tuple[str, ...] = (), model: Any = MODEL) -> tuple[str, Any]:
    resolved = api.resolve(list(configs), list(flags))
    plan = plan_build(resolved.config, resolved.origins, model)
    return python.render(plan)[0], plan


def legacy(*flags: tuple[str, str], configs: tuple[str, ...] = (), model: Any = MODEL) -> tuple[str, Any]:
    resolved = api.resolve(list(configs), list(flags))
    plan = plan_legacy(resolved.config, resolved.origins, model)
    return relay.render(plan)[0], plan


def test_python_script_holds_the_plan() -> None:
    text, plan = modern(
        ("--runtime", "cpp"),
        ("--runtime-cpp-system-lib", "true"),
        ("--pass-config", "tirx.noalias=false"),
        ("--set", 'disabled-pass=["FuseOps"]'),
        ("--set", 'build={cross-compiler="gcc", cross-compiler-options=["-O2"]}'),
        configs=("aws/c5",),
    )
    values = constants(text)
    assert values["TARGET"] == plan.target and values["TARGET"]["mcpu"] == "skylake-avx512"
    assert values["MODEL"] == os.path.abspath("models/mlp.onnx")  # the script runs from any directory
    assert values["SHAPES"] == {"x": [None, 8]}
    assert values["OUTPUT"] == "mlp.so" and values["OUTPUT_FORMAT"] == "so"
    assert (values["EXEC_MODE"], values["SYSTEM_LIB"], values["OPT_LEVEL"]) == ("bytecode", True, 3)
    assert values["PASS_CONFIG"] == {"tirx.noalias": False} and values["DISABLED_PASS"] == ["FuseOps"]
    assert values["EXPORT_OPTIONS"] == {"cc": "gcc", "options": ["-O2"]}
    assert "relax.build(mod, target, exec_mode=EXEC_MODE, system_lib=SYSTEM_LIB,\n" in text
    assert "relax_pipeline=fused_pipeline(target))" in text  # build.pipeline's default, fused
    assert "from_onnx(onnx.load(MODEL), shape_dict=shape_dict())" in text
    assert "os.replace(path, OUTPUT)" in text  # written atomically


def test_python_script_partitions_before_the_build() -> None:
    text, _ = modern(
        ("--target", '{"kind": "cuda", "arch": "sm_80", "compiler": "cublas"}'),
        ("--set", 'build={desired-layout=["NHWC"], mixed-precision=true}'),
    )
    body = text[text.index("def main():") :]
    order = [
        "ConvertLayout({'relax.nn.conv2d': ['NHWC', 'HWIO']})",
        "ToMixedPrecision(out_dtype='float16')",
        "partition_for_cublas(mod)",
        "RunCodegen()(mod)",
        "relax.build(",
    ]
    positions = [body.index(text_) for text_ in order]
    assert positions == sorted(positions)
    assert "from tvm.relax.backend.cuda.cublas import partition_for_cublas" in text
    assert "compiler" not in constants(text)["TARGET"]


@pytest.mark.parametrize(
    ("path", "loader"),
    [
        ("m.tflite", "tflite.Model.GetRootAsModel(handle.read(), 0)"),
        ("m.pt2", "from_exported_program(torch.export.load(MODEL))"),
    ],
)
def test_python_script_frontends(path: str, loader: str) -> None:
    text, _ = modern(model=model_spec(path, None, None))
    assert loader in text and constants(text)["SHAPES"] is None


def test_python_script_dumps() -> None:
    text, _ = modern(("--set", 'build.dump-code=["ll", "tir", "relax"]'))
    ast.parse(text)
    assert "instruments=[RecordTIR()]" in text and 'OUTPUT + ".ll"' in text and "relax_text = mod.script()" in text


def test_relay_script_holds_the_legacy_plan() -> None:
    text, _ = legacy(configs=("boards/corstone-300",), model=model_spec("m.tflite", None, {"in:0": (1, 3)}))
    values = constants(text)
    assert values["TARGET"] == "c -mcpu=cortex-m55" and values["HOST"] is None
    assert values["EXECUTOR"] == "aot" and values["EXECUTOR_OPTIONS"]["interface-api"] == "c"
    assert values["RUNTIME"] == "crt" and values["OUTPUT_FORMAT"] == "mlf" and values["OUTPUT"] == "m.tar"
    assert values["MODEL_FORMAT"] == "tflite" and values["SHAPES"] == {"in:0": [1, 3]}
    body = text[text.index("def build(") :]
    # The codegen options go into the config before the PassContext is made; partitions keep target order.
    assert body.index("config['relay.ext.ethos-u.options'] = {'accelerator_config': 'ethos-u55-256'}") < body.index(
        "with tvm.transform.PassContext("
    )
    assert (
        body.index("partition_for_ethosu(mod, params, mod_name=MODULE_NAME")
        < body.index("partition_for_cmsisnn(mod, params")
        < body.index("relay.build(")
    )
    assert "relay.build(mod, target=target, executor=executor, runtime=runtime, params=params," in text


def test_relay_script_host_and_tuning() -> None:
    text, _ = legacy(("--set", 'build.tuning-records="logs.json"'), configs=("nvidia/jetson-nano",))
    values = constants(text)
    assert values["TARGET"].startswith("cuda -arch=sm_53")
    assert values["HOST"].startswith("llvm -mattr=+neon -mcpu=cortex-a57")
    assert values["TUNING_RECORDS"] == "logs.json" and values["CROSS_COMPILER"] == "aarch64-linux-gnu-gcc"
    assert 'config["relay.backend.use_auto_scheduler"] = True' in text


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ((("--set", "build.mixed-precision=true"),), "use --emit tvmc"),
        ((("--set", 'build.dump-code=["tir"]'),), "use --emit tvmc"),
        ((("--executor", "vm"),), "use --emit python"),
    ],
)
def test_relay_refusals(flags: tuple[tuple[str, str], ...], expected: str) -> None:
    with pytest.raises(BuildError, match=expected):
        legacy(*flags)


def test_plan_document() -> None:
    resolved = api.resolve(["aws/c5"], [("--target-llvm-num-cores", "4")])
    plan = plan_build(resolved.config, resolved.origins, MODEL)
    doc = json.loads(plan_json.render(plan, resolved.to_dict())[0])
    assert doc["config"] == resolved.to_dict() and doc["target"] == plan.target
    assert doc["target"]["num-cores"] == 4 and doc["output"] == "mlp.so"
    assert doc["model"] == {"path": "models/mlp.onnx", "format": "onnx", "input-shapes": {"x": [None, 8]}}
    assert [s["step"] for s in doc["steps"]] == ["import", "pass-context", "build", "export"]
    assert doc["steps"][0]["call"] == "tvm.relax.frontend.onnx.from_onnx"
    args = doc["steps"][2]["args"]
    assert {k: v for k, v in args.items() if k != "relax_pipeline"} == {
        "target": plan.target,
        "exec_mode": "bytecode",
        "system_lib": None,
    }
    passes = args["relax_pipeline"]["passes"]  # tvmc's fused pipeline: pre-fusion, fusion, lowering
    assert passes.index("tvm.relax.transform.DecomposeOpsForInference") < passes.index("tvm.relax.transform.FuseOps")
    assert "tvm.relax.transform.MetaScheduleApplyDatabase" not in passes  # no tuning records
    assert doc["steps"][3]["args"] == {"file_name": "mlp.so"}


@pytest.mark.tvm
def test_plan_target_is_accepted_by_tvm() -> None:
    tvm = pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -e '.[tvm]')")
    for configs in (["aws/c5"], ["nvidia/nvidia-a100"], ["raspberry-pi/4b-aarch64"], ["apple/m1-gpu"]):
        resolved = api.resolve(configs, [])
        target = plan_build(resolved.config, resolved.origins, MODEL).target
        exported = tvm.target.Target(target).export()
        assert exported["kind"] == target["kind"]
        # A CPU target is its own host (also when a config writes that host out): no nested host.
        assert ("host" in target) == (configs in (["nvidia/nvidia-a100"], ["apple/m1-gpu"]))
