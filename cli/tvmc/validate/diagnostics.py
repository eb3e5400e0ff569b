"""Findings (a problem at a pointer of a tree) and Diagnostics (located in a file). The rule table
(`REGISTRY`, `RULES`, `Rule`) lives in `tvmc.validate.rule_table` and is exported here, loaded when
first read.
"""

from __future__ import annotations

from tvmc.errors import Location, TvmcError, suggestion_text
from tvmc.pointers import display_path
from tvmc.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    from tvmc.validate.rule_table import REGISTRY as REGISTRY
    from tvmc.validate.rule_table import RULES as RULES
    from tvmc.validate.rule_table import Rule as Rule

    Severity = Literal["error", "warning"]
else:

    def __getattr__(name: str) -> object:
        if name in ("REGISTRY", "RULES", "Rule"):  # the rule table, built when first read
            from tvmc.validate import rule_table

            return getattr(rule_table, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def rule_of(err: TvmcError) -> str:
    """The rule id a core error carries (its raiser's or its class's); none is a bug: `internal`."""
    return err.rule if err.rule is not None else "internal"


@record(slots=True, frozen=True)
class Finding:
    """A problem at a pointer of a tree (a document or a resolved config), not yet located."""

    rule: str
    pointer: str
    message: str
    suggestion: str | None = None
    severity: Severity = "error"
    location: Location | None = None  # set only when finer than the pointer's (inside a target string)
    hint: str | None = None  # what to do about it, printed after the message (as an error's)


@record(slots=True, frozen=True)
class Diagnostic:
    """A finding located where the offending key or value was written (or the flag that set it).
    Its fields are plain str/int/None values: `parallel` sends them as a tuple, in this order."""

    rule: str
    severity: Severity
    pointer: str
    message: str
    source: str | None  # the file (or flag / env text) that supplied the value
    line: int | None = None
    col: int | None = None
    suggestion: str | None = None
    hint: str | None = None  # what to do about it, part of the message in reports (as an error's)

    @property
    def path(self) -> str:
        """The readable key path: `targets[0].mcpu`."""
        return display_path(self.pointer)

    @property
    def full_message(self) -> str:
        """The message with its hint and did-you-mean, as the text and GitHub reporters print it:
        in the order of `TvmcError.detail`, so a problem reads the same in every command."""
        return self.message + self.hint_text + suggestion_text([self.suggestion] if self.suggestion else [])

    @property
    def hint_text(self) -> str:
        return f"; {self.hint}" if self.hint else ""

    def where(self) -> str:
        """`FILE:LINE:COL`, `FILE:LINE`, `FILE`, or `<unknown>`."""
        if self.source is None:
            return "<unknown>"
        if self.line is None:
            return self.source
        return f"{self.source}:{self.line}" + (f":{self.col}" if self.col is not None else "")

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.source or "", self.line or 0, self.col or 0, self.pointer, self.rule)


@record(slots=True)
class FileResult:
    """Everything found for one input (a file, stdin, or a resolved --config)."""

    name: str
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    @property
    def ok(self) -> bool:
        return not any(d.severity == "error" for d in self.diagnostics)


@record(slots=True)
class Summary:
    """Totals over a run (kept as counters, so memory stays flat however many files there are)."""

    files: int = 0
    invalid: int = 0
    errors: int = 0
    warnings: int = 0

    def add(self, result: FileResult) -> None:
        self.files += 1
        errors = len(result.errors)
        self.errors += errors
        self.warnings += len(result.diagnostics) - errors
        self.invalid += 1 if errors else 0

    @property
    def ok(self) -> bool:
        return self.invalid == 0
