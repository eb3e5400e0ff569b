"""tvmc's small value classes are plain records: records (tvmc.records) with slots (frozen unless they are
counters or indexes filled in place) or `NamedTuple`s, compared by their fields, and usable in
`match`, `copy` and `pickle`."""

from __future__ import annotations

import copy
import importlib
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest
from tvmc import records
from tvmc.errors import Location
from tvmc.provenance import Origin
from tvmc.sources.layer import Layer
from tvmc.validate.diagnostics import FileResult, Summary

# Every module that defines records.
MODULES = (
    "tvmc.api",
    "tvmc.api.commands",
    "tvmc.config",
    "tvmc.errors",
    "tvmc.explain",
    "tvmc.flag_docs",
    "tvmc.keys",
    "tvmc.layering.expand",
    "tvmc.layering.tree",
    "tvmc.provenance",
    "tvmc.registry",
    "tvmc.registry.generations",
    "tvmc.rewrites.flags",
    "tvmc.rewrites.grammar",
    "tvmc.sources.json_positions",
    "tvmc.sources.layer",
    "tvmc.sources.search",
    "tvmc.targets.canonical",
    "tvmc.targets.legacy",
    "tvmc.targets.llvm_names",
    "tvmc.targets.parse",
    "tvmc.targets.system",
    "tvmc.targets.tvmc_list",
    "tvmc.validate.canon",
    "tvmc.validate.diagnostics",
    "tvmc.validate.model",
    "tvmc.validate.rule_table",
    "tvmc.validate.runner",
)
# Filled in place or rebound after construction (the tree the pipeline builds, running totals, an
# index filled while scanning...): not frozen.
MUTABLE = {
    "tvmc.layering.tree.Tree",
    "tvmc.sources.json_positions.JsonIndex",
    "tvmc.targets.legacy.ValueContext",
    "tvmc.validate.canon.Target",
    "tvmc.validate.diagnostics.FileResult",
    "tvmc.validate.diagnostics.Summary",
}


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _records() -> list[type]:
    found = []
    for module in MODULES:
        for value in vars(importlib.import_module(module)).values():
            if isinstance(value, type) and value.__module__ == module and (records.is_record(value) or _tuple(value)):
                found.append(value)
    return sorted(found, key=_name)


def _tuple(cls: type) -> bool:
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


RECORDS = _records()


def test_the_records_are_found() -> None:
    names = {_name(cls) for cls in RECORDS}
    assert {"tvmc.errors.Location", "tvmc.config.CompilationConfig", "tvmc.validate.diagnostics.Diagnostic"} <= names
    assert names >= MUTABLE and len(names) >= 38


@pytest.mark.parametrize("cls", [c for c in RECORDS if _tuple(c)], ids=_name)
def test_named_tuples_are_immutable(cls: Any) -> None:
    assert "__dict__" not in dir(cls) and _name(cls) not in MUTABLE
    record = cls._make(range(len(cls._fields)))
    with pytest.raises(AttributeError):
        setattr(record, cls._fields[0], 1)
    with pytest.raises(TypeError):
        record[0] = 1


@pytest.mark.parametrize("cls", [c for c in RECORDS if not _tuple(c)], ids=_name)
def test_dataclasses_have_slots_and_are_frozen_unless_mutable(cls: type) -> None:
    fields = tuple(f.name for f in records.fields(cls))
    assert cls.__match_args__ == tuple(f.name for f in records.fields(cls) if f.init)
    assert set(fields) <= set(cls.__slots__)
    blank: Any = object.__new__(cls)
    assert not hasattr(blank, "__dict__")  # no stray attributes
    if _name(cls) in MUTABLE:
        setattr(blank, fields[0], 1)
    else:
        with pytest.raises(records.FrozenRecordError):
            setattr(blank, fields[0], 1)


def test_location_equality_hash_repr_and_text() -> None:
    for args in [("a.toml",), ("a.toml", 3), ("a.toml", 3, 7), ("<stdin>", None, 2)]:
        assert Location(*args) == Location(*args) and hash(Location(*args)) == hash(Location(*args))
    assert repr(Location("a.toml", 3)) == "Location(source='a.toml', line=3, col=None)"
    assert Location("a", 1) != Location("a", 2)
    assert Location("a") != ("a", None, None)  # only its own class
    assert len({Location("a", 1), Location("a", 1), Location("b")}) == 2
    assert [str(Location("a.toml", 3, 7)), str(Location("a.toml", 3)), str(Location("a.toml"))] == [
        "a.toml:3:7",
        "a.toml:3",
        "a.toml",
    ]


def test_records_copy_pickle_and_match() -> None:
    loc = Location("a.toml", 3, 7)
    for other in (copy.copy(loc), copy.deepcopy(loc), pickle.loads(pickle.dumps(loc))):
        assert other == loc and other.__class__ is Location
    result = FileResult("a.toml")
    assert copy.deepcopy(result) == result
    match loc:
        case Location(source, line, col):
            assert (source, line, col) == ("a.toml", 3, 7)
        case _:
            pytest.fail("no match")


def test_an_origins_layer_is_not_part_of_its_value() -> None:
    class Layer:
        def locate(self, pointer: str) -> Location:
            return Location("x.toml", 1)

    plain, located = Origin("file", "x.toml", "/a"), Origin("file", "x.toml", "/a", layer=Layer())
    assert plain == located and hash(plain) == hash(located)
    assert repr(located) == "Origin(kind='file', source='x.toml', pointer='/a', chain=())"
    assert located.location() == Location("x.toml", 1)
    assert Origin("file", "x.toml", "/b") != plain


def test_a_layers_text_and_position_cache_are_not_part_of_its_value() -> None:
    text = 'description = "x"\n[build]\nopt = 1\n'
    layer = Layer("a.toml", Path("/a.toml"), {"description": "x"}, "toml", text=text)
    other = Layer("a.toml", Path("/a.toml"), {"description": "x"}, "toml")
    assert layer == other and "text" not in repr(layer) and "_index" not in repr(layer)
    assert layer.locate("/build/opt") == Location("a.toml", 3, 1)  # computed on demand, then cached
    assert layer.positions is layer.positions
    assert layer == other
    assert other.locate("/build/opt") == Location("a.toml")  # no text: only the source
    assert layer.named("base").name == "base" and layer.named("base").locate("/build") == Location("a.toml", 2, 2)


def test_mutable_records_are_unhashable_dataclasses() -> None:
    summary = Summary()
    summary.add(FileResult("a.toml"))
    assert summary == Summary(files=1) and summary.ok
    assert repr(FileResult("b.toml")) == "FileResult(name='b.toml', diagnostics=[])"
    assert FileResult("a.toml").diagnostics is not FileResult("a.toml").diagnostics  # a new list each
    unhashable: Any = summary
    with pytest.raises(TypeError):
        hash(unhashable)


def test_no_record_base_class_is_left_in_errors() -> None:
    # The hand-written Record/FrozenRecord bases are gone: every record is a dataclass or NamedTuple.
    errors = sys.modules.get("tvmc.errors") or importlib.import_module("tvmc.errors")
    assert not hasattr(errors, "Record") and not hasattr(errors, "FrozenRecord")
