"""One description of a target kind: the registry's `Kind`, built once, serves canonicalization
(option codes, declaration order), validation (accepted keys, legacy-only options), the schema
and the emitters; no module keeps a second class or a second table of kinds."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from tvmc import records, registry
from tvmc.registry import codes as C
from tvmc.targets import canonical, parse, queries, spec
from tvmc.targets import tables as T
from tvmc.validate import checks, model, schema


def test_kind_is_a_frozen_slotted_dataclass() -> None:
    kind = registry.kinds()["llvm"]
    assert records.is_record(kind) and not hasattr(kind, "__dict__")
    with pytest.raises(records.FrozenRecordError):
        kind.name = "x"  # type: ignore[misc]


def test_the_registry_builds_each_kind_once() -> None:
    modern, legacy, every = registry.kinds(), registry.legacy_kinds(), registry.all_kinds()
    assert registry.kinds() is modern and registry.all_kinds() is every  # cached, not rebuilt
    for name, kind in every.items():
        assert kind is (modern.get(name) or legacy[name])
        assert registry.kind(name) is kind
    assert registry.kind("no-such-kind") is None


def test_modern_kinds_win_over_legacy_ones_of_the_same_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """`all_kinds` is the one place deciding it: canonicalization and validation both follow it."""
    modern = registry.kinds()["llvm"]
    legacy = registry.legacy_kinds()
    shadow = records.replace(legacy["stackvm"], name="llvm")
    monkeypatch.setattr(registry, "legacy_kinds", lambda: {**legacy, "llvm": shadow})
    registry.all_kinds.cache_clear()
    try:
        assert registry.all_kinds()["llvm"] is modern and registry.kind("llvm") is modern
        assert canonical.resolve_kind({"kind": "llvm"}, None, "")[0] is modern
        assert checks.Checker().kinds["llvm"] is modern
    finally:
        registry.all_kinds.cache_clear()


def test_canonicalization_and_validation_see_the_same_kind_objects() -> None:
    every = registry.all_kinds()
    for name, kind in every.items():
        if name == "composite":
            continue
        assert canonical.resolve_kind({"kind": name}, None, "")[0] is kind
    assert checks.Checker().kinds is every
    tag_kind, _ = canonical.resolve_kind({"tag": "nvidia/nvidia-a100"}, None, "")
    assert tag_kind is every["cuda"]


def test_no_second_kind_class() -> None:
    """`targets.tables` and `validate.model` keep no class or table of kinds of their own."""
    for module in (T, model, schema, checks, parse, queries, canonical, spec):
        own = [
            name
            for name, value in vars(module).items()
            if inspect.isclass(value) and value.__module__ == module.__name__ and "Kind" in name
        ]
        assert own == [], module.__name__
    assert not hasattr(T, "tables") and not hasattr(model, "kinds")


def _code(typ: str) -> int:
    return {
        "str": C.STR,
        "int": C.INT,
        "bool": C.BOOL,
        "Array<str>": C.STR_ARRAY,
        "Array<int>": C.INT_ARRAY,
        "target.Target": C.TARGET,
        "Array<target.Target>": C.TARGET_ARRAY,
    }.get(typ, C.ANY)


@pytest.mark.parametrize("name", sorted(registry.all_kinds()))
def test_derived_fields(name: str) -> None:
    kind = registry.all_kinds()[name]
    roles = {"kind": C.KIND, "keys": C.KEYS, "tag": C.TAG, "host": C.HOST, "from_device": C.FROM_DEVICE}
    assert kind.order == tuple(kind.options)
    assert kind.codes == {"kind": C.KIND, **{o: roles.get(o, _code(t)) for o, t in kind.options.items()}}
    expected: dict[str, Any] = {"kind": "str", **kind.options, "compiler": "str"}
    expected.update({o: opt.type for o, opt in kind.legacy_options.items()})
    assert kind.accepted == expected and list(kind.accepted) == list(expected)
    assert not set(kind.legacy_options) & set(kind.options)
    assert all(opt.kind == name and opt.name == o for o, opt in kind.legacy_options.items())


def test_codes_are_the_canonicalizers() -> None:
    assert (T.STR, T.KIND, T.TARGET_ARRAY, T.ANY) == (C.STR, C.KIND, C.TARGET_ARRAY, C.ANY)
    assert T.TYPE_CODES is registry.TYPE_CODES


def test_a_legacy_only_option_serves_canonicalization_validation_and_the_schema() -> None:
    """`system-lib` of llvm: lifted by the parser, typed by validation, documented by the schema,
    and named in canonicalization's unknown-option hint — all from `Kind.legacy_options`."""
    llvm = registry.kinds()["llvm"]
    assert llvm.legacy_options["system-lib"].lifts_to == "runtime.system-lib"
    err = spec.unknown_option(llvm, "system-lib", None, "")
    assert err.hint == "it was removed after TVM 0.9; it is now runtime.system-lib"
    checker = checks.Checker()
    checker.target({"kind": "llvm", "system-lib": "yes"}, "/targets/0")
    assert [(f.rule, f.pointer) for f in checker.findings] == [("wrong-type", "/targets/0/system-lib")]
    kind_def = schema.build_schema()["$defs"]["kind-llvm"]["properties"]
    assert kind_def["system-lib"]["deprecated"] is True and kind_def["system-lib"]["type"] == "boolean"


def test_a_kind_is_built_when_first_looked_up() -> None:
    """`config show` builds the kinds its config names, not the registry's ~35 (start-up)."""
    entries = registry._data()["kinds"]
    lazy = registry.Kinds(["llvm", "cuda"], lambda name: registry._kind(name, entries[name], legacy=False))
    assert list(lazy) == ["llvm", "cuda"] and len(lazy) == 2 and "cuda" in lazy and "rocm" not in lazy
    assert lazy._built == {}
    llvm = lazy["llvm"]
    assert list(lazy._built) == ["llvm"] and lazy["llvm"] is llvm and lazy.get("rocm") is None
    assert llvm == registry.kinds()["llvm"]
