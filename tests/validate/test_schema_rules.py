"""The rules the schema says as well as the rule engine: properties over generated configs.

- The `tvm-version` patterns read single-clause specifiers exactly as `versions` does.
- On configs made only of what the schema can say (tables, no extends, no legacy target strings),
  `--engine jsonschema` and the default engine give the same verdict.
- On any config, including legacy target strings, the schema is never stricter than tvmc: what it
  refuses, tvmc refuses."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tvmc import registry, versions
from tvmc.validate import schema
from tvmc.validate.runner import Settings, Validator

OPS = st.sampled_from(["", "==", "=", "~=", ">=", "<=", ">", "<"])
RELEASES = st.builds(
    lambda major, minor, patch: f"{major}.{minor}" + ("" if patch is None else f".{patch}"),
    st.sampled_from([0, 0, 0, 1]),
    st.integers(0, 40),
    st.none() | st.integers(0, 3),
)
SPECS = st.builds(lambda op, space, version: f"{op}{space}{version}", OPS, st.sampled_from(["", " "]), RELEASES)


@given(SPECS)
def test_version_patterns_read_a_clause_as_versions_does(spec: str) -> None:
    if re.match(schema.LEGACY_VERSION_PATTERN, spec):
        assert versions.generation(spec) == "legacy", spec
    if re.match(schema.MODERN_VERSION_PATTERN, spec):
        assert versions.generation(spec) == "modern", spec
    if re.match(schema.UNSUPPORTED_VERSION_PATTERN, spec):
        assert not registry.supports(spec), spec


def test_version_patterns_recognise_the_common_forms() -> None:
    for spec in ("<=0.19", "0.18", "==0.19", "<0.20", "<=0.24"):
        assert re.match(schema.LEGACY_VERSION_PATTERN, spec), spec
    for spec in (">=0.25", ">0.24", "0.27", "==0.27.1", ">= 0.25", "1.0"):
        assert re.match(schema.MODERN_VERSION_PATTERN, spec), spec
    for spec in ("0.17", "0.21", "==0.12", "<=0.17"):
        assert re.match(schema.UNSUPPORTED_VERSION_PATTERN, spec), spec
    for spec in ("0.18", "0.19", ">=0.20", "<0.19", "~=0.21", "<0.18.1"):
        assert not re.match(schema.UNSUPPORTED_VERSION_PATTERN, spec), spec
    # `<0.25.1` admits 0.25.0 as well as the old releases: neither generation alone.
    for spec in ("<0.25.1", "< 0.25.3"):
        assert not re.match(schema.LEGACY_VERSION_PATTERN, spec), spec
        assert versions.generation(spec) is None, spec


# ---- configs -------------------------------------------------------------------------------------

_X86 = registry.llvm_names("x86")
_ARM = registry.llvm_names("aarch64")
_CUDA = registry.llvm_names("nvptx")
assert _X86 is not None and _ARM is not None and _CUDA is not None

CPUS = st.sampled_from(["skylake", "znver3", "cortex-a72", "native", "skylake-avx51", "cortex-a27", "gfx90a"])
FEATURES = st.sampled_from(["+avx2", "-avx512f", "+neon", "avx2", "+avx9000", "+fma,+sse4.2", "+sve, -sve2", ""])
TRIPLES = st.sampled_from(["x86_64-linux-gnu", "aarch64-linux-gnu", "riscv64-linux-gnu", "X86_64-pc-linux", "weird"])


@st.composite
def llvm_tables(draw: st.DrawFn) -> dict[str, Any]:
    table: dict[str, Any] = {"kind": "llvm"}
    if draw(st.booleans()):
        table["mtriple"] = draw(TRIPLES)
    if draw(st.booleans()):
        table["mcpu"] = draw(CPUS)
    if draw(st.booleans()):
        table["mattr"] = draw(st.lists(FEATURES, max_size=3))
    return table


CUDA_TABLES = st.builds(lambda arch: {"kind": "cuda", "arch": arch}, st.sampled_from(["sm_80", "sm_800", "sm_90a"]))
HOSTS = st.sampled_from(
    [{"kind": "llvm"}, {"kind": "cuda"}, {"kind": "c"}, "llvm", "cuda", "aws/cpu/c5.large", "nvidia/nvidia-a100"]
)
OBJECT_CONFIGS = (
    *("tir.UnrollLoop", "tirx.UnrollLoop", "tir.HoistIfThenElse", "relax.ext.tensorrt.options"),
    *("tir.ReduceBranchingThroughOvercompute", "tir.Simplify"),
)
OBJECT_FIELDS = (
    *("auto_max_step", "explicit_unroll", "support_block_scope_hosting", "support_block_scope_hoisting"),
    *("tensorrt_version", "use_dataflow_analysis", "transitively_prove_inequalities", "bogus"),
)
PASS_CONFIGS = (
    st.dictionaries(
        st.sampled_from(["tir.disable_vectorize", "tirx.disable_vectorize", "tirx.noalias", "relay.FuseOps.max_depth"]),
        st.sampled_from([True, False, 1, 0, "yes"]),
        max_size=2,
    )
    | st.just({"tirx": {"disable_vectorize": True}})
    | st.just({"tirx": {}})
    # object-typed configs, TVM 0.27's and the old releases' (whose fields differ: 0.19 spells
    # `support_block_scope_hosting`), with fields of each type and unknown ones
    | st.dictionaries(
        st.sampled_from(OBJECT_CONFIGS),
        st.dictionaries(
            st.sampled_from(OBJECT_FIELDS),
            st.sampled_from([8, True, "x", [6, 0, 1], [True]]),
            max_size=2,
        ),
        max_size=2,
    )
)
EXECUTORS = st.sampled_from(
    [
        {"kind": "aot", "interface-api": "c"},
        {"kind": "aot", "interface-api": "c", "unpacked-api": True},
        {"kind": "aot", "interface-api": "packed"},
        {"kind": "vm"},
    ]
)
VERSIONS = st.sampled_from([None, "<=0.19", "0.18", ">=0.25", "0.27", "0.21", "<=0.17"])


@st.composite
def configs(draw: st.DrawFn, strings: bool = False) -> dict[str, Any]:
    targets: list[Any] = draw(st.lists(llvm_tables() | CUDA_TABLES, min_size=1, max_size=2))
    if strings:
        targets += draw(
            st.lists(
                st.sampled_from(
                    [
                        "llvm -mcpu=skylak",
                        "llvm -mtriple=aarch64-linux-gnu -mcpu=skylake",
                        "llvm -mattr=avx2",
                        "llvm -mattr=+avx2,+fma",
                        "cuda -arch=sm_800",
                        "cuda -arch=sm_80",
                        "llvm -mcpu='x'",
                    ]
                ),
                max_size=2,
            )
        )
    doc: dict[str, Any] = {"targets": targets}
    for key, strategy in (("host", HOSTS), ("pass-config", PASS_CONFIGS), ("executor", EXECUTORS)):
        if draw(st.booleans()):
            doc[key] = draw(strategy)
    version = draw(VERSIONS)
    if version is not None:
        doc["tvm-version"] = version
    return doc


def _tvmc_valid(doc: dict[str, Any], tmp_path: Path, engine: str) -> bool:
    import json

    path = tmp_path / "config.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = Validator(Settings(engine=engine)).file(str(path))
    return not any(d.severity == "error" for d in result.diagnostics)


_SCHEMA = jsonschema.Draft202012Validator(schema.build_schema())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(configs())
def test_both_engines_give_one_verdict_on_what_the_schema_can_say(tmp_path: Path, doc: dict[str, Any]) -> None:
    # Which targets may sit together (duplicate devices, a second TVM >= 0.25 target) is not the
    # schema's to say: those configs are left out.
    fast = _tvmc_valid(doc, tmp_path, "fast")
    slow = _tvmc_valid(doc, tmp_path, "jsonschema")
    if fast != slow:
        raise AssertionError((doc, fast, slow))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(configs(strings=True))
def test_the_schema_is_never_stricter_than_tvmc(tmp_path: Path, doc: dict[str, Any]) -> None:
    if not _SCHEMA.is_valid(doc):
        assert not _tvmc_valid(doc, tmp_path, "fast"), doc
