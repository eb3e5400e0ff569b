"""The layer stage: extends chains, order, RFC 0030 merge rules, origins, NAME:PART."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tvmc import api
from tvmc.errors import ConfigLayerError, ConfigNotFoundError
from tvmc.layering import Tree, merge
from tvmc.provenance import Origin, origins_for, walk
from tvmc.values import plain_copy


def tree(data: dict, source: str) -> Tree:
    return Tree(data, origins_for(data, "", lambda p: Origin("flag", source, p)))


def test_tables_deep_merge_and_scalars_replace() -> None:
    base = tree({"opt-level": 3, "pass-config": {"a": 1, "b": 2}}, "base")
    merge(base, tree({"pass-config": {"b": 3}, "opt-level": 1}, "over"))
    assert base.data == {"opt-level": 1, "pass-config": {"a": 1, "b": 3}}
    assert base.origins["/pass-config/a"].source == "base"
    assert base.origins["/pass-config/b"].source == "over"
    assert base.origins["/opt-level"].source == "over"


def test_targets_replace_wholesale() -> None:
    base = tree({"targets": [{"kind": "llvm", "mcpu": "a"}, {"kind": "cuda"}]}, "base")
    merge(base, tree({"targets": [{"kind": "c"}]}, "over"))
    assert base.data["targets"] == [{"kind": "c"}]
    assert "/targets/1" not in base.origins and "/targets/0/mcpu" not in base.origins


def test_kind_change_replaces_table_so_options_never_leak() -> None:
    # RFC 0030's system-lib example: options of the old kind must not survive a kind change.
    base = tree(
        {"executor": {"kind": "aot", "unpacked-api": True}, "runtime": {"kind": "crt", "system-lib": True}}, "base"
    )
    merge(base, tree({"executor": {"kind": "graph"}, "runtime": {"kind": "crt"}}, "over"))
    assert base.data["executor"] == {"kind": "graph"}
    assert base.data["runtime"] == {"kind": "crt", "system-lib": True}  # same kind: deep merge


def test_lists_replace_no_implicit_append() -> None:
    base = tree({"pass-config": {"x": ["+a"], "y": 1}}, "base")
    merge(base, tree({"pass-config": {"x": ["+b"]}}, "over"))
    assert base.data["pass-config"] == {"x": ["+b"], "y": 1}


def test_host_replaces_whole_like_a_target() -> None:
    # Issue 15.3: a host is a target; a layer's `host` replaces the inherited one.
    base = tree({"host": {"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mcpu": "cortex-a57"}}, "base")
    merge(base, tree({"host": {"kind": "llvm", "mtriple": "x86_64-linux-gnu"}}, "over"))
    assert base.data["host"] == {"kind": "llvm", "mtriple": "x86_64-linux-gnu"}
    assert "/host/mcpu" not in base.origins and base.origins["/host/mtriple"].source == "over"


def test_tag_change_replaces_table() -> None:
    base = tree({"executor": {"kind": "vm", "tag": "a", "exec-mode": "compiled"}}, "base")
    merge(base, tree({"executor": {"tag": "b"}}, "over"))
    assert base.data["executor"] == {"tag": "b"}


def test_extends_order_and_relative_paths(cfgdir: Path) -> None:
    (cfgdir / "base").mkdir()
    (cfgdir / "base" / "cpu.toml").write_text('opt-level = 1\n[[targets]]\nkind = "llvm"\nmcpu = "znver3"\n')
    (cfgdir / "base" / "extra.toml").write_text('opt-level = 2\n[pass-config]\n"tir.disable_vectorize" = true\n')
    (cfgdir / "board.toml").write_text('extends = ["./base/cpu.toml", "base/extra"]\n[build]\nmodule-name = "m"\n')
    resolved = api.resolve(["board"])
    assert resolved.config.opt_level == 2
    assert resolved.config.pass_config == {"tirx.disable_vectorize": True}  # TVM >= 0.25's spelling
    assert resolved.config.targets[0]["mcpu"] == "znver3"
    mcpu = resolved.origin("/targets/0/mcpu")
    assert mcpu.source.endswith("cpu.toml") and mcpu.location().line == 4
    assert any("extends" in step for step in mcpu.chain)


def test_extends_cycle_names_the_whole_chain(cfgdir: Path) -> None:
    (cfgdir / "a.toml").write_text('extends = ["b"]\n')
    (cfgdir / "b.toml").write_text('extends = ["c"]\n')
    (cfgdir / "c.toml").write_text('extends = ["a"]\n')
    with pytest.raises(ConfigLayerError) as err:
        api.resolve(["a"])
    message = err.value.one_line()
    assert "extends cycle" in message
    for name in ("a.toml", "b.toml", "c.toml"):
        assert name in message


def test_extends_miss_points_at_the_entry(cfgdir: Path) -> None:
    (cfgdir / "a.toml").write_text('targets = ["llvm"]\nextends = ["does/not-exist"]\n')
    with pytest.raises(ConfigNotFoundError) as err:
        api.resolve(["a"])
    assert "does/not-exist" in err.value.one_line()


def test_base_config_only_without_config(cfgdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (cfgdir / "mine.toml").write_text('targets = [{ kind = "c" }]\n')
    assert api.resolve().config.targets[0]["kind"] == "llvm"  # host/default
    monkeypatch.setenv("TVMC_CONFIG", "mine")
    resolved = api.resolve()
    assert resolved.config.targets[0]["kind"] == "c"
    assert "TVMC_CONFIG" in " ".join(resolved.origin("/targets/0/kind").chain)
    (cfgdir / "other.toml").write_text('targets = [{ kind = "cuda", arch = "sm_80" }]\n')
    assert api.resolve(["other"]).config.targets[0]["kind"] == "cuda"  # --config: base not applied


def test_several_configs_layer_left_to_right(cfgdir: Path) -> None:
    (cfgdir / "board.toml").write_text('targets = [{ kind = "c", mcpu = "cortex-m55" }]\n')
    (cfgdir / "aot.toml").write_text('[executor]\nkind = "aot"\nunpacked-api = true\n')
    resolved = api.resolve(["board", "aot"])
    assert resolved.config.executor is not None and resolved.config.executor["unpacked-api"] is True
    assert resolved.config.targets[0]["mcpu"] == "cortex-m55"


def test_part_selection_keeps_host(cfgdir: Path) -> None:
    (cfgdir / "board.toml").write_text(
        'targets = [{ kind = "cuda", arch = "sm_53" }, { kind = "llvm", mcpu = "cortex-a57" }]\n'
        'host = { kind = "llvm", mtriple = "aarch64-linux-gnu" }\n'
    )
    cuda = api.resolve(["board:cuda"]).config
    assert [t["kind"] for t in cuda.targets] == ["cuda"]
    assert cuda.host["mtriple"] == "aarch64-linux-gnu"
    cpu = api.resolve(["board:cpu"]).config
    assert [t["kind"] for t in cpu.targets] == ["llvm"]
    with pytest.raises(ConfigLayerError, match="no target matches 'rocm'"):
        api.resolve(["board:rocm"])


def test_part_selection_falls_back_to_host(cfgdir: Path) -> None:
    (cfgdir / "gpu.toml").write_text(
        'targets = [{ kind = "cuda", arch = "sm_53" }]\nhost = { kind = "llvm", mtriple = "aarch64-linux-gnu" }\n'
    )
    config = api.resolve(["gpu:cpu"]).config
    assert config.targets[0]["kind"] == "llvm" and config.targets[0]["mtriple"] == "aarch64-linux-gnu"


def test_tag_is_a_config_name() -> None:
    config = api.resolve(["nvidia/nvidia-a100"]).config
    assert config.targets[0]["kind"] == "cuda" and config.targets[0]["arch"] == "sm_80"


def test_config_path_is_used_directly(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"targets": [{"kind": "llvm", "mcpu": "znver3"}]}')
    resolved = api.resolve([str(path)])
    assert resolved.config.targets[0]["mcpu"] == "znver3"
    loc = resolved.origin("/targets/0/mcpu").location()
    assert loc.source.endswith("x.json") and loc.line == 1 and loc.col is not None


_scalars = st.one_of(st.booleans(), st.integers(), st.text(max_size=3), st.none(), st.floats(allow_nan=False))
_keys = st.sampled_from(["targets", "kind", "executor", "a", "b", "mattr"])
_trees = st.dictionaries(
    _keys,
    st.recursive(
        _scalars | st.sampled_from(["llvm", "cuda"]),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=4),
        max_leaves=12,
    ),
    max_size=5,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_trees, min_size=1, max_size=4))
def test_merging_data_alone_agrees_with_merging_with_origins(layers: list[dict[str, Any]]) -> None:
    # Validation merges a file's chain without origins (a faster path); the data must be the same,
    # and no layer may be aliased into (or changed by) the result.
    originals = copy.deepcopy(layers)
    with_origins, data_only = Tree({}, {}), Tree({}, {})
    for index, layer in enumerate(layers):
        merge(with_origins, tree(layer, f"layer{index}"))
        merge(data_only, Tree(layer, {}))
    assert data_only.data == with_origins.data
    assert layers == originals
    inputs = [id(node) for layer in layers for _, node in walk(layer) if isinstance(node, dict | list)]
    assert not {id(node) for _, node in walk(data_only.data)} & set(inputs)


@given(_trees)
def test_plain_copy_is_a_deep_copy(data: dict[str, Any]) -> None:
    copied = plain_copy(data)
    assert copied == data == copy.deepcopy(data)
    assert all(
        a is not b for (_, a), (_, b) in zip(walk(copied), walk(data), strict=True) if isinstance(a, dict | list)
    )


def test_a_nested_key_named_targets_deep_merges_without_origins_too() -> None:
    # Found by the property above: merging data alone took every level for the top one, so a
    # nested `targets` table was replaced whole there and deep-merged with origins.
    layers = [{"targets": False, "mattr": {"targets": {"targets": None}}}, {"targets": [], "mattr": {"targets": {}}}]
    with_origins, data_only = Tree({}, {}), Tree({}, {})
    for index, layer in enumerate(layers):
        merge(with_origins, tree(copy.deepcopy(layer), f"layer{index}"))
        merge(data_only, Tree(copy.deepcopy(layer), {}))
    assert data_only.data == with_origins.data == {"targets": [], "mattr": {"targets": {"targets": None}}}


def test_a_missing_extends_path_suggests_the_close_sibling(tmp_path: Path) -> None:
    """The README's first example once extended `../base/aarch64.toml`: the error names the entry
    and offers `../base/aarch64-linux.toml`, written as the entry was."""
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "aarch64-linux.toml").write_text('targets = ["llvm"]\n', encoding="utf-8")
    (tmp_path / "nvidia").mkdir()
    nano = tmp_path / "nvidia" / "nano.toml"
    nano.write_text('extends = ["../base/aarch64.toml"]\n', encoding="utf-8")
    with pytest.raises(ConfigNotFoundError) as info:
        api.resolve([nano])
    assert info.value.suggestions == ("../base/aarch64-linux.toml",)
    assert info.value.location is not None and info.value.location.line == 1  # at the extends entry
    assert "config file '../base/aarch64.toml' not found" in str(info.value)
    assert "(did you mean '../base/aarch64-linux.toml'?)" in str(info.value)
