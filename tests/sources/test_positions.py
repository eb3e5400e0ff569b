"""Golden positions: every key and element of realistic TOML and JSON configs → line:col."""

from __future__ import annotations

from pathlib import Path

import pytest
from tvmc.sources import load_bytes, load_file

from .helpers import all_pointers

DATA = Path(__file__).parent / "data"

TOML_GOLDEN = {
    "": (1, 1),
    "/description": (2, 1),
    "/extends": (3, 1),
    "/extends/0": (3, 12),
    "/extends/1": (3, 28),
    "/build": (5, 2),
    "/build/opt-level": (6, 1),
    "/build/tir.disable_vectorize": (7, 1),
    "/build/pass-config": (8, 1),
    "/build/pass-config/relay.FuseOps.max_depth": (8, 13),
    "/build/output": (9, 1),
    "/targets": (11, 3),
    "/targets/0": (11, 1),
    "/targets/0/kind": (12, 1),
    "/targets/0/arch": (13, 1),
    "/targets/0/libs": (14, 1),
    "/targets/0/libs/0": (15, 3),
    "/targets/0/libs/1": (16, 3),
    "/targets/0/host": (19, 10),
    "/targets/0/host/kind": (20, 1),
    "/targets/0/host/mcpu": (21, 1),
    "/targets/1": (23, 1),
    "/targets/1/kind": (24, 1),
    "/targets/1/mattr": (25, 1),
    "/targets/1/mattr/0": (25, 10),
    "/targets/1/mattr/1": (25, 19),
    "/targets/1/keys": (26, 1),
    "/targets/1/keys/0": (26, 9),
    "/targets/1/keys/0/0": (26, 10),
    "/targets/1/keys/0/1": (26, 17),
    "/targets/1/keys/1": (26, 25),
    "/executor": (28, 2),
    "/executor/kind": (29, 1),
    "/executor/options": (30, 1),
    "/executor/options/link-params": (30, 13),
    "/executor/options/module name": (30, 33),
    "/executor/options/nested": (30, 62),
    "/executor/options/nested/depth": (30, 73),
    "/runtime": (32, 3),
    "/runtime/note": (33, 1),
    "/runtime/kind": (36, 1),
}

JSON_GOLDEN = {
    "": (1, 1),
    "/description": (2, 3),
    "/extends": (3, 3),
    "/extends/0": (3, 15),
    "/extends/1": (3, 31),
    "/build": (4, 3),
    "/build/opt-level": (5, 5),
    "/build/tir.disable_vectorize": (6, 5),
    "/build/pass-config": (7, 5),
    "/build/pass-config/relay.FuseOps.max_depth": (7, 21),
    "/build/a~1b~0c": (8, 5),
    "/targets": (10, 3),
    "/targets/0": (11, 5),
    "/targets/0/kind": (12, 7),
    "/targets/0/arch": (13, 7),
    "/targets/0/libs": (14, 7),
    "/targets/0/libs/0": (14, 16),
    "/targets/0/libs/1": (14, 26),
    "/targets/0/host": (15, 7),
    "/targets/0/host/kind": (15, 16),
    "/targets/0/host/mcpu": (15, 32),
    "/targets/1": (17, 5),
    "/targets/1/kind": (17, 6),
    "/targets/1/mattr": (17, 22),
    "/targets/1/mattr/0": (17, 32),
    "/targets/1/mattr/1": (17, 41),
    "/targets/1/keys": (17, 50),
    "/targets/1/keys/0": (17, 59),
    "/targets/1/keys/0/0": (17, 60),
    "/targets/1/keys/0/1": (17, 67),
    "/targets/1/keys/1": (17, 75),
    "/executor": (19, 3),
    "/executor/kind": (19, 16),
    "/executor/options": (19, 33),
    "/executor/options/link-params": (19, 45),
    "/executor/options/nested": (19, 66),
    "/executor/options/nested/depth": (19, 77),
    "/été": (20, 3),
}


@pytest.mark.parametrize(("name", "golden"), [("a100.toml", TOML_GOLDEN), ("a100.json", JSON_GOLDEN)])
def test_golden_positions(name: str, golden: dict[str, tuple[int, int]]) -> None:
    layer = load_file(DATA / name)
    assert dict(layer.positions) == golden
    assert set(all_pointers(layer.data)) | {""} == set(golden)  # every key and element is located
    for pointer, (line, col) in golden.items():
        loc = layer.locate(pointer)
        assert (loc.source, loc.line, loc.col) == (layer.source, line, col)


def test_golden_data_is_what_the_parsers_return() -> None:
    toml = load_file(DATA / "a100.toml").data
    assert toml["build"]["pass-config"] == {"relay.FuseOps.max_depth": 30}
    assert toml["targets"][0]["host"] == {"kind": "llvm", "mcpu": "skylake-avx512"}
    assert toml["executor"]["options"]["module name"] == 'de"fault'
    assert toml["runtime"]["note"] == 'multi-line [table] = "x" # not a comment\n'
    json_data = load_file(DATA / "a100.json").data
    assert json_data["build"]["a/b~c"] is None
    assert json_data["executor"]["options"]["nested"] == {"depth": -2500.0}


def toml_pos(text: str, pointer: str) -> tuple[int | None, int | None]:
    loc = load_bytes(text.encode(), source="t.toml", format="toml").locate(pointer)
    return loc.line, loc.col


@pytest.mark.parametrize(
    ("text", "pointer", "expected"),
    [
        # nested arrays of tables count elements per parent element
        ("[[f]]\n[[f.v]]\n[[f.v]]\n[[f]]\n[[f.v]]\nx = 1\n", "/f/1/v/0/x", (6, 1)),
        ("[[f]]\n[[f.v]]\n[[f.v]]\n[[f]]\n[[f.v]]\nx = 1\n", "/f/0/v/1", (3, 1)),
        ("[[f]]\n[[f.v]]\n[[f.v]]\n[[f]]\n[[f.v]]\nx = 1\n", "/f/1/v", (5, 5)),
        # a sub-table of an array-of-tables element
        ("[[t]]\n[[t]]\n[t.host]\nkind = 'c'\n", "/t/1/host/kind", (4, 1)),
        # implicit parents are located at their first mention
        ("[a.b.c]\nx = 1\n[a]\ny = 2\n", "/a", (1, 2)),
        ("[a.b.c]\nx = 1\n[a]\ny = 2\n", "/a/y", (4, 1)),
        # dotted keys with spaces and quoted parts
        ("a . 'b.c' . \"d\\u0065\" = 1\n", "/a/b.c/de", (1, 13)),
        # key named like a number, escapes in keys
        ('1 = 2\n"\\"q\\"" = 3\n', '/"q"', (2, 1)),
        # multi-line strings of both kinds do not confuse the line count
        ('a = \'\'\'\n[x]\nb = 1\'\'\'\nc = """x\\\n  """"\nd = 1\n', "/d", (6, 1)),
        # array elements across lines with comments and a trailing comma
        ("a = [ # c\n  1, # ]\n  # [\n  { x = [2, 3] },\n]\n", "/a/1/x/1", (4, 13)),
        # inline table with dotted keys
        ("t = { a.b = 1, c = { d = 2 } }\n", "/t/a/b", (1, 9)),
        ("t = { a.b = 1, c = { d = 2 } }\n", "/t/c/d", (1, 22)),
        # CRLF line endings
        ("a = 1\r\n[b]\r\nc = [\r\n  1,\r\n  2]\r\n", "/b/c/1", (5, 3)),
        # dates and times (values with a space) and floats are scalars
        ("d = [1979-05-27 07:32:00, 1.5e3, inf]\ne = 1\n", "/e", (2, 1)),
        # tab before the key
        ("[x]\n\tk = 1\n", "/x/k", (2, 2)),
    ],
)
def test_toml_edge_positions(text: str, pointer: str, expected: tuple[int, int]) -> None:
    # Values like dates are rejected after parsing; index the text directly for those.
    from tvmc.sources.layer import LineIndex
    from tvmc.sources.toml_positions import index_toml

    offsets = index_toml(text)
    assert LineIndex(text).position(offsets[pointer]) == expected


def test_toml_positions_count_characters_not_bytes() -> None:
    assert toml_pos('"é" = "ü"\n"ß" = { "ä" = 1 }\n', "/ß/ä") == (2, 9)


def test_json_positions_decode_key_escapes() -> None:
    layer = load_bytes(b'{"a\\/b": {"\\u00e9": [1, {"x": 2}]}}', source="j.json")
    loc = layer.locate("/a~1b/é/1/x")
    assert (loc.line, loc.col) == (1, 26)


@pytest.mark.parametrize(("name", "golden"), [("a100.toml", TOML_GOLDEN), ("a100.json", JSON_GOLDEN)])
def test_positions_scanned_as_far_as_asked_are_the_golden_ones(name: str, golden: dict[str, tuple[int, int]]) -> None:
    # The first lookup scans up to its pointer only, a later miss scans the rest: in any order, and
    # for pointers that are not written (located at an ancestor), the answers are the full index's.
    text = (DATA / name).read_text(encoding="utf-8")
    for pointer in [*golden, "/executor/options/absent", "/absent"]:
        first = load_bytes(text.encode(), source=name)
        expected = layer_location(golden, pointer)
        assert (first.locate(pointer).line, first.locate(pointer).col) == expected
        for other in reversed(golden):  # then everything else, the misses completing the scan
            assert (first.locate(other).line, first.locate(other).col) == golden[other]
        assert dict(first.positions) == golden


def layer_location(golden: dict[str, tuple[int, int]], pointer: str) -> tuple[int, int]:
    while pointer not in golden:
        pointer = pointer[: pointer.rfind("/")]
    return golden[pointer]


@pytest.mark.parametrize("name", ["a100.toml", "a100.json"])
def test_a_scan_until_a_pointer_stops_there_with_the_same_offsets(name: str) -> None:
    from tvmc.sources.json_positions import index_json
    from tvmc.sources.toml_positions import index_toml

    text = (DATA / name).read_text(encoding="utf-8")
    index = index_toml if name.endswith(".toml") else lambda t, until=None: index_json(t, until=until).offsets
    full = index(text)
    partial = [index(text, until=pointer) for pointer in full]
    assert all(pointer in offsets for pointer, offsets in zip(full, partial, strict=True))
    assert all(offsets.items() <= full.items() for offsets in partial)
    assert min(len(offsets) for offsets in partial) < len(full)  # it does stop early
