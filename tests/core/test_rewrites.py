"""The rewrite stage: path grammar, set/append/unset, selectors, typing from the registry."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tvmc import api, explain
from tvmc.errors import TvmcError, UsageError
from tvmc.provenance import Origin
from tvmc.rewrites import Index, Key, Select, parse_path, parse_set


def resolve(*flags: tuple[str, str], configs: tuple[str, ...] = ()) -> api.Resolved:
    return api.resolve(list(configs), list(flags))


@pytest.mark.parametrize(
    ("text", "path", "rest"),
    [
        ("opt-level=3", (Key("opt-level"),), "=3"),
        ("targets[0].mcpu=x", (Key("targets"), Index(0), Key("mcpu")), "=x"),
        ("targets[kind=llvm].mattr+=+avx2", (Key("targets"), Select("kind", "llvm"), Key("mattr")), "+=+avx2"),
        ('pass-config."tir.disable_vectorize"=true', (Key("pass-config"), Key("tir.disable_vectorize")), "=true"),
        ("targets[-1]", (Key("targets"), Index(-1)), ""),
    ],
)
def test_path_grammar(text: str, path: tuple, rest: str) -> None:
    assert parse_path(text, "--set") == (path, rest)


@pytest.mark.parametrize("bad", ["", "=3", "a..b=1", "[0]=1", 'a."unterminated=1'])
def test_bad_paths_are_usage_errors(bad: str) -> None:
    with pytest.raises(UsageError):
        parse_set(bad, "--set", Origin("flag", "--set"))


@given(st.text(max_size=60))
def test_path_parser_only_raises_usage_errors(text: str) -> None:
    with contextlib.suppress(UsageError):
        parse_set(text, "--set", Origin("flag", "--set"))


def test_target_attr_flag_changes_exactly_that_value() -> None:
    before = resolve(configs=("aws/c5",)).to_dict()
    after = resolve(("--target-llvm-mcpu", "cascadelake"), configs=("aws/c5",))
    target = {**before["targets"][0], "mcpu": "cascadelake"}
    # The effective host of a lone CPU target is that target (TVM's rule), so it follows.
    assert after.to_dict() == {**before, "targets": [target], "host": target}
    assert str(after.origin("/targets/0/mcpu")) == "--target-llvm-mcpu=cascadelake"
    assert str(after.origin("/host/mcpu")) == "--target-llvm-mcpu=cascadelake"
    assert after.origin("/host/mtriple").location().source.endswith("c5.toml")


def test_target_attr_for_missing_kind_names_flag() -> None:
    with pytest.raises(UsageError) as err:
        resolve(("--target-cuda-arch", "sm_80"), configs=("aws/c5",))
    assert "--target-cuda-arch=sm_80" in err.value.one_line() and "no target of kind 'cuda'" in err.value.message


def test_target_replaces_and_repeats_append() -> None:
    config = resolve(("--target", "cuda -arch=sm_80"), ("--target", "llvm"), configs=("aws/c5",)).config
    assert [t["kind"] for t in config.targets] == ["cuda", "llvm"]
    # RFC 0030 rule 2 + tvmc's old bug: leftover attribute flags for the replaced target are not carried
    config = resolve(("--target", "c"), configs=("aws/c5",)).config
    assert config.targets[0]["kind"] == "c" and "mcpu" not in config.targets[0]


def test_tvmc_comma_list_second_kind_is_host() -> None:
    config = resolve(("--target", "opencl -device=mali, llvm -mtriple=aarch64-linux-gnu")).config
    assert [t["kind"] for t in config.targets] == ["opencl"]
    assert config.host["mtriple"] == "aarch64-linux-gnu"


@pytest.mark.parametrize(
    ("text", "value"), [("0", False), ("1", True), ("false", False), ("yes", True), ("off", False), ("True", True)]
)
def test_booleans_are_typed_never_truthy_strings(text: str, value: bool) -> None:
    config = resolve(("--target", "llvm"), ("--target-llvm-fast-math", text)).config
    assert config.targets[0]["fast-math"] is value


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--target-llvm-num-cores", "four"),
        ("--target-llvm-fast-math", "2"),
        ("-O", "x"),
        ("--executor-aot-unpacked-api", "maybe"),
    ],
)
def test_bad_values_are_usage_errors_naming_the_flag(flag: str, value: str) -> None:
    with pytest.raises(UsageError) as err:
        resolve(("--target", "llvm"), ("--executor", "aot"), (flag, value))
    assert flag in err.value.one_line()


def test_opt_level_range_checked() -> None:
    # A value the rule engine refuses is invalid input (exit 1) wherever it came from, named by
    # its flag; `-O x` (not an integer: a malformed command line) is a usage error (exit 2).
    with pytest.raises(TvmcError, match="opt-level") as err:
        resolve(("-O", "7"))
    assert str(err.value.location) == "-O 7" and err.value.exit_code == 1 and err.value.rule == "invalid-value"


def test_executor_option_for_other_kind_is_an_error() -> None:
    with pytest.raises(UsageError) as err:
        resolve(("--executor", "graph"), ("--executor-aot-unpacked-api", "1"))
    assert "not 'aot'" in err.value.message and "--executor aot" in (err.value.hint or "")


def test_executor_kind_change_drops_old_options() -> None:
    config = resolve(("--executor", "aot"), ("--executor-aot-unpacked-api", "true"), ("--executor", "graph")).config
    assert config.executor == {"kind": "graph", "link-params": False}


def test_set_append_unset() -> None:
    config = resolve(
        ("--target", "llvm -mattr=+a"),
        ("--set", "targets[kind=llvm].mattr+=+b"),
        ("--set", 'targets[0].mattr+=["+c", "+d"]'),
        ("--set", "build.module-name=net"),
        ("--pass-config", "tir.disable_vectorize=1"),
    ).config
    assert config.targets[0]["mattr"] == ("+a", "+b", "+c", "+d")  # a config's arrays are tuples
    assert config.build == {"module-name": "net"}
    assert config.pass_config == {"tirx.disable_vectorize": True}  # typed and spelled as TVM >= 0.25 has it
    config = resolve(("--target", "cuda"), ("--target", "c"), ("--unset", "targets[0]")).config
    assert [t["kind"] for t in config.targets] == ["c"]


def test_set_on_a_tag_target_overrides_shallowly() -> None:
    config = resolve(("--target", "nvidia/nvidia-a100"), ("--target-cuda-l2-cache-size-bytes", "5")).config
    assert config.targets[0]["l2_cache_size_bytes"] == 5 and config.targets[0]["arch"] == "sm_80"


def test_unknown_keys_and_options_suggest() -> None:
    with pytest.raises(UsageError) as err:
        resolve(("--set", "opt-levle=2"))
    assert "opt-level" in err.value.one_line()
    with pytest.raises(UsageError) as err:
        resolve(("--target", "llvm"), ("--set", "targets[0].mcpuu=x"))
    assert "mcpu" in err.value.one_line()


def test_rewrites_apply_in_order() -> None:
    config = resolve(("--target", "llvm"), ("--set", "targets[0].mcpu=znver3"), ("--target", "cuda")).config
    assert [t["kind"] for t in config.targets] == ["llvm", "cuda"] and config.targets[0]["mcpu"] == "znver3"
    config = resolve(("--target", "llvm"), ("--target", "cuda"), ("--set", "targets[0].mcpu=znver3")).config
    assert config.targets[0]["mcpu"] == "znver3"


def test_env_rewrites_sit_between_configs_and_flags(monkeypatch: pytest.MonkeyPatch, cfgdir: Path) -> None:
    monkeypatch.setenv("TVMC_OPT_LEVEL", "1")
    monkeypatch.setenv("TVMC_EXECUTOR", "aot")
    resolved = api.resolve(["aws/c5"])
    assert resolved.config.opt_level == 1 and str(resolved.origin("/opt-level")) == "env TVMC_OPT_LEVEL"
    assert api.resolve(["aws/c5"], [("-O", "2")]).config.opt_level == 2


@pytest.mark.parametrize(
    "flags", [[], [("--set", "targets[0].mcpu=cortex-m4")], [("--executor-aot-unpacked-api", "1")]]
)
def test_executor_name_shorthand_is_one_table_everywhere(cfgdir: Path, flags: list[tuple[str, str]]) -> None:
    # `executor = "aot"` once became graph when a legacy string lifted an option, and crashed rewrites.
    (cfgdir / "short.toml").write_text('targets = ["c -link-params=1"]\nexecutor = "aot"\n')
    resolved = api.resolve(["short"], flags)
    assert resolved.config.executor is not None and resolved.config.executor["kind"] == "aot"
    assert resolved.config.executor["link-params"] is True
    assert resolved.origin("/executor/kind").location().line == 2
    shorthand = api.resolve([], [("--target", "c"), ("--set", "executor=aot")]).config.executor
    assert shorthand is not None and shorthand["kind"] == "aot"


@pytest.mark.parametrize(
    ("target", "section", "expected"),
    [
        ("llvm -system-lib -runtime=c", "runtime", {"kind": "crt", "system-lib": True}),
        ("llvm -runtime=c -system-lib", "runtime", {"kind": "crt", "system-lib": True}),
        ("c -interface-api=c -unpacked-api=1 -executor=aot", "executor", {"interface-api": "c", "unpacked-api": True}),
    ],
)
def test_a_target_strings_lifted_options_do_not_depend_on_their_order(
    cfgdir: Path, target: str, section: str, expected: dict[str, object]
) -> None:
    # The options of a legacy target string are unordered: `--target` lifted a kind written after
    # an option as a kind change that replaced the table, dropping the option (`llvm -system-lib
    # -runtime=c` was a crt runtime without system-lib); the same string in a file kept it.
    (cfgdir / "string.toml").write_text(f'targets = ["{target}"]\n')
    by_flag = api.resolve([], [("--target", target)]).to_dict()
    assert {k: v for k, v in by_flag[section].items() if k in expected} == expected
    by_file = api.resolve(["string"]).to_dict()
    assert {k: v for k, v in by_flag.items() if k != "description"} == by_file


@pytest.mark.parametrize(
    ("configs", "path"),
    [
        (["arm/rasp4b"], "targets[0].kind"),  # `{ tag = "arm/rasp4b", ... }`: the kind is the tag's
        (["arm/rasp4b"], "host.kind"),  # the host derived from that tag table
        (["nvidia/jetson-agx-orin-64gb"], "targets[0].kind"),
        (["boards/corstone-300"], "targets[1].kind"),  # cmsis-nn: a codegen kind lists no `kind` option
    ],
)
def test_setting_the_kind_get_prints_is_a_no_op(configs: list[str], path: str) -> None:
    # Written into a tag table the kind made the tag a label of a bare llvm target (rasp4b lost its
    # mcpu, mattr and triple); on a codegen kind it was refused as "not an option of target kind".
    before = api.resolve(configs, [], env={})
    printed = explain.get(before.to_dict(), before.origins, path)
    assert printed is not None
    after = api.resolve(configs, [("--set", f"{path}={printed.value}")], env={})
    assert after.to_dict() == before.to_dict() and after.fingerprint() == before.fingerprint()


def test_another_kind_on_a_tag_table_replaces_it() -> None:
    # As for any table whose kind changes: nothing of the tag (mfloat-abi, its label) leaks into it.
    target = resolve(("--set", "targets[0].kind=c"), configs=("arm/rasp4b",)).to_dict()["targets"][0]
    assert target == resolve(("--target", "c")).to_dict()["targets"][0]


@pytest.mark.parametrize(
    ("written", "edit", "expected"),
    [
        # A path into a pass config written in another spelling edits that config (it was "not a
        # list" / "not set", or "the same config as 'tir.UnrollLoop', with another value").
        (
            ("--pass-config", "tir.add_lower_pass=1,a.b,2,c.d"),
            ("--set", 'pass-config."tirx.add_lower_pass"[0]=[3, "e.f"]'),
            [[3, "e.f"], [2, "c.d"]],
        ),
        (
            ("--pass-config", "tir.add_lower_pass=1,a.b,2,c.d"),
            ("--unset", 'pass-config."tirx.add_lower_pass"[0]'),
            [[2, "c.d"]],
        ),
        (
            ("--set", 'pass-config."tir.UnrollLoop"={auto_max_step=4, explicit_unroll=1}'),
            ("--set", 'pass-config."tirx.UnrollLoop".auto_max_step=8'),
            {"auto_max_step": 8, "explicit_unroll": 1},
        ),
        (
            ("--set", 'pass-config."tir.UnrollLoop"={auto_max_step=4, explicit_unroll=1}'),
            ("--unset", 'pass-config."tirx.UnrollLoop".auto_max_step'),
            {"explicit_unroll": 1},
        ),
    ],
)
def test_a_path_into_a_pass_config_finds_it_in_any_spelling(
    written: tuple[str, str], edit: tuple[str, str], expected: object
) -> None:
    config = resolve(("--target", "llvm"), written, edit).to_dict()["pass-config"]
    assert list(config.values()) == [expected], config


def test_an_edit_reaching_a_value_only_a_tag_table_holds_sees_the_tag() -> None:
    # `{ tag = "arm/rasp4b", ... }`: `mattr+=` replaced the tag's ["+neon"] and `--unset mcpu` said
    # "not set", while the same tag as a string (`--target arm/rasp4b`) gave ["+neon", "+crc"].
    append = ("--set", "targets[0].mattr+=+crc")
    assert resolve(append, configs=("arm/rasp4b",)).to_dict()["targets"][0]["mattr"] == ["+neon", "+crc"]
    assert resolve(("--target", "arm/rasp4b"), append).to_dict()["targets"][0]["mattr"] == ["+neon", "+crc"]
    before = resolve(configs=("arm/rasp4b",))
    after = resolve(("--unset", "targets[0].mcpu"), configs=("arm/rasp4b",))
    assert {k: v for k, v in before.to_dict()["targets"][0].items() if k != "mcpu"} == after.to_dict()["targets"][0]
    # What the tag still gives comes from its `tag` key, as before the edit.
    assert after.origin("/targets/0/model") == before.origin("/targets/0/model")


@pytest.mark.parametrize(
    "before",
    [
        [],
        [("--set", "targets[0].mattr+=+crc")],  # writes the tag out (kind included)
        [("--unset", "targets[0].mcpu")],  # the same, and mcpu came back with --unset kind
        [("--set", "targets[0].mcpu=cortex-a53")],
    ],
)
def test_unsetting_a_tagged_targets_kind_is_refused_written_out_or_not(before: list[tuple[str, str]]) -> None:
    # `{ tag = "arm/rasp4b" }`: --unset targets[0].kind said "not set", but after an edit had written
    # the tag out it turned the table back into the tag (bringing back an unset mcpu) while `get`
    # still said llvm. The kind of a tagged target is its tag's: the same refusal either way.
    with pytest.raises(UsageError) as err:
        resolve(*before, ("--unset", "targets[0].kind"), configs=("arm/rasp4b",))
    assert "a tagged target's kind is its tag's ('arm/rasp4b')" in err.value.one_line()
    assert str(err.value.location) == "--unset=targets[0].kind"


@pytest.mark.parametrize(
    ("configs", "path", "tag"),
    [
        (("nvidia/jetson-nano",), "targets[0].kind", "nvidia/jetson-nano"),  # a tag string
        (("arm/rasp4b",), "targets[0].kind", "arm/rasp4b"),  # a tag table
        (("qcom/hexagon-v68",), "host.kind", "qcom/hexagon-v68"),  # a host that is a tag string
    ],
)
def test_unsetting_a_tags_kind_is_one_usage_error_for_a_tag_string_and_a_tag_table(
    configs: tuple[str, ...], path: str, tag: str
) -> None:
    # On a tag string `--unset targets[0].kind` wrote the tag's values out without their kind and
    # exited 1, blaming the config file ("a target table needs 'kind'"); on a tag table, exit 2.
    with pytest.raises(UsageError) as err:
        resolve(("--unset", path), configs=configs)
    assert f"a tagged target's kind is its tag's ({tag!r})" in err.value.one_line()
    assert str(err.value.location) == f"--unset={path}"


@pytest.mark.parametrize(
    ("configs", "path", "message"),
    [
        (("nvidia/nvidia-a100",), "host.kind", "host: a target table needs 'kind' (or 'tag')"),
        (("boards/nucleo-l4r5zi",), "executor.kind", "executor: the executor has no 'kind'"),
        (("arm/rasp4b",), "targets[0].tag", "targets[0]: a target table needs 'kind' (or 'tag')"),
    ],
)
def test_a_table_left_without_its_kind_is_blamed_on_the_unset(
    configs: tuple[str, ...], path: str, message: str
) -> None:
    # These were located at the shipped file that wrote the table, not at the flag that emptied it.
    with pytest.raises(TvmcError) as err:
        resolve(("--unset", path), configs=configs)
    assert err.value.one_line().startswith(f"--unset={path}: {message}")


def test_an_unset_value_of_a_written_out_tag_stays_unset() -> None:
    after = resolve(("--set", "targets[0].mattr+=+crc"), ("--unset", "targets[0].mcpu"), configs=("arm/rasp4b",))
    assert explain.get(after.to_dict(), after.origins, "targets[0].mcpu") is None
    assert explain.get(after.to_dict(), after.origins, "targets[0].kind") is not None


@pytest.mark.parametrize(
    ("configs", "cpu"),
    [
        (["arm/rasp4b"], "cortex-a53"),
        (["nvidia/jetson-nano"], "cortex-a53"),
        (["boards/corstone-300"], "cortex-m7"),
        (["aws/c5"], "znver3"),
    ],
)
def test_a_path_into_a_targets_host_is_the_hosts_for_set_as_for_get(configs: list[str], cpu: str) -> None:
    # `config get targets[0].host.mcpu` reads the build's one host; --set of the value it printed
    # wrote a host without a kind into the target ("target has no 'kind' (and no 'tag')").
    before = api.resolve(configs, [], env={})
    printed = explain.get(before.to_dict(), before.origins, "targets[0].host.mcpu")
    assert printed is not None
    after = api.resolve(configs, [("--set", f"targets[0].host.mcpu={printed.value}")], env={})
    assert after.to_dict() == before.to_dict()
    other = api.resolve(configs, [("--set", f"targets[0].host.mcpu={cpu}")], env={}).to_dict()
    assert other == api.resolve(configs, [("--set", f"host.mcpu={cpu}")], env={}).to_dict()
