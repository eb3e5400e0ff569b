"""Structural checks: what the JSON Schema says, compiled into plain Python over `model`.

Running python-jsonschema per file costs about a millisecond with this schema (one `if` per kind,
287 tags); these checks do the same walk in microseconds and produce one precise finding per
problem (with a did-you-mean) instead of `anyOf` branches. `tests/validate/test_agreement.py`
runs both on the corpus and compares where they find errors.

Known, deliberate difference: JSON Schema's "integer" admits 3.0; TVM rejects floats for `int`
options and so do these checks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache

from tvmc import registry, versions
from tvmc.errors import did_you_mean
from tvmc.keys import KeySpec, pass_config_entries
from tvmc.pointers import join
from tvmc.targets.tables import STRING_START_RULE, in_another_case, start_suggestions
from tvmc.validate import model
from tvmc.validate.diagnostics import Finding
from tvmc.values import type_matches, type_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tvmc.validate.diagnostics import Severity

_MISSING: Any = object()


def first(candidates: list[str]) -> str | None:
    return candidates[0] if candidates else None


@lru_cache(maxsize=4096)
def _closest(word: str, candidates: tuple[str, ...]) -> str | None:
    return first(did_you_mean(word, candidates))


def suggest(word: str, candidates: Iterable[str]) -> str | None:
    """The did-you-mean for `word` (memoised: difflib over the 287 tags costs a millisecond, and in a
    repository the same typo tends to come back in many files)."""
    return _closest(word, tuple(candidates))


@lru_cache(maxsize=1024)
def suggest_tag(name: str, extra: tuple[str, ...] = ()) -> str | None:
    """A did-you-mean for a tag: a tag whose last part contains the last part given ('nvidia/a100' →
    'nvidia/nvidia-a100'), else the closest spelling."""
    tags = registry.tag_names()
    last = name.rsplit("/", 1)[-1].lower()
    containing = [t for t in tags if last and last in t.rsplit("/", 1)[-1].lower()]
    if containing:
        return suggest(name, containing) or min(containing, key=len)
    return suggest(name, [*tags, *extra])


def _expected(tvm_type: str, value: Any) -> str:
    return f"expected type '{tvm_type}' but got '{type_name(value)}'"


class Checker:
    """Collects every structural finding of one tree (a file's document or a resolved config)."""

    def __init__(self) -> None:
        self.generation: str | None = None  # what the document's `tvm-version` admits
        self.findings: list[Finding] = []
        self.kinds = registry.all_kinds()

    def add(
        self, rule: str, pointer: str, message: str, suggestion: str | None = None, severity: Severity = "error"
    ) -> None:
        self.findings.append(Finding(rule, pointer, message, suggestion, severity))

    # ---- values of a declared TVM type ---------------------------------------------------------

    def typed(self, value: Any, tvm_type: str, pointer: str) -> bool:
        """Check a str/int/bool/Array<str>/Array<int> value; array elements are checked one by one."""
        if tvm_type in ("Array<str>", "Array<int>"):
            if type(value) is not list:
                self.add("wrong-type", pointer, _expected(tvm_type, value))
                return False
            inner = tvm_type[6:-1]
            ok = True
            for index, item in enumerate(value):
                if not type_matches(item, inner):
                    self.add("wrong-type", join(pointer, index), _expected(inner, item))
                    ok = False
            return ok
        if not type_matches(value, tvm_type):
            self.add("wrong-type", pointer, _expected(tvm_type, value))
            return False
        return True

    def keyspec(self, value: Any, spec: KeySpec, pointer: str) -> None:
        if not self.typed(value, spec.type, pointer):
            return
        if spec.enum:
            items = list(enumerate(value)) if type(value) is list else [(None, value)]
            for index, item in items:
                if item not in spec.enum:
                    where = pointer if index is None else join(pointer, index)
                    self.add(
                        "invalid-value",
                        where,
                        f"{item!r} is not one of {', '.join(spec.enum)}",
                        suggest(str(item), spec.enum),
                    )
        if spec.minimum is not None and type(value) is int:
            high = spec.maximum if spec.maximum is not None else value
            if not spec.minimum <= value <= high:
                self.add("invalid-value", pointer, f"{value} is not in {spec.minimum}..{high}")

    # ---- the document --------------------------------------------------------------------------

    def document(self, data: Mapping[str, Any]) -> list[Finding]:
        self.generation = versions.generation(data.get("tvm-version"))
        for key, value in data.items():
            pointer = join("", key)
            spec = model.TOP_LEVEL_KEYS.get(key)
            if spec is None:
                self.add(
                    "unknown-key",
                    pointer,
                    "unknown key",
                    suggest(key, list(model.TOP_LEVEL_KEYS)),
                )
            elif key == "targets":
                self.targets(value, pointer)
            elif key == "host":
                self.target(value, pointer)
            elif key in ("executor", "runtime"):
                self.component(key, value, pointer)
            elif key == "pass-config":
                self.pass_config(value, pointer)
            elif key == "build":
                self.build(value, pointer)
            elif key == "extends":
                self.extends(value, pointer)
            else:
                self.keyspec(value, spec, pointer)
                if key == "tvm-version" and type(value) is str and not versions.tvm_version_re().match(value):
                    self.add(
                        "invalid-value",
                        pointer,
                        f"{value!r} is not a version specifier such as '>=0.25' or '<=0.19, >=0.9'",
                    )
        return self.findings

    def extends(self, value: Any, pointer: str) -> None:
        if type(value) is str:
            return
        if type(value) is not list:
            self.add(
                "wrong-type",
                pointer,
                f"expected a config name or path, or a list of them; got '{type_name(value)}'",
            )
            return
        if len(value) > model.MAX_EXTENDS:
            self.add("invalid-value", pointer, f"{len(value)} entries; at most {model.MAX_EXTENDS} are allowed")
        for index, item in enumerate(value):
            if type(item) is not str:
                self.add("wrong-type", join(pointer, index), _expected("str", item))

    def build(self, value: Any, pointer: str) -> None:
        if type(value) is not dict:
            self.add("wrong-type", pointer, f"expected a table, got '{type_name(value)}'")
            return
        for key, item in value.items():
            spec = model.BUILD_KEYS.get(key)
            if spec is None:
                self.add(
                    "unknown-key",
                    join(pointer, key),
                    "unknown build option",
                    suggest(key, list(model.BUILD_KEYS)),
                )
            else:
                self.keyspec(item, spec, join(pointer, key))

    def pass_config(self, value: Any, pointer: str) -> None:
        if type(value) is not dict:
            self.add("wrong-type", pointer, f"expected a table of name = value, got '{type_name(value)}'")
            return
        for entry in pass_config_entries(value, self.generation, pointer):
            # A name no release registers is a semantic rule (`rules.pass_configs`): the schema
            # cannot tell dotted names and other generations' spellings from unknown ones.
            if entry.type is not None and not type_matches(entry.value, entry.type):
                self.add("pass-config-type", entry.pointer, _expected(entry.type, entry.value))
            elif entry.type is not None and type(entry.value) is dict:
                self.config_object(entry.value, entry.type, entry.pointer)

    def config_object(self, value: dict[str, Any], tvm_type: str, pointer: str) -> None:
        """An object-typed pass config (`tirx.UnrollLoop = { auto_max_step = 8 }`, and old TVM's
        `tir.UnrollLoop`, an UnrollLoopConfig): only the fields TVM registers for its type, each of its
        type (TVM's own TypeError at build time otherwise; old TVM's "does not have field")."""
        fields = registry.pass_config_fields(tvm_type)
        if fields is None:
            return
        for key, item in value.items():
            field = fields.get(key)
            if field is None:
                self.add(
                    "pass-config-type",
                    join(pointer, key),
                    f"{tvm_type} has no field {key!r} (fields: {', '.join(fields) or 'none'})",
                    suggest(key, list(fields)),
                )
            elif field in ("int", "bool", "str", "IntImm") and not type_matches(item, field):
                self.add("pass-config-type", join(pointer, key), _expected(field, item))
            elif field in ("Array<int>", "Array<str>"):  # old TVM's TensorRTCompilerConfig.tensorrt_version
                if type(item) is not list:
                    self.add("pass-config-type", join(pointer, key), _expected(field, item))
                    continue
                for index, element in enumerate(item):
                    if not type_matches(element, field[6:-1]):
                        self.add("pass-config-type", join(join(pointer, key), index), _expected(field[6:-1], element))

    # ---- executor / runtime --------------------------------------------------------------------

    def component(self, section: str, value: Any, pointer: str) -> None:
        if type(value) is str:  # `executor = "aot"`: the shorthand of { kind = "aot" } (keys.component_table)
            value, kind_at = {"kind": value}, pointer
        elif type(value) is dict:
            kind_at = join(pointer, "kind")
        else:
            self.add(
                "wrong-type", pointer, f"expected the {section}'s name or a table with 'kind', got '{type_name(value)}'"
            )
            return
        comps = registry.components(section)
        union = model.component_union(section)
        name = value.get("kind", _MISSING)
        comp = None
        if name is not _MISSING:
            if type(name) is not str:
                self.add("wrong-type", kind_at, _expected("str", name))
            elif name not in comps:
                self.add(
                    f"unknown-{section}",
                    kind_at,
                    f"unknown {section} {name!r} (known: {', '.join(comps)})",
                    suggest(name, list(comps)),
                )
            else:
                comp = comps[name]
        for opt, item in value.items():
            if opt == "kind":
                continue
            here = join(pointer, opt)
            shared = union.get(opt)
            if shared is None:
                choices = list(comp.options) if comp is not None else list(union)
                what = f"{section} {comp.name!r}" if comp is not None else f"any {section}"
                self.add("unknown-option", here, f"not an option of {what}", suggest(opt, choices))
                continue
            if comp is not None and opt not in comp.options:
                self.add(
                    "wrong-kind-option",
                    here,
                    f"not an option of {section} {comp.name!r}: it belongs to {' and '.join(shared.owners)}",
                )
                continue
            option = comp.options[opt] if comp is not None else shared
            if not self.typed(item, option.type, here):
                continue
            if option.enum and item not in option.enum:
                self.add(
                    "invalid-value",
                    here,
                    f"{item!r} is not one of {', '.join(option.enum)}",
                    suggest(str(item), option.enum),
                )
            elif option.minimum is not None and item < option.minimum:  # typed: an int (or a whole float)
                # a byte alignment below 1: TVM rounds buffer sizes up to a multiple of it
                self.add("invalid-value", here, f"{item} is less than {option.minimum}, the least {opt} TVM takes")
            elif option.type == "int":
                self.alignment(opt, item, here)

    # ---- targets ---------------------------------------------------------------------------------

    def targets(self, value: Any, pointer: str) -> None:
        if type(value) is not list:
            self.add("wrong-type", pointer, f"expected a list of targets, got '{type_name(value)}'")
            return
        if not value:
            self.add("invalid-value", pointer, "expected at least one target")
        for index, entry in enumerate(value):
            self.target(entry, join(pointer, index))

    def target(self, value: Any, pointer: str) -> None:
        if type(value) is str:
            self.target_string(value, pointer)
            return
        if type(value) is not dict:
            self.add(
                "wrong-type",
                pointer,
                f"expected a target: a tag name, a target string or a table; got '{type_name(value)}'",
            )
            return
        kind = self.target_kind(value, pointer)
        if kind is None:
            return
        for opt, item in value.items():
            tvm_type = kind.accepted.get(opt)
            if tvm_type is not None and opt in ("kind", "tag"):
                continue  # checked by target_kind
            here = join(pointer, opt)
            if tvm_type is None:
                if not kind.open_options and not (opt.startswith(model.FEATURE_PREFIX) and len(opt) > 8):
                    self.add(
                        "unknown-option",
                        here,
                        f"not an option of target kind {kind.name!r}",
                        suggest(opt, list(kind.accepted)),
                    )
            elif opt == "compiler":
                self.compiler(item, here)
            elif tvm_type == registry.TARGET:
                self.target(item, here)
            elif tvm_type == registry.TARGET_ARRAY:
                if type(item) is not list:
                    self.add("wrong-type", here, _expected(tvm_type, item))
                else:
                    for index, element in enumerate(item):
                        self.target(element, join(here, index))
            elif self.typed(item, tvm_type, here) and tvm_type == "int":
                self.alignment(opt, item, here)

    def alignment(self, opt: str, value: Any, pointer: str) -> None:
        """A byte alignment that is not a power of two (`value` an int, or a whole float TOML wrote)."""
        problem = model.alignment_problem(opt, int(value)) if type(value) in (int, float) else None
        if problem is not None:
            self.add("invalid-value", pointer, problem)

    def target_kind(self, value: Mapping[str, Any], pointer: str) -> registry.Kind | None:
        """The kind a target table is checked against (its `kind`, else its tag's), or None."""
        name = value.get("kind", _MISSING)
        tag = value.get("tag", _MISSING)
        if name is not _MISSING:
            if tag is not _MISSING and type(tag) is not str:
                self.add("wrong-type", join(pointer, "tag"), _expected("str", tag))
            if type(name) is not str:
                self.add("wrong-type", join(pointer, "kind"), _expected("str", name))
                return None
            kind = self.kinds.get(name)
            if kind is None:
                self.add(
                    "unknown-kind",
                    join(pointer, "kind"),
                    f"unknown target kind {name!r}",
                    in_another_case(name, self.kinds) or suggest(name, list(self.kinds)),
                )
            return kind
        if tag is _MISSING:
            self.add("missing-key", pointer, "a target table needs 'kind' (or 'tag')")
            return None
        if type(tag) is not str:
            self.add("wrong-type", join(pointer, "tag"), _expected("str", tag))
            return None
        tag_kind = model.tag_kinds().get(tag)
        if tag_kind is None:
            self.add("unknown-tag", join(pointer, "tag"), f"unknown target tag {tag!r}", suggest_tag(tag))
            return None
        return self.kinds.get(tag_kind)

    def target_string(self, value: str, pointer: str) -> None:
        if value in model.tag_kinds() or model.target_string_re().match(value):
            return
        word = value.split(None, 1)[0] if value.strip() else value
        self.add(
            STRING_START_RULE,
            pointer,
            f"{value!r} is neither a TVM tag nor a target string starting with a kind name",
            first(start_suggestions(word)),
        )

    def compiler(self, value: Any, pointer: str) -> None:
        if type(value) is not str:
            self.add("wrong-type", pointer, _expected("str", value))
            return
        compilers = registry.compilers()
        if value not in compilers:
            self.add(
                "unknown-compiler",
                pointer,
                f"unknown BYOC compiler {value!r}",
                suggest(value, list(compilers)),
            )


def check_document(data: Mapping[str, Any]) -> list[Finding]:
    """Every structural finding of a document or a merged tree (what the JSON Schema would report)."""
    return Checker().document(data)


def completeness_findings(data: Mapping[str, Any]) -> list[Finding]:
    """What a config used on its own must have. Checked for the config `--config`/flags resolve to;
    for a file only what `component_kind_findings` says (a file may be a partial layer, a mixin for
    `--config a --config b`)."""
    out = []
    if "targets" not in data:
        out.append(Finding("missing-key", "", "no targets: give --target, --config NAME, or a 'targets' key"))
    return [*out, *component_kind_findings(data, complete=True)]


def component_kind_findings(data: Mapping[str, Any], *, complete: bool = False) -> list[Finding]:
    """An executor/runtime table without `kind`, in a config that is used on its own: the resolved
    config (`complete`), or a file with `targets` (with targets `config show` takes it as a whole,
    so `config validate FILE` must judge it the same way; a file without is a mixin)."""
    if not complete and "targets" not in data:
        return []
    out = []
    for section in ("executor", "runtime"):
        value = data.get(section)
        if isinstance(value, dict) and "kind" not in value:
            out.append(
                Finding(
                    "missing-key",
                    join("", section),
                    f"the {section} has no 'kind' ({', '.join(registry.components(section))})",
                )
            )
    return out
