"""`tvmc.records` behaves as `dataclasses` for every class shape tvmc declares: a property over
generated classes (fields with and without defaults or factories, init/repr/compare off, eq,
frozen, slots), each made both ways and used alike — construction (and its TypeErrors), repr, ==,
hash, frozen assignment, replace, asdict, copy, pickle, match_args."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tvmc import records

MISSING = object()

# A field: (default kind, init, repr, compare); default kind: "none", "value", "factory".
fields_st = st.lists(
    st.tuples(st.sampled_from(["none", "value", "factory"]), st.booleans(), st.booleans(), st.booleans()),
    min_size=0,
    max_size=5,
)
options_st = st.fixed_dictionaries({"eq": st.booleans(), "frozen": st.booleans(), "slots": st.booleans()})
values_st = st.lists(st.one_of(st.integers(-3, 3), st.text(max_size=2), st.none()), min_size=5, max_size=5)

_made = 0


def _make(
    maker: Callable[..., Any], field_maker: Callable[..., Any], spec: list[Any], options: dict[str, bool]
) -> type:
    """The class `spec` describes, made with `maker` (dataclass or record); importable by pickle."""
    global _made
    _made += 1
    name = f"Made{_made}"
    namespace: dict[str, Any] = {"__annotations__": {}, "__module__": __name__, "__qualname__": name}
    for i, (default, init, shown, compared) in enumerate(spec):
        namespace["__annotations__"][f"f{i}"] = "Any"
        kwargs: dict[str, Any] = {"init": init, "repr": shown, "compare": compared}
        if default == "value":
            kwargs["default"] = i * 10
        elif default == "factory":
            kwargs["default_factory"] = list
        elif not init:
            continue  # an init=False field with no default is never set: leave it out
        namespace[f"f{i}"] = field_maker(**kwargs)
    cls = maker(**options)(type(name, (), namespace))
    globals()[name] = cls
    return cls


def _both(spec: list[Any], options: dict[str, bool]) -> tuple[Any, Any]:
    """The dataclass and the record, or the exception type each raised."""
    made = []
    for maker, field_maker in ((dataclasses.dataclass, dataclasses.field), (records.record, records.field)):
        try:
            made.append(_make(maker, field_maker, spec, options))
        except (TypeError, ValueError) as err:
            made.append(type(err))
    return made[0], made[1]


def _outcome(action: Callable[[], Any]) -> Any:
    try:
        return ("ok", action())
    except (TypeError, ValueError, AttributeError) as err:
        return ("error", TypeError if isinstance(err, TypeError) else type(err).__mro__[-3])


def _plain(value: Any) -> Any:
    """repr without the class name (the two classes share it, but compare the text after it)."""
    return repr(value).partition("(")[2]


@settings(max_examples=300, deadline=None)
@given(spec=fields_st, options=options_st, values=values_st, other=values_st)
def test_records_behave_as_dataclasses(
    spec: list[Any], options: dict[str, bool], values: list[Any], other: list[Any]
) -> None:
    dc, rc = _both(spec, options)
    if isinstance(dc, type) and issubclass(dc, Exception):
        assert rc is dc, (dc, rc)
        return
    assert not (isinstance(rc, type) and issubclass(rc, Exception)), rc
    assert [f.name for f in dataclasses.fields(dc)] == [f.name for f in records.fields(rc)]
    assert dc.__match_args__ == rc.__match_args__
    assert (dc.__hash__ is None) == (rc.__hash__ is None)
    init_names = [f.name for f in dataclasses.fields(dc) if f.init]
    required = [
        f.name
        for f in dataclasses.fields(dc)
        if f.init and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]

    # Positional for the required fields, keywords for some of the rest.
    for chosen in (values, other):
        args = chosen[: len(required)]
        kwargs = {n: chosen[i % 5] for i, n in enumerate(init_names[len(required) :]) if i % 2 == 0}
        a, b = dc(*args, **kwargs), rc(*args, **kwargs)
        assert _plain(a) == _plain(b)
        assert records.asdict(b) == dataclasses.asdict(a)
    a1, b1 = dc(*values[: len(required)]), rc(*values[: len(required)])
    a2, b2 = dc(*other[: len(required)]), rc(*other[: len(required)])
    assert (a1 == a2) == (b1 == b2) and (a1 == a1) == (b1 == b1)
    assert (a1 == 1) == (b1 == 1)
    assert _outcome(lambda: hash(a1))[0] == _outcome(lambda: hash(b1))[0]
    if rc.__hash__ is not None and options["eq"] and _outcome(lambda: hash(b1))[0] == "ok":
        assert (hash(b1) == hash(b2)) or b1 != b2
    # Bad calls fail alike.
    assert (
        _outcome(lambda: dc(*values[: len(required)], nope=1))[0]
        == _outcome(lambda: rc(*values[: len(required)], nope=1))[0]
    )
    assert _outcome(lambda: dc(*values, *values))[0] == _outcome(lambda: rc(*values, *values))[0]
    if required:
        assert _outcome(lambda: dc())[0] == _outcome(lambda: rc())[0] == "error"
        first = required[0]
        assert _outcome(lambda: dc(*values[: len(required)], **{first: 1}))[0] == "error"
        assert _outcome(lambda: rc(*values[: len(required)], **{first: 1}))[0] == "error"
    # Frozen or not, alike; replace, copy and pickle give equal values.
    names = [f.name for f in dataclasses.fields(dc)]
    if names:
        assert _outcome(lambda: setattr(a1, names[0], 5))[0] == _outcome(lambda: setattr(b1, names[0], 5))[0]
    if init_names:
        changed = {init_names[-1]: "changed"}
        assert _plain(dataclasses.replace(a1, **changed)) == _plain(records.replace(b1, **changed))
    for duplicate in (copy.copy, copy.deepcopy, lambda v: pickle.loads(pickle.dumps(v))):
        twin = duplicate(b1)
        assert twin.__class__ is rc and _plain(twin) == _plain(b1)
        if options["eq"]:
            assert twin == b1


def test_a_post_init_runs_and_derived_fields_are_set_by_it() -> None:
    @records.record(slots=True, frozen=True)
    class Sized:
        items: tuple[int, ...]
        size: int = records.field(init=False, repr=False, compare=False)

        def __post_init__(self) -> None:
            object.__setattr__(self, "size", len(self.items))

    one = Sized((1, 2))
    assert (
        one.size == 2
        and repr(one) == "test_a_post_init_runs_and_derived_fields_are_set_by_it.<locals>.Sized(items=(1, 2))"
    )
    assert records.replace(one, items=(1,)).size == 1
    with pytest.raises(ValueError, match="size"):
        records.replace(one, size=3)
    with pytest.raises(records.FrozenRecordError):
        one.items = ()  # type: ignore[misc]


def test_methods_written_in_the_class_are_kept() -> None:
    @records.record(frozen=True, eq=False)
    class Own:
        value: int

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Own) and other.value % 2 == self.value % 2

        def __hash__(self) -> int:
            return self.value % 2

        def __repr__(self) -> str:
            return "own"

    assert Own(1) == Own(3) and hash(Own(1)) == hash(Own(3)) and repr(Own(1)) == "own"


def test_bad_declarations_are_refused_when_the_class_is_made() -> None:
    with pytest.raises(ValueError, match="mutable default"):

        @records.record
        class Shared:
            items: list[int] = []  # noqa: RUF012

    with pytest.raises(TypeError, match="non-default"):

        @records.record
        class Ordered:
            first: int = 0
            second: int  # type: ignore[misc]

    with pytest.raises(ValueError, match="both"):
        records.field(default=1, default_factory=list)
    with pytest.raises(TypeError, match="not a record"):
        records.fields(object())
