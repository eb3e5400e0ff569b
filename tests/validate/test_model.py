"""What validation derives from the registry: TVM generations, kinds, target strings."""

from __future__ import annotations

import pytest
from tvmc import registry, versions
from tvmc.validate import model


@pytest.mark.parametrize(
    ("spec", "generation"),
    [
        (">=0.25", "modern"),
        ("0.27", "modern"),
        ("~=0.25", "modern"),
        ("~=0.19.0", "legacy"),  # PEP 440: >=0.19.0, ==0.19.* (was read as >=0.19.0: both)
        ("~=0.18.1", "legacy"),
        ("~=0.25.1", "modern"),
        ("~=0.19", None),  # >=0.19, ==0.*
        (">0.24", "modern"),
        ("==0.27.0", "modern"),
        ("<=0.19", "legacy"),
        ("<0.25", "legacy"),
        ("<=0.24", "legacy"),
        (">=0.9, <0.20", "legacy"),
        (">=0.9", None),
        (">=0.20", None),
        ("banana", None),
        (None, None),
        (3, None),
    ],
)
def test_tvm_generation(spec: object, generation: str | None) -> None:
    assert versions.generation(spec) == generation


@pytest.mark.parametrize(
    ("spec", "series", "admitted"),
    [
        ("~=0.19.0", "0.19", True),
        ("~=0.19.0", "0.27", False),
        ("~=0.25.0", "0.26", False),
        ("~=0.25", "0.27", True),
        ("~=0.21.0", "0.19", False),
        ("~=1.2", "0.27", False),
    ],
)
def test_a_compatible_release_clause_admits_its_series_only(spec: str, series: str, admitted: bool) -> None:
    assert versions.admits_series(spec, series) is admitted
    assert registry.supports("~=0.21.0") is False  # 0.21.x only: no release tvmc supports


def test_every_kind_is_modelled_with_its_options() -> None:
    kinds = registry.all_kinds()
    assert set(kinds) == set(registry.kinds()) | set(registry.legacy_kinds())
    assert list(kinds) == sorted(kinds)
    for name, kind in kinds.items():
        assert "kind" in kind.accepted and kind.accepted["compiler"] == "str", name
        declared = list(dict.fromkeys(["kind", *kind.options]))  # declaration order, then compiler
        assert list(kind.accepted)[: len(declared) + 1] == [*declared, "compiler"], name
    assert not kinds["llvm"].legacy and kinds["cmsis-nn"].legacy and kinds["cmsis-nn"].byoc
    llvm = kinds["llvm"]
    assert "system-lib" in llvm.legacy_options and "system-lib" not in llvm.options
    assert llvm.accepted["system-lib"] == llvm.legacy_options["system-lib"].type == "bool"


def test_target_strings() -> None:
    pattern = model.target_string_re()
    for text in (
        "llvm",
        "llvm -mcpu=skylake",
        "cuda -arch=sm_80",
        "ethos-u -accelerator_config=x",
        '{"kind": "llvm"}',
        "c",
        "nvidia/nvidia-a100 -l2_cache_size_bytes=5",  # a tag with options, as --target reads it
        "nvidia/geforce-gt-730-ddr3,128bit -arch=sm_35",
        "aws/cpu/c5.large -mcpu=skylake",
    ):
        assert pattern.match(text), text
    for text in ("nvidia/a100", "llvmx", "", " llvm", "cudax -arch=1", "nvidia/nvidia-a100x -arch=sm_80"):
        assert not pattern.match(text), text
    assert model.tag_kinds()["nvidia/nvidia-a100"] == "cuda"
    assert model.tag_kinds()["nvidia/gtx1080ti"] == "cuda"  # a renamed tag keeps its kind
