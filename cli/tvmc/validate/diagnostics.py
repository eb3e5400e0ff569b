"""Findings (a problem at a pointer of a tree), Diagnostics (located in a file) and the rule ids.

Rule ids are stable: users grep for them, CI filters on them, and the corpus asserts them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from tvmc.errors import Location, TvmcError, suggestion_text
from tvmc.pointers import display_path
from tvmc.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    Severity = Literal["error", "warning"]


@record(slots=True, frozen=True)
class Rule:
    """A declared rule of the one rule engine: its stable id, the severity it reports at (the
    legacy-* warnings become errors with --strict or a tvm-version that says >= 0.25), and its
    one-line doc (`config validate --help`, the README's rule table, SARIF's rule help)."""

    id: str
    severity: Severity
    doc: str
    # What runs the rule: the functions (`module:qualname`) that produce its findings, or for a
    # rule reported by a stage (reading a file, expanding `extends`) that stage. Named, not
    # imported: the registry is read by `validate --help` and must not load the checks.
    check: tuple[str, ...]
    # None: the rule judges a config, and the one rule engine (`validate.runner`, what every
    # command runs) runs its check; else the input outside a config it judges.
    outside: str | None = None

    def check_functions(self) -> list[Callable[..., Any]]:
        """The check's functions, imported."""
        out = []
        for name in self.check:
            module, _, qualname = name.partition(":")
            found: Any = importlib.import_module(module)
            for part in qualname.split("."):
                found = getattr(found, part)
            out.append(found)
        return out


# The one registry of rule ids. Every problem a config can get names one of these (a test walks
# the code for rule ids and error constructions: tests/validate/test_rule_registry.py).
REGISTRY: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        # reading the file
        Rule(
            "syntax",
            "error",
            "The file is not valid TOML/JSON (or has duplicate keys, bad UTF-8, a non-object document).",
            ("tvmc.sources.loader:load_bytes",),
        ),
        Rule(
            "limit",
            "error",
            "The file is beyond a documented input limit (size, nesting, integer range, string length).",
            ("tvmc.sources.loader:load_bytes", "tvmc.layering.expand:Expander._linearize_entries"),
        ),
        Rule(
            "unreadable",
            "error",
            "The file cannot be read (missing, a directory, permissions).",
            ("tvmc.sources.loader:load_file",),
        ),
        # structure (what the JSON Schema says)
        Rule(
            "unknown-key",
            "error",
            "A top-level key or build option that tvmc does not know.",
            ("tvmc.validate.checks:Checker.document", "tvmc.validate.checks:Checker.build"),
        ),
        Rule(
            "wrong-type",
            "error",
            "A value of the wrong type (TVM's spelling: str, int, bool, Array<str>, ...).",
            ("tvmc.validate.checks:check_document",),
        ),
        Rule(
            "invalid-value",
            "error",
            "A value outside its enum, range or pattern (opt-level, output-format, tvm-version).",
            ("tvmc.validate.checks:check_document",),
        ),
        Rule(
            "missing-key",
            "error",
            "A required key is missing (a target's 'kind' or 'tag'; a resolved executor's 'kind').",
            (
                "tvmc.validate.checks:Checker.target_kind",
                "tvmc.validate.checks:completeness_findings",
                "tvmc.validate.checks:component_kind_findings",
            ),
        ),
        Rule(
            "unknown-kind",
            "error",
            "A target kind that neither modern nor legacy TVM has.",
            ("tvmc.validate.checks:Checker.target_kind",),
        ),
        Rule(
            "unknown-tag",
            "error",
            "A target string that is neither a TVM tag nor a target string starting with a kind.",
            ("tvmc.validate.checks:Checker.target_kind", "tvmc.validate.checks:Checker.target_string"),
        ),
        Rule(
            "unknown-option",
            "error",
            "An option the target kind (or executor/runtime) does not have.",
            ("tvmc.validate.checks:Checker.component", "tvmc.validate.checks:Checker.target"),
        ),
        Rule(
            "wrong-kind-option",
            "error",
            "An executor/runtime option that belongs to another kind than the chosen one.",
            ("tvmc.validate.checks:Checker.component", "tvmc.validate.rules:_Rules.components"),
        ),
        Rule(
            "unknown-executor",
            "error",
            "An executor name that is not graph, aot or vm.",
            ("tvmc.validate.checks:Checker.component",),
        ),
        Rule(
            "unknown-runtime",
            "error",
            "A runtime name that is not cpp or crt.",
            ("tvmc.validate.checks:Checker.component",),
        ),
        Rule(
            "unknown-compiler",
            "error",
            "A target 'compiler' that is not a known BYOC codegen.",
            ("tvmc.validate.checks:Checker.compiler",),
        ),
        Rule(
            "pass-config-type",
            "error",
            "A PassContext config value of the wrong type.",
            ("tvmc.validate.checks:Checker.pass_config", "tvmc.validate.rules:_Rules.pass_configs"),
        ),
        Rule(
            "unknown-pass-config",
            "warning",
            "A PassContext config name TVM does not register (warning).",
            ("tvmc.validate.rules:_Rules.pass_configs",),
        ),
        # semantics (over the resolved config)
        Rule(
            "unsupported-tvm-version",
            "error",
            "A tvm-version that admits no TVM release tvmc supports (0.18, 0.19 for --emit tvmc/relay; >= 0.25).",
            ("tvmc.validate.rules:_Rules.tvm_version",),
        ),
        Rule(
            "invalid-target",
            "error",
            "A target TVM would reject (canonicalization error from tvmc.targets).",
            (
                "tvmc.validate.rules:_Rules.canonical",
                "tvmc.targets.canonical:canonicalize",
                "tvmc.validate.rules:_Rules.one_plain_target",
            ),
        ),
        Rule(
            "aot-interface-api",
            "error",
            "The aot executor with interface-api = 'c' needs unpacked-api = true.",
            ("tvmc.validate.rules:_Rules.components",),
        ),
        Rule(
            "host-conflict",
            "error",
            "A target's own host differs from the config's host (or from another target's host).",
            ("tvmc.validate.rules:_Rules.hosts",),
        ),
        Rule(
            "host-not-cpu",
            "error",
            "The host (or a target's host) is not a CPU-side kind (device type cpu, or hexagon), or is a BYOC codegen.",
            ("tvmc.validate.rules:_Rules.cpu_side",),
        ),
        Rule(
            "duplicate-device",
            "error",
            "Two plain targets for the same device type without a distinguishing 'compiler' (or the same compiler "
            "twice).",
            ("tvmc.validate.rules:_Rules.devices",),
        ),
        Rule(
            "compiler-mismatch",
            "error",
            "A 'compiler' that cannot refine the target kind it is set on.",
            ("tvmc.validate.rules:_Rules.compiler",),
        ),
        Rule(
            "unknown-cpu",
            "error",
            "An mcpu, an mattr feature (or one without +/-) or a cuda arch that TVM's LLVM does not know.",
            ("tvmc.validate.rules:_Rules.llvm_names",),
        ),
        # legacy-* are warnings; errors with --strict or when tvm-version says >= 0.25; silent when it says < 0.25
        Rule("legacy-kind", "warning", "A target kind only legacy TVM has.", ("tvmc.validate.rules:_Rules.legacy",)),
        Rule(
            "legacy-option",
            "warning",
            "A target option only legacy TVM has (tvmc moves it to the executor/runtime).",
            ("tvmc.validate.rules:_Rules.legacy",),
        ),
        Rule(
            "legacy-tag",
            "warning",
            "A tag name only legacy TVM has (renamed since).",
            ("tvmc.validate.rules:_Rules.legacy",),
        ),
        Rule(
            "legacy-pass-config",
            "warning",
            "A pass config only legacy TVM registers (relay.*), in a config for no TVM in particular.",
            ("tvmc.validate.rules:_Rules.pass_configs",),
        ),
        Rule(
            "legacy-component",
            "warning",
            "An executor or runtime only legacy TVM has (graph, aot, crt).",
            ("tvmc.validate.rules:_Rules.components",),
        ),
        Rule(
            "legacy-release",
            "error",
            "In a config written for TVM <= 0.19: what the release it is for (the newest of 0.19 and 0.18 its "
            "tvm-version admits) lacks: a target kind or attribute, a BYOC codegen or option, a second TVM target, "
            "an executor, runtime or option, a PassContext config, an output format.",
            ("tvmc.validate.rules:_Rules.release",),
        ),
        # layering and resolution
        Rule(
            "extends-unresolved",
            "error",
            "An 'extends' entry that names no config on the search path, no file and no tag.",
            ("tvmc.layering.expand:Expander._entry",),
        ),
        Rule(
            "extends-cycle",
            "error",
            "An 'extends' chain that comes back to a config already in it.",
            ("tvmc.layering.expand:Expander._entry",),
        ),
        Rule(
            "extends-order",
            "error",
            "Configs that order a shared base in opposite ways, so no order applies each file once (C3 "
            "linearization, as Python's MRO).",
            ("tvmc.layering.expand:Expander._linearize_entries",),
        ),
        Rule(
            "extends-invalid",
            "error",
            "An 'extends' entry naming a config that has errors of its own (reported once, at that config).",
            ("tvmc.validate.runner:_invalid_parents",),
        ),
        Rule(
            "config-not-found",
            "error",
            "A --config name or path that does not resolve.",
            ("tvmc.validate.runner:_empty_directories",),
        ),
        Rule(
            "rewrite",
            "error",
            "A rewrite flag that does not apply to this file's config (e.g. a key path it does not have).",
            ("tvmc.rewrites.interpreter:apply_all",),
        ),
        # the inputs of `config migrate`, the legacy outputs, a library's manifest
        Rule(
            "migrate-input",
            "error",
            "An input to config migrate that holds no old tvmc config, command line or target (empty, several "
            "commands, tvmc run).",
            ("tvmc.migrate.inputs:classify", "tvmc.migrate.old_tvmc:read_command"),
            outside="config migrate's input",
        ),
        Rule(
            "old-tvmc-refused",
            "error",
            "An old tvmc config or command line that old tvmc itself refused (migrate).",
            ("tvmc.migrate.convert:_check_pass_config", "tvmc.migrate.old_tvmc:read_command"),
            outside="config migrate's input",
        ),
        Rule(
            "inexpressible",
            "error",
            "A setting the chosen legacy output (--emit tvmc's command line, --emit relay's script) cannot say though "
            "the release can.",
            ("tvmc.emit.tvmc_argv:tvmc_argv", "tvmc.emit.relay:_checks"),
            outside="a legacy output (--emit tvmc, --emit relay)",
        ),
        Rule(
            "manifest-config",
            "error",
            "A library whose manifest holds no config (config show --from LIBRARY).",
            ("tvmc.api:from_library",),
            outside="a library's manifest",
        ),
        Rule(
            "internal",
            "error",
            "tvmc failed on this input (a bug: please report it).",
            ("tvmc.validate.runner:Validator._guarded",),
        ),
    )
}
# id → its doc, in the registry's order.
RULES: dict[str, str] = {rule.id: rule.doc for rule in REGISTRY.values()}


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
