"""`Record`/`FrozenRecord` (tvmc.errors) behave as the dataclasses they replace, and every record
class keeps its fields, `__slots__` and `__init__` parameters in one order."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
from typing import Any

import pytest
from tvmc.errors import FrozenRecord, Location, Record
from tvmc.provenance import Origin
from tvmc.validate.diagnostics import FileResult

# Every module that defines a record: importing them makes their classes `Record` subclasses.
MODULES = (
    "tvmc.api",
    "tvmc.config",
    "tvmc.errors",
    "tvmc.keys",
    "tvmc.layering",
    "tvmc.provenance",
    "tvmc.registry",
    "tvmc.rewrites.flags",
    "tvmc.rewrites.grammar",
    "tvmc.sources.json_positions",
    "tvmc.sources.layer",
    "tvmc.sources.search",
    "tvmc.targets.legacy",
    "tvmc.targets.parse",
    "tvmc.targets.system",
    "tvmc.targets.tables",
    "tvmc.targets.tvmc_list",
    "tvmc.validate.canon",
    "tvmc.validate.diagnostics",
    "tvmc.validate.model",
    "tvmc.validate.resolve",
    "tvmc.validate.runner",
)


@dataclasses.dataclass(frozen=True)
class DataLocation:  # what Location was
    source: str
    line: int | None = None
    col: int | None = None


def _records() -> list[type[Record]]:
    for module in MODULES:
        importlib.import_module(module)
    found: list[type[Record]] = []
    pending = [Record]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            pending.append(sub)
            if sub.__module__.startswith("tvmc.") and sub is not FrozenRecord:
                found.append(sub)
    return sorted(found, key=lambda c: (c.__module__, c.__qualname__))


@pytest.mark.parametrize("cls", _records(), ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_fields_slots_and_init_agree(cls: type[Record]) -> None:
    fields = cls.__match_args__
    # Fields first; after them only private caches (Layer keeps its lazily built position index).
    assert fields and cls.__slots__[: len(fields)] == fields
    assert all(extra.startswith("_") for extra in cls.__slots__[len(fields) :])
    assert tuple(inspect.signature(cls.__init__).parameters)[1:] == cls.__match_args__
    assert all("__slots__" in c.__dict__ for c in cls.__mro__[:-1])  # no instance __dict__: no stray attributes
    # A frozen record's fields are Final, so that mypy rejects assigning them (as for a frozen dataclass).
    frozen = issubclass(cls, FrozenRecord)
    assert [cls.__annotations__[name].startswith("Final[") for name in cls.__match_args__] == [frozen] * len(
        cls.__match_args__
    )


def test_frozen_record_is_a_frozen_dataclass() -> None:
    for args in [("a.toml",), ("a.toml", 3), ("a.toml", 3, 7), ("<stdin>", None, 2)]:
        record, data = Location(*args), DataLocation(*args)
        assert repr(record) == repr(data).replace("DataLocation", "Location")
        assert hash(record) == hash(data)
        assert record == Location(*args)
    assert Location("a", 1) != Location("a", 2)
    assert Location("a") != DataLocation("a") and Location("a") != ("a", None, None)  # only its own class
    assert len({Location("a", 1), Location("a", 1), Location("b")}) == 2
    assert str(Location("a.toml", 3, 7)) == "a.toml:3:7"


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


def test_uncompared_field() -> None:
    class Layer:
        def locate(self, pointer: str) -> Location:
            return Location("x.toml", 1)

    plain, located = Origin("file", "x.toml", "/a"), Origin("file", "x.toml", "/a", layer=Layer())
    assert plain == located and hash(plain) == hash(located)
    assert repr(located) == "Origin(kind='file', source='x.toml', pointer='/a', chain=())"
    assert located.location() == Location("x.toml", 1)


def test_mutable_record_is_a_plain_dataclass() -> None:
    result = FileResult("a.toml")
    assert result.diagnostics == [] and result.diagnostics is not FileResult("b.toml").diagnostics
    result.name = "b.toml"
    assert result == FileResult("b.toml") and result != FileResult("c.toml")
    assert repr(result) == "FileResult(name='b.toml', diagnostics=[])"
    unhashable: Any = result
    with pytest.raises(TypeError):
        hash(unhashable)
