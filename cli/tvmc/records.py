"""Records: tvmc's value classes, declared as dataclasses are (`@record(slots=True, frozen=True)`,
`field(default_factory=...)`, `replace`, `fields`, `asdict`) and behaving alike for what tvmc uses:
`__init__` with defaults and `__post_init__`, field-wise `==` and `hash` (frozen ones), `repr`,
`__match_args__`, slots, frozen instances that still copy and pickle.

Why not `dataclasses`: every command imports the core's records, and with dataclasses that costs
about 18 ms of each start-up (1.5 bare Python starts, scripts/bench_startup.py): 9 ms to import it
(it imports inspect, hence ast, dis and tokenize) and 9 ms for the source it writes and compiles for
every method of every class. A record's methods are closures over the field list, built without
compiling anything; the classes are small and made once, so the few generic steps they take per call
cost nothing the commands notice (the benchmarks hold).

Like dataclasses: fields come from the class's own annotations (ClassVar ones excepted) after its
record bases' fields; a method written in the class body is kept; `eq` with `frozen` hashes the
compared fields, `eq` alone makes instances unhashable unless the class writes `__hash__`; a field
without a default after one with a default, or a list/dict/set default, is a TypeError/ValueError
when the class is made.
"""

from __future__ import annotations

from operator import attrgetter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")
    R = TypeVar("R")
else:

    def dataclass_transform(**_options):
        return lambda decorator: decorator


class FrozenRecordError(AttributeError):
    """An assignment to a field of a frozen record."""


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __reduce__(self) -> str:
        return "MISSING"  # pickled and copied as the one module-level value


MISSING: Any = _Missing()


class Field:
    """One field of a record: its name, default (or factory), and whether `__init__` takes it,
    `repr` shows it, and `==`/`hash` compare it."""

    __slots__ = ("compare", "default", "default_factory", "init", "name", "repr")

    def __init__(
        self, default: Any, default_factory: Callable[[], Any] | None, init: bool, repr: bool, compare: bool
    ) -> None:
        if default is not MISSING and default_factory is not None:
            raise ValueError("a field cannot have both a default and a default_factory")
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.compare = compare

    @property
    def has_default(self) -> bool:
        return self.default is not MISSING or self.default_factory is not None

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, init={self.init}, compare={self.compare})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | None = None,
    init: bool = True,
    repr: bool = True,
    compare: bool = True,
) -> Any:
    """A field's default and options, as `dataclasses.field`."""
    return Field(default, default_factory, init, repr, compare)


@dataclass_transform(field_specifiers=(field, Field))
def record(
    cls: type[T] | None = None,
    /,
    *,
    init: bool = True,
    repr: bool = True,
    eq: bool = True,
    frozen: bool = False,
    slots: bool = False,
) -> Any:
    """The class decorator, used bare (`@record`) or with options (`@record(frozen=True)`)."""

    def make(cls: type[T]) -> type[T]:
        return _make(cls, init=init, repr=repr, eq=eq, frozen=frozen, slots=slots)

    return make if cls is None else make(cls)


def fields(record_or_class: Any) -> tuple[Field, ...]:
    """The fields of a record class or instance, in order."""
    try:
        found: tuple[Field, ...] = record_or_class.__record_fields__
    except AttributeError:
        raise TypeError(f"{record_or_class!r} is not a record or a record class") from None
    return found


def is_record(value: object) -> bool:
    """Whether `value` is a record class or an instance of one."""
    return hasattr(value, "__record_fields__")


def replace(obj: R, /, **changes: Any) -> R:
    """A copy of the record `obj` with `changes`, made by its `__init__` (so `__post_init__` runs)."""
    for each in fields(obj):
        if not each.init:
            if each.name in changes:
                raise ValueError(f"field {each.name!r} is not an __init__ argument: replace() cannot set it")
        elif each.name not in changes:
            changes[each.name] = getattr(obj, each.name)
    return obj.__class__(**changes)


def asdict(obj: Any) -> Any:
    """A record as a dict of its fields, nested records, lists, tuples and dicts converted in turn
    and other values deep-copied, as `dataclasses.asdict`."""
    if is_record(obj) and not isinstance(obj, type):
        return {each.name: asdict(getattr(obj, each.name)) for each in fields(obj)}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*[asdict(value) for value in obj])
    if isinstance(obj, (list, tuple)):
        return type(obj)(asdict(value) for value in obj)
    if isinstance(obj, dict):
        return type(obj)((asdict(key), asdict(value)) for key, value in obj.items())
    import copy

    return copy.deepcopy(obj)


_CLASS_VARS = ("ClassVar", "typing.ClassVar")


def _own_fields(cls: type) -> list[Field]:
    made = []
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():  # noqa: RUF063 (no inspect)
        text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
        if text.split("[", 1)[0].strip() in _CLASS_VARS:
            continue
        value = cls.__dict__.get(name, MISSING)
        if isinstance(value, Field):
            made_field = value
        else:
            if isinstance(value, (list, dict, set)):
                raise ValueError(f"mutable default {type(value).__name__} for field {name}: use default_factory")
            made_field = Field(value, None, True, True, True)
        made_field.name = name
        made.append(made_field)
    return made


def _make(cls: type[T], *, init: bool, repr: bool, eq: bool, frozen: bool, slots: bool) -> type[T]:
    inherited: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for each in base.__dict__.get("__record_fields__", ()):
            inherited[each.name] = each
    own = _own_fields(cls)
    for each in own:
        inherited[each.name] = each
    all_fields = tuple(inherited.values())
    names = tuple(inherited)
    body = dict(cls.__dict__)
    # What the record adds to the class, gathered first: a slotted record is then made by one
    # type() call. Apart from __init__, its methods are shared by every record and read what they
    # need from the class (`__record_key__`, ...): a class costs what its fields cost, as it is
    # made at every start-up (scripts/bench_startup.py).
    added: dict[str, Any] = {"__record_fields__": all_fields}

    def add(name: str, method: Any) -> None:
        if name not in body:
            added[name] = method

    if init:
        init_method = _init(all_fields, cls)
        init_method.__qualname__ = f"{cls.__qualname__}.__init__"
        add("__init__", init_method)
    if repr:
        add("__repr__", _record_repr)
    compared = tuple(each.name for each in all_fields if each.compare)
    added["__record_key__"] = attrgetter(*compared) if len(compared) > 1 else _single(compared)
    if eq:
        add("__eq__", _record_eq)
        explicit_hash = body.get("__hash__", MISSING) is not MISSING and not (
            body["__hash__"] is None and "__eq__" in body
        )
        if not explicit_hash:
            added["__hash__"] = _record_hash if frozen else None
    if frozen:
        if "__setattr__" in body or "__delattr__" in body:
            raise TypeError(f"frozen record {cls.__name__} cannot define __setattr__ or __delattr__")
        added["__record_frozen__"] = frozenset(names)
        added["__setattr__"] = _frozen_setattr
        added["__delattr__"] = _frozen_delattr
        if slots:  # pickle and copy restore the slots with setattr, which a frozen record refuses
            add("__getstate__", _record_getstate)
            add("__setstate__", _record_setstate)
    if "__match_args__" not in body:
        added["__match_args__"] = tuple(each.name for each in all_fields if each.init)
    if slots:
        if "__slots__" in body:
            raise TypeError(f"{cls.__name__} already specifies __slots__")
        for each in own:
            body.pop(each.name, None)  # a default lives in the Field, not as a class attribute
        body.pop("__dict__", None)
        body.pop("__weakref__", None)
        slotted: set[str] = set()  # slots a base already has
        for base in cls.__mro__:
            base_slots = base.__dict__.get("__slots__", ())
            slotted.update((base_slots,) if isinstance(base_slots, str) else base_slots)
        body["__slots__"] = tuple(n for n in names if n not in slotted)
        body.update(added)
        made: type[T] = type(cls.__name__, cls.__bases__, body)
        made.__qualname__ = cls.__qualname__
        return made
    for each in own:
        if isinstance(cls.__dict__.get(each.name), Field):  # the default, or nothing, as dataclasses do
            if each.default is MISSING:
                delattr(cls, each.name)
            else:
                setattr(cls, each.name, each.default)
    for name, value in added.items():
        setattr(cls, name, value)
    return cls


def _single(compared: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    if not compared:
        return _no_key
    getter = attrgetter(compared[0])
    return lambda self: (getter(self),)


def _no_key(_self: Any) -> tuple[Any, ...]:
    return ()


def _init(all_fields: tuple[Field, ...], cls: type) -> Callable[..., None]:
    taken: list[Field] = []
    derived: list[Field] = []
    first_default = -1  # the first argument with a default
    factories = False
    for each in all_fields:
        if not each.init:
            if each.has_default:
                derived.append(each)
            continue
        if each.has_default:
            if first_default < 0:
                first_default = len(taken)
            factories = factories or each.default_factory is not None
        elif first_default >= 0:
            raise TypeError(f"non-default argument {each.name!r} follows default argument")
        taken.append(each)
    count = len(taken)
    if first_default < 0:
        first_default = count
    taken_names = tuple(each.name for each in taken)
    post_init = getattr(cls, "__post_init__", None) is not None
    set_value = object.__setattr__

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """Every __init__ argument's value, in field order: those given, else the defaults."""
        values = list(args)
        for each in taken[len(args) :]:
            if each.name in kwargs:
                values.append(kwargs.pop(each.name))
            elif each.default is not MISSING:
                values.append(each.default)
            elif each.default_factory is not None:
                values.append(each.default_factory())
            else:
                raise TypeError(f"__init__() missing required argument: {each.name!r}")
        if kwargs:
            name = next(iter(kwargs))
            if name in taken_names:
                raise TypeError(f"__init__() got multiple values for argument {name!r}")
            raise TypeError(f"__init__() got an unexpected keyword argument {name!r}")
        return tuple(values)

    # Defaults to append to positional arguments that stop at or after the first field with a
    # default (the common call), when no default is a factory.
    tail: tuple[Any, ...] | None = None if factories else tuple(each.default for each in taken[first_default:])

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if kwargs or len(args) != count:
            if not kwargs and tail is not None and first_default <= len(args) < count:
                args += tail[len(args) - first_default :]
            elif len(args) > count:
                raise TypeError(f"__init__() takes {count + 1} positional arguments but {len(args) + 1} were given")
            else:
                args = bind(args, kwargs)
        for name, value in zip(taken_names, args, strict=True):
            set_value(self, name, value)
        for each in derived:
            set_value(self, each.name, each.default_factory() if each.default_factory else each.default)
        if post_init:
            self.__post_init__()

    return __init__


# The methods every record shares; each reads what it needs of the record's class.


def _record_repr(self: Any) -> str:
    shown = (each.name for each in self.__record_fields__ if each.repr)
    inside = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
    return f"{self.__class__.__qualname__}({inside})"


def _record_eq(self: Any, other: Any) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented  # type: ignore[no-any-return]
    key = self.__class__.__record_key__  # from the class: a function there is not bound
    return bool(self is other or key(self) == key(other))


def _record_hash(self: Any) -> int:
    return hash(self.__class__.__record_key__(self))


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    # A frozen record refuses every assignment; a plain subclass of one, its fields only.
    if type(self).__dict__.get("__setattr__") is _frozen_setattr or name in self.__record_frozen__:
        raise FrozenRecordError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _frozen_delattr(self: Any, name: str) -> None:
    if type(self).__dict__.get("__delattr__") is _frozen_delattr or name in self.__record_frozen__:
        raise FrozenRecordError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


def _record_getstate(self: Any) -> list[Any]:
    return [getattr(self, each.name, MISSING) for each in self.__record_fields__]


def _record_setstate(self: Any, state: list[Any]) -> None:
    for each, value in zip(self.__record_fields__, state, strict=True):
        if value is not MISSING:
            object.__setattr__(self, each.name, value)
