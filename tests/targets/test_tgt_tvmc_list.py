"""Old tvmc's comma-separated --target lists (python/tvm/driver/tvmc/target.py at v0.19.0: tokenize_target,
parse_target, validate_targets), done without its bugs."""

from __future__ import annotations

import pytest
from tvmc.errors import Location, TargetError
from tvmc.targets import parse_targets, split_list


def entries(text: str) -> list[str]:
    return [e.strip() for e, _ in split_list(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "ethos-u -accelerator_config=ethos-u55-256, cmsis-nn, c",
            ["ethos-u -accelerator_config=ethos-u55-256", "cmsis-nn", "c"],
        ),
        ("ethos-n, cmsis-nn, c", ["ethos-n", "cmsis-nn", "c"]),
        ("cmsis-nn,c", ["cmsis-nn", "c"]),
        ("llvm -mattr=+neon,+dotprod", ["llvm -mattr=+neon,+dotprod"]),
        ("llvm -mattr +neon,+dotprod", ["llvm -mattr +neon,+dotprod"]),
        ("llvm -mattr='+neon, +dotprod'", ["llvm -mattr='+neon, +dotprod'"]),
        ('llvm -mattr="+neon, +dotprod"', ['llvm -mattr="+neon, +dotprod"']),
        ("llvm -mattr=+neon, +dotprod", ["llvm -mattr=+neon", "+dotprod"]),
        ("nvidia/geforce-gt-730-ddr3,128bit", ["nvidia/geforce-gt-730-ddr3,128bit"]),
        ("nvidia/geforce-gt-730-ddr3,128bit,llvm", ["nvidia/geforce-gt-730-ddr3,128bit", "llvm"]),
        ("c --system-lib,cmsis-nn", ["c --system-lib", "cmsis-nn"]),
        ("llvm , c", ["llvm", "c"]),
        ("composite -devices=cuda,opencl, llvm", ["composite -devices=cuda,opencl", "llvm"]),
        ("llvm -mcpu='a,b',c", ["llvm -mcpu='a,b',c"]),
        ("llvm,", ["llvm", ""]),
    ],
)
def test_split_list(text: str, expected: list[str]) -> None:
    assert entries(text) == expected


def test_byoc_targets_keep_their_order_and_the_second_kind_is_the_host() -> None:
    parsed = parse_targets("ethos-u -accelerator_config=ethos-u55-256, cmsis-nn, c")
    assert parsed.targets == (
        {"kind": "ethos-u", "accelerator_config": "ethos-u55-256"},
        {"kind": "cmsis-nn"},
        {"kind": "c"},
    )
    assert parsed.host is None
    parsed = parse_targets("opencl -device=mali, llvm -mtriple=aarch64-linux-gnu -mattr=+neon,+dotprod")
    assert parsed.targets == ({"kind": "opencl", "device": "mali"},)
    assert parsed.host == {"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mattr": ["+neon", "+dotprod"]}
    assert any("host" in n for n in parsed.notes)


def test_same_kind_twice_is_refused_as_old_tvmc_did() -> None:
    # old tvmc's test_target_from_cli__error_duplicate (tests/python/driver/tvmc/test_target.py, v0.19.0)
    for text in ("llvm, llvm", "llvm -mcpu=cortex-a72, llvm -mcpu=skylake"):
        with pytest.raises(TargetError, match="Duplicate target definitions are not allowed"):
            parse_targets(text)


def test_tags_work_in_lists() -> None:
    parsed = parse_targets("nvidia/geforce-gt-730-ddr3,128bit, llvm")
    assert parsed.targets[0]["arch"] == "sm_21"
    assert parsed.host == {"kind": "llvm"}
    assert parse_targets("nvidia/jetson-nano").targets[0]["arch"] == "sm_53"


def test_single_forms_are_not_split() -> None:
    assert parse_targets('{"kind": "cuda", "arch": "sm_80", "libs": ["a", "b"]}').targets == (
        {"kind": "cuda", "arch": "sm_80", "libs": ["a", "b"]},
    )
    table = {"kind": "llvm", "mattr": ["+a", "+b"]}
    assert parse_targets(table).targets == (table,)


def test_sequences_concatenate() -> None:
    parsed = parse_targets(["cuda", {"kind": "llvm"}, "cmsis-nn, c"])
    assert [t["kind"] for t in parsed.targets] == ["cuda", "llvm", "cmsis-nn", "c"]
    assert parsed.host is None


def test_lifted_settings_are_collected() -> None:
    parsed = parse_targets("cmsis-nn, c -runtime=c -system-lib")
    assert parsed.lifted == {"runtime": {"kind": "crt", "system-lib": True}}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cuda, llvm, c", "would be the third"),
        ("cmsis-nn, cmsis-nn, c", "listed twice"),
        ("llvm,", "empty entry"),
        (", llvm", "empty entry"),
        ("cuda -host=llvm, c", "already sets -host"),
        ("llvm, nope", 'Target kind "nope" is not defined'),
        ("c -system-lib, llvm -system-lib=0", "conflicting legacy settings"),
    ],
)
def test_list_errors(text: str, message: str) -> None:
    with pytest.raises(TargetError) as info:
        parse_targets(text)
    assert message in info.value.message


def test_a_space_after_a_comma_gets_a_hint() -> None:
    with pytest.raises(TargetError, match=r'Target kind "\+dotprod" is not defined') as info:
        parse_targets("llvm -mattr=+neon, +dotprod")
    assert "-mattr=+a,+b" in (info.value.hint or "")


def test_error_location_points_into_the_list() -> None:
    with pytest.raises(TargetError) as info:
        parse_targets("llvm, nope", source=Location("--target", 1, 1))
    assert info.value.location == Location("--target", 1, 7)
