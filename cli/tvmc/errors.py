"""Typed errors raised by the core. Each carries where the bad input came from.

The CLI is the only place that turns these into exit codes: `UsageError` → 2, every other
`TvmcError` → 1. Nothing else may escape the core for bad input.

Also `Record` and `FrozenRecord`, the base of `Location` and of tvmc's other small value classes:
they live here because every module imports this one, and it imports no other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any, ClassVar, Final


class Record:
    """A class of named fields with `==` and `repr` over them, as `@dataclass` makes one.

    A subclass lists its fields in order in `__match_args__` (as a dataclass has them), makes them its
    `__slots__`, annotates them, and assigns every one in an explicit, typed `__init__` that takes
    them in that order. Why not `@dataclass`: it compiles the methods of every class it decorates
    when the class is created, ~0.5 ms each under Python 3.11, which added up to half the time
    `tvmc config validate` spent importing tvmc's modules.
    """

    __match_args__: ClassVar[tuple[str, ...]] = ()
    __slots__: ClassVar[tuple[str, ...]] = ()
    # The fields that `==`, `hash` and `repr` use: all of them unless the class says otherwise.
    _compared: ClassVar[tuple[str, ...]] = ()
    _values: ClassVar[Callable[[Record], tuple[Any, ...]]]  # those fields' values (set per class)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_compared" not in cls.__dict__:
            cls._compared = cls.__match_args__
        cls._values = staticmethod(_getter(cls._compared))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        values = type(self)._values
        return values(self) == values(other)

    __hash__: ClassVar[None]  # type: ignore[assignment]  # mutable: unhashable, as a plain @dataclass

    def __repr__(self) -> str:
        values = type(self)._values(self)
        fields = ", ".join(f"{name}={value!r}" for name, value in zip(self._compared, values, strict=True))
        return f"{self.__class__.__qualname__}({fields})"


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The values of the attributes `names` of an object, as a tuple (attrgetter: at C speed)."""
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda record: (one(record),)
    return attrgetter(*names) if names else lambda record: ()


class FrozenRecord(Record):
    """A `Record` that hashes by its fields, as `@dataclass(frozen=True)` makes one. Its fields are
    annotated `Final`, so mypy rejects assigning them; nothing checks at run time: a `__setattr__`
    that refused assignments would also intercept `__init__`'s, and build records ~4x slower than
    a dataclass does (plain slot stores build them ~4x faster)."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(type(self)._values(self))


class Location(FrozenRecord):
    """Where a piece of input came from: a file position, a flag, an env var, or a default."""

    __match_args__ = ("source", "line", "col")
    __slots__ = __match_args__
    source: Final[str]  # file path, "<stdin>", "--flag text", "env TVMC_X", "default"
    line: Final[int | None]
    col: Final[int | None]

    def __init__(self, source: str, line: int | None = None, col: int | None = None) -> None:
        self.source = source
        self.line = line
        self.col = col

    def __str__(self) -> str:
        if self.line is None:
            return self.source
        if self.col is None:
            return f"{self.source}:{self.line}"
        return f"{self.source}:{self.line}:{self.col}"


class TvmcError(Exception):
    """Base of all errors tvmc reports to users (exit code 1 unless a subclass says otherwise)."""

    exit_code = 1

    def __init__(
        self,
        message: str,
        location: Location | str | None = None,
        *,
        suggestions: Sequence[str] = (),
        hint: str | None = None,
        rule: str | None = None,
        pointer: str | None = None,
    ) -> None:
        if isinstance(location, str):
            location = Location(location)
        # One problem record: the rule id (when a rule of the one rule engine raised it) and the
        # JSON pointer of the value at fault (when it is one), never recovered from the message.
        self.rule = rule
        self.pointer = pointer
        self.message = message
        self.location = location
        self.suggestions = tuple(suggestions)
        self.hint = hint
        super().__init__(self.one_line())

    def one_line(self) -> str:
        """The message as printed by the CLI: `source: message (did you mean …?)`."""
        text = self.message
        if self.pointer:  # one readable line even for a pointer 64 levels deep
            shown = self.pointer if len(self.pointer) <= 60 else f"…{self.pointer[-50:]}"
            text = f"{shown}: {text}"
        text += suggestion_text(self.suggestions)
        if self.hint:
            text += f"; {self.hint}"
        return f"{self.location}: {text}" if self.location else text


class UsageError(TvmcError):
    """A malformed flag, rewrite expression or flag value (exit code 2)."""

    exit_code = 2


class ConfigSyntaxError(TvmcError):
    """A config file that is not valid TOML/JSON, or has duplicate keys, bad encoding, ..."""


class ConfigNotFoundError(TvmcError):
    """A named config that is not on the search path, or a path that does not exist."""


class ConfigLayerError(TvmcError):
    """`extends` problems: cycles, bad entries, depth or fan-out beyond the limits."""


class TargetError(TvmcError):
    """A target that cannot be parsed or that TVM would reject.

    `option` is the key of the top-level target table the error is about (None for a nested
    target's or when no one key is at fault): validation points at it without reading the message.
    """

    def __init__(
        self,
        message: str,
        location: Location | str | None = None,
        *,
        suggestions: Sequence[str] = (),
        hint: str | None = None,
        rule: str | None = None,
        option: str | None = None,
    ) -> None:
        super().__init__(message, location, suggestions=suggestions, hint=hint, rule=rule)
        self.option = option


class RewriteError(TvmcError):
    """A rewrite that cannot be applied to the config (no target of that kind, bad path...)."""


class LimitError(TvmcError):
    """Input beyond a documented limit (file size, nesting depth, number of rewrites...)."""


class BuildError(TvmcError):
    """A build that cannot be done here (TVM missing, unsupported option, frontend failure)."""


def suggestion_text(suggestions: Sequence[str]) -> str:
    """The one spelling of a did-you-mean after a message: ` (did you mean 'a' or 'b'?)`, or ''."""
    return " (did you mean " + " or ".join(map(repr, suggestions)) + "?)" if suggestions else ""


def did_you_mean(word: str, candidates: Sequence[str], n: int = 1) -> list[str]:
    """Close matches for a misspelt name, for `suggestions=`."""
    import difflib

    return difflib.get_close_matches(word, list(candidates), n=n, cutoff=0.6)
