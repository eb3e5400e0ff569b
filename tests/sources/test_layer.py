"""Layer, pointers and the lazy position index."""

from __future__ import annotations

import pytest
from tvmc.errors import Location
from tvmc.sources import Layer, load_bytes, make_pointer, split_pointer, tag_layer


@pytest.mark.parametrize(
    ("tokens", "pointer"),
    [([], ""), (["a"], "/a"), (["targets", 0, "mcpu"], "/targets/0/mcpu"), (["a/b", "~c", ""], "/a~1b/~0c/")],
)
def test_pointer_round_trip(tokens: list[str | int], pointer: str) -> None:
    assert make_pointer(tokens) == pointer
    assert split_pointer(pointer) == [str(t) for t in tokens]


def test_split_pointer_rejects_non_pointers() -> None:
    with pytest.raises(ValueError, match="not a JSON pointer"):
        split_pointer("targets/0")


def test_locate_falls_back_to_the_nearest_located_ancestor() -> None:
    layer = load_bytes(b'[build]\nopt-level = 3\n[[targets]]\nkind = "llvm"\n', source="c.toml")
    assert layer.locate("/targets/0/kind") == Location("c.toml", 4, 1)
    assert layer.locate("/targets/0/mcpu") == Location("c.toml", 3, 1)  # default, not in the file
    assert layer.locate("/targets/7/mcpu") == Location("c.toml", 3, 3)  # /targets
    assert layer.locate("/executor/kind") == Location("c.toml", 1, 1)  # the document
    assert layer.locate("") == Location("c.toml", 1, 1)


def test_locate_json_document_is_its_first_brace() -> None:
    layer = load_bytes(b'\n\n  {"a": 1}', source="c.json")
    assert layer.locate("") == Location("c.json", 3, 3)
    assert layer.locate("/b") == Location("c.json", 3, 3)


def test_locate_rejects_bad_pointers() -> None:
    layer = load_bytes(b"a = 1", source="c.toml")
    with pytest.raises(ValueError):
        layer.locate("a")


def test_tag_layers_have_no_positions() -> None:
    layer = tag_layer("nvidia/nvidia-a100")
    assert layer.source == "tag:nvidia/nvidia-a100"
    assert layer.path is None and layer.format == "tag" and layer.name == "nvidia/nvidia-a100"
    assert layer.data == {"targets": ["nvidia/nvidia-a100"], "description": "TVM target tag nvidia/nvidia-a100"}
    assert layer.locate("/targets/0") == Location("tag:nvidia/nvidia-a100")
    assert str(layer.locate("/targets/0")) == "tag:nvidia/nvidia-a100"


def test_layers_without_text_locate_to_their_source() -> None:
    layer = Layer(source="env TVMC_X", path=None, data={"a": 1}, format="toml")
    assert layer.locate("/a") == Location("env TVMC_X")


def test_positions_are_computed_lazily_and_once() -> None:
    layer = load_bytes(b"a = [1, 2]\n", source="c.toml")
    assert layer._offset_index is None  # loading a valid file never indexes it
    first = layer.positions
    assert layer.locate("/a/1") == Location("c.toml", 1, 9)
    assert layer.positions is first


def test_layer_is_a_frozen_record() -> None:
    # Its fields are Final: mypy rejects assigning them (tests/core/test_records.py checks every record).
    layer = load_bytes(b"a = 1", source="c.toml")
    assert layer == load_bytes(b"a = 1", source="c.toml") and layer.named("c") != layer
