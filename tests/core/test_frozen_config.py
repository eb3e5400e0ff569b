"""A resolved `CompilationConfig` is deeply immutable and hashable; `to_dict()` stays plain data."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tvmc import api, records
from tvmc.config import CompilationConfig
from tvmc.frozen import FrozenDict, freeze, thaw

CONFIG = """\
description = "every kind of value"
tvm-version = ">=0.25"
opt-level = 2
disabled-pass = ["FoldConstant"]
[[targets]]
kind = "cuda"
arch = "sm_80"
host = { kind = "llvm", mcpu = "skylake", mattr = ["+avx2", "+fma"] }
[executor]
kind = "vm"
[pass-config]
"tir.disable_vectorize" = true
[build]
desired-layout = ["NHWC"]
dump-code = ["ll", "asm"]
"""
# The same meaning, keys and tables in another order.
REORDERED = """\
opt-level = 2
[build]
dump-code = ["ll", "asm"]
desired-layout = ["NHWC"]
[pass-config]
"tir.disable_vectorize" = true
[executor]
kind = "vm"
[[targets]]
host = { mattr = ["+avx2", "+fma"], mcpu = "skylake", kind = "llvm" }
arch = "sm_80"
kind = "cuda"
"""


def _resolve(tmp_path: Path, text: str = CONFIG) -> CompilationConfig:
    path = tmp_path / "c.toml"
    path.write_text(text)
    return api.resolve([str(path)], isolated=True).config


def _nodes(value: Any, path: str = "") -> list[tuple[str, Any]]:
    out = [(path, value)]
    if isinstance(value, FrozenDict):
        for key, item in value.items():
            out += _nodes(item, f"{path}/{key}")
    elif isinstance(value, tuple):
        for index, item in enumerate(value):
            out += _nodes(item, f"{path}/{index}")
    return out


def _parts(config: CompilationConfig) -> list[tuple[str, Any]]:
    return [n for f in records.fields(config) for n in _nodes(getattr(config, f.name), f"/{f.name}")]


def test_every_part_is_frozen_at_every_depth(tmp_path: Path) -> None:
    config = _resolve(tmp_path)
    nodes = _parts(config)
    assert not [p for p, v in nodes if isinstance(v, dict | list | set)]
    tables = [v for _, v in nodes if isinstance(v, FrozenDict)]
    arrays = [v for p, v in nodes if isinstance(v, tuple) and p]
    assert len(tables) >= 5 and len(arrays) >= 5  # the target, the host, executor, pass-config, build; keys, mattr...
    for table in tables:
        key = next(iter(table), "kind")
        with pytest.raises(TypeError):
            table[key] = "x"
        with pytest.raises(TypeError):
            del table[key]
        for method in ("update", "pop", "popitem", "clear", "setdefault", "__ior__"):
            assert not hasattr(table, method)
        with pytest.raises(AttributeError):
            table._items = {}
        with pytest.raises(AttributeError):
            table.extra = 1
    for array in arrays:
        with pytest.raises(TypeError):
            array[0] = "x"
        assert not hasattr(array, "append")
    for field in records.fields(config):
        with pytest.raises(records.FrozenRecordError):
            setattr(config, field.name, None)


def test_the_issue_example_no_longer_mutates(tmp_path: Path) -> None:
    resolved = api.resolve(["aws/c5"], isolated=True)
    before = resolved.config.to_dict()
    with pytest.raises(TypeError):
        resolved.config.targets[0]["mcpu"] = "x"  # type: ignore[index]
    with pytest.raises(AttributeError):
        resolved.config.targets[0]["keys"].append("x")
    assert resolved.config.to_dict() == before
    assert hash(resolved.config) == hash(api.resolve(["aws/c5"], isolated=True).config)


def test_equal_configs_hash_equal(tmp_path: Path) -> None:
    one = _resolve(tmp_path)
    head = "\n".join(CONFIG.split("\n")[:2] + CONFIG.split("\n")[3:4])
    other = _resolve(tmp_path, head + "\n" + REORDERED)
    assert other == one and hash(other) == hash(one)
    changed = _resolve(tmp_path, CONFIG.replace('"sm_80"', '"sm_86"'))
    assert changed != one
    assert len({one, other, changed}) == 2


def test_a_config_keeps_its_own_copies(tmp_path: Path) -> None:
    target = {"kind": "llvm", "keys": ["cpu"], "mattr": ["+avx2"]}
    build = {"dump-code": ["ll"]}
    config = CompilationConfig(targets=(target,), host=target, build=build)
    target["mattr"].append("+fma")
    target["kind"] = "c"
    build["dump-code"].append("asm")
    assert config.targets[0] == {"kind": "llvm", "keys": ("cpu",), "mattr": ("+avx2",)}
    assert config.build == {"dump-code": ("ll",)}
    assert isinstance(config.pass_config, FrozenDict) and not config.pass_config


def test_to_dict_is_plain_fresh_data(tmp_path: Path) -> None:
    config = _resolve(tmp_path)
    data = config.to_dict()
    assert data == json.loads(json.dumps(data))  # only dicts, lists and scalars
    assert data["host"]["mattr"] == ["+avx2", "+fma"] and data["build"]["dump-code"] == ["ll", "asm"]
    data["host"]["mattr"].append("+x")
    data["targets"][0]["arch"] = "x"
    assert config.to_dict() != data and config.to_dict() == config.to_dict()
    assert config.to_dict() is not config.to_dict()


def test_copy_and_pickle_keep_the_config(tmp_path: Path) -> None:
    config = _resolve(tmp_path)
    for other in (copy.copy(config), copy.deepcopy(config), pickle.loads(pickle.dumps(config))):
        assert other == config and hash(other) == hash(config)
        assert isinstance(other.targets[0], FrozenDict)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(JSON, JSON)
def test_frozen_values_compare_and_hash_as_their_data(a: Any, b: Any) -> None:
    frozen_a, frozen_b = freeze(a), freeze(b)
    assert thaw(frozen_a) == a and freeze(thaw(frozen_a)) == frozen_a
    assert (frozen_a == frozen_b) == (a == b)
    if frozen_a == frozen_b:
        assert hash(frozen_a) == hash(frozen_b)
    assert hash(frozen_a) == hash(freeze(copy.deepcopy(a)))
