"""The legacy string grammar (v0.10+ dialect of TVM's src/target/target.cc) and legacy lifting."""

from __future__ import annotations

from typing import Any

import pytest
from tvmc.errors import Location, TargetError
from tvmc.targets import canonicalize, parse_target, to_legacy
from tvmc.targets.legacy import interpret, is_quoted, split_string, uninterpret


def spec(text: str) -> dict[str, Any]:
    return parse_target(text).spec


def error(text: str) -> TargetError:
    with pytest.raises(TargetError) as info:
        parse_target(text)
    return info.value


# --- tokenization (SplitString) -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("llvm  -mcpu=x ", ["llvm", "-mcpu=x"]),
        ("a 'b c' d", ["a", "'b c'", "d"]),
        ("-x='a b'", ["-x='a b'"]),
        ("a\\ b c", ["a\\ b", "c"]),  # an escape pair is kept and protects the space
        ("a\\'b c", ["a\\'b", "c"]),  # an escaped quote does not open a quoted run
        ('-x="a b"', ['-x="a', 'b"']),  # double quotes are ordinary characters
        ("", []),
        ("   ", []),
    ],
)
def test_split_string_on_spaces(text: str, words: list[str]) -> None:
    assert [w for w, _ in split_string(text, " ")] == words


def test_split_string_reports_offsets() -> None:
    assert split_string("ab  cd", " ") == [("ab", 0), ("cd", 4)]


def test_mismatched_quote_is_an_error_at_the_quote() -> None:
    with pytest.raises(TargetError, match="Mismatched quotes") as info:
        parse_target("llvm -mcpu='x", source=Location("f.toml", 2, 5))
    assert info.value.location == Location("f.toml", 2, 5 + 11)


# --- Interpret ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("blah", "blah"),
        ("'blah'", "blah"),
        ("'bl'ah", "'bl'ah"),
        ("'\\'blah\\''", "'blah'"),
        ("'\\'\\\\\\'blah\\\\\\'\\''", "'\\'blah\\''"),
        ("a\\ b", "a b"),
        ("a'b c'd", "a'b c'd"),
        ("'a\\'", "'a\\'"),  # the final quote is escaped, so the quotes do not enclose
        ("", ""),
    ],
)
def test_interpret(raw: str, value: str) -> None:
    assert interpret(raw) == value


@pytest.mark.parametrize("text", ["", "plain", "it's", "back\\slash", "'quoted'", "a b,c"])
def test_uninterpret_inverts_interpret_inside_quotes(text: str) -> None:
    quoted = "'" + uninterpret(text) + "'"
    assert is_quoted(quoted)
    assert interpret(quoted) == text


# --- tokens and values (ParseType) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("llvm", {"kind": "llvm"}),
        ("llvm -mcpu=skylake", {"kind": "llvm", "mcpu": "skylake"}),
        ("llvm --mcpu=skylake", {"kind": "llvm", "mcpu": "skylake"}),
        ("llvm ---mcpu=skylake", {"kind": "llvm", "mcpu": "skylake"}),
        ("llvm -mcpu skylake", {"kind": "llvm", "mcpu": "skylake"}),
        ("llvm -mcpu", {"kind": "llvm", "mcpu": "1"}),  # a bare flag on a str option stores "1"
        ("llvm -fast-math", {"kind": "llvm", "fast-math": True}),
        ("llvm -mtriple=a=b", {"kind": "llvm", "mtriple": "a=b"}),
        ("llvm -mcpu=' skylake '", {"kind": "llvm", "mcpu": "skylake"}),
        ("llvm -mcpu='  '", {"kind": "llvm", "mcpu": ""}),
        ("llvm -mcpu='a b'", {"kind": "llvm", "mcpu": "a b"}),
        ("llvm -mcpu=a\\ b", {"kind": "llvm", "mcpu": "a b"}),
        ("llvm -mcpu=a'b c'd", {"kind": "llvm", "mcpu": "a'b c'd"}),
        # Old tvmc's double quotes quote a value, in every entry point (issue 26 row 15); TVM's own
        # grammar kept them as characters. Anywhere else a double quote is still a character.
        ('llvm -mcpu="x"', {"kind": "llvm", "mcpu": "x"}),
        ('llvm -mcpu=a"x"', {"kind": "llvm", "mcpu": 'a"x"'}),
        ("llvm -mcpu='\"x\"'", {"kind": "llvm", "mcpu": '"x"'}),
        ("llvm -num-cores=4", {"kind": "llvm", "num-cores": 4}),
        ("llvm -num-cores=-1", {"kind": "llvm", "num-cores": -1}),
        ("llvm -num-cores=True", {"kind": "llvm", "num-cores": 1}),
        ("llvm -num-cores=false", {"kind": "llvm", "num-cores": 0}),
        ("llvm -num-cores=' 7'", {"kind": "llvm", "num-cores": 7}),
        ("llvm -fast-math=2", {"kind": "llvm", "fast-math": True}),
        ("llvm -fast-math=0", {"kind": "llvm", "fast-math": False}),
        ("llvm -mattr=+neon,+avx", {"kind": "llvm", "mattr": ["+neon", "+avx"]}),
        ("llvm -mattr=a,,b", {"kind": "llvm", "mattr": ["a", "b"]}),
        ("llvm -mattr=,", {"kind": "llvm", "mattr": []}),
        ("llvm -mattr=''", {"kind": "llvm", "mattr": []}),
        ("llvm -mattr=x\\,y,z", {"kind": "llvm", "mattr": ["x", "y", "z"]}),  # \, does not protect
        ("llvm -libs='fred, foo, bar',baz", {"kind": "llvm", "libs": ["fred, foo, bar", "baz"]}),
        ("llvm -mattr='+neon, +dotprod'", {"kind": "llvm", "mattr": ["+neon", "+dotprod"]}),
        ("llvm -keys=cpu,cpu,x86", {"kind": "llvm", "keys": ["cpu", "cpu", "x86"]}),
        ("llvm -keys=''", {"kind": "llvm", "keys": []}),
        ("llvm -tag=mine", {"kind": "llvm", "tag": "mine"}),
        ("llvm -from_device=-1", {"kind": "llvm", "from_device": -1}),
        ("cuda -arch=sm_80 -compiler=cutlass", {"kind": "cuda", "arch": "sm_80", "compiler": "cutlass"}),
    ],
)
def test_parse_legacy_string(text: str, expected: dict[str, Any]) -> None:
    assert spec(text) == expected


@pytest.mark.parametrize(
    ("text", "value", "note"),
    [
        ("4abc", 4, "read as 4"),
        ("4.5", 4, "read as 4"),
        ("0x10", 0, "read as 0"),
    ],
)
def test_integer_prefix_is_read_like_legacy_tvm_with_a_note(text: str, value: int, note: str) -> None:
    parsed = parse_target(f"llvm -num-cores={text}")
    assert parsed.spec["num-cores"] == value
    assert any(note in n for n in parsed.notes)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("llvm mcpu=x", "should start with '-'"),
        ("llvm --", "Not an attribute key"),
        ("llvm -mcpu=", "Empty attribute key or value"),
        ("llvm -=x", "Empty attribute key or value"),
        ("llvm -num-cores= 4", "Empty attribute key or value"),
        ("llvm -mcpu=a -mcpu=b", 'The key "mcpu" appears more than once'),
        ("llvm -mattr=+a -mattr=+b", 'The key "mattr" appears more than once'),
        ("llvm -kind=cuda", 'The key "kind" appears more than once'),
        ("llvm -num-cores=yes", "cannot parse an integer"),
        ("llvm -fast-math foo", "cannot parse a bool"),  # `-k v`: the flag swallows the next word
        ("llvm -num-cores -1", "Unknown config option '1'"),  # bare flag, then key "1"
        ("llvm -mcpuu=x", "Unknown config option 'mcpuu'"),
        ("LLVM -mcpu=x", 'Target kind "LLVM" is not defined'),
        ("", 'Target kind ""'),
        ("   ", 'Target kind ""'),
        ("llvm -mattr=+a, +b", "should start with '-'"),
        ("llvm -num-cores=99999999999999999999", "cannot parse an integer"),
    ],
)
def test_legacy_string_errors(text: str, message: str) -> None:
    assert message in error(text).message


def test_unknown_option_suggests_or_lists_known_options() -> None:
    err = error("llvm -mcpuu=x")
    assert err.suggestions == ("mcpu",) and "Known options" not in err.message  # the suggestion says enough
    assert "'mattr'" in error("llvm -zzz=x").message  # nothing close: the options are listed


def test_every_unknown_option_of_a_string_is_reported_at_once() -> None:
    err = error("llvm -mcpux=a -mtripel=b")
    assert "'mcpux' (did you mean 'mcpu'?)" in err.message and "'mtripel' (did you mean 'mtriple'?)" in err.message


def test_kind_names_are_case_sensitive_with_a_suggestion() -> None:
    assert error("LLVM").suggestions == ("llvm",)


def test_error_columns_point_at_the_token() -> None:
    err = error_at("llvm -mcpu=a -mcpu=b", Location("cfg.toml", 4, 10))
    assert err.location == Location("cfg.toml", 4, 10 + 13)


def error_at(text: str, loc: Location) -> TargetError:
    with pytest.raises(TargetError) as info:
        parse_target(text, source=loc)
    return info.value


def test_double_quotes_get_a_hint() -> None:
    # A double-quoted value with a character old tvmc's tokenizer did not quote (`:`) stays literal.
    err = error('llvm -mattr="+neon:x, +dotprod"')
    assert err.hint is not None and "single quotes" in err.hint


# --- keys, device, tag, host ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("llvm -device=arm_cpu", ["arm_cpu", "cpu"]),
        ("llvm -keys=arm_cpu", ["arm_cpu"]),  # v0.10+: user keys replace the defaults
        ("llvm -device=arm_cpu -keys=cpu", ["cpu", "arm_cpu"]),
        ("opencl -device=mali", ["mali", "opencl", "gpu"]),
        ("ext_dev -device=vta -keys=vta,cpu", ["vta", "cpu"]),
        ("cuda -keys=foo -device=bar", ["foo", "bar"]),
        ("llvm -keys=cpu,cpu,x86", ["cpu", "x86"]),
        ("c -mcpu=cortex-m55", ["arm_cpu", "cpu"]),
        ("c -mcpu=cortex-m55 -keys=foo", ["foo", "arm_cpu", "cpu"]),
        ("llvm -keys=''", []),
    ],
)
def test_keys(text: str, keys: list[str]) -> None:
    assert canonicalize(text)["keys"] == keys


def test_host_strings() -> None:
    assert spec("cuda -host='llvm -mcpu=skylake'")["host"] == {"kind": "llvm", "mcpu": "skylake"}
    assert spec("cuda --host llvm")["host"] == {"kind": "llvm"}
    assert spec("cuda --host=llvm")["host"] == {"kind": "llvm"}
    assert spec("cuda -host=nvidia/jetson-nano")["host"] == "nvidia/jetson-nano"  # tags stay names
    assert spec('cuda -host=\'{"kind":"c"}\'')["host"] == {"kind": "c"}
    nested = spec("cuda -host='llvm -host=\\'c -mcpu=x\\''")
    assert nested["host"] == {"kind": "llvm", "host": {"kind": "c", "mcpu": "x"}}


def test_tag_as_host_canonicalizes_like_tvm() -> None:
    canonical = canonicalize("cuda -arch=sm_80 -host=nvidia/jetson-agx-xavier")
    assert canonical["host"] == canonicalize("nvidia/jetson-agx-xavier")
    assert canonical["host"]["host"]["mcpu"] == "carmel"  # host of the host


def test_composite_devices() -> None:
    assert spec("composite --host=llvm --devices=cuda,opencl") == {
        "kind": "composite",
        "host": {"kind": "llvm"},
        "devices": [{"kind": "cuda"}, {"kind": "opencl"}],
    }
    devices = spec("composite -devices='cuda -arch=sm_80',llvm")["devices"]
    assert devices == [{"kind": "cuda", "arch": "sm_80"}, {"kind": "llvm"}]


def test_tags_in_strings() -> None:
    assert parse_target("nvidia/jetson-nano").spec == canonicalize_spec_of("nvidia/jetson-nano")
    assert canonicalize(parse_target("nvidia/jetson-nano").spec)["tag"] == ""  # like TVM's Target(tag)
    parsed = parse_target("nvidia/nvidia-a100 -l2_cache_size_bytes=5")
    assert parsed.spec == {"tag": "nvidia/nvidia-a100", "l2_cache_size_bytes": 5}
    assert any("tvmc extension" in n for n in parsed.notes)
    assert canonicalize(parsed.spec)["tag"] == "nvidia/nvidia-a100"
    assert parse_target("nvidia/geforce-gt-730-ddr3,128bit").spec["arch"] == "sm_21"


def canonicalize_spec_of(tag: str) -> dict[str, Any]:
    from tvmc import registry

    config = registry.tag_config(tag)
    assert config is not None
    return config


def test_renamed_tag_is_converted_by_parse_and_rejected_by_canonicalize() -> None:
    parsed = parse_target("nvidia/gtx1080ti")
    assert parsed.spec["arch"] == "sm_61"
    assert any("renamed" in n for n in parsed.notes)
    with pytest.raises(TargetError) as info:
        canonicalize("nvidia/gtx1080ti")
    assert info.value.suggestions == ("nvidia/geforce-gtx-1080-ti",)


# --- legacy-only options are lifted out of the target ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "lifted"),
    [
        ("llvm -system-lib", {"runtime": {"system-lib": True}}),
        ("llvm --system-lib=0", {"runtime": {"system-lib": False}}),
        ("llvm -link-params", {"executor": {"link-params": True}}),
        ("c -executor=aot -link-params=1", {"executor": {"kind": "aot", "link-params": True}}),
        ("c -runtime=c", {"runtime": {"kind": "crt"}}),
        ("llvm -runtime=c++", {"runtime": {"kind": "cpp"}}),
        ("c -interface-api=c -unpacked-api", {"executor": {"interface-api": "c", "unpacked-api": True}}),
        ("cuda -host='llvm -system-lib'", {"runtime": {"system-lib": True}}),
    ],
)
def test_legacy_options_are_lifted(text: str, lifted: dict[str, Any]) -> None:
    parsed = parse_target(text)
    assert parsed.lifted == lifted
    assert parsed.notes
    canonicalize(parsed.spec)  # what is left is a valid TVM 0.27 target


def test_lift_note_names_the_new_setting() -> None:
    assert parse_target("llvm -system-lib").notes == ("-system-lib moved to runtime.system-lib",)
    assert parse_target("c -runtime=c").notes == ("-runtime=c moved to runtime.kind = 'crt'",)


def test_lifting_applies_to_dicts_too() -> None:
    parsed = parse_target({"kind": "llvm", "system-lib": True, "mcpu": "x"})
    assert parsed.spec == {"kind": "llvm", "mcpu": "x"}
    assert parsed.lifted == {"runtime": {"system-lib": True}}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("llvm -runtime=foo", "unknown runtime 'foo'"),
        ("c -executor=woof", "unknown executor 'woof'"),
        ("cuda -system-lib=1 -host='llvm -system-lib=0'", "conflicting legacy settings"),
        ("llvm -executor=aot", "Unknown config option 'executor'"),  # only `c` had it
    ],
)
def test_lifting_errors(text: str, message: str) -> None:
    assert message in error(text).message


def test_canonicalize_refuses_to_drop_legacy_options() -> None:
    with pytest.raises(TargetError, match=r"runtime\.system-lib"):
        canonicalize("llvm -system-lib")
    with pytest.raises(TargetError, match="Unknown config option 'system-lib'") as info:
        canonicalize({"kind": "llvm", "system-lib": True})
    assert info.value.hint is not None and "runtime.system-lib" in info.value.hint


def test_other_legacy_conversions() -> None:
    renamed = parse_target("cuda -shared_memory_per_block=5")
    assert renamed.spec == {"kind": "cuda", "max_shared_memory_per_block": 5}
    assert renamed.notes == ("option 'shared_memory_per_block' was renamed to 'max_shared_memory_per_block'",)
    assert parse_target("llvm -libs=mkldnn,cblas").spec["libs"] == ["dnnl", "cblas"]
    assert parse_target("ethos-n78 -variant=n78").spec == {"kind": "ethos-n", "variant": "n78"}


def test_open_option_codegens_keep_unknown_options_as_text() -> None:
    assert spec("vitis-ai -dpu=DPUCZDX8G-zcu104 -extra=1") == {
        "kind": "vitis-ai",
        "dpu": "DPUCZDX8G-zcu104",
        "extra": "1",
    }


def test_legacy_kinds_parse_with_their_own_types() -> None:
    assert spec("cutlass -sm=75 -split_k_slices=1,2 -use_fast_math") == {
        "kind": "cutlass",
        "sm": 75,
        "split_k_slices": [1, 2],
        "use_fast_math": True,
    }
    canonical = canonicalize("cutlass -sm=75")
    assert canonical["tmp_dir"] == "./tmp" and canonical["split_k_slices"] == [1]


# --- printing (TargetNode::str) -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "legacy"),
    [
        ("llvm", "llvm -keys=cpu"),
        (
            {"kind": "llvm", "mcpu": "skylake", "mattr": ["+avx2", "+fma"]},
            "llvm -keys=cpu -mattr=+avx2,+fma -mcpu=skylake",
        ),
        ({"kind": "llvm", "device": "arm_cpu"}, "llvm -keys=arm_cpu,cpu -device=arm_cpu"),
        (
            {"kind": "vulkan", "device_name": "Name of GPU with spaces"},
            "vulkan -keys=vulkan,gpu -device_name='Name of GPU with spaces' -max_num_threads=256 "
            "-max_threads_per_block=256 -supports_float32=1 -supports_int32=1 -thread_warp_size=1",
        ),
        ({"kind": "llvm", "mcpu": "it's"}, "llvm -keys=cpu -mcpu='it\\'s'"),
        ({"kind": "llvm", "keys": []}, "llvm -keys=''"),
        ({"kind": "llvm", "mattr": []}, "llvm -keys=cpu -mattr=''"),
        ({"kind": "llvm", "mattr": ["a,b", "c"]}, "llvm -keys=cpu -mattr='\\'a,b\\',c'"),
        ("stackvm", "stackvm"),
        ({"kind": "llvm", "tag": "mine", "host": "c"}, "llvm -keys=cpu -host='c -keys=cpu' -tag=mine"),
        ({"kind": "llvm", "mcpu": "cortex-m55"}, "llvm -keys=arm_cpu,cpu -mcpu=cortex-m55"),
        (
            {"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mcpu": "cortex-m4"},
            "llvm -keys=arm_cpu,cpu -mcpu=cortex-m4 -mtriple=aarch64-linux-gnu",
        ),  # M-profile: has_dsp/has_mve recomputed
    ],
)
def test_to_legacy(target: Any, legacy: str) -> None:
    canonical = canonicalize(target)
    assert to_legacy(canonical) == legacy
    assert canonicalize(parse_target(legacy).spec) == canonical


@pytest.mark.parametrize(
    "target",
    [
        {"kind": "llvm", "mcpu": " padded"},
        {"kind": "llvm", "mattr": ["ok", "trailing "]},
        {"kind": "llvm", "feature.custom": 1},
        # Regression: an M-profile mcpu with an aarch64 triple was taken for A-profile, so the user's is_aarch64
        # was dropped as "recomputed", and the string canonicalized to a different target.
        {"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mcpu": "cortex-m4", "feature.is_aarch64": True},
    ],
)
def test_to_legacy_refuses_what_the_string_form_cannot_hold(target: dict[str, Any]) -> None:
    with pytest.raises(TargetError, match="legacy string form"):
        to_legacy(canonicalize(target))
