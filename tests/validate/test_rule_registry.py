"""Only the rule engine refuses: every problem a config can get names a rule of the one registry.

The code is walked (its AST), not run: every rule id written anywhere (`rule=`, a finding's or a
diagnostic's first field, an error class's `default_rule`) must be in
`tvmc.validate.diagnostics.REGISTRY`; every `ConfigError` (the rule engine's first error, `api.check`)
names its rule; and the errors raised by the config stages without any rule id are counted — a
ratchet that may only go down.
"""

from __future__ import annotations

import ast
import inspect
from collections import Counter
from functools import cache
from pathlib import Path

import tvmc
from tvmc import errors
from tvmc.validate.diagnostics import REGISTRY, RULES

PACKAGE = Path(tvmc.__file__).parent

# Error classes by the name they are constructed with (a subclass of TvmcError each).
ERROR_CLASSES = {
    "TvmcError",
    "UsageError",
    "ConfigSyntaxError",
    "ConfigNotFoundError",
    "ConfigLayerError",
    "TargetError",
    "RewriteError",
    "LimitError",
    "BuildError",
    "Inexpressible",
    "ConfigError",
    "MissingPackageError",
    "ManifestError",
}
# Calls whose first argument is a rule id (a Finding, a Diagnostic, the rule engine's `add`, the
# expander's `Problem`/`_fail`/`_problem`, the schema's `_rule`), and where.
RULE_FIRST = {"Finding": "", "Diagnostic": "", "add": "validate/", "_rule": "validate/"}
RULE_FIRST |= {"Problem": "layering/", "_fail": "layering/", "_problem": "layering/"}
# The stages that read, layer, rewrite, validate, canonicalize and emit a config: an error they
# raise is about the config (or the argv that rewrites it).
CONFIG_STAGES = ("config.py", "keys.py", "api/", "targets/", "layering/", "rewrites/", "sources/", "validate/")
CONFIG_STAGES += ("emit/", "migrate/", "backend/plan.py")
# Errors constructed in those stages with no rule id (neither `rule=` nor their class's): none
# (the ratchet reached 0 and stays there). A UsageError is left out: it refuses the command line
# (exit 2), not a config (a flag's value the rule engine refuses is the rule's error, exit 1:
# tests/cli/test_one_voice.py).
UNRULED_LIMIT = 0


def _modules() -> list[tuple[str, ast.Module]]:
    return list(_parsed())


@cache
def _parsed() -> tuple[tuple[str, ast.Module], ...]:
    """Every module of the package, parsed once for the tests of this file."""
    paths = sorted(PACKAGE.rglob("*.py"))
    return tuple((p.relative_to(PACKAGE).as_posix(), ast.parse(p.read_text(encoding="utf-8"))) for p in paths)


def _name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _strings(node: ast.AST) -> list[str]:
    """The rule ids an expression can give: a literal, or either branch of `a if c else b`."""
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) else []
    if isinstance(node, ast.IfExp):
        return [*_strings(node.body), *_strings(node.orelse)]
    return []


def _classes_with_default() -> set[str]:
    found = set()
    for cls in [errors.TvmcError, *_subclasses(errors.TvmcError)]:
        if cls.default_rule is not None:
            found.add(cls.__name__)
    return found


def _subclasses(cls: type) -> list[type]:
    import tvmc.config
    import tvmc.deps
    import tvmc.emit.legacy
    import tvmc.manifest  # noqa: F401  (their error classes)

    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out


def test_every_rule_id_written_in_the_code_is_registered() -> None:
    used: dict[str, str] = {}
    for module, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                for keyword in node.keywords:
                    if keyword.arg == "rule":
                        used.update((s, module) for s in _strings(keyword.value))
                name = _name(node)
                if name in RULE_FIRST and module.startswith(RULE_FIRST[name]) and node.args:
                    used.update((s, module) for s in _strings(node.args[0]))
    unknown = {rule: module for rule, module in used.items() if rule not in RULES}
    assert not unknown, f"rule ids not in the registry: {unknown}"
    assert len(used) >= 25  # the walk finds the rule engine's own ids (it is not looking at nothing)


def test_error_classes_stand_for_registered_rules() -> None:
    for cls in [errors.TvmcError, *_subclasses(errors.TvmcError)]:
        assert cls.default_rule is None or cls.default_rule in REGISTRY, cls
    assert errors.TargetError("x").rule == "invalid-target"
    assert errors.TargetError("x", rule="unknown-cpu").rule == "unknown-cpu"
    assert errors.BuildError("x").rule is None


def test_every_config_error_names_its_rule() -> None:
    """A `ConfigError` (the rule engine's error as every command raises it) passes `rule=` a registered id."""
    missing = []
    for module, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _name(node) == "ConfigError":
                rules = [k for k in node.keywords if k.arg == "rule"]
                if not rules or not all(s in RULES for s in _strings(rules[0].value)):
                    missing.append(f"{module}:{node.lineno}")
    assert not missing, f"ConfigError without a registered rule id: {missing}"


def unruled_config_errors(modules: list[tuple[str, ast.Module]] | None = None) -> Counter[str]:
    """Error constructions in the config stages that carry no rule id, by module."""
    defaults = _classes_with_default()
    found: Counter[str] = Counter()
    for module, tree in _modules() if modules is None else modules:
        if not module.startswith(CONFIG_STAGES):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = _name(node)
            if name not in ERROR_CLASSES or name in defaults or name == "UsageError":
                continue
            if any(k.arg in ("rule", None) for k in node.keywords):  # `rule=` or `**record`
                continue
            found[f"{module}:{node.lineno}"] += 1
    return found


def test_config_errors_without_a_rule_id_only_go_down() -> None:
    found = unruled_config_errors()
    total = sum(found.values())
    assert total <= UNRULED_LIMIT, f"{total} > {UNRULED_LIMIT} unruled errors: {sorted(found)}"


def test_the_ratchet_sees_a_new_unruled_error() -> None:
    """The walk is not looking at nothing: a config error raised without a rule id in a config
    stage is counted (a BuildError too: it has no rule of its own); with `rule=`, or outside the
    config stages, or a class that stands for a rule, it is not."""
    source = """
def f(x):
    raise TvmcError("bad", None)
def g(x):
    raise BuildError(f"bad {x}", hint="h")
def h(x):
    raise TvmcError("bad", rule="migrate-input")
def i(x):
    raise LimitError("too big")
"""
    tree = ast.parse(source)
    assert sorted(unruled_config_errors([("migrate/new.py", tree)])) == ["migrate/new.py:3", "migrate/new.py:5"]
    assert not unruled_config_errors([("backend/run.py", tree)])


def test_registry_is_what_validate_help_lists() -> None:
    from tvmc.cli import validate_cmd

    for rule in REGISTRY.values():
        assert rule.id in validate_cmd.EPILOG
        assert rule.doc and "\n" not in rule.doc and rule.severity in ("error", "warning")
    warnings = [r.id for r in REGISTRY.values() if r.severity == "warning"]
    assert "unknown-pass-config" in warnings and "legacy-kind" in warnings
    assert inspect.getdoc(errors.TvmcError)


def test_readme_rule_table_is_generated_from_the_registry() -> None:
    from testkit import ROOT, load_script

    module = load_script("gen_readme_configs")
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split(module.RULES_BEGIN)[1].split(module.RULES_END)[0]
    assert module.RULES_BEGIN + section + module.RULES_END == module.render_rules()
    assert [line.split("`")[1] for line in section.splitlines() if line.startswith("| `")] == list(REGISTRY)
