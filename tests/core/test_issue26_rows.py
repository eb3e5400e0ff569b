"""Issue 26's table of wrong results, each row a regression test with the right result.

Every row is tried as a user would: through the CLI (CliRunner) or the API, with files in a
temporary directory. Rows not here are listed in the lead's closing note with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from tvmc import api
from tvmc.cli.app import app
from tvmc.errors import TvmcError
from typer.testing import CliRunner

runner = CliRunner()

Write = Callable[[str, str], Path]


def tvmc(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


# ---- row 1: NAME:PART selects from the linearized layers, each file once ----------------------


def _diamond(write: Write) -> Path:
    write("common.toml", 'targets = ["llvm"]\nruntime = { kind = "cpp", system-lib = false }\n')
    write("syslib.toml", 'extends = ["common.toml"]\nruntime.system-lib = true\n')
    write("gpu.toml", 'extends = ["common.toml"]\ntargets = ["cuda", "llvm"]\nopt-level = 1\n')
    return write("mine.toml", 'extends = ["syslib.toml", "gpu.toml:cuda"]\n')


def test_row1_a_part_does_not_apply_its_shared_base_again(write: Write) -> None:
    mine = _diamond(write)
    resolved = api.resolve([str(mine)])
    assert resolved.config.runtime is not None and resolved.config.runtime["system-lib"] is True
    assert [t["kind"] for t in resolved.config.targets] == ["cuda"] and resolved.config.host["kind"] == "llvm"
    origin = str(resolved.origin("/runtime/system-lib"))
    assert "syslib.toml:2" in origin and "mine.toml extends syslib.toml" in origin
    e = api.explain([str(mine)], [], "runtime.system-lib")
    assert [s.value for s in e.steps] == [False, True]


def test_row1_a_part_on_the_command_line_keeps_an_earlier_configs_value(write: Write) -> None:
    toolchain = write("toolchain.toml", 'extends = ["base/aarch64-linux"]\n[build]\ncross-compiler = "my-gcc"\n')
    resolved = api.resolve([str(toolchain), "nvidia/jetson-nano:cuda"])
    assert resolved.config.build["cross-compiler"] == "my-gcc"
    assert "toolchain.toml:3" in str(resolved.origin("/build/cross-compiler"))
    assert [t["kind"] for t in resolved.config.targets] == ["cuda"] and resolved.config.host["mcpu"] == "cortex-a57"


# ---- row 2: an executor/runtime without kind in a legacy config -------------------------------


@pytest.mark.parametrize(
    "command", [["config", "show"], ["config", "get", "runtime"], ["config", "explain", "runtime"]]
)
def test_row2_a_legacy_runtime_without_kind_is_one_missing_key_error_not_a_traceback(
    write: Write, command: list[str]
) -> None:
    path = write("r.toml", 'tvm-version = "<=0.19"\ntargets = ["llvm"]\n[runtime]\nsystem-lib = true\n')
    code, out, err = tvmc(*command, "-c", str(path))
    assert code == 1
    assert "Traceback" not in out + err and "KeyError" not in out + err
    assert err.strip().splitlines()[-1] == f"tvmc: error: {path}:3:2: runtime: the runtime has no 'kind' (cpp, crt)"


def test_row2_validate_reports_missing_key_not_internal(write: Write) -> None:
    path = write("r.toml", 'tvm-version = "<=0.19"\ntargets = ["llvm"]\n[runtime]\nsystem-lib = true\n')
    code, out, _ = tvmc("config", "validate", str(path))
    assert code == 1
    assert "[missing-key]" in out and "[internal]" not in out


def test_row2_an_executor_option_set_by_a_flag_without_kind_is_refused_naming_the_flag(write: Write) -> None:
    path = write("r.toml", 'tvm-version = "<=0.19"\ntargets = ["llvm"]\n')
    code, _, err = tvmc("config", "show", "-c", str(path), "--set", "executor={link-params=true}")
    assert code == 1  # the rule engine refuses the config (missing-key), as in a file
    message = "executor: the executor has no 'kind' (graph, aot, vm)"
    assert err == f"tvmc: error: --set=executor={{link-params=true}}: {message}\n"


# ---- row 3: tir.X / tirx.X: later wins --------------------------------------------------------


def _tir_base(write: Write) -> Path:
    return write("base.toml", 'targets = ["llvm"]\n[pass-config]\n"tir.disable_vectorize" = true\n')


def test_row3_a_child_overrides_the_other_spelling_later_wins(write: Write) -> None:
    _tir_base(write)
    child = write("child.toml", 'extends = ["base.toml"]\n[pass-config]\n"tirx.disable_vectorize" = false\n')
    resolved = api.resolve([str(child)])
    assert dict(resolved.config.pass_config) == {"tirx.disable_vectorize": False}
    assert resolved.origin("/pass-config/tirx.disable_vectorize").location().source.endswith("child.toml")


def test_row3_a_flag_overrides_the_other_spelling(write: Write) -> None:
    base = _tir_base(write)
    flags = [("--pass-config", "tirx.disable_vectorize=false"), ("--set", 'pass-config."tirx.disable_vectorize"=0')]
    for flag in flags:
        resolved = api.resolve([str(base)], [flag])
        assert dict(resolved.config.pass_config) == {"tirx.disable_vectorize": False}, flag


def test_row3_unset_in_the_other_spelling_removes_it(write: Write) -> None:
    base = _tir_base(write)
    code, out, err = tvmc("config", "show", "-c", str(base), "--unset", 'pass-config."tirx.disable_vectorize"')
    assert code == 0, err
    assert "pass-config" not in out


def test_row3_a_nested_table_is_replaced_by_a_dotted_name_and_left_no_empty_table(write: Write) -> None:
    base = write("base.toml", 'targets = ["llvm"]\n[pass-config.tirx]\ndisable_vectorize = true\n')
    child = write("child.toml", 'extends = ["base.toml"]\n[pass-config]\n"tir.disable_vectorize" = false\n')
    assert dict(api.resolve([str(child)]).config.pass_config) == {"tirx.disable_vectorize": False}
    assert dict(api.resolve([str(base)], [("--unset", 'pass-config."tir.disable_vectorize"')]).config.pass_config) == {}


def test_row3_both_spellings_with_two_values_in_one_file_stay_an_error(write: Write) -> None:
    path = write(
        "both.toml",
        'targets = ["llvm"]\n[pass-config]\n"tir.disable_vectorize" = true\n"tirx.disable_vectorize" = false\n',
    )
    with pytest.raises(TvmcError, match="the same config as"):
        api.resolve([str(path)])


# ---- row 4: origins of a pass config written tir.X or as a nested table -----------------------


@pytest.mark.parametrize(
    "text",
    ['[pass-config]\n"tir.disable_vectorize" = true\n', "[pass-config.tirx]\ndisable_vectorize = true\n"],
    ids=["tir-spelling", "nested-table"],
)
def test_row4_origin_get_and_explain_name_the_file(write: Write, text: str) -> None:
    path = write("p.toml", 'targets = ["llvm"]\n' + text)
    where = f"{path}:3:1 (via --config {path})"
    key = 'pass-config."tirx.disable_vectorize"'
    code, out, _ = tvmc("config", "show", "-c", str(path), "--origin")
    assert code == 0 and f"{where}\t{key} = true" in out.splitlines()
    assert tvmc("config", "get", key, "-c", str(path), "--origin")[:2] == (0, f"{where}\ttrue\n")
    code, out, _ = tvmc("config", "explain", key, "-c", str(path))
    lines = out.splitlines()
    assert code == 0 and lines[-2].startswith(f"{where}\t") and lines[-1] == f"canonical\t{key} = true"


def test_row4_explain_follows_one_config_across_spellings(write: Write) -> None:
    _tir_base(write)
    child = write("child.toml", 'extends = ["base.toml"]\n[pass-config]\n"tirx.disable_vectorize" = false\n')
    e = api.explain([str(child)], [], 'pass-config."tirx.disable_vectorize"')
    assert [s.value for s in e.steps] == [True, False]
    assert e.final is not None and e.final.value is False


# ---- row 11: `validate FILE` judges a file with targets as show does --------------------------


@pytest.mark.parametrize(
    ("text", "section", "kinds"),
    [
        ('[executor]\nexec-mode = "compiled"\n', "executor", "graph, aot, vm"),
        ("[runtime]\nsystem-lib = true\n", "runtime", "cpp, crt"),
    ],
)
def test_row11_validate_file_agrees_with_show_in_one_message(write: Write, text: str, section: str, kinds: str) -> None:
    path = write("c.toml", 'targets = ["llvm"]\n' + text)
    message = f"{section}: the {section} has no 'kind' ({kinds})"
    code, out, _ = tvmc("config", "validate", str(path))
    assert code == 1 and f"{path}:2:2: error: {message} [missing-key]" in out
    code, out, _ = tvmc("config", "validate", "-c", str(path))
    assert code == 1 and f"error: {message} [missing-key]" in out
    code, _, err = tvmc("config", "show", "-c", str(path))
    assert code == 1 and err == f"tvmc: error: {path}:2:2: {message}\n"


def test_row11_a_mixin_without_targets_may_leave_the_kind_to_another_layer(write: Write) -> None:
    base = write("base.toml", 'targets = ["llvm"]\nexecutor = "vm"\n')
    mixin = write("mixin.toml", '[executor]\nexec-mode = "compiled"\n')
    assert tvmc("config", "validate", str(mixin))[0] == 0
    assert api.resolve([str(base), str(mixin)]).config.executor == {"kind": "vm", "exec-mode": "compiled"}


# ---- row 5: a relative tuning-records path is anchored at its file ---------------------------


def test_row5_relative_tuning_records_in_two_folders_are_two_meanings(tmp_path: Path) -> None:
    paths = []
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        path = tmp_path / folder / "c.toml"
        path.write_text('targets = ["llvm"]\n[build]\ntuning-records = "db"\n', encoding="utf-8")
        paths.append(path)
    a, b = (api.resolve([str(p)]) for p in paths)
    assert a.config.build["tuning-records"] == str(tmp_path / "a" / "db")
    assert a.fingerprint() != b.fingerprint() and a.config != b.config
    assert tvmc("config", "diff", str(paths[0]), str(paths[1]))[0] == 1
    code, out, _ = tvmc("compile", "m.onnx", "-c", str(paths[0]), "--emit", "tvmc")
    assert code == 0 and f"--tuning-records={tmp_path / 'a' / 'db'}" in out


def test_row5_an_absolute_path_and_a_flag_are_as_written(write: Write) -> None:
    path = write("c.toml", 'targets = ["llvm"]\n[build]\ntuning-records = "/abs/db"\n')
    assert api.resolve([str(path)]).config.build["tuning-records"] == "/abs/db"
    flagged = api.resolve([str(path)], [("--set", "build.tuning-records=db")])
    assert flagged.config.build["tuning-records"] == "db"  # a flag's path is the working directory's


# ---- row 13: equal meanings, one hash ----------------------------------------------------------


def _hash(*flags: tuple[str, str]) -> str:
    return api.resolve([], [("--target", "llvm"), *flags]).fingerprint()


def test_row13_tvm_version_spellings_of_one_range_hash_alike() -> None:
    spellings = (">=0.25", ">= 0.25", ">0.24", ">=0.25, >= 0.25", ">=0.25.0", "> 0.24")
    hashes = {_hash(("--set", f'tvm-version="{v}"')) for v in spellings}
    assert len(hashes) == 1
    assert _hash(("--set", 'tvm-version="<0.25.0"')) == _hash(("--set", 'tvm-version="<=0.24"'))
    assert _hash(("--set", 'tvm-version="<=0.19.0"')) != _hash(("--set", 'tvm-version="<=0.19"'))  # 0.19.1
    assert api.resolve([], [("--target", "llvm"), ("--set", 'tvm-version=">0.24"')]).config.tvm_version == ">=0.25"
    assert _hash(("--set", 'tvm-version="<0.20"')) == _hash(("--set", 'tvm-version="<=0.19"'))
    assert _hash(("--set", 'tvm-version=">=0.25"')) != _hash(("--set", 'tvm-version=">=0.26"'))


def test_row13_disabled_pass_is_a_set() -> None:
    assert _hash(("--set", 'disabled-pass=["b", "a", "b"]')) == _hash(("--set", 'disabled-pass=["a", "b"]'))
    assert _hash(("--set", 'disabled-pass=["a"]')) != _hash(("--set", 'disabled-pass=["a", "b"]'))


def test_row13_build_options_without_effect_are_dropped_with_a_note() -> None:
    resolved = api.resolve([], [("--target", "llvm"), ("--set", 'build.desired-layout-ops=["nn.dense"]')])
    assert "build" not in resolved.to_dict()
    assert "build.desired-layout-ops has no effect without build.desired-layout" in resolved.notes
    assert _hash(("--set", 'build.mixed-precision-acc-type="float32"')) == _hash()
    assert _hash(("--set", 'build={mixed-precision=true, mixed-precision-acc-type="float32"}')) != _hash(
        ("--set", "build.mixed-precision=true")
    )


# ---- row 14: `==` and `hash()` of an implicit and a written-out CPU host ----------------------


def test_row14_equal_meaning_is_equal_and_hashes_equal() -> None:
    implicit = api.resolve(["aws/c5"]).config
    host = implicit.to_dict()["host"]
    written = api.resolve(["aws/c5"], [("--target-host", json.dumps(host))]).config
    assert implicit.to_dict() == written.to_dict() and implicit.fingerprint() == written.fingerprint()
    assert implicit == written and hash(implicit) == hash(written)
    assert len({implicit, written}) == 1
    other = api.resolve(["aws/c5"], [("-O", "2")]).config
    assert implicit != other


# ---- row 17: desired-layout-ops = ["nn.conv2d"] without tvm-version ---------------------------


def test_row17_the_operator_list_is_kept_when_the_config_admits_both_generations(write: Write) -> None:
    path = write(
        "c.toml", 'targets = ["llvm"]\n[build]\ndesired-layout = ["NHWC"]\ndesired-layout-ops = ["nn.conv2d"]\n'
    )
    assert api.resolve([str(path)]).config.build["desired-layout-ops"] == ("nn.conv2d",)
    code, out, _ = tvmc("compile", "m.onnx", "-c", str(path), "--emit", "relay")
    assert code == 0
    assert "relay.transform.ConvertLayout({'nn.conv2d': ['NHWC', 'HWIO']})" in out
    assert "conv2d_transpose" not in out and "qnn.conv2d" not in out
    # For TVM >= 0.25 alone it is the default, and the same meaning as leaving it out.
    modern = ("--set", 'tvm-version=">=0.25"')
    assert "desired-layout-ops" not in api.resolve([str(path)], [modern]).config.build


# ---- row 18: old tvmc's repeated --pass-config tir.add_lower_pass ------------------------------


def test_row18_repeated_lower_pass_flags_give_level_pass_pairs_in_order() -> None:
    flags = [("--pass-config", "tir.add_lower_pass=1,A"), ("--pass-config", "tir.add_lower_pass=2,B,3,C")]
    resolved = api.resolve([], [("--target", "llvm"), *flags])
    assert resolved.to_dict()["pass-config"] == {"tirx.add_lower_pass": [[1, "A"], [2, "B"], [3, "C"]]}
    code, out, _ = tvmc(
        "config",
        "migrate",
        "tvmc compile --target llvm --pass-config tir.add_lower_pass=1,A --pass-config tir.add_lower_pass=2,B m.onnx",
    )
    assert code == 0 and '"tirx.add_lower_pass" = [[1, "A"], [2, "B"]]' in out


def test_row18_a_lower_pass_flag_replaces_what_a_file_wrote(write: Write) -> None:
    path = write("c.toml", 'targets = ["llvm"]\n[pass-config]\n"tirx.add_lower_pass" = [[0, "X"]]\n')
    resolved = api.resolve([str(path)], [("--pass-config", "tir.add_lower_pass=1,A")])
    assert resolved.to_dict()["pass-config"] == {"tirx.add_lower_pass": [[1, "A"]]}


@pytest.mark.parametrize(("value", "message"), [("1,A,3", "opt_level1,pass1"), ("x,A", "the level 'x' is not")])
def test_row18_a_malformed_lower_pass_value_is_a_usage_error(value: str, message: str) -> None:
    code, _, err = tvmc("config", "show", "--target", "llvm", "--pass-config", f"tir.add_lower_pass={value}")
    assert code == 2 and message in err and len(err.splitlines()) == 1


# ---- row 10: `config migrate` exits 0 only with a config that validates -----------------------


def test_row10_migrate_refuses_what_validate_would_reject(tmp_path: Path) -> None:
    code, out, err = tvmc("config", "migrate", "llvm -mcpu=notacpu")
    assert code == 1 and out == ""
    assert "mcpu 'notacpu' is not a CPU" in err and len(err.splitlines()) == 1
    assert err.endswith("; the migrated config would not be valid\n")  # as every error reads: no [rule] inside
    old = tmp_path / "old.json"
    old.write_text('{"targets": [{"kind": "llvm"}], "executor": {"kind": "aot", "interface-api": "c"}}')
    code, _, err = tvmc("config", "migrate", str(old))
    assert code == 1 and "interface-api" in err and err.startswith(f"tvmc: error: {old}:1:")


def test_row10_what_migrate_writes_validates_and_shows(tmp_path: Path) -> None:
    out = tmp_path / "new.toml"
    assert tvmc("config", "migrate", "llvm -mcpu=cascadelake", "-o", str(out))[0] == 0
    assert tvmc("config", "validate", str(out))[0] == 0
    assert tvmc("config", "show", "-c", str(out))[0] == 0


# ---- one engine run: compile's unknown-cpu warnings come from the resolution's own run ----------


def test_compile_reads_the_engine_warnings_of_the_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    from tvmc.backend import compile as building
    from tvmc.validate import rules

    resolved = api.resolve(["riscv/spacemit-k3"])
    assert [f.rule for f in resolved.findings if f.severity == "warning"] == ["unknown-cpu"]
    runs: list[object] = []
    monkeypatch.setattr(rules, "semantic_findings", lambda *a, **k: runs.append(a) or [])
    warned: list[str] = []
    building.check_names(resolved, warned.append)
    assert not runs and len(warned) == 1 and "spacemit-x100" in warned[0]


# ---- row 12: object-typed pass configs against TVM's registered fields ------------------------


def test_row12_an_unknown_field_of_a_config_object_is_refused_everywhere(write: Write) -> None:
    path = write("c.toml", 'targets = ["llvm"]\n[pass-config]\n"tirx.UnrollLoop" = {bogus = 1}\n')
    code, out, _ = tvmc("config", "validate", str(path))
    assert code == 1 and "has no field 'bogus'" in out and "[pass-config-type]" in out
    for command in (["config", "show"], ["config", "show", "--hash"], ["compile", "m.onnx", "--emit", "plan"]):
        code, _, err = tvmc(*command, "-c", str(path))
        assert code == 1 and "tirx.transform.UnrollLoopConfig has no field 'bogus'" in err, command


def test_row12_registered_fields_of_their_type_are_accepted() -> None:
    ok = api.resolve([], [("--target", "llvm"), ("--pass-config", "tirx.UnrollLoop={auto_max_step=8}")])
    assert ok.to_dict()["pass-config"] == {"tirx.UnrollLoop": {"auto_max_step": 8}}
    with pytest.raises(TvmcError, match="explicit_unroll: expected type 'int'"):
        api.resolve([], [("--target", "llvm"), ("--pass-config", 'tirx.UnrollLoop={explicit_unroll="x"}')])


# ---- rows 6-8: one host rule for every layer kind ----------------------------------------------


def _host(
    configs: list[str], flags: list[tuple[str, str]] | None = None, env: dict[str, str] | None = None
) -> dict[str, object]:
    return dict(api.resolve(configs, flags or [], env=env).to_dict()["host"])


def test_row6_every_host_path_get_prints_can_be_set_and_unset() -> None:
    assert tvmc("config", "get", "host.mcpu", "-c", "aws/c5")[1] == "skylake-avx512\n"
    set_ = api.resolve(["aws/c5"], [("--set", "host.mcpu=cascadelake")])
    assert set_.config.host["mcpu"] == "cascadelake" and set_.config.targets[0]["mcpu"] == "skylake-avx512"
    same = api.resolve(["aws/c5"], [("--set", "host.mcpu=skylake-avx512")])
    assert same.fingerprint() == api.resolve(["aws/c5"]).fingerprint()  # its own value: a no-op
    code, _, err = tvmc("config", "get", "host.mcpu", "-c", "aws/c5", "--unset", "host.mcpu")
    assert code == 1 and err == "tvmc: host.mcpu is not set\n"


def test_row6_a_target_patch_reaches_a_tags_own_host() -> None:
    resolved = api.resolve(["nvidia/jetson-agx-orin-64gb"], [("--target-llvm-mcpu", "cortex-a78ae")])
    assert resolved.config.host["mcpu"] == "cortex-a78ae" and resolved.config.host["mtriple"] == "aarch64-linux-gnu"
    assert str(resolved.origin("/host/mcpu")) == "--target-llvm-mcpu=cortex-a78ae"
    with pytest.raises(TvmcError, match="no target of kind 'c'"):
        api.resolve(["nvidia/jetson-agx-orin-64gb"], [("--target-c-mcpu", "x")])


def test_row6_setting_a_hosts_tag_replaces_the_host() -> None:
    host = _host(["aws/c6g"], [("--set", "host.tag=aws/cpu/c5.large")])
    assert host["tag"] == "aws/cpu/c5.large" and host["mcpu"] == "skylake-avx512" and "mtriple" not in host


@pytest.mark.parametrize(
    ("configs", "flags", "env"),
    [
        (["aws/c5", "nvidia/geforce-rtx-4090"], [], None),
        (["aws/c5"], [("--target", "nvidia/geforce-rtx-4090")], None),
        (["aws/c5"], [], {"TVMC_TARGET": "nvidia/geforce-rtx-4090"}),
    ],
    ids=["config", "target-flag", "env"],
)
def test_row7_a_device_over_a_cpu_keeps_the_cpu_as_host_in_every_layer_kind(
    configs: list[str], flags: list[tuple[str, str]], env: dict[str, str] | None
) -> None:
    host = _host(configs, flags, env)
    assert host["mcpu"] == "skylake-avx512" and host["mtriple"] == "x86_64-linux-gnu"


def test_row7_a_later_cpu_drops_the_derived_host() -> None:
    resolved = api.resolve(["aws/c5", "nvidia/geforce-rtx-4090", "aws/c6i"])
    assert resolved.config.host["mcpu"] == "icelake-server"
    alone = api.resolve(["aws/c6i"]).to_dict()
    assert {k: resolved.to_dict()[k] for k in ("targets", "host")} == {k: alone[k] for k in ("targets", "host")}


@pytest.mark.parametrize(
    "append",
    [("--target", "llvm -mcpu=znver3"), ("--set", 'targets+=["llvm -mcpu=znver3"]')],
    ids=["second-target", "set-append"],
)
def test_row7_an_appended_cpu_drops_the_derived_host(append: tuple[str, str]) -> None:
    """`-c aws/c5 --target cuda --target 'llvm -mcpu=znver3'` kept the c5's Skylake as host though
    the targets no longer were devices only; it is the znver3 target as its own host, as without
    aws/c5. An appended device keeps it."""
    appended = api.resolve(["aws/c5"], [("--target", "cuda"), append], env={})
    alone = api.resolve([], [("--target", "cuda"), append], env={})
    assert appended.config.host["mcpu"] == "znver3"
    assert {k: appended.to_dict()[k] for k in ("targets", "host")} == {
        k: alone.to_dict()[k] for k in ("targets", "host")
    }
    device = api.resolve(["aws/c5"], [("--target", "cuda"), ("--target", "opencl")], env={})
    assert device.config.host["mcpu"] == "skylake-avx512"


@pytest.mark.parametrize(
    ("flags", "env"),
    [
        ([("--target-host", "llvm -mtriple=x86_64-linux-gnu")], None),
        ([], {"TVMC_TARGET_HOST": "llvm -mtriple=x86_64-linux-gnu"}),
    ],
    ids=["flag", "env"],
)
def test_row8_a_later_host_overrides_a_tags_own_host(flags: list[tuple[str, str]], env: dict[str, str] | None) -> None:
    resolved = api.resolve(["nvidia/jetson-agx-orin-64gb"], flags, env=env)
    assert resolved.config.host["mtriple"] == "x86_64-linux-gnu" and "mcpu" not in resolved.config.host
    # As TVM's `Target("nvidia/jetson-agx-orin-64gb", host=…)`: the bare tag name keeps no label
    # (`{ tag = … }` would), whether the tag came from a file or from `--target`.
    assert resolved.config.targets[0]["tag"] == "" and resolved.config.targets[0]["arch"] == "sm_87"
    assert all(t.get("host", resolved.config.host) == resolved.config.host for t in resolved.config.targets)
    host = ("--target-host", "llvm -mtriple=x86_64-linux-gnu")
    by_flag = api.resolve([], [("--target", "nvidia/jetson-agx-orin-64gb"), host], env={})
    assert by_flag.config.targets == resolved.config.targets and by_flag.config.host == resolved.config.host


@pytest.mark.parametrize("flag", [("--set", "host.mcpu=cortex-a76"), ("--target-llvm-mcpu", "cortex-a76")])
def test_row8_an_edit_of_a_tags_own_host_keeps_the_bare_tag_unlabelled(flag: tuple[str, str]) -> None:
    resolved = api.resolve(["nvidia/jetson-agx-orin-64gb"], [flag], env={})
    assert resolved.config.host["mcpu"] == "cortex-a76" and resolved.config.targets[0]["tag"] == ""
    written = api.resolve(
        ["nvidia/jetson-agx-orin-64gb"], [("--target-host", json.dumps(resolved.to_dict()["host"]))], env={}
    )
    assert written.fingerprint() == resolved.fingerprint()


@pytest.mark.parametrize("config", ["nvidia/jetson-agx-orin-64gb", "aws/c5"])
def test_row8_unsetting_the_kind_or_label_of_a_host_is_the_same_mistake_wherever_the_host_is(config: str) -> None:
    """The host a tag carries was written out with TVM's no-label `tag = ""`: `--unset host.kind`
    then said "unknown target tag ''" (a tag nobody wrote) and `--unset host.tag` was a no-op."""
    with pytest.raises(TvmcError) as kind:
        api.resolve([config], [("--unset", "host.kind")], env={})
    assert kind.value.rule == "missing-key" and "needs 'kind'" in kind.value.message, kind.value.one_line()
    with pytest.raises(TvmcError) as tag:
        api.resolve([config], [("--unset", "host.tag")], env={})
    assert tag.value.exit_code == 2 and tag.value.message == "host.tag is not set"


def test_row8_a_host_and_a_boards_tag_in_one_file_still_conflict(write: Write) -> None:
    path = write("c.toml", 'targets = ["nvidia/jetson-agx-orin-64gb"]\nhost = "llvm -mtriple=x86_64-linux-gnu"\n')
    code, out, _ = tvmc("config", "validate", str(path))
    assert code == 1 and "[host-conflict]" in out


@pytest.mark.parametrize(
    ("flags", "env", "origin"),
    [
        ([("--target-host", "llvm -mcpu=znver3")], None, "--target-host=llvm -mcpu=znver3"),
        ([], {"TVMC_TARGET_HOST": "llvm -mcpu=znver3"}, "env TVMC_TARGET_HOST"),
    ],
    ids=["flag", "env"],
)
def test_row8_a_later_host_overrides_the_host_a_lower_legacy_string_names(
    write: Write, flags: list[tuple[str, str]], env: dict[str, str] | None, origin: str
) -> None:
    path = write("board.toml", "targets = [\"cuda -host='llvm -mcpu=skylake'\"]\n")
    resolved = api.resolve([str(path)], flags, env=env)
    assert resolved.config.host["mcpu"] == "znver3" and resolved.config.targets[0]["kind"] == "cuda"
    assert str(resolved.origin("/host/mcpu")) == origin
    assert str(resolved.origin("/targets/0/kind")).startswith(f"{path}:1:12 ")  # the string still wrote the target
    code, out, _ = tvmc("config", "validate", "-c", str(path), *[a for flag in flags for a in flag])
    assert code == 0, out


@pytest.mark.parametrize(
    ("configs", "flags", "env", "blamed"),
    [
        (["nvidia/jetson-agx-orin-64gb"], [("--target-host", "cuda")], {}, "--target-host=cuda: "),
        (["nvidia/jetson-agx-orin-64gb"], [], {"TVMC_TARGET_HOST": "cuda"}, "env TVMC_TARGET_HOST: "),
        (["aws/c5"], [("--target-host", "llvm -mtriple=aarch64-linux-gnu -mcpu=skylake")], {}, "--target-host="),
        (["raspberry-pi/4b-aarch64"], [], {"TVMC_TARGET_HOST": "llvm -mcpu=notacpu"}, "env TVMC_TARGET_HOST: "),
        # A target with a host of its own over a host set earlier: the later layer caused the conflict.
        ([], [("--target-host", "llvm -mcpu=znver3"), ("--target", "cuda -host='llvm -mcpu=x'")], {}, "--target="),
    ],
    ids=["flag-not-cpu", "env-not-cpu", "flag-unknown-cpu", "env-unknown-cpu", "later-target"],
)
def test_row8_a_host_problem_a_flag_or_the_env_causes_is_blamed_on_it(
    monkeypatch: pytest.MonkeyPatch,
    configs: list[str],
    flags: list[tuple[str, str]],
    env: dict[str, str],
    blamed: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    args = [a for c in configs for a in ("-c", c)] + [a for flag in flags for a in flag]
    code, _, err = tvmc("config", "show", *args)
    # A value the rule engine refuses exits 1 wherever it came from; the line names the flag or
    # variable that wrote it, not the shipped config.
    assert code == 1 and err.startswith(f"tvmc: error: {blamed}"), err
    assert "configs/" not in err and ".toml" not in err
    code, out, _ = tvmc("config", "validate", *args)
    problems = [line for line in out.splitlines() if ": error: " in line]
    assert code == 1 and problems and all(line.startswith(blamed.rstrip(": ")) for line in problems), out


@pytest.mark.parametrize(
    ("args", "env", "rule"),
    [
        (
            ["-c", "nvidia/jetson-agx-orin-64gb"],
            {"TVMC_TARGET_HOST": "llvm -mtriple=aarch64-linux-gnu -mcpu=x"},
            "unknown-cpu",
        ),
        (["-c", "nvidia/jetson-agx-orin-64gb", "--target-host", "cuda"], {}, "host-not-cpu"),
        (["FILE"], {}, "unknown-cpu"),
    ],
    ids=["env-over-a-tags-host", "flag-over-a-tags-host", "a-file-writing-one-host-twice"],
)
def test_row8_a_host_problem_is_reported_once_at_the_host(
    write: Write, monkeypatch: pytest.MonkeyPatch, args: list[str], env: dict[str, str], rule: str
) -> None:
    # The host a later layer writes over a tag's own host, or a target's own host equal to the
    # config's, is one host: one problem, at `host`, not a second one at targets[0].host.
    path = write("c.toml", 'targets = [{ kind = "cuda", host = "llvm -mcpu=x" }]\nhost = "llvm -mcpu=x"\n')
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code, out, _ = tvmc("config", "validate", *[str(path) if a == "FILE" else a for a in args])
    problems = [line for line in out.splitlines() if ": error: " in line]
    assert code == 1 and len(problems) == 1 and f"[{rule}]" in problems[0], out
    assert ": error: host" in problems[0], problems


# ---- row 9: a later layer's target string wins over a lower layer's table ----------------------


def test_row9_a_later_files_legacy_string_sets_what_it_lifts(write: Write) -> None:
    write("low.toml", 'targets = ["llvm"]\n[runtime]\nkind = "cpp"\nsystem-lib = false\n')
    high = write("high.toml", 'extends = ["low.toml"]\ntargets = ["llvm -system-lib"]\n')
    resolved = api.resolve([str(high)])
    assert resolved.config.runtime == {"kind": "cpp", "system-lib": True}
    assert str(resolved.origin("/runtime/system-lib")).startswith(f"{high}:2:")
    via_flag = api.resolve([str(write("only.toml", 'targets = ["llvm"]\nruntime = { kind = "cpp" }\n'))])
    assert via_flag.config.runtime == {"kind": "cpp", "system-lib": False}
    flagged = api.resolve(
        [str(write("low2.toml", 'targets = ["llvm"]\nruntime = { kind = "cpp", system-lib = false }\n'))],
        [("--target", "llvm -system-lib")],
    )
    assert flagged.config.runtime == resolved.config.runtime  # a file and a flag agree


def test_row9_the_kind_a_string_implies_does_not_replace_a_kind_set_below(write: Write) -> None:
    write("low.toml", 'targets = ["llvm"]\nruntime = { kind = "crt" }\n')
    high = write("high.toml", 'extends = ["low.toml"]\ntargets = ["llvm -system-lib"]\n')
    assert api.resolve([str(high)]).config.runtime == {"kind": "crt", "system-lib": True}
    own = write("own.toml", 'targets = ["llvm -system-lib"]\nruntime = { kind = "cpp", system-lib = false }\n')
    assert api.resolve([str(own)]).config.runtime == {"kind": "cpp", "system-lib": False}  # its own table wins


# ---- row 15: one legacy-string grammar for every entry point ------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('opencl -device="mali"', {"kind": "opencl", "device": "mali"}),
        ('llvm -mattr="+avx2,+fma" -device="arm_cpu"', {"device": "arm_cpu", "mattr": ["+avx2", "+fma"]}),
        ("llvm -host='llvm -mtriple=\"aarch64-linux-gnu\"'", {"kind": "llvm"}),
    ],
    ids=["device", "two-values", "in-a-nested-host"],
)
def test_row15_a_legacy_string_means_one_target_in_a_file_a_flag_the_env_and_migrate(
    write: Write, text: str, expected: dict[str, object]
) -> None:
    from tvmc.migrate import migrate

    toml = f"targets = [{json.dumps(text)}]\n"
    ways = {
        "file": api.resolve([str(write("t.toml", toml))], [], env={}),
        "flag": api.resolve([], [("--target", text)], env={}),
        "env": api.resolve([], [], env={"TVMC_TARGET": text}),
    }
    shown = {way: resolved.to_dict()["targets"] for way, resolved in ways.items()}
    assert shown["flag"] == shown["file"] == shown["env"], shown
    target = shown["file"][0]
    assert all(target[k] == v for k, v in expected.items()), target
    assert not any('"' in key for key in target["keys"])  # no `"mali"` key
    if "-host=" in text:
        assert ways["file"].config.host["mtriple"] == "aarch64-linux-gnu"
    migrated = write("m.toml", migrate(text).toml_text)
    assert api.resolve([str(migrated)], [], env={}).to_dict()["targets"] == shown["file"]


def test_row15_the_file_keeps_a_double_quote_that_quotes_nothing(write: Write) -> None:
    # Only old tvmc's `-k="value"` form quotes; `'…'` and a quote inside a word stay TVM's grammar.
    path = write("t.toml", 'targets = ["llvm -device=a\\"b\\""]\n')
    assert api.resolve([str(path)], [], env={}).config.targets[0]["device"] == 'a"b"'


# ---- row 16: explain on hosts: the winner get and show --origin name, never "not set" after a step --


def _leaves(value: object, pointer: str = "") -> list[str]:
    if isinstance(value, dict):
        return [leaf for key, child in value.items() for leaf in _leaves(child, f"{pointer}/{key}")]
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        return [leaf for index, child in enumerate(value) for leaf in _leaves(child, f"{pointer}/{index}")]
    return [pointer]


_ROW16_FILES = {
    "tag-string.toml": 'targets = ["nvidia/jetson-agx-orin-64gb"]\n',
    "host-tag.toml": 'targets = ["cuda"]\nhost = "aws/cpu/c5.large"\n',
    "host-string.toml": 'targets = ["cuda"]\nhost = "llvm -mcpu=skylake"\n',
    "same-host.toml": 'host = "llvm -mcpu=skylake"\n',
    "own-host.toml": 'targets = [{ kind = "cuda", host = "llvm -mcpu=skylake" }]\n',
}


@pytest.mark.parametrize(
    ("configs", "flags"),
    [
        (["tag-string.toml"], []),
        (["host-tag.toml"], []),
        (["host-string.toml", "same-host.toml"], []),  # an equal re-set by a later file
        (["host-string.toml"], [("--set", "host.mcpu=skylake")]),  # an equal re-set by a flag
        (["own-host.toml"], []),
        (["nvidia/jetson-agx-orin-64gb"], [("--target-host", "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a78")]),
        (["aws/c5"], [("--target", "nvidia/geforce-rtx-4090")]),
        (["apple/m1-gpu"], []),
    ],
    ids=["tag-string", "host-tag", "equal-file", "equal-flag", "own-host", "target-host", "derived", "m1"],
)
def test_row16_explain_names_the_winner_get_and_show_origin_name(
    write: Write, configs: list[str], flags: list[tuple[str, str]]
) -> None:
    from tvmc import explain as explaining
    from tvmc.pointers import display_path

    files = {name: str(write(name, text)) for name, text in _ROW16_FILES.items()}
    given = [files.get(c, c) for c in configs]
    resolved = api.resolve(given, flags, env={})
    shown = resolved.to_dict()
    host_paths = ["targets[0]." + display_path(p) for p in _leaves(shown["host"], "/host")]
    for path in [display_path(p) for p in _leaves(shown)] + host_paths:
        found = explaining.get(shown, resolved.origins, path)
        assert found is not None, path  # a path into targets[0]'s host reads the config's host
        explained = api.explain(given, flags, path, env={})
        assert explained.final is not None and explained.final.value == found.value, path
        assert str(explained.final.origin) == str(found.origin), path
        if found.origin.kind != "default":  # the last step is the winner `show --origin` names
            last = explained.steps[-1]
            assert last.action == "set" and last.where == str(found.origin), (path, last, found.origin)
            assert last.value == found.value or last.expanded_from is not None or isinstance(found.value, list), path


def test_row16_a_path_into_a_targets_host_is_the_configs_host_on_the_command_line(write: Write) -> None:
    path = str(write("own.toml", 'targets = [{ kind = "cuda", host = "llvm -mcpu=skylake" }]\n'))
    where = f"{path}:1:29 (via --config {path})"  # the host the target wrote, not the target
    code, out, _ = tvmc("config", "get", "targets[0].host.mcpu", "-c", path, "--origin")
    assert (code, out) == (0, f"{where}\tskylake\n")
    code, out, err = tvmc("config", "explain", "targets[0].host.mcpu", "-c", path)
    assert code == 0 and "not set" not in err, err
    assert out.splitlines()[-2:] == [
        f'{where}\ttargets[0].host.mcpu = "skylake"  (expanded from "llvm -mcpu=skylake")',
        'canonical\thost.mcpu = "skylake"',
    ]
    assert f'{where}\thost.mcpu = "skylake"' in tvmc("config", "show", "-c", path, "--origin")[1].splitlines()


def test_row16_an_equal_re_set_is_the_winner_everywhere(write: Write) -> None:
    first = str(write("a.toml", 'targets = ["cuda"]\nhost = "llvm -mcpu=skylake"\n'))
    second = str(write("b.toml", 'host = "llvm -mcpu=skylake"\n'))
    code, out, _ = tvmc("config", "explain", "host.mcpu", "-c", first, "-c", second)
    lines = out.splitlines()
    assert code == 0 and [line.split("\t")[0] for line in lines] == [
        f"{first}:2:1 (via --config {first})",
        f"{second}:1:1 (via --config {second})",
        "canonical",
    ]
    show = tvmc("config", "show", "-c", first, "-c", second, "--origin")[1].splitlines()
    assert f'{second}:1:1 (via --config {second})\thost.mcpu = "skylake"' in show


# ---- one voice for errors: the argument parser's usage errors are one line too -----------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["config", "show", "--bogus"], "No such option '--bogus'; see tvmc config show --help"),
        (["config", "show", "-O"], "Option '-O' requires an argument"),
        (["nope"], "No such command 'nope'; see tvmc --help"),
        (["config", "show", "--format", "xml"], "'xml' is not one of 'toml', 'json'; see tvmc config show --help"),
    ],
)
def test_a_usage_error_of_the_argument_parser_is_one_line(args: list[str], message: str) -> None:
    code, out, err = tvmc(*args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("tvmc: error: ") and message in err
    assert "Usage:" not in err and "Try '" not in err


def test_a_group_without_a_command_still_prints_its_help() -> None:
    result = runner.invoke(app, ["config"])
    assert "Usage: tvmc config" in result.output and "show" in result.output


def test_every_rule_id_the_layering_emits_is_in_the_rule_table() -> None:
    from tvmc.validate.diagnostics import RULES

    for rule in ("extends-unresolved", "extends-cycle", "extends-order", "config-not-found", "limit"):
        assert rule in RULES
    assert "extends-order" in tvmc("config", "validate", "--help")[1]
