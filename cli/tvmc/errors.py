"""Typed errors raised by the core. Each carries where the bad input came from.

The CLI is the only place that turns these into exit codes: `UsageError` → 2, every other
`TvmcError` → 1. Nothing else may escape the core for bad input.
"""

from __future__ import annotations

from collections.abc import Sequence

from tvmc.pointers import display_path
from tvmc.records import record
from tvmc.text import one_line as printable_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar


@record(slots=True, frozen=True)
class Location:
    """Where a piece of input came from: a file position, a flag, an env var, or a default."""

    source: str  # file path, "<stdin>", "--flag text", "env TVMC_X", "default"
    line: int | None = None
    col: int | None = None

    def __str__(self) -> str:
        if self.line is None:
            return self.source
        if self.col is None:
            return f"{self.source}:{self.line}"
        return f"{self.source}:{self.line}:{self.col}"


class TvmcError(Exception):
    """Base of all errors tvmc reports to users (exit code 1 unless a subclass says otherwise)."""

    exit_code = 1
    # The rule id (of the one registry, `tvmc.validate.rule_table.REGISTRY`) an error of this class
    # stands for when its raiser names no finer one; None: the class is not a config problem by
    # itself, and a raiser refusing a config passes `rule=`. Only the rule engine refuses a config:
    # every error about one carries the id of the rule that refuses it.
    default_rule: ClassVar[str | None] = None

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
        self.rule = rule if rule is not None else self.default_rule
        self.pointer = pointer
        self.message = message
        self.location = location
        self.suggestions = tuple(suggestions)
        self.hint = hint
        super().__init__(self.one_line())

    def one_line(self) -> str:
        """The message as printed by the CLI: `source: message; hint (did you mean …?)`, on one printable
        line whatever user text (a tag, a key, a file name) a raiser put in it unescaped."""
        text = self.detail()
        return printable_line(f"{self.location}: {text}" if self.location else text)

    def detail(self) -> str:
        """`one_line()` without the location: the pointer, message, suggestions and hint (what the
        build child sends beside the location, so that the parent can tell which input was at fault)."""
        text = self.message
        if self.pointer:  # as users read it (`targets[0].mcpu`), one readable line even 64 levels deep
            shown = display_path(self.pointer)
            if len(shown) > 60:
                tail = shown[-50:]
                shown = "…" + tail[next((i for i, c in enumerate(tail) if c in "[."), 0) :].lstrip(".")
            text = f"{shown}: {text}"
        if self.hint:
            text += f"; {self.hint}"
        text += suggestion_text(self.suggestions)  # last, as `config validate` prints it
        return printable_line(text)


class UsageError(TvmcError):
    """A malformed flag, rewrite expression or flag value (exit code 2)."""

    exit_code = 2


class ConfigSyntaxError(TvmcError):
    """A config file that is not valid TOML/JSON, or has duplicate keys, bad encoding, ..."""

    default_rule = "syntax"


class ConfigNotFoundError(TvmcError):
    """A named config that is not on the search path, or a path that does not exist."""

    default_rule = "config-not-found"


class ConfigLayerError(TvmcError):
    """`extends` problems: cycles, bad entries, depth or fan-out beyond the limits."""

    default_rule = "extends-unresolved"


class TargetError(TvmcError):
    """A target that cannot be parsed or that TVM would reject.

    `option` is the key of the top-level target table the error is about (None for a nested
    target's or when no one key is at fault): validation points at it without reading the message.
    """

    default_rule = "invalid-target"

    def __init__(
        self, message: str, location: Location | str | None = None, *, option: str | None = None, **record: Any
    ) -> None:
        super().__init__(message, location, **record)  # the rest of the problem record, as TvmcError takes it
        self.option = option


class RewriteError(TvmcError):
    """A rewrite that cannot be applied to the config (no target of that kind, bad path...)."""

    default_rule = "rewrite"


class LimitError(TvmcError):
    """Input beyond a documented limit (file size, nesting depth, number of rewrites...)."""

    default_rule = "limit"


class BuildError(TvmcError):
    """A build that cannot be done here (TVM missing, unsupported option, frontend failure)."""


def suggestion_text(suggestions: Sequence[str]) -> str:
    """The one spelling of a did-you-mean after a message: ` (did you mean 'a' or 'b'?)`, or ''."""
    return " (did you mean " + " or ".join(map(repr, suggestions)) + "?)" if suggestions else ""


def did_you_mean(word: str, candidates: Sequence[str], n: int = 1) -> list[str]:
    """Close matches for a misspelt name, for `suggestions=`: exactly `difflib.get_close_matches`
    (cutoff 0.6), which is slow on long lists (a search path of thousands of configs, hundreds of
    tags). A candidate is compared in full only if it could pass: difflib's ratios are at most
    2·matches/total, and the matches at most the shorter length and the number of the
    candidate's characters that occur in `word` at all (`translate` counts those in C)."""
    cutoff, size = 0.6, len(word)
    absent = dict.fromkeys(map(ord, word), None)  # deletes the characters `word` has
    likely = [
        c
        for c in candidates
        if _ratio_bound(min(len(c), size), len(c) + size) >= cutoff
        and _ratio_bound(len(c) - len(c.translate(absent)), len(c) + size) >= cutoff
    ]
    if not likely:
        return []
    import difflib  # lazy: most runs never suggest anything

    return difflib.get_close_matches(word, likely, n=n, cutoff=cutoff)


def _ratio_bound(matches: int, total: int) -> float:
    # difflib's own formula (1 for two empty strings), in the same floating point: a candidate
    # left out here is one difflib would leave out too.
    return 2.0 * matches / total if total else 1.0
