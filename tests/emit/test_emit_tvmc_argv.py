"""`--emit tvmc`: old tvmc's command line, read back by tvmc's own rewrite parser to the same config."""

from __future__ import annotations

import glob
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from tvmc import api
from tvmc.backend.model import model_spec
from tvmc.emit import tvmc_argv
from tvmc.emit.legacy import plan_legacy
from tvmc.errors import BuildError

ROOT = Path(__file__).resolve().parents[2]
MODEL = model_spec("models/mlp.onnx", None, {"x": (1, 8)})
# Old tvmc flags that are not rewrite flags here: their config keys (nargs='+' ones take several values).
BUILD_FLAGS = {
    "--output-format": "output-format",
    "--module-name": "module-name",
    "--cross-compiler": "cross-compiler",
    "--tuning-records": "tuning-records",
    "--mixed-precision-calculation-type": "mixed-precision-calculation-type",
    "--mixed-precision-acc-type": "mixed-precision-acc-type",
}
NARGS = {
    "--desired-layout": "desired-layout",
    "--desired-layout-ops": "desired-layout-ops",
    "--mixed-precision-ops": "mixed-precision-ops",
}


def read_back(argv: list[str]) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    """Old tvmc's argv → (rewrite flags for api.resolve, everything else)."""
    assert argv[:2] == ["tvmc", "compile"]
    pairs: list[tuple[str, str]] = []
    build: dict[str, Any] = {}
    other: dict[str, Any] = {"FILE": argv[-1]}
    index = 2
    while index < len(argv) - 1:
        token = argv[index]
        index += 1
        if token in NARGS:
            values = []
            while index < len(argv) - 1 and not argv[index].startswith("--"):
                values.append(argv[index])
                index += 1
            build[NARGS[token]] = values
            continue
        if token == "--mixed-precision":
            build["mixed-precision"] = True
            continue
        flag, _, value = token.partition("=")
        if flag in BUILD_FLAGS:
            build[BUILD_FLAGS[flag]] = value
        elif flag == "--cross-compiler-options":
            build["cross-compiler-options"] = value.split(" ")
        elif flag == "--dump-code":
            build["dump-code"] = value.split(",")
        elif flag == "--disabled-pass":
            pairs.append(("--set", f"disabled-pass={value.split(',')!r}".replace("'", '"')))
        elif flag in ("--model-format", "--input-shapes", "--output"):
            other[flag] = value
        else:
            pairs.append((flag, value))
    for key, value in build.items():
        pairs.append(("--set", f"build.{key}={_toml(value)}"))
    return pairs, other


def _toml(value: Any) -> str:
    import json

    return json.dumps(value)


def emit(configs: list[str], flags: Sequence[tuple[str, str]] = (), model: Any = MODEL) -> tuple[str, list[str]]:
    resolved = api.resolve(configs, list(flags))
    return tvmc_argv.render(plan_legacy(resolved.config, resolved.origins, model))


def comparable(config: dict[str, Any]) -> dict[str, Any]:
    """What legacy can express: no description or tvm-version; pass-config under legacy names; a CPU
    target's own host is implied (written out or not)."""
    out = {k: v for k, v in config.items() if k not in ("description", "tvm-version")}
    out["targets"] = [
        {k: v for k, v in t.items() if k != "host"}
        if t.get("host") == out["host"] and {k: v for k, v in t.items() if k != "host"} == out["host"]
        else t
        for t in out["targets"]
    ]
    if "pass-config" in out:
        out["pass-config"] = {k.replace("tirx.", "tir.", 1): v for k, v in out["pass-config"].items()}
    return out


def round_trip(configs: list[str], flags: Sequence[tuple[str, str]] = ()) -> tuple[dict[str, Any], dict[str, Any]]:
    original = api.resolve(configs, list(flags)).to_dict()
    text, _ = emit(configs, flags)
    argv = shlex.split(text)
    pairs, other = read_back(argv)
    assert other["--model-format"] == "onnx" and other["FILE"] == "models/mlp.onnx"
    assert other["--input-shapes"] == "x:[1,8]" and other["--output"] == "mlp.tar"
    return comparable(original), comparable(api.resolve([], pairs).to_dict())


LEGACY_OK = [
    Path(p).relative_to(ROOT / "configs").with_suffix("").as_posix()
    for p in sorted(glob.glob(str(ROOT / "configs" / "**" / "*.toml"), recursive=True))
]


@pytest.mark.parametrize("name", LEGACY_OK)
def test_shipped_configs_round_trip(name: str) -> None:
    if name == "qcom/hexagon-v68":  # the hexagon target is its own host: two hexagon targets for old tvmc
        with pytest.raises(BuildError, match="two targets of one kind are refused as duplicates"):
            emit([name])
        return
    original, back = round_trip([name])
    if original["targets"][0].get("tag", "") and "/" in original["targets"][0]["tag"]:
        for target in original["targets"]:  # a tag label with '/' cannot pass old tvmc's tokenizer
            target["tag"] = ""
        original["host"]["tag"] = ""
    assert back == original


@pytest.mark.parametrize(
    "flags",
    [
        [
            ("--target", "c -mcpu=cortex-m4"),
            ("--executor", "aot"),
            ("--executor-aot-unpacked-api", "true"),
            ("--executor-aot-interface-api", "c"),
            ("--runtime", "crt"),
            ("--runtime-crt-system-lib", "1"),
        ],
        [
            ("--executor", "graph"),
            ("--executor-graph-link-params", "true"),
            ("-O", "1"),
            ("--pass-config", "tir.disable_vectorize=true"),
            ("--pass-config", "tir.usmp.algorithm=greedy_by_size"),
            ("--set", 'disabled-pass=["AlterOpLayout", "FoldScaleAxis"]'),
        ],
        [
            ("--target", "ethos-u -accelerator_config=ethos-u55-128, cmsis-nn, c -mcpu=cortex-m55"),
            ("--set", 'tvm-version="<=0.18"'),  # the tvmc of TVM 0.19 has neither codegen
        ],
        [("--target", "cuda -arch=sm_75, llvm -mtriple=aarch64-linux-gnu -mattr=+neon")],
        [
            (
                "--set",
                'build={output-format="mlf", module-name="net", tuning-records="logs.json", '
                'cross-compiler="aarch64-linux-gnu-gcc", cross-compiler-options=["-O2", "-static"], '
                'desired-layout=["NHWC:HWIO"], desired-layout-ops=["nn.conv2d"], mixed-precision=true, '
                'mixed-precision-ops=["nn.dense"], mixed-precision-acc-type="float32", '
                'dump-code=["asm", "ll", "tir"]}',
            ),
            ("--set", 'tvm-version="<=0.18"'),  # MLF was last in TVM 0.18
        ],
    ],
)
def test_rewrites_round_trip(flags: list[tuple[str, str]]) -> None:
    original, back = round_trip([], flags)
    assert back == original


def test_host_is_the_second_tvm_target() -> None:
    text, _ = emit(["nvidia/jetson-nano"])
    target = next(a for a in shlex.split(text) if a.startswith("--target="))
    assert target.startswith("--target=cuda -arch=sm_53 ")  # keys: what TVM derives anyway
    assert ", llvm -mattr=+neon -mcpu=cortex-a57 -mtriple=aarch64-linux-gnu" in target
    assert "--target-host" not in text  # old `tvmc compile` had none


def test_tag_labels_are_dropped_with_a_note() -> None:
    text, notes = emit(["aws/c5.large"])
    assert "-tag=" not in text
    assert notes == ["the tag label 'aws/cpu/c5.large' is left out: old tvmc's --target cannot pass it"]


def test_false_bool_option_is_refused() -> None:
    # python/tvm/driver/tvmc/registry.py (v0.19.0): runtime.BoxBool → argparse type=bool, bool("0") is True.
    with pytest.raises(BuildError, match="reads --executor-aot-link-params=0 \\(or =false\\) as true") as err:
        emit([], [("--executor", "aot"), ("--executor-aot-link-params", "false")])
    assert "--emit relay" in str(err.value)
    text, _ = emit([], [("--executor", "graph"), ("--executor-graph-link-params", "true")])
    assert "--executor-graph-link-params=1" in shlex.split(text)


@pytest.mark.parametrize(
    ("flags", "model", "expected"),
    [
        ([("--target", "llvm -model='sky lake'")], MODEL, "has a space, which old tvmc un-quotes"),
        ([("--target", "llvm -model=a$b")], MODEL, "it would silently drop '$'"),
        ([("--pass-config", "tir.usmp.algorithm=a=b")], MODEL, "strings without '='"),
        ([("--pass-config", "tir.vtcm_capacity=-1")], MODEL, "non-negative integers"),
        ([("--set", 'build.output-format="tar"')], MODEL, "its --output-format is so"),
        ([("--set", 'build.cross-compiler-options=["-O2"]')], MODEL, "ignores them without --cross-compiler"),
        ([("--set", 'build={cross-compiler="cc", cross-compiler-options=["-I a b"]}')], MODEL, "splits them on spaces"),
        ([], model_spec("m.onnx", None, {"a/b/c": (1,)}), "cannot parse the input name 'a/b/c'"),
        ([], model_spec("m.onnx", None, {"x": ()}), "scalar"),
        ([("--target-host", "llvm -mcpu=skylake")], MODEL, "two targets of one kind are refused as duplicates"),
    ],
)
def test_refused_with_relay_as_the_way_out(flags: list[tuple[str, str]], model: Any, expected: str) -> None:
    with pytest.raises(BuildError) as err:
        emit([], flags, model)
    assert expected in str(err.value)
    assert "--emit relay" in str(err.value)


@pytest.mark.parametrize(
    ("flags", "model", "expected"),
    [
        ([("--executor", "vm")], MODEL, "executor 'vm' exists only in TVM >= 0.25"),
        (
            [("--target", '{"kind": "cuda", "compiler": "cutlass"}')],
            MODEL,
            "the tvmc of TVM 0.19 has no 'cutlass' codegen",
        ),
        ([("--pass-config", "tirx.enable_fast_math=1")], MODEL, "TVM 0.19 has no PassContext config"),
        ([("--set", 'build.dump-code=["relax"]')], MODEL, "'relax' code exists only in TVM >= 0.25"),
        ([("--set", 'disabled-pass=["relax.FuseOps"]')], MODEL, "TVM 0.19 registers no Relay pass 'relax.FuseOps'"),
        ([("--set", 'tvm-version=">=0.25"')], MODEL, "excludes TVM 0.18 and 0.19"),
        ([], model_spec("m.pt2", None, None), "cannot read torch.export programs"),
    ],
)
def test_refused_with_modern_as_the_way_out(flags: list[tuple[str, str]], model: Any, expected: str) -> None:
    with pytest.raises(BuildError) as err:
        emit([], flags, model)
    assert expected in str(err.value) and "--emit python" in str(err.value)


def test_pytorch_needs_shapes_and_leading_dash_paths() -> None:
    with pytest.raises(BuildError, match="needs --input-shapes for PyTorch"):
        emit([], [], model_spec("m.pth", None, None))
    text, _ = emit([], [], model_spec("-m.onnx", None, None))
    assert shlex.split(text)[-1] == "./-m.onnx"
