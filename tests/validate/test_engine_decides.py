"""Only the rule engine refuses (issue 26): a config the engine accepts canonicalizes.

For every shipped config and for generated configs (most of them bad in some way): either the one
rule engine (`validate.rules.config_findings`, what every command runs first) reports an error,
or canonicalization (`config.canonicalize_config`, the legacy emitters' planning) succeeds. The
refusals canonicalization used to raise itself are assertions: an engine that let a bad config
through would fail here with an AssertionError, not with a second refusal in another voice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from testkit import ROOT
from tvmc import api, registry
from tvmc.config import canonicalize_config
from tvmc.keys import BUILD_OPTIONS, TOP_LEVEL
from tvmc.validate.rules import config_findings

SCALARS = st.one_of(
    st.booleans(),
    st.integers(-3, 5),
    st.sampled_from([0.5, "", "x", "llvm", "cuda", "c", "aot", "graph", "vm", "crt", "cpp", "c++", "so", "tar"]),
    st.sampled_from(["mlf", "NHWC", "nn.conv2d", "float16", "<=0.19", ">=0.25", "0.18", "skylake", "sm_80", "c"]),
    st.sampled_from(["compiled", "bytecode", "packed", "-x", "a b", "ethos-u", "relax.nn.conv2d", "tir", "asm"]),
)
KEYS = ["kind", "tag", "mcpu", "x", "system-lib", "exec-mode", "arch"]
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(KEYS), inner, max_size=3),
    ),
    max_leaves=5,
)


def _options(section: str) -> list[str]:
    return sorted({opt for comp in registry.components(section).values() for opt in comp.options})


@st.composite
def component(draw: st.DrawFn, section: str) -> Any:
    names = [*registry.components(section), "bogus"]
    table: dict[str, Any] = {}
    if draw(st.booleans()):
        table["kind"] = draw(st.one_of(st.sampled_from(names), SCALARS))
    for opt in draw(st.lists(st.sampled_from([*_options(section), "bogus"]), max_size=3)):
        table[opt] = draw(st.one_of(st.sampled_from([True, False, "c", "packed", "compiled", "bytecode"]), SCALARS))
    return draw(st.one_of(st.just(table), st.sampled_from(names), SCALARS))


PASS_NAMES = [
    "tir.disable_vectorize",
    "tirx.disable_vectorize",
    "tir.UnrollLoop",
    "tirx.UnrollLoop",
    "tir.add_lower_pass",
    "relay.backend.use_auto_scheduler",
    "relay.FuseOps.max_depth",
    "tirx.no_such_config",
    "bogus",
]


@st.composite
def pass_config(draw: st.DrawFn) -> Any:
    table: dict[str, Any] = {}
    for name in draw(st.lists(st.sampled_from(PASS_NAMES), max_size=3)):
        table[name] = draw(
            st.one_of(VALUES, st.dictionaries(st.sampled_from(["auto_max_step", "explicit_unroll", "bogus"]), SCALARS))
        )
    return draw(st.one_of(st.just(table), SCALARS))


TARGETS = st.one_of(
    st.sampled_from(["llvm", "llvm -mcpu=skylake", "cuda", "c", "nvidia/nvidia-a100", "aws/cpu/c5.large", "bogus"]),
    st.sampled_from(["llvm -system-lib", "cuda -arch=sm_80", "c -executor=aot", "hexagon", "ethos-u", "llvm -x=1"]),
    st.sampled_from(["c -executor=aot -interface-api=zz", "c -executor=aot -interface-api=c -unpacked-api=1"]),
    st.sampled_from(["llvm -interface-api=packed", "llvm -link-params=1", "c -unpacked-api=0 -runtime=crt"]),
    st.dictionaries(st.sampled_from(["kind", "mcpu", "compiler", "host", "mattr", "system-lib"]), VALUES, max_size=3),
)


GOOD = {
    "targets": [["llvm"], ["llvm -mcpu=skylake"], ["cuda"], ["nvidia/nvidia-a100"], ["cuda", "llvm"], ["c"]],
    "host": ["llvm", {"kind": "llvm", "mcpu": "skylake"}],
    "executor": ["graph", "aot", "vm", {"kind": "vm", "exec-mode": "compiled"}, {"kind": "aot", "unpacked-api": True}],
    "runtime": ["cpp", "crt", {"kind": "cpp", "system-lib": True}],
    "pass-config": [{"tir.disable_vectorize": True}, {"tirx": {"disable_vectorize": True}}],
    "build": [{"output-format": "so"}, {"desired-layout": ["NHWC"]}, {"module-name": "net"}],
    "tvm-version": ["<=0.19", ">=0.25", "0.18"],
    "opt-level": [0, 3],
    "disabled-pass": [["FoldConstant"]],
    "description": ["d"],
}


def _any(key: str) -> st.SearchStrategy[Any]:
    if key in ("executor", "runtime"):
        return component(key)
    if key == "pass-config":
        return pass_config()
    if key == "targets":
        return st.one_of(st.lists(TARGETS, max_size=3), SCALARS)
    if key == "host":
        return TARGETS
    if key == "build":
        build = st.dictionaries(st.sampled_from([*BUILD_OPTIONS, "bogus"]), VALUES, max_size=3)
        return st.one_of(build, SCALARS)
    return VALUES


@st.composite
def configs(draw: st.DrawFn) -> dict[str, Any]:
    """A config of the shape the loader gives (no nulls): each key absent, a good value, or any
    value (wrong types, unknown names, options of another kind); sometimes an unknown key."""
    config: dict[str, Any] = {}
    for key, good in GOOD.items():
        how = draw(st.sampled_from(["absent", "good", "good", "any"] if key != "targets" else ["good", "good", "any"]))
        if how == "good":
            config[key] = draw(st.sampled_from(good))
        elif how == "any":
            config[key] = draw(_any(key))
    if draw(st.integers(0, 9)) == 0:
        config["bogus"] = draw(VALUES)
    assert set(config) <= {*TOP_LEVEL, "bogus"}
    return config


def _engine_refuses(data: dict[str, Any]) -> bool:
    return any(f.severity == "error" for f in config_findings(data))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_the_engine_refuses_or_canonicalization_succeeds(config: dict[str, Any]) -> None:
    if not _engine_refuses(config):
        canonical, _ = canonicalize_config(config, {})  # raises nothing: its refusals are assertions
        assert canonical.to_dict()["targets"] and len(canonical.fingerprint()) == 64


SHIPPED = sorted((ROOT / "configs").rglob("*.toml"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT / "configs")))
def test_every_shipped_config_the_engine_accepts_canonicalizes(path: Path) -> None:
    resolved = api.resolve([str(path)], env={}, isolated=True)
    assert resolved.config.targets


def test_the_generator_reaches_both_sides() -> None:
    """The property is not vacuous: generated configs are refused by the engine and accepted.
    Derandomized: the generator is mostly bad configs, and a random run of 200 once drew no good one."""
    seen: set[bool] = set()

    @settings(max_examples=300, deadline=None, database=None, derandomize=True)
    @given(configs())
    def sample(config: dict[str, Any]) -> None:
        seen.add(_engine_refuses(config))

    sample()
    assert seen == {True, False}


def test_canonicalization_raises_no_config_error() -> None:
    """`config.py` refuses nothing (its conditions are asserted): the only config errors it
    constructs are none; `api.check` raises the engine's first finding as a `ConfigError`."""
    import ast

    import tvmc.config

    tree = ast.parse(Path(tvmc.config.__file__).read_text(encoding="utf-8"))
    raised = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Raise)
        and isinstance(node.exc, ast.Call)
        and getattr(node.exc.func, "id", "").endswith("Error")
        and node.exc.func.id != "AssertionError"  # type: ignore[attr-defined]
    ]
    assert not raised, f"config.py raises a config error at lines {raised}"
    asserted = [node for node in ast.walk(tree) if isinstance(node, ast.Assert)]
    assert len(asserted) >= 10  # the refusals it had are there, as assertions


def test_a_manifest_config_goes_through_the_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`config show --from LIB`: a config this tvmc refuses (a manifest of another tvmc) is the
    engine's error, with its rule, before canonicalization sees it."""
    from tvmc import manifest
    from tvmc.errors import TvmcError

    doc = {"config": {"targets": ["llvm"], "executor": {"kind": "bogus"}}, "origins": {}}
    monkeypatch.setattr(manifest, "require", lambda path, source="LIBRARY": doc)
    with pytest.raises(TvmcError) as raised:
        api.from_library(tmp_path / "lib.so")
    assert raised.value.rule == "unknown-executor"
    assert "not valid here: executor.kind: unknown executor 'bogus'" in raised.value.message
    doc["config"] = {"targets": ["llvm"], "opt-level": 2}
    assert api.from_library(tmp_path / "lib.so").config.opt_level == 2


@pytest.mark.parametrize(
    "target",
    [
        "c -executor=aot -interface-api=zz",
        "c -executor=graph -interface-api=c",
        "llvm -interface-api=packed",  # no executor named: legacy TVM's graph, which has no interface-api
        "llvm -unpacked-api=1",
    ],
)
def test_an_option_a_target_string_lifts_is_checked_by_the_engine(target: str) -> None:
    """A legacy target string lifts executor/runtime options into the config: the engine checks
    their values too (`-interface-api=zz` passed it, and canonicalization's assertion fired: an
    AssertionError from `config show --from LIB` of a manifest holding that target)."""
    errors = [f for f in config_findings({"targets": [target]}) if f.severity == "error"]
    assert [(f.rule, f.pointer) for f in errors][:1] in (
        [("invalid-value", "/targets/0")],
        [("wrong-kind-option", "/targets/0")],
    )
