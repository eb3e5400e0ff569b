"""`tvmc.migrate`: old tvmc's shipped configs, their quirks, and command lines from its docs."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from tvmc import api
from tvmc.errors import ConfigNotFoundError, TvmcError
from tvmc.migrate import MigrationResult, migrate
from tvmc.validate import runner

OLD = Path(__file__).resolve().parent / "old_tvmc"


def resolved(result: MigrationResult, tmp_path: Path) -> dict[str, Any]:
    """The migrated TOML, written to a file and resolved like any config."""
    path = tmp_path / "migrated.toml"
    path.write_text(result.toml_text, encoding="utf-8")
    return api.resolve([str(path)]).to_dict()


def meaning(config: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in config.items() if k != "description"}


def dropped(result: MigrationResult) -> dict[str, str]:
    return {d.what: d.reason for d in result.dropped}


# ---- old tvmc's shipped config files (python/tvm/driver/tvmc/configs/ at v0.19.0) -----------------------


def test_shipped_default_json_is_tvmcs_default(tmp_path: Path) -> None:
    result = migrate(OLD / "default.json")
    assert result.config["targets"] == [{"kind": "llvm"}]
    assert result.dropped == ()
    migrated = api.resolve([str(_write(tmp_path, result))])
    assert migrated.fingerprint() == api.resolve(["host/default"]).fingerprint()


def _write(tmp_path: Path, result: MigrationResult) -> Path:
    path = tmp_path / "out.toml"
    path.write_text(result.toml_text, encoding="utf-8")
    return path


def test_shipped_compile_config_test(tmp_path: Path) -> None:
    result = migrate(OLD / "compile_config_test.json")
    assert result.config == {
        "description": "Migrated from the old tvmc config " + str(OLD / "compile_config_test.json"),
        "tvm-version": "<=0.18",  # cmsis-nn was last in 0.18
        "targets": [{"kind": "cmsis-nn"}, {"kind": "c", "mcpu": "cortex-m55"}],
        "executor": {"kind": "aot"},
        "runtime": {"kind": "crt"},
        "pass-config": {"tir.disable_vectorize": True},  # "1" was a boolean
    }
    (item,) = result.dropped
    assert item.what == 'targets[0].from_device = "1"' and "from_device" in item.reason
    assert item.where.endswith("compile_config_test.json:3:30")
    config = resolved(result, tmp_path)
    assert [t["kind"] for t in config["targets"]] == ["cmsis-nn", "c"]
    assert config["executor"]["kind"] == "aot" and config["runtime"]["kind"] == "crt"
    # The same settings as old tvmc's command line flags mean the same config.
    flags = migrate(
        "tvmc compile --target 'cmsis-nn, c' --target-c-mcpu=cortex-m55 --executor=aot "
        "--runtime=crt --pass-config tir.disable_vectorize=1 model.tflite"
    )
    assert meaning(resolved(flags, tmp_path)) == meaning(config)


def test_shipped_tune_config_test(tmp_path: Path) -> None:
    result = migrate(OLD / "tune_config_test.json")
    assert result.config["targets"] == [{"kind": "llvm"}]
    (item,) = result.dropped
    assert item.what == 'trials = "2"' and "tvmc tune" in item.reason
    assert item.where.endswith("tune_config_test.json:5:5")
    assert resolved(result, tmp_path)["targets"][0]["kind"] == "llvm"


def test_every_output_is_documented_toml_listing_what_was_dropped() -> None:
    for name in ("default.json", "compile_config_test.json", "tune_config_test.json", "micro_tvmc.sh", "run_demo.sh"):
        result = migrate(OLD / name)
        lines = result.toml_text.splitlines()
        assert lines[0].startswith("#:schema ") and lines[0].endswith("compilation-config.schema.json")
        assert tomllib.loads(result.toml_text) == result.config
        for item in result.dropped:
            assert f"#   - {item}" in lines


@pytest.mark.parametrize("name", ["compile_config_test.json", "micro_tvmc.sh", "run_demo.sh"])
def test_outputs_validate_strictly(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, migrate(OLD / name))
    result = runner.Validator(runner.Settings(strict=True)).file(str(path))
    assert [(d.rule, d.full_message) for d in result.diagnostics] == []


# ---- the quirks of old config files (config_options.py at v0.19.0) --------------------------------------------------


def test_quirks_of_old_json_configs(tmp_path: Path) -> None:
    old = tmp_path / "quirks.json"
    old.write_text(
        """{
  "targets": [
    {"kind": "ethos-u -accelerator_config=ethos-u55-256", "enable_cascader": "1"},
    {"kind": "c", "mcpu": "cortex-m55", "workspace_byte_alignment": "8"}
  ],
  "executor": {"unpacked_api": "1", "kind": "aot", "interface_api": "c"},
  "runtime": {"kind": "crt", "system_lib": "0"},
  "pass_config": {"tir.usmp.enable": "1"},
  "output_format": "mlf",
  "opt_level": "2",
  "trials": "2",
  "early_stopping": 10,
  "colour": "blue"
}""",
        encoding="utf-8",
    )
    result = migrate(old)
    assert result.config["targets"] == [
        {"kind": "ethos-u", "accelerator_config": "ethos-u55-256", "enable_cascader": True},
        {"kind": "c", "mcpu": "cortex-m55", "workspace-byte-alignment": 8},
    ]
    assert result.config["executor"] == {"kind": "aot", "unpacked-api": True, "interface-api": "c"}
    # argparse passes a string default (set_defaults from the JSON) through type=bool: "0" was true
    assert result.config["runtime"] == {"kind": "crt", "system-lib": True}
    assert any('system_lib = "0"' in n and "read this as true" in n for n in result.notes)
    assert result.config["pass-config"] == {"tir.usmp.enable": 1}
    assert result.config["opt-level"] == 2 and result.config["build"] == {"output-format": "mlf"}
    reasons = dropped(result)
    assert set(reasons) == {'trials = "2"', "early_stopping = 10", 'colour = "blue"'}
    assert "tvmc tune" in reasons["early_stopping = 10"] and "unknown key" in reasons['colour = "blue"']
    assert any("old tvmc used only the first attribute" in n for n in result.notes)
    assert any("silently ignored" in n and "ethos-u" in n for n in result.notes)
    assert resolved(result, tmp_path)["executor"]["interface-api"] == "c"


def test_a_command_line_overrides_its_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TVM_CONFIGS_JSON_DIR", raising=False)
    (tmp_path / "board.json").write_text((OLD / "compile_config_test.json").read_text(), encoding="utf-8")
    result = migrate(
        "tvmc --config board compile --target-c-mcpu=cortex-m7 --pass-config tir.disable_vectorize=0 m.tflite"
    )
    assert result.config["targets"] == [{"kind": "cmsis-nn"}, {"kind": "c", "mcpu": "cortex-m7"}]
    assert result.config["pass-config"] == {"tir.disable_vectorize": False}
    assert any("is overridden by --target-c-mcpu=cortex-m7" in n for n in result.notes)
    assert tmp_path / "board.json" in result.inputs
    # A --target on the command line replaces the file's targets; options of kinds now absent go.
    replaced = migrate("tvmc compile --config board.json --target llvm m.tflite")
    assert replaced.config["targets"] == [{"kind": "llvm"}]
    assert "there is no c target" in dropped(replaced)['targets[1].mcpu = "cortex-m55"']
    twice = migrate("tvmc --config other --config board compile m.tflite")  # argparse kept the last one
    assert "a later --config replaces it" in dropped(twice)["--config other"]
    assert twice.config["executor"] == {"kind": "aot"}
    with pytest.raises(TvmcError, match=r"File corstone-300.json does not exist .* TVM's configs/ directory"):
        migrate("tvmc compile --config corstone-300 m.tflite")  # found nowhere: old tvmc stopped


def test_config_name_is_searched_in_tvm_configs_json_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # config_options.py (v0.19.0): the working directory first, then $TVM_CONFIGS_JSON_DIR recursively.
    monkeypatch.chdir(tmp_path)
    deep = tmp_path / "dir" / "boards" / "m"
    deep.mkdir(parents=True)
    (deep / "board.json").write_text((OLD / "compile_config_test.json").read_text(), encoding="utf-8")
    monkeypatch.setenv("TVM_CONFIGS_JSON_DIR", str(tmp_path / "dir"))
    found = migrate("tvmc compile --config board m.tflite")
    assert found.config["targets"][0] == {"kind": "cmsis-nn"} and deep / "board.json" in found.inputs
    with pytest.raises(TvmcError, match=r"board2.json does not exist .*\$TVM_CONFIGS_JSON_DIR"):
        migrate("tvmc compile --config board2 m.tflite")


# ---- command lines from old tvmc's documentation (docs of tvmc at v0.19.0) ------------------------------------


def test_tutorial_compile_command() -> None:
    result = migrate(
        'tvmc compile --target "llvm" --input-shapes "data:[1,3,224,224]" '
        "--output resnet50-v2-7-tvm.tar resnet50-v2-7.onnx"
    )
    assert result.config["targets"] == [{"kind": "llvm"}]
    assert "tvm-version" not in result.config and "executor" not in result.config
    assert set(dropped(result)) == {
        "--input-shapes 'data:[1,3,224,224]'",
        "--output resnet50-v2-7-tvm.tar",
        "resnet50-v2-7.onnx",
    }
    tuned = migrate(
        'tvmc compile --target "llvm -mcpu=cascadelake" --tuning-records records.json '
        "--output out.tar resnet50-v2-7.onnx"
    )
    assert tuned.config["targets"] == [{"kind": "llvm", "mcpu": "cascadelake"}]
    assert tuned.config["build"] == {"tuning-records": "records.json"}


def test_microtvm_tutorial_script(tmp_path: Path) -> None:
    result = migrate(OLD / "micro_tvmc.sh")
    assert result.config["targets"] == [{"kind": "c", "keys": ["cpu"], "model": "host"}]
    # `--executor-graph-link-params 0`: argparse type=bool in the tvmc of TVM 0.18/0.19, so true.
    assert result.config["executor"] == {"kind": "graph", "link-params": True}
    assert any("--executor-graph-link-params 0: the tvmc of TVM 0.18/0.19 read this as true" in n for n in result.notes)
    assert result.config["runtime"] == {"kind": "crt", "system-lib": True}
    assert result.config["disabled-pass"] == ["AlterOpLayout"]
    assert result.config["build"] == {"output-format": "mlf"} and result.config["tvm-version"] == "<=0.18"
    assert {d.where for d in result.dropped} == {f"{OLD / 'micro_tvmc.sh'}:8"}
    assert resolved(result, tmp_path)["targets"][0]["keys"] == ["cpu"]


def test_ethos_u_demo_is_the_corstone_300_config(tmp_path: Path) -> None:
    result = migrate(OLD / "run_demo.sh")  # `python3 -m tvm.driver.tvmc compile ...`
    assert set(dropped(result)) == {"./mobilenet_v2_1.0_224_INT8.tflite"}
    ours, catalogue = resolved(result, tmp_path), api.resolve(["boards/corstone-300"]).to_dict()
    # The demo passes tir.usmp.enable=1 to an IntImm config; the catalogue writes the boolean.
    assert ours["pass-config"].pop("tir.usmp.enable") == 1
    assert catalogue["pass-config"].pop("tir.usmp.enable") is True
    assert meaning(ours) == meaning(catalogue)


@pytest.mark.parametrize(
    ("old", "targets", "host"),
    [
        (
            "opencl -device=mali, llvm -mtriple=aarch64-linux-gnu",
            [{"kind": "opencl", "device": "mali"}],
            {"kind": "llvm", "mtriple": "aarch64-linux-gnu"},
        ),
        ("ethos-n, cmsis-nn, c", [{"kind": "ethos-n"}, {"kind": "cmsis-nn"}, {"kind": "c"}], None),
        ("llvm -mattr=+neon,+dotprod", [{"kind": "llvm", "mattr": ["+neon", "+dotprod"]}], None),
        ("nvidia/jetson-nano", ["nvidia/jetson-nano"], None),
        ('{"kind": "cuda", "arch": "sm_80"}', [{"kind": "cuda", "arch": "sm_80"}], None),
        (
            "tvmc compile --target 'opencl, llvm' --target-llvm-mtriple=aarch64-linux-gnu m.onnx",
            [{"kind": "opencl"}],
            {"kind": "llvm", "mtriple": "aarch64-linux-gnu"},
        ),
    ],
)
def test_target_forms(old: str, targets: list[Any], host: dict[str, Any] | None, tmp_path: Path) -> None:
    result = migrate(old)
    assert result.config["targets"] == targets and result.config.get("host") == host
    resolved(result, tmp_path)


def test_generated_target_flag_gives_the_keys_tvm_derives(tmp_path: Path) -> None:
    # Old tvmc's target.py: llvm plus --target-llvm-mcpu=cortex-m3 is "llvm -keys=arm_cpu,cpu -mcpu=cortex-m3".
    result = migrate("tvmc compile --target=llvm --target-llvm-mcpu=cortex-m3 m.tflite")
    assert resolved(result, tmp_path)["targets"][0]["keys"] == ["arm_cpu", "cpu"]


def test_old_only_flags() -> None:
    result = migrate(
        "tvmc compile --target llvm -O2 --desired-layout NHWC NCHW "
        "--desired-layout-ops nn.conv2d --mixed-precision --mixed-precision-acc-type float32 "
        "--cross-compiler aarch64-linux-gnu-gcc "
        "--cross-compiler-options '-O2 -mfpu=neon' --module-name net --dump-code asm,relay "
        "--workspace-pools sram --print-pass-times -f so m.onnx"
    )
    assert result.config["opt-level"] == 2
    assert result.config["build"] == {
        "desired-layout": ["NHWC", "NCHW"],
        "desired-layout-ops": ["nn.conv2d"],
        "mixed-precision": True,
        "mixed-precision-acc-type": "float32",
        "cross-compiler": "aarch64-linux-gnu-gcc",
        "cross-compiler-options": ["-O2", "-mfpu=neon"],
        "module-name": "net",
        "dump-code": ["asm"],
        "output-format": "so",
    }
    reasons = dropped(result)
    assert "Relay" in reasons["--dump-code asm,relay (relay)"]
    assert "workspace pools" in reasons["--workspace-pools sram"]
    assert "diagnostic" in reasons["--print-pass-times"]


def test_executor_options_need_their_executor() -> None:
    result = migrate("tvmc compile --target llvm --executor-aot-unpacked-api=1 --executor-graph-link-params=1 m.onnx")
    assert result.config["executor"] == {"kind": "graph", "link-params": True}
    assert "'graph', not 'aot'" in dropped(result)["--executor-aot-unpacked-api=1"]
    assert any("default executor was 'graph'" in n for n in result.notes)


def test_tune_command_keeps_its_target() -> None:
    result = migrate("tvmc tune --target 'llvm -mcpu=skylake' --trials 100 --enable-autoscheduler -o rec.json m.onnx")
    assert result.config["targets"] == [{"kind": "llvm", "mcpu": "skylake"}]
    assert {"--trials 100", "--enable-autoscheduler", "-o rec.json", "m.onnx"} == set(dropped(result))


def test_modern_config_renames_tir_pass_configs() -> None:
    result = migrate("tvmc compile --target llvm --pass-config tir.disable_vectorize=1 m.onnx")
    assert result.config["pass-config"] == {"tirx.disable_vectorize": True}


def test_last_target_wins_as_in_old_tvmc() -> None:
    result = migrate("tvmc compile --target 'llvm -mcpu=x' --target cuda m.onnx")
    assert result.config["targets"] == [{"kind": "cuda"}]
    assert any("overridden by --target cuda" in n for n in result.notes)


# ---- what OLD is --------------------------------------------------------------------------------


def test_detection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cmd.txt").write_text("$ tvmc compile --target=llvm m.onnx\n", encoding="utf-8")
    assert migrate("cmd.txt").dropped[0].where == "cmd.txt:1"
    target = migrate(" llvm -mcpu=skylake ")
    assert target.config["targets"] == [{"kind": "llvm", "mcpu": "skylake"}]
    (tmp_path / "llvm").write_text("not a target", encoding="utf-8")  # a kind name wins over a file
    llvm = migrate("llvm")
    assert llvm.config["targets"] == [{"kind": "llvm"}] and llvm.inputs == ()
    flags = migrate("--target=llvm --executor aot")
    assert flags.config["executor"] == {"kind": "aot"}
    stdin = migrate("-", stdin_text='{"targets": [{"kind": "c"}]}')
    assert stdin.config["targets"] == [{"kind": "c"}]


@pytest.mark.parametrize(
    ("old", "error", "needle"),
    [
        ("", TvmcError, "empty"),
        ("missing.json", ConfigNotFoundError, "no such file"),
        ("tvmc run --device cpu m.tar", TvmcError, "`tvmc run` holds no compilation config"),
        ("tvmc compile --target llvm a.onnx\ntvmc compile --target cuda b.onnx", TvmcError, "2 `tvmc compile`"),
        ("tvmc compile --target 'llvm -mcpu=x m.onnx", TvmcError, "cannot split"),
        ("tvmc compile --target 'llvm -nope=1' m.onnx", TvmcError, "nope"),
        ('{"targets": [', TvmcError, "invalid JSON"),
    ],
)
def test_bad_input(
    old: str, error: type[Exception], needle: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(error, match=needle.replace("(", r"\(")) as info:
        migrate(old)
    assert info.value.__class__.__name__ != "UsageError"  # bad input is exit 1, not a usage error


def test_a_target_strings_options_migrate_whatever_their_order(tmp_path: Path) -> None:
    # `-system-lib` before `-runtime=c` was lost: the migrated config had a crt runtime without it.
    for text in ("llvm -system-lib -runtime=c", "tvmc compile --target 'llvm -system-lib -runtime=c' m.onnx"):
        result = migrate(text)
        assert result.config["runtime"] == {"kind": "crt", "system-lib": True}, text
        assert resolved(result, tmp_path)["runtime"] == {"kind": "crt", "system-lib": True}
