"""`tvmc.explain`: the history behind one value, replayed layer by layer (issue 15)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tvmc import api, explain
from tvmc.errors import UsageError
from tvmc.rewrites.grammar import Index, Key, Select


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_parse_uses_the_rewrite_grammar() -> None:
    assert explain.parse("targets[kind=llvm].mcpu") == (Key("targets"), Select("kind", "llvm"), Key("mcpu"))
    assert explain.parse('pass-config."tir.disable_vectorize"') == (Key("pass-config"), Key("tir.disable_vectorize"))
    with pytest.raises(UsageError, match="did you mean 'opt-level'"):
        explain.parse("opt-levl")
    with pytest.raises(UsageError, match="unexpected '=3' after the path"):
        explain.parse("opt-level=3")


def test_lookup_selects_indexes_and_expands_written_targets_only_when_asked() -> None:
    data = {"targets": ["llvm -mcpu=znver3", {"kind": "cuda", "arch": "sm_80"}]}
    assert explain.lookup(data, (Key("targets"), Index(-1), Key("arch"))) == [("/targets/1/arch", "sm_80")]
    assert explain.lookup(data, (Key("targets"), Index(0), Key("mcpu"))) == []
    assert explain.lookup(data, (Key("targets"), Select("kind", "llvm"), Key("mcpu")), expand=True) == [
        ("/targets/0/mcpu", "znver3")
    ]
    # a PATH ending at a written target gets it as written
    assert explain.lookup(data, (Key("targets"), Index(0)), expand=True) == [("/targets/0", "llvm -mcpu=znver3")]


def test_a_shared_base_is_one_step_and_the_winner_is_last(tmp_path: Path) -> None:
    """The README's linearization example: common, syslib, debug, mine — common applied once."""
    write(tmp_path / "common.toml", 'targets = ["llvm"]\nruntime = { kind = "cpp", system-lib = false }\n')
    write(tmp_path / "syslib.toml", 'extends = ["common.toml"]\nruntime.system-lib = true\n')
    write(tmp_path / "debug.toml", 'extends = ["common.toml"]\nopt-level = 0\n')
    mine = write(tmp_path / "mine.toml", 'extends = ["syslib.toml", "debug.toml"]\n')
    result = api.explain([str(mine)], [], "runtime.system-lib", env={})
    assert [(Path(s.where.split(":")[0]).name, s.value) for s in result.steps] == [
        ("common.toml", False),
        ("syslib.toml", True),
    ]
    assert result.final is not None and result.final.value is True
    assert "syslib.toml:2:9 (via --config " in result.steps[-1].where


def test_defaults_environment_and_flags_in_order() -> None:
    result = api.explain(["aws/c5"], [("-O", "2"), ("--set", "opt-level=1")], "opt-level", env={"TVMC_OPT_LEVEL": "0"})
    assert [(s.where, s.value) for s in result.steps] == [
        ("default", 3),
        ("env TVMC_OPT_LEVEL", 0),
        ("-O 2", 2),
        ("--set=opt-level=1", 1),
    ]
    assert result.final is not None and result.final.value == 1


def test_a_value_a_later_layer_removes_is_an_unset_step() -> None:
    result = api.explain(["aws/c5"], [("--target", "cuda")], "targets[0].mcpu", env={})
    assert [s.action for s in result.steps] == ["set", "unset"]
    assert result.steps[1].where == "--target=cuda"
    assert result.final is None


def test_written_values_and_the_canonical_value(tmp_path: Path) -> None:
    """A legacy target string is shown as written; the value read from it names the string."""
    conf = write(tmp_path / "c.toml", 'targets = ["llvm -mcpu=znver3 -mattr=+avx2"]\n')
    whole = api.explain([str(conf)], [], "targets[0]", env={})
    assert whole.steps[-1].value == "llvm -mcpu=znver3 -mattr=+avx2"
    assert whole.final is not None and whole.final.value["kind"] == "llvm" and "keys" in whole.final.value
    inner = api.explain([str(conf)], [("--set", "targets[0].mattr+=+fma")], "targets[0].mattr", env={})
    assert [(s.value, s.expanded_from) for s in inner.steps] == [
        (["+avx2"], "llvm -mcpu=znver3 -mattr=+avx2"),
        (["+avx2", "+fma"], None),
    ]
    assert inner.steps[1].where == "--set=targets[0].mattr+=+fma"


def test_a_host_no_layer_wrote_is_explained_by_the_cpu_target() -> None:
    result = api.explain(["aws/c5"], [], "host.mcpu", env={})
    assert result.notes == ("host.mcpu is targets[0].mcpu as written (the host is derived from it)",)
    assert [s.value for s in result.steps] == ["skylake-avx512"]
    assert result.steps[0].where.startswith("configs/aws/c5.toml:")


def test_a_host_inside_a_tag_names_the_tag() -> None:
    result = api.explain(["nvidia/jetson-agx-orin-64gb"], [], "host.mcpu", env={})
    assert [(s.value, s.expanded_from) for s in result.steps] == [("cortex-a78", "nvidia/jetson-agx-orin-64gb")]
    assert result.steps[0].where.startswith("configs/nvidia/jetson-agx-orin-64gb.toml:")


@pytest.mark.parametrize(
    ("configs", "flags", "path"),
    [
        (["arm/rasp4b"], [], "targets[0].model"),
        (["arm/rasp4b"], [], "targets[0].kind"),
        (["arm/rasp4b"], [("--target", "nvidia/geforce-rtx-4090")], "host.model"),
    ],
)
def test_a_value_a_tag_table_expanded_to_has_the_origin_get_prints(
    configs: list[str], flags: list[tuple[str, str]], path: str
) -> None:
    # `{ tag = "arm/rasp4b", ... }`: explain named the table (line 10, column 12), `get --origin`
    # and `show --origin` its `tag` key (column 14).
    resolved = api.resolve(configs, flags, env={})
    found = explain.get(resolved.to_dict(), resolved.origins, path)
    result = api.explain(configs, flags, path, env={})
    assert found is not None and result.steps[-1].expanded_from == "tag arm/rasp4b"
    assert result.steps[-1].where == str(found.origin), (result.steps[-1].where, str(found.origin))


def test_a_cpu_moved_to_host_names_the_layer_that_moved_it() -> None:
    result = api.explain(["aws/c5", "nvidia/geforce-rtx-4090"], [], "host.mcpu", env={})
    (step,) = result.steps
    assert step.where.startswith("configs/aws/c5.toml:")
    assert step.applying is not None and "nvidia/geforce-rtx-4090" in step.applying


def test_a_failing_canonicalization_keeps_the_history(tmp_path: Path) -> None:
    conf = write(tmp_path / "c.toml", 'targets = ["llvm"]\nopt-level = 9\n')
    result = api.explain([str(conf)], [], "opt-level", env={})
    assert [s.value for s in result.steps] == [3, 9]
    assert result.final is None and result.error is not None and "opt-level" in result.error.one_line()


def test_to_dict_is_json_ready() -> None:
    doc = api.explain(["aws/c5"], [("-O", "1")], "opt-level", env={}).to_dict()
    assert doc["value"] == 1 and doc["set"] is True and doc["pointer"] == "/opt-level"
    assert doc["steps"][-1] == {"action": "set", "path": "opt-level", "origin": "-O 1", "value": 1}


def test_arguments_are_checked() -> None:
    with pytest.raises(TypeError, match="path: expected a non-empty str"):
        api.explain(["aws/c5"], [], 3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"rewrites\[0\]: the value of -O must be a str"):
        api.explain(["aws/c5"], [("-O", 1)], "opt-level")  # type: ignore[list-item]


@settings(max_examples=25, deadline=None)
@given(
    levels=st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=1, max_size=5),
    flags=st.lists(st.integers(0, 3), max_size=3),
)
def test_every_setter_in_order_and_the_last_is_the_value(
    tmp_path_factory: pytest.TempPathFactory, levels: list[int | None], flags: list[int]
) -> None:
    """A chain of files (each extends the previous), some setting opt-level, then -O flags: the
    steps are the default, every file that set it and every flag, in that order."""
    root = tmp_path_factory.mktemp("chain")
    previous = None
    for index, level in enumerate(levels):
        lines = [f'extends = ["{previous}"]'] if previous else ['targets = ["llvm"]']
        if level is not None:
            lines.append(f"opt-level = {level}")
        write(root / f"f{index}.toml", "\n".join(lines) + "\n")
        previous = f"f{index}.toml"
    result = api.explain([str(root / f"f{len(levels) - 1}.toml")], [("-O", str(f)) for f in flags], "opt-level", env={})
    expected = [3] + [lv for lv in levels if lv is not None] + flags
    assert [s.value for s in result.steps] == expected
    assert result.final is not None
    assert (
        result.final.value
        == expected[-1]
        == api.resolve(
            [str(root / f"f{len(levels) - 1}.toml")], [("-O", str(f)) for f in flags], env={}
        ).config.to_dict()["opt-level"]
    )


@pytest.mark.parametrize("spelling", ['"tir.UnrollLoop"', '"tirx.UnrollLoop"'])
@pytest.mark.parametrize(
    ("written", "flags", "where"),
    [
        ('[pass-config]\n"tir.UnrollLoop" = { auto_max_step = 8 }\n', [], "c.toml:3:"),
        ("[pass-config.tir.UnrollLoop]\nauto_max_step = 8\n", [], "c.toml:3:"),
        ("", [("--set", 'pass-config."tir.UnrollLoop".auto_max_step=8')], "--set="),
        ("", [("--pass-config", "tir.UnrollLoop={auto_max_step=8}")], "--pass-config="),
    ],
    ids=["file", "nested", "set", "pass-config"],
)
def test_a_field_of_an_object_pass_config_in_the_old_spelling_has_its_origin(
    tmp_path: Path, spelling: str, written: str, flags: list[tuple[str, str]], where: str
) -> None:
    """A field of `tir.UnrollLoop` (canonical `tirx.UnrollLoop`) was "default" in get and
    show --origin, and "not set" for get in the spelling written: a pass config is one key in
    any spelling, its fields too."""
    config = write(tmp_path / "c.toml", 'targets = ["llvm"]\n' + written)
    resolved = api.resolve([str(config)], flags, env={})
    path = f"pass-config.{spelling}.auto_max_step"
    found = explain.get(resolved.to_dict(), resolved.origins, path)
    assert found is not None and found.value == 8 and where in str(found.origin), found
    shown = resolved.origins["/pass-config/tirx.UnrollLoop/auto_max_step"]
    assert where in str(shown)
    explained = api.explain([str(config)], flags, path, env={})
    assert explained.final is not None and explained.final.value == 8
    assert explained.steps and explained.steps[-1].where == str(found.origin)


def test_a_name_of_the_sorted_disabled_pass_has_the_origin_where_it_was_written(tmp_path: Path) -> None:
    """disabled-pass is a sorted set: `["B", "A"]` is `["A", "B"]`, and "A" was written at the
    second element, not the first (get/show --origin gave "A" the origin of "B")."""
    config = write(tmp_path / "c.toml", 'targets = ["llvm"]\ndisabled-pass = ["B", "A"]\n')
    flags = [("--set", "disabled-pass+=C,A")]
    resolved = api.resolve([str(config)], flags, env={})
    assert resolved.to_dict()["disabled-pass"] == ["A", "B", "C"]
    where = {p: str(o).split(" ")[0].rsplit("/", 1)[-1] for p, o in resolved.origins.items() if "disabled" in p}
    assert where["/disabled-pass/0"] == "c.toml:2:23" and where["/disabled-pass/1"] == "c.toml:2:18"
    assert where["/disabled-pass/2"] == "--set=disabled-pass+=C,A"
    for index, name in enumerate(["A", "B", "C"]):
        found = explain.get(resolved.to_dict(), resolved.origins, f"disabled-pass[{index}]")
        explained = api.explain([str(config)], flags, f"disabled-pass[{index}]", env={})
        assert found is not None and found.value == name and explained.final is not None
        assert explained.steps[-1].where == str(found.origin) and explained.steps[-1].value == name


@pytest.mark.parametrize(
    ("configs", "flag", "path"),
    [
        (["arm/rasp4b"], "targets[0].mattr+=+vfp4", "targets[0].mattr"),
        (["aws/c5"], "targets[0].mattr+=+avx2,+fma", "targets[0].mattr"),
        (["aws/c5"], "disabled-pass+=FoldScaleAxis", "disabled-pass"),
    ],
)
def test_a_list_appended_to_has_the_flag_as_its_origin_in_get_and_explain(
    configs: list[str], flag: str, path: str
) -> None:
    """After `PATH+=V` explain's winner was the flag but get --origin (its JSON `origin`) kept the
    list's first writer; `--unset PATH[i]` already made the flag the list's origin."""
    resolved = api.resolve(configs, [("--set", flag)], env={})
    found = explain.get(resolved.to_dict(), resolved.origins, path)
    explained = api.explain(configs, [("--set", flag)], path, env={})
    assert found is not None and str(found.origin) == f"--set={flag}"
    assert explained.steps[-1].where == str(found.origin)
    unchanged = api.resolve(configs, [("--set", f"{path}+=[]")], env={}) if path == "disabled-pass" else None
    if unchanged is not None:  # appending nothing changes nothing, its origin included
        assert unchanged.origins == api.resolve(configs, [], env={}).origins


def test_an_edit_by_index_of_disabled_pass_reaches_the_name_get_prints_there(tmp_path: Path) -> None:
    """`config get disabled-pass[0]` is "A" for `["B", "A"]`, but `--set disabled-pass[0]=A` (its own
    value) dropped "B" and `--unset disabled-pass[0]` removed "B": the index was the written one."""
    config = str(write(tmp_path / "c.toml", 'targets = ["llvm"]\ndisabled-pass = ["B", "A"]\n'))
    before = api.resolve([config], [], env={})
    first = explain.get(before.to_dict(), before.origins, "disabled-pass[0]")
    assert first is not None and first.value == "A"
    same = api.resolve([config], [("--set", "disabled-pass[0]=A")], env={})
    assert same.fingerprint() == before.fingerprint() and same.to_dict() == before.to_dict()
    unset = api.resolve([config], [("--unset", "disabled-pass[0]")], env={})
    assert unset.to_dict()["disabled-pass"] == ["B"]
    assert "c.toml:2:18 " in str(unset.origins["/disabled-pass/0"])
