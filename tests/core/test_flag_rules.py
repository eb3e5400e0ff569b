"""Issue 15, items 4, 7, 8, 9 and the rewrite messages: flag values read as TOML, a target patch
reaches the host, a discarded flag is reported, an option of the default executor/runtime
implies its kind."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tvmc import api
from tvmc.errors import TvmcError, UsageError
from tvmc.validate.diagnostics import RULES
from tvmc.values import ValueTypeError, coerce_text, parse_literal


def mattr(*flags: tuple[str, str]) -> list[str]:
    return list(api.resolve(["aws/c5"], list(flags), env={}).config.targets[0]["mattr"])


@pytest.mark.parametrize(
    ("flag", "value", "expected"),
    [
        ("--target-llvm-mattr", '"+avx2"', ["+avx2"]),
        ("--target-llvm-mattr", " +avx2 , +fma ", ["+avx2", "+fma"]),
        ("--set", 'targets[0].mattr="+avx2,+fma"', ["+avx2", "+fma"]),
        ("--set", "targets[0].mattr=['+avx', '+fma']", ["+avx", "+fma"]),
        ("--set", 'targets[kind=llvm].mattr+=["+avx","+fma"]', ["+avx", "+fma"]),
        ("--set", 'targets[kind="llvm"].mattr=+avx', ["+avx"]),
    ],
)
def test_values_are_read_as_toml_then_typed(flag: str, value: str, expected: list[str]) -> None:
    assert mattr((flag, value)) == expected


@pytest.mark.parametrize("value", ["targets[kind=llvm].mattr+=[+a,+b]", 'targets[0].mattr="+a', "opt-level={x"])
def test_invalid_toml_looking_values_are_flag_errors(value: str) -> None:
    with pytest.raises(UsageError, match="not a valid TOML value") as err:
        api.resolve(["aws/c5"], [("--set", value)], env={})
    assert err.value.exit_code == 2 and str(err.value.location).startswith("--set=")


def test_spaces_around_equals_are_named() -> None:
    with pytest.raises(UsageError, match="no spaces between the path and '='"):
        api.resolve(["aws/c5"], [("--set", "opt-level = 2")], env={})


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30))
def test_parse_literal_never_leaks_a_parser_error(text: str) -> None:
    try:
        value = parse_literal(text)
    except ValueTypeError:
        assert text.strip().startswith(("[", "{", '"', "'"))
        return
    if isinstance(value, str) and not text.strip().startswith(("'", '"')):
        assert value == text.strip()


def test_array_coercion_of_a_toml_string_is_a_comma_list() -> None:
    assert coerce_text('"a, b"', "Array<str>") == ["a", "b"]
    assert coerce_text("[1, 2]", "Array<int>") == [1, 2]


@pytest.mark.parametrize(
    ("configs", "flags"),
    [
        ([], [("--target", "cuda, llvm"), ("--target-llvm-mcpu", "znver3")]),
        (["nvidia/nvidia-a100"], [("--target-llvm-mcpu", "znver3")]),
    ],
)
def test_target_patch_reaches_the_host(configs: list[str], flags: list[tuple[str, str]]) -> None:
    resolved = api.resolve(configs, flags, env={})
    assert resolved.config.host is not None and resolved.config.host["mcpu"] == "znver3"
    assert resolved.origin("/host/mcpu").source == "--target-llvm-mcpu=znver3"
    assert resolved.config.targets[0]["kind"] == "cuda" and "mcpu" not in resolved.config.targets[0]


def test_target_patch_patches_targets_and_host_and_fails_only_when_neither_matches() -> None:
    both = api.resolve([], [("--target", "llvm"), ("--target-host", "llvm"), ("--target-llvm-mcpu", "znver3")], env={})
    assert both.config.targets[0]["mcpu"] == "znver3" and both.config.host is not None
    assert both.config.host["mcpu"] == "znver3"
    with pytest.raises(UsageError, match=r"no target of kind 'c' \(targets: cuda; host: llvm\)"):
        api.resolve(["nvidia/nvidia-a100"], [("--target-c-mcpu", "x")], env={})


def test_a_discarded_flag_is_reported_naming_both() -> None:
    resolved = api.resolve([], [("--target-llvm-mcpu", "znver3"), ("--target", "llvm -mtriple=x86_64-linux-gnu")])
    assert "mcpu" not in resolved.config.targets[0]
    assert any(
        "--target-llvm-mcpu=znver3 has no effect" in note and "--target=llvm -mtriple=x86_64-linux-gnu" in note
        for note in resolved.notes
    )
    assert any("-O 1 has no effect" in n for n in api.resolve([], [("-O", "1"), ("-O", "2")]).notes)
    assert not any("no effect" in n for n in api.resolve([], [("-O", "1"), ("-O", "1")]).notes)
    kept = api.resolve([], [("--target", "llvm"), ("--target-llvm-mcpu", "znver3")])
    assert not any("no effect" in n for n in kept.notes)


def test_a_patch_before_the_target_it_needs_says_so() -> None:
    with pytest.raises(UsageError, match="it comes before --target=cuda") as err:
        api.resolve([], [("--target-cuda-max-num-threads", "512"), ("--target", "cuda")], env={})
    assert err.value.exit_code == 2


def test_options_of_the_default_kind_imply_it() -> None:
    vm = api.resolve([], [("--executor-vm-exec-mode", "compiled")], env={}).config
    assert vm.executor == {"kind": "vm", "exec-mode": "compiled"}
    cpp = api.resolve([], [("--set", "runtime.system-lib=true")], env={}).config
    assert cpp.runtime == {"kind": "cpp", "system-lib": True}
    with pytest.raises(UsageError, match="no executor is set"):  # aot is never implied
        api.resolve([], [("--executor-aot-unpacked-api", "true")], env={})


@pytest.mark.parametrize(
    ("configs", "flags", "code"),
    [
        # the rule engine refuses the value, as it would in a file: invalid input, exit 1
        (["nvidia/nvidia-a100"], [("--target-cuda-arch", "80")], 1),
        (["aws/c5"], [("--set", "targets[0].compiler=cublass")], 1),
        (["aws/c5"], [("--unset", "targets[0]")], 1),
        ([], [("-O", "7")], 1),
        ([], [("--executor-vm-exec-mode", "bogus")], 1),
        ([], [("--set", "executor.kind=bogus")], 1),
        ([], [("--executor", "bogus")], 1),
        ([], [("--runtime", "bogus")], 1),
        ([], [("--pass-config", "tirx.no_such_config=1")], 1),
        # the command line itself is malformed (not the flag's type, a rewrite that cannot apply): exit 2
        (["aws/c5"], [("--set", "targets[0].mcpu+=x")], 2),
        ([], [("-O", "x")], 2),
    ],
)
def test_a_mistake_in_a_flag_names_the_flag(configs: list[str], flags: list[tuple[str, str]], code: int) -> None:
    with pytest.raises(TvmcError) as err:
        api.resolve(configs, flags, env={})
    flag = flags[-1][0]
    assert err.value.exit_code == code and str(err.value.location).startswith(flag), err.value.one_line()
    assert isinstance(err.value, UsageError) == (code == 2)
    assert err.value.rule in RULES  # one problem record, its rule id registered


def test_a_mistake_in_a_tvmc_variable_names_it() -> None:
    with pytest.raises(TvmcError) as err:
        api.resolve([], [], env={"TVMC_OPT_LEVEL": "9"})
    assert err.value.exit_code == 1 and err.value.rule == "invalid-value"
    assert str(err.value.location) == "env TVMC_OPT_LEVEL"


# Every TVMC_* variable's mistakes, whichever stage finds them, name it one way: `env TVMC_X`
# (TVMC_OPT_LEVEL=abc said `TVMC_OPT_LEVEL: ...` while TVMC_OPT_LEVEL=9 said `env TVMC_OPT_LEVEL: ...`).
BAD_ENV = [
    ("TVMC_OPT_LEVEL", "abc"),
    ("TVMC_OPT_LEVEL", "9"),
    ("TVMC_OPT_LEVEL", "1\udcff"),
    ("TVMC_TARGET", "nosuchkind"),
    ("TVMC_TARGET", "llvm -mcpu=nosuchcpu"),
    ("TVMC_TARGET_HOST", "nosuchkind"),
    ("TVMC_EXECUTOR", "nosuchexecutor"),
    ("TVMC_RUNTIME", "nosuchruntime"),
    ("TVMC_EXECUTOR", "x" * 100_000),
    ("TVMC_CONFIG", "no-such-config"),
    ("TVMC_CONFIG", "a:b:c"),
]


@pytest.mark.parametrize(("var", "value"), BAD_ENV)
def test_every_tvmc_variable_mistake_names_it_as_env(var: str, value: str) -> None:
    with pytest.raises(TvmcError) as err:
        api.resolve([], [], env={var: value})
    assert str(err.value.location) == f"env {var}", err.value.one_line()
    assert err.value.one_line().startswith(f"env {var}: "), err.value.one_line()
