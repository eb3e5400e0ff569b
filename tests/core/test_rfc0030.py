"""RFC 0030's merge rules and worked examples (TVM RFC 0030 and config_options.py at v0.19.0), and old tvmc's bugs."""

from __future__ import annotations

from pathlib import Path

import pytest
from tvmc import api


@pytest.fixture
def board(cfgdir: Path) -> str:
    (cfgdir / "boards").mkdir()
    (cfgdir / "boards" / "m55.toml").write_text(
        'targets = [{ kind = "c", mcpu = "cortex-m55" }]\n'
        '[executor]\nkind = "aot"\nunpacked-api = true\ninterface-api = "c"\n'
        '[runtime]\nkind = "crt"\nsystem-lib = true\n'
        '[pass-config]\n"tir.disable_vectorize" = true\n'
        '[build]\noutput-format = "mlf"\n'
    )
    return "boards/m55"


def test_rule1_config_targets_replace_the_defaults(board: str) -> None:
    assert [t["kind"] for t in api.resolve([board]).config.targets] == ["c"]


def test_rule2_cli_target_replaces_all_config_targets(board: str) -> None:
    # Old tvmc failed here with "Passed --target-c-mcpu but did not specify c target".
    config = api.resolve([board], [("--target", "llvm")]).config
    assert [t["kind"] for t in config.targets] == ["llvm"] and "mcpu" not in config.targets[0]


def test_rule3_attribute_flag_patches_the_matching_config_target(board: str) -> None:
    config = api.resolve([board], [("--target-c-mcpu", "cortex-m7")]).config
    assert config.targets[0]["mcpu"] == "cortex-m7"
    assert config.targets[0]["feature.has_mve"] is False  # recomputed for the new CPU


def test_rule4_sub_key_overrides_in_full_no_mattr_append(cfgdir: Path) -> None:
    (cfgdir / "neon.toml").write_text(
        'targets = [{ kind = "llvm", mtriple = "aarch64-linux-gnu", mattr = ["+neon"] }]\n'
    )
    config = api.resolve(["neon"], [("--target-llvm-mattr", "+dotprod")]).config
    assert config.targets[0]["mattr"] == ("+dotprod",)
    appended = api.resolve(["neon"], [("--set", "targets[kind=llvm].mattr+=+dotprod")]).config
    assert appended.targets[0]["mattr"] == ("+neon", "+dotprod")  # only when asked for explicitly


def test_executor_change_drops_options_of_the_old_kind(board: str) -> None:
    # Old tvmc: "Passed --executor-aot-... but did not specify aot executor".
    config = api.resolve([board], [("--executor", "graph")]).config
    assert config.executor == {"kind": "graph", "link-params": False}


def test_config_and_flags_combine(board: str) -> None:
    # RFC 0030: `--config=corstone-300 --executor-aot-unpacked-api=0`.
    config = api.resolve([board], [("--executor-aot-unpacked-api", "0"), ("--executor-aot-interface-api", "packed")])
    assert config.config.executor is not None and config.config.executor["unpacked-api"] is False
    assert str(config.origin("/executor/unpacked-api")) == "--executor-aot-unpacked-api=0"
    assert config.origin("/executor/kind").location().source.endswith("m55.toml")


def test_system_lib_does_not_leak_from_a_base_with_another_runtime_kind(board: str, cfgdir: Path) -> None:
    (cfgdir / "cpp.toml").write_text(f'extends = ["{board}"]\n[runtime]\nkind = "cpp"\n')
    assert api.resolve(["cpp"]).config.runtime == {"kind": "cpp", "system-lib": False}


def test_pass_config_flags_set_keys_not_append_lists(board: str) -> None:
    config = api.resolve(
        [board], [("--pass-config", "tir.disable_vectorize=false"), ("--pass-config", "tir.enable_debug=1")]
    ).config
    assert config.pass_config["tirx.disable_vectorize"] is False
    assert set(config.pass_config) == {"tirx.disable_vectorize", "tirx.enable_debug"}


def test_defaults_live_in_tvmc_not_in_a_stacked_default_file(board: str) -> None:
    # RFC 0030 warns against stacking on default.json: with --config the base is not applied.
    resolved = api.resolve([board])
    assert resolved.config.opt_level == 3 and str(resolved.origin("/opt-level")) == "default"
    assert all("host/default" not in str(o) for o in resolved.origins.values())
