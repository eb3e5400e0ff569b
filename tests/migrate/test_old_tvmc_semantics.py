"""Old tvmc's input semantics (TVM 0.18/0.19), each a regression test; cases marked `old:` restate
a test of old tvmc's own suite (tests/python/driver/tvmc/ at v0.19.0) for what tvmc reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tvmc import api, registry
from tvmc.errors import TargetError, TvmcError
from tvmc.migrate import migrate
from tvmc.targets import parse_targets

OLD = Path(__file__).parent / "old_tvmc"


def dropped(result: Any) -> dict[str, str]:
    return {d.what: d.reason for d in result.dropped}


# ---- --target: tokenizer, quotes, duplicates (old: test_target.py) ---------------------------------


def test_double_quoted_values_are_quoted_like_single_quoted_ones() -> None:
    # old: test_parse_quotes_and_separators_on_options
    for quoted in ("'+v8.2a,+neon'", '"+v8.2a,+neon"'):  # real features: the unknown-cpu rule
        shown = api.resolve([], [("--target", f"llvm -mattr={quoted}")]).config.targets[0]
        assert shown["mattr"] == ("+v8.2a", "+neon")
        assert migrate(f"tvmc compile --target 'llvm -mattr={quoted}' m.onnx").config["targets"] == [
            {"kind": "llvm", "mattr": ["+v8.2a", "+neon"]}
        ]
    # old: test_tokenize_target_with_commas_and_double_quotes
    parsed = parse_targets('compute-library -opt1="v, a, l, u, e", llvm')
    assert parsed.targets[0]["opt1"] == "v, a, l, u, e" and parsed.targets[1]["kind"] == "llvm"


def test_duplicate_kinds_are_refused() -> None:
    # old: test_target_from_cli__error_duplicate
    with pytest.raises(TargetError, match="Duplicate target definitions are not allowed"):
        api.resolve([], [("--target", "llvm, llvm")])
    with pytest.raises(TvmcError, match="Duplicate target definitions"):
        migrate("tvmc compile --target 'llvm, llvm' m.onnx")


def test_more_than_two_tvm_targets_and_unknown_kinds_are_refused() -> None:
    # old: test_target_invalid_more_than_two_tvm_targets, test_target_from_cli__error_target_not_found
    with pytest.raises(TargetError, match="too many TVM targets"):
        parse_targets("cuda, opencl, llvm")
    with pytest.raises(TargetError):
        parse_targets("invalidtarget")


def test_two_tvm_targets_and_codegens() -> None:
    # old: test_target_two_tvm_targets, test_parse_multiple_target, test_parse_single_target_with_opts
    parsed = parse_targets("opencl -device=mali, llvm -mtriple=aarch64-linux-gnu")
    assert parsed.targets[0]["kind"] == "opencl" and parsed.host == {"kind": "llvm", "mtriple": "aarch64-linux-gnu"}
    parsed = parse_targets("compute-library, llvm -device=arm_cpu")
    assert [t["kind"] for t in parsed.targets] == ["compute-library", "llvm"]
    single = parse_targets("llvm -device=arm_cpu -mattr=+fp").targets[0]
    assert single["device"] == "arm_cpu" and single["mattr"] == ["+fp"]


def test_target_options_and_recombobulation() -> None:
    # old: test_target_options.py test_target_recombobulation_single/_many/_codegen, test_error_if_target_missing
    config = migrate("tvmc compile --target llvm --target-llvm-mcpu=cortex-m3 m.onnx").config
    assert config["targets"] == [{"kind": "llvm", "mcpu": "cortex-m3"}]
    many = migrate(
        "tvmc compile --target 'opencl -device=mali, llvm -mtriple=aarch64-linux-gnu' "
        "--target-llvm-mcpu=cortex-a72 --target-opencl-max_num_threads=404 m.onnx"
    ).config
    assert many["targets"] == [{"kind": "opencl", "device": "mali", "max_num_threads": 404}]
    assert many["host"] == {"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mcpu": "cortex-a72"}
    # Old tvmc passed a CPU LLVM does not know for the triple on to LLVM; a migrated config that
    # `config validate` would reject is refused (issue 26, row 10: migrate exit 0 => it validates).
    refused = r"host.mcpu: mcpu 'cortex-m3' .*; the migrated config would not be valid"
    with pytest.raises(TvmcError, match=refused) as bad:
        migrate("tvmc compile --target 'opencl, llvm -mtriple=aarch64-linux-gnu' --target-llvm-mcpu=cortex-m3 m")
    assert bad.value.rule == "unknown-cpu"
    codegen = migrate("tvmc compile --target 'cmsis-nn, c -mcpu=cortex-m55' --target-cmsis-nn-mcpu=cortex-m55 m").config
    assert codegen["targets"] == [{"kind": "cmsis-nn", "mcpu": "cortex-m55"}, {"kind": "c", "mcpu": "cortex-m55"}]
    missing = migrate("tvmc compile --target llvm --target-opencl-max_num_threads=404 m.onnx")
    assert "Passed --target-opencl-max_num_threads but did not specify opencl target" in str(missing.dropped)


def test_codegen_options_of_every_release_are_known() -> None:
    # old: test_target_to_argparse_for_mrvl_hybrid, test_composite_target_cmd_line_help (vitis-ai)
    result = migrate(
        "tvmc compile --target 'mrvl, llvm' --target-mrvl-mattr=wb_pin_ocm=1,quantize=fp16 "
        "--target-mrvl-num_tiles=2 --target-mrvl-mcpu=cnf10kb m.onnx"
    )
    assert result.config["targets"][0] == {
        "kind": "mrvl",
        "mattr": "wb_pin_ocm=1,quantize=fp16",
        "num_tiles": 2,
        "mcpu": "cnf10kb",
    }
    assert not [d for d in result.dropped if "mrvl" in d.what]
    vitis = registry.kind("vitis-ai")
    assert vitis is not None
    for option in ("dpu", "build_dir", "work_dir", "export_runtime_module", "load_runtime_module"):
        assert option in vitis.options
    for version in registry.generation_versions():
        for codegen, options in registry.generation(version).codegens.items():
            kind = registry.kind(codegen)
            assert kind is not None and set(options) <= set(kind.options), (version, codegen)


def test_from_device_is_not_carried() -> None:
    for line in ("--target 'cmsis-nn, c' --target-cmsis-nn-from_device=1", "--target 'cmsis-nn -from_device=1, c'"):
        result = migrate(f"tvmc compile {line} m.onnx")
        assert result.config["targets"] == [{"kind": "cmsis-nn"}, {"kind": "c"}]
        assert any("from_device" in d.what and "never stored in a target" in d.reason for d in result.dropped)


# ---- --pass-config (old: test_pass_config.py) ---------------------------------------------------


def test_add_lower_pass_accumulates_pairs() -> None:
    # old: test_add_lower_pass_multi_built_in_pass
    result = migrate(
        "tvmc compile --target llvm --pass-config tir.add_lower_pass=1,tir.transform.UnrollLoop "
        "--pass-config tir.add_lower_pass=1,tir.transform.HoistIfThenElse,2,tir.transform.LoopPartition m.onnx"
    )
    assert result.config["pass-config"] == {
        "tirx.add_lower_pass": [
            [1, "tir.transform.UnrollLoop"],
            [1, "tir.transform.HoistIfThenElse"],
            [2, "tir.transform.LoopPartition"],
        ]
    }
    assert not any("overridden" in n for n in result.notes)


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1,a,2", "must be of the form"), ("x,a", "is not an integer")],
)
def test_malformed_add_lower_pass_is_refused(value: str, expected: str) -> None:
    with pytest.raises(TvmcError, match=expected):
        migrate(f"tvmc compile --target llvm --pass-config tir.add_lower_pass={value} m.onnx")


@pytest.mark.parametrize(
    "item",
    [
        "relay.backend.use_auto_scheduler.missing.value",  # old: test_config_invalid_format
        "relay.backend.use_auto_scheduler.missing.value=1234",  # old: test_config_missing_from_tvm
        "",  # old: test_config_empty
        "tir.LoopPartition=value",  # old: test_config_unsupported_tvmc_config
    ],
)
def test_bad_pass_configs_are_refused(item: str) -> None:
    with pytest.raises(TvmcError):
        migrate(f"tvmc compile --target llvm --pass-config '{item}' m.onnx")


def test_valid_pass_configs() -> None:
    # old: test_config_valid_config_bool, test_config_valid_multiple_configs
    config = migrate(
        "tvmc compile --target llvm --pass-config relay.backend.use_auto_scheduler=false "
        "--pass-config tir.detect_global_barrier=10 m.onnx"
    ).config
    assert config["pass-config"]["relay.backend.use_auto_scheduler"] is False
    assert config["pass-config"][registry.modern_pass_config("tir.detect_global_barrier")] == 10


# ---- --disabled-pass (old: test_pass_list.py) -----------------------------------------------------


def test_unknown_disabled_pass_is_noted_with_the_known_passes() -> None:
    result = migrate("tvmc compile --target llvm --disabled-pass=MyYobaPass,MySuperYobaPass,FuseOps m.onnx")
    note = next(n for n in result.notes if "not a Relay pass" in n)
    assert "'MyYobaPass', 'MySuperYobaPass' are not a Relay pass" in note and "FuseOps" in note
    assert result.config["disabled-pass"] == ["MyYobaPass", "MySuperYobaPass", "FuseOps"]
    fine = migrate("tvmc compile --target llvm --disabled-pass=FoldScaleAxis,FuseOps m.onnx")
    assert not any("not a Relay pass" in n for n in fine.notes)


# ---- argparse ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--desired-layout-ops nn.conv2d", "--desired-layout NHWC", "--mixed-precision-ops a"])
def test_a_multi_value_flag_that_swallows_the_model_is_refused(flag: str) -> None:
    with pytest.raises(TvmcError, match="required: FILE"):
        migrate(f"tvmc compile --target llvm {flag} m.onnx")
    fine = migrate(f"tvmc compile --target llvm m.onnx {flag}")
    assert "m.onnx" in dropped(fine)


def test_link_params_zero_was_true() -> None:
    result = migrate("tvmc compile --target llvm --executor graph --executor-graph-link-params=0 m.onnx")
    assert result.config["executor"] == {"kind": "graph", "link-params": True}
    assert any("read this as true" in n for n in result.notes)


# ---- --config NAME and old JSON configs ------------------------------------------------------------


def test_old_json_config_given_to_config_says_migrate(tmp_path: Path) -> None:
    old = tmp_path / "board.json"
    old.write_text((OLD / "compile_config_test.json").read_text(), encoding="utf-8")
    with pytest.raises(TvmcError) as err:
        api.resolve([str(old)], [])
    assert err.value.hint is not None and f"tvmc config migrate {old}" in err.value.hint


def test_json_config_cases_of_old_tvmc(tmp_path: Path) -> None:
    # old: test_parse_config_file.py test_parse_json_config_file_target_and_executor / _runtime
    first = tmp_path / "a.json"
    first.write_text(
        '{"targets": [{"kind": "ethos-u -accelerator_config=ethos-u55-256"}, {"kind": "c", "mcpu": "cortex-m55"},'
        ' {"kind": "cmsis-nn"}], "executor": {"kind": "aot", "interface-api": "c", "unpacked-api": "1"},'
        ' "inputs": "imagenet_cat.npz", "max-local-memory-per-block": "4", "repeat": "100"}',
        encoding="utf-8",
    )
    result = migrate(first)
    assert result.config["targets"] == [
        {"kind": "ethos-u", "accelerator_config": "ethos-u55-256"},
        {"kind": "c", "mcpu": "cortex-m55"},
        {"kind": "cmsis-nn"},
    ]
    assert result.config["executor"] == {"kind": "aot", "interface-api": "c", "unpacked-api": True}
    assert {d.what.split(" =")[0] for d in result.dropped} == {"inputs", "max-local-memory-per-block", "repeat"}
    second = tmp_path / "b.json"
    second.write_text(
        '{"targets": [{"kind": "cmsis-nn", "from_device": "1"}, {"kind": "c", "mcpu": "cortex-m55"}],'
        ' "runtime": {"kind": "crt", "system-lib": "0"}, "output": "predictions.npz",'
        ' "pass-config": {"tir.disable_vectorize": "1", "relay.backend.use_auto_scheduler": "0"}}',
        encoding="utf-8",
    )
    result = migrate(second)
    assert result.config["targets"] == [{"kind": "cmsis-nn"}, {"kind": "c", "mcpu": "cortex-m55"}]
    # argparse passes a string default through type=bool as well: "0" was true
    assert result.config["runtime"] == {"kind": "crt", "system-lib": True}
    assert result.config["pass-config"] == {"tir.disable_vectorize": True, "relay.backend.use_auto_scheduler": 0}


def test_tvm_configs_json_dir_naming_no_directory_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    # old: test_tvmc_get_configs_json_dir
    monkeypatch.setenv("TVM_CONFIGS_JSON_DIR", "not_a_directory")
    with pytest.raises(TvmcError, match="TVM's configs/ directory"):
        migrate("tvmc compile --config nowhere m.onnx")


def test_tags_of_the_old_releases() -> None:
    # src/target/tag.cc at v0.19.0: 254 tags, all still registered by TVM 0.27 (some with other values)
    old = registry.generation("0.19").tags
    assert len(old) == 254 and set(old) <= set(registry.tag_names())
    assert old["nvidia/jetson-nano"] == {
        "kind": "cuda",
        "keys": ["cuda", "gpu"],
        "arch": "sm_53",
        "max_shared_memory_per_block": 49152,
        "max_threads_per_block": 1024,
        "thread_warp_size": 32,
        "registers_per_block": 32768,
    }
    changed = migrate("tvmc compile --target nvidia/nvidia-a100 m.onnx")
    assert changed.config["targets"] == ["nvidia/nvidia-a100"]
    assert any(
        "TVM 0.19 registered this tag differently (l2_cache_size_bytes: unset → 41943040)" in n for n in changed.notes
    )
    same = migrate("tvmc compile --target nvidia/jetson-nano m.onnx")
    assert not any("registered this tag differently" in n for n in same.notes)
