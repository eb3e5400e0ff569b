"""The rule table: every rule id of the one rule engine, declared with its severity, its one-line doc
(`config validate --help`, the README's rule table, SARIF's rule help) and the check that reports it.

Rule ids are stable: users grep for them, CI filters on them, and the corpus asserts them. Loaded
when something reads the table (`tvmc.validate.diagnostics` exports it): checking a config only
names rules, so `config show` does not build it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from tvmc.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tvmc.validate.diagnostics import Severity


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
            (
                "tvmc.validate.checks:Checker.target_kind",
                "tvmc.validate.checks:Checker.target_string",
                "tvmc.targets.canonical:canonicalize",  # a flag's or variable's target string
            ),
        ),
        Rule(
            "unknown-option",
            "error",
            "An option the target kind (or executor/runtime) does not have.",
            (
                "tvmc.validate.checks:Checker.component",
                "tvmc.validate.checks:Checker.target",
                "tvmc.validate.rules:_Rules.canonical",  # an option in a target string
            ),
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
