"""Issue 13's invariants as properties over generated configs (and the issue's table as rows):

1. `config validate` reports an error ⇔ `config show` (api.resolve) fails; and for a config
   written for TVM >= 0.25, `compile --emit plan` succeeds exactly when validation passes.
2. Equal `--hash` ⇔ equal build plan: every respelling of one meaning hashes and plans alike.
3. `config migrate` exits 0 only with output that validates without errors.
1b. A config written for TVM <= 0.19 is validated against its release's rules, and `--emit tvmc` /
   `--emit relay` accept it exactly when validation does — except what one output format cannot
   say though the release can (`Inexpressible`, naming the other format).
4. Whenever validation passes, `config show --as tvm-target` is accepted by `tvm.target.Target` of
   the installed TVM (0.27) and exports as itself (less what TVM fills from the machine); configs
   with legacy kinds have no TVM >= 0.25 target and are refused with a one-line error instead.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from targets import corpus as target_corpus
from targets.helpers import plain, strip_paths
from tvmc import api, registry
from tvmc.backend.model import model_spec
from tvmc.backend.plan import BuildPlan, plan_build
from tvmc.emit import relay, tvmc_argv
from tvmc.emit.legacy import Inexpressible, plan_legacy
from tvmc.emit.plan import document as emitted_plan
from tvmc.emit.tvm_target import to_tvm_target
from tvmc.errors import TargetError, TvmcError
from tvmc.targets import env_dependent_keys, is_legacy
from tvmc.validate import runner
from tvmc.versions import generation
from typer.testing import CliRunner

MODEL = model_spec("model.onnx", None, None)

TARGETS = [
    ["llvm"],
    ["llvm -mcpu=skylake"],
    [{"kind": "llvm", "mtriple": "x86_64-linux-gnu", "mcpu": "znver3"}],
    ["cuda"],
    ["nvidia/nvidia-a100"],
    ["cuda", "llvm"],
    [{"kind": "cuda", "arch": "sm_80"}, {"kind": "llvm", "mcpu": "x"}],
    [{"kind": "c", "compiler": "ethos-u"}],
    ["c"],
    [{"kind": "ethos-u"}],
    [],
    [{"kind": "composite", "devices": [{"kind": "cuda"}]}],
    ["llvm", {"kind": "composite", "devices": [{"kind": "cuda"}]}],
]
HOSTS = [None, "llvm", {"kind": "cuda"}, {"kind": "c", "compiler": "ethos-u"}, {"kind": "llvm", "mtriple": "x"}]
# A name alone (`executor = "vm"`) is the shorthand of { kind = "vm" }: known, legacy-only and unknown names.
RUNTIMES = [None, {"kind": "cpp", "system-lib": True}, {"kind": "cpp", "system-lib": 1}, {"kind": "crt"}, "cpp", "crt"]
RUNTIMES += ["c++", 5]
EXECUTORS = [
    None,
    "vm",
    "aot",
    "graph",
    "vmm",
    ["vm"],
    {"kind": "vm", "exec-mode": "compiled"},
    {"kind": "vm", "exec-mode": "bogus"},
    {"kind": "graph"},
    {"kind": "aot", "interface-api": "c", "unpacked-api": False},
]
PASS_CONFIGS = [
    {},
    {"tir.disable_vectorize": True},
    {"tirx.disable_vectorize": True},
    {"tir.disable_vectorize": "maybe"},
    {"tirx": {"disable_vectorize": True}},
    {"tirx.no_such_config": 1},
    {"tir.disable_vectorize": True, "tirx.disable_vectorize": False},
    {"relay.backend.use_auto_scheduler": True},
]
BUILDS = [
    {},
    {"output-format": "so", "mixed-precision": False},
    {"output-format": "tar"},
    {"desired-layout": ["NHWC"]},
    {"mixed-precision": 1},
    {"module-name": "net"},
]
# What tvmc supports (0.18, 0.19, >= 0.25), patch releases and releases it has no rules for.
VERSIONS = [None, ">=0.25", "<=0.19", "0.27.1", "0.29", "0.19.1", "0.17", "0.21", ">=0.20, <0.25", ">=0.25, <0.25"]


@st.composite
def configs(draw: st.DrawFn) -> dict[str, Any]:
    config: dict[str, Any] = {"targets": draw(st.sampled_from(TARGETS))}
    for key, choices in (
        ("host", HOSTS),
        ("runtime", RUNTIMES),
        ("executor", EXECUTORS),
        ("pass-config", PASS_CONFIGS),
        ("build", BUILDS),
        ("tvm-version", VERSIONS),
    ):
        value = draw(st.sampled_from(choices))
        if value not in (None, {}):
            config[key] = value
    return config


def _validate_errors(path: Path) -> list[str]:
    result = runner.Validator(runner.Settings()).file(str(path))
    return [f"{d.rule}: {d.message}" for d in result.diagnostics if d.severity == "error"]


def _resolve(path: Path) -> api.Resolved | None:
    try:
        return api.resolve([str(path)], [], env={})
    except TvmcError:
        return None


def _resolve_rule(path: Path) -> str | None:
    """The rule id of the error `config show` fails with (None: it succeeds, or no rule raised it)."""
    try:
        api.resolve([str(path)], [], env={})
    except TvmcError as err:
        return err.rule
    return None


def _plan(resolved: api.Resolved) -> BuildPlan | None:
    try:
        return plan_build(resolved.config, resolved.origins, MODEL)
    except TvmcError:
        return None


def _write(directory: Path, config: dict[str, Any]) -> Path:
    path = directory / "c.json"
    path.write_text(json.dumps(config))
    return path


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(configs())
def test_validate_show_and_plan_agree(tmp_path: Path, config: dict[str, Any]) -> None:
    path = _write(tmp_path, config)
    errors = _validate_errors(path)
    resolved = _resolve(path)
    assert bool(errors) == (resolved is None), (config, errors)
    if resolved is None:  # the error show fails with is one validation reports, under its rule id
        assert _resolve_rule(path) in {e.split(":")[0] for e in errors}, (config, errors)
    if resolved is not None and generation(config.get("tvm-version")) == "modern":
        assert _plan(resolved) is not None, config
    if resolved is not None and generation(config.get("tvm-version")) == "legacy":
        assert all(e in ("ok", "inexpressible") for e in _emits(resolved).values()), config


@pytest.mark.parametrize(
    ("config", "rule"),
    [  # `executor = "vm"`: show read it as { kind = "vm" }, validation called it wrong-type
        ({"executor": "vm"}, None),
        ({"runtime": "cpp"}, None),
        ({"executor": "graph", "runtime": "crt", "tvm-version": "<=0.19"}, None),
        ({"executor": "vmm"}, "unknown-executor"),
        ({"runtime": "c++"}, "unknown-runtime"),
        ({"executor": 5}, "wrong-type"),
        ({"executor": "aot", "tvm-version": ">=0.25"}, "legacy-component"),
    ],
)
def test_component_given_by_name(tmp_path: Path, config: dict[str, Any], rule: str | None) -> None:
    path = _write(tmp_path, {"targets": ["llvm"], **config})
    assert {e.split(":")[0] for e in _validate_errors(path)} == ({rule} if rule else set())
    assert _resolve_rule(path) == rule
    assert (_resolve(path) is None) == (rule is not None)


@pytest.mark.parametrize(
    ("targets", "second"),
    [  # relax.build compiles for one target: one rule (targets.second_target) for validation and the plan
        (["llvm", {"kind": "composite", "devices": [{"kind": "cuda"}]}], 1),  # validation skipped composites
        ([{"kind": "composite", "devices": [{"kind": "cuda"}]}, "llvm"], 1),
        (["cuda", "llvm"], 1),
        ([{"kind": "cuda", "compiler": "tensorrt"}, "cuda"], None),
        ([{"kind": "composite", "devices": [{"kind": "cuda"}, {"kind": "llvm"}]}], None),
    ],
)
def test_second_target(tmp_path: Path, targets: list[Any], second: int | None) -> None:
    path = _write(tmp_path, {"tvm-version": ">=0.25", "targets": targets})
    errors = _validate_errors(path)
    if second is None:
        resolved = _resolve(path)
        assert not errors and resolved is not None and _plan(resolved) is not None
        return
    assert errors == [
        f"invalid-target: a second target ({_kind(targets[second])}): relax.build compiles for one "
        "target and its host; put the host in `host`, or compile once per target"
    ]
    assert _resolve_rule(path) == "invalid-target"
    unchecked = _resolve(_write(tmp_path, {"targets": targets}))  # no tvm-version: validation leaves it to the plan
    assert unchecked is not None
    with pytest.raises(TvmcError, match=r"a second target .*; put the host in `host`") as refused:
        plan_build(unchecked.config, unchecked.origins, MODEL)
    assert refused.value.location is not None and refused.value.location.line == 1
    assert refused.value.pointer == f"/targets/{second}" and not refused.value.message.startswith("targets")


def _kind(target: Any) -> str:
    return str(target["kind"]) if isinstance(target, dict) else str(target).split()[0]


@pytest.mark.parametrize("version", ["0.25", "0.27.1", "0.29", ">=1.2", "~=0.26"])
def test_every_modern_version_plans(tmp_path: Path, version: str) -> None:
    # `--emit plan` checked a sample of x.y.0 releases up to 1.0: it refused 0.27.1 and 0.29 (validation passed)
    resolved = _resolve(_write(tmp_path, {"tvm-version": version, "targets": ["llvm"]}))
    assert resolved is not None and _plan(resolved) is not None


RESPELLINGS: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"pass-config": {"tir.disable_vectorize": True}}, {"pass-config": {"tirx.disable_vectorize": True}}),
    ({"pass-config": {"tirx": {"disable_vectorize": True}}}, {"pass-config": {"tirx.disable_vectorize": True}}),
    ({"build": {"mixed-precision": False}}, {}),
    ({"build": {"output-format": "so"}}, {}),
    ({"build": {"desired-layout": ["NHWC"]}}, {"build": {"desired-layout": ["NHWC:HWIO"]}}),
    (  # ["nn.conv2d"] is the default operator list of TVM >= 0.25 only (old tvmc converted three)
        {"tvm-version": ">=0.25", "build": {"desired-layout": ["NHWC"], "desired-layout-ops": ["relax.nn.conv2d"]}},
        {"tvm-version": ">=0.25", "build": {"desired-layout": ["NHWC:HWIO"]}},
    ),
    ({"tvm-version": ">= 0.25"}, {"tvm-version": ">0.24"}),
    ({"disabled-pass": ["b", "a", "b"]}, {"disabled-pass": ["a", "b"]}),
    ({"build": {"desired-layout-ops": ["nn.dense"]}}, {}),
    ({"build": {"mixed-precision-acc-type": "float32"}}, {"build": {"mixed-precision": False}}),
    ({"targets": ["llvm -mcpu=znver3"]}, {"targets": [{"kind": "llvm", "mcpu": "znver3"}]}),
    ({"executor": "vm"}, {"executor": {"kind": "vm", "exec-mode": "bytecode"}}),
    ({"description": "a"}, {"description": "b"}),
    ({"pass-config": {"tirx.UnrollLoop": {}}}, {}),  # no field set: TVM's defaults, as when not set
]


@pytest.mark.parametrize(("left", "right"), RESPELLINGS)
def test_equal_meaning_equal_hash_and_plan(tmp_path: Path, left: dict[str, Any], right: dict[str, Any]) -> None:
    base = {"targets": ["llvm"]}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = _resolve(_write(tmp_path / "a", {**base, **left}))
    b = _resolve(_write(tmp_path / "b", {**base, **right}))
    assert a is not None and b is not None
    assert a.fingerprint() == b.fingerprint()
    plan_a, plan_b = _plan(a), _plan(b)
    assert plan_a is not None and plan_b is not None
    assert _emitted(a, plan_a) == _emitted(b, plan_b)


@pytest.mark.parametrize(("written", "meant"), [(1, True), (10, True), (0, False), (True, True)])
def test_an_old_bool_config_written_as_an_integer_is_one_form(tmp_path: Path, written: Any, meant: bool) -> None:
    """Old TVM's bool configs are IntImm: any integer, nonzero meaning true. `1` and `true` hashed
    apart in a `<=0.19` config; now one canonical value, one hash, one emitted build."""
    legacy = {"tvm-version": "<=0.19", "targets": ["llvm"]}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = _resolve(_write(tmp_path / "a", {**legacy, "pass-config": {"tir.disable_vectorize": written}}))
    b = _resolve(_write(tmp_path / "b", {**legacy, "pass-config": {"tir.disable_vectorize": meant}}))
    assert a is not None and b is not None
    assert a.config.to_dict()["pass-config"] == {"tir.disable_vectorize": meant}
    assert a.fingerprint() == b.fingerprint() and a.config == b.config
    for render in (tvmc_argv.render, relay.render):
        assert render(plan_legacy(a.config, a.origins, MODEL)) == render(plan_legacy(b.config, b.origins, MODEL))


def test_an_old_object_config_with_no_field_set_is_as_if_not_set(tmp_path: Path) -> None:
    legacy = {"tvm-version": "<=0.19", "targets": ["llvm"]}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = _resolve(_write(tmp_path / "a", {**legacy, "pass-config": {"tir.UnrollLoop": {}}}))
    b = _resolve(_write(tmp_path / "b", legacy))
    assert a is not None and b is not None
    assert a.fingerprint() == b.fingerprint() and a.config == b.config
    assert relay.render(plan_legacy(a.config, a.origins, MODEL)) == relay.render(
        plan_legacy(b.config, b.origins, MODEL)
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(configs(), configs())
def test_equal_hash_iff_equal_plan(tmp_path: Path, one: dict[str, Any], two: dict[str, Any]) -> None:
    (tmp_path / "a").mkdir(exist_ok=True)
    (tmp_path / "b").mkdir(exist_ok=True)
    a, b = _resolve(_write(tmp_path / "a", one)), _resolve(_write(tmp_path / "b", two))
    if a is None or b is None:
        return
    plan_a, plan_b = _plan(a), _plan(b)
    if plan_a is None or plan_b is None:
        return
    assert (a.fingerprint() == b.fingerprint()) == (_emitted(a, plan_a) == _emitted(b, plan_b)), (one, two)


def _emitted(resolved: api.Resolved, plan: BuildPlan) -> dict[str, Any]:
    """What `compile --emit plan` prints, less `description` (and the notes, which say how it was
    spelt): the whole document, so the default output name (`.so`/`.tar`) and `tvm-version` count."""
    config = {k: v for k, v in resolved.config.to_dict().items() if k != "description"}
    return {k: v for k, v in emitted_plan(plan, config).items() if k != "notes"}


MIGRATE_INPUTS = [
    "tvmc compile --pass-config tir.add_lower_pass=1,tvm.tir.transform.LoopPartition m.onnx",
    "llvm -mcpu=skylake, cuda -arch=sm_80",
    "tvmc compile --target llvm --pass-config tir.disable_vectorize=1 m.onnx",
    "tvmc compile --target 'cuda, llvm' --target-llvm-mcpu znver3 m.onnx",
    "tvmc compile --target llvm --executor aot --runtime crt --pass-config tir.usmp.enable=1 m.onnx",
    "tvmc compile --target 'llvm -mcpu=cascadelake' --desired-layout NHWC m.onnx",
    "tvmc compile --target llvm --pass-config relay.backend.use_auto_scheduler=true m.onnx",
    *[str(p) for p in sorted((Path(__file__).resolve().parents[1] / "migrate" / "old_tvmc").iterdir())],
]


@pytest.mark.parametrize("old", MIGRATE_INPUTS)
def test_migrate_succeeds_only_with_output_that_validates(old: str, tmp_path: Path, app: typer.Typer) -> None:
    out = tmp_path / "migrated.toml"
    cli = CliRunner()
    migrated = cli.invoke(app, ["config", "migrate", old, "-o", str(out)])
    if migrated.exit_code != 0:
        assert migrated.exit_code == 1 and "error" in migrated.output, migrated.output
        return
    validated = cli.invoke(app, ["config", "validate", str(out)])
    assert validated.exit_code == 0, (out.read_text(), validated.output)


# ---- 1b: configs written for TVM <= 0.19 --------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
LEGACY_TARGETS: list[Any] = [
    "llvm",
    "llvm -mcpu=cortex-a72 -mtriple=aarch64-linux-gnu",
    "llvm --system-lib",
    "llvm -runtime=c",
    "c -mcpu=cortex-m55",
    "c -link-params=1",
    "cuda -arch=sm_80",
    "opencl",
    "vulkan",
    "hexagon",
    "stackvm",
    "ext_dev",
    "hybrid",
    "nvidia/jetson-nano",
    "nvidia/gtx1080ti",
    {"kind": "stackvm"},
    {"kind": "ext_dev"},
    {"kind": "trn"},
    {"kind": "cuda_host"},
    {"kind": "llvm", "cl-opt": ["-x=1"]},
    {"kind": "llvm", "mcpu": "bogus-cpu"},
    {"kind": "composite", "devices": [{"kind": "cuda"}]},
    {"kind": "ethos-u", "accelerator_config": "ethos-u55-256"},
    {"kind": "ethos-u", "no_such_option": 1},
    {"kind": "cmsis-nn", "mcpu": "cortex-m55"},
    {"kind": "ethos-n"},
    {"kind": "mrvl", "num_tiles": 4},
    {"kind": "clml"},
    {"kind": "vitis-ai", "dpu": "DPUCZDX8G-zcu104"},
    {"kind": "tensorrt"},
    {"kind": "cutlass"},
    {"kind": "c", "compiler": "ethos-u"},
    {"kind": "llvm", "compiler": "cmsis-nn"},
    {"kind": "cuda", "compiler": "cutlass"},
    {"kind": "opencl", "compiler": "clml"},
]
LEGACY_HOSTS = [None, "llvm", "c", "hexagon", {"kind": "cuda"}, {"kind": "llvm", "mtriple": "aarch64-linux-gnu"}]
LEGACY_EXECUTORS = [
    None,
    {"kind": "graph"},
    {"kind": "graph", "link-params": True},
    {"kind": "aot", "interface-api": "c", "unpacked-api": True},
    {"kind": "aot", "workspace-byte-alignment": 16},
    {"kind": "aot", "link-params": False},
    {"kind": "vm"},
    "graph",
    "aot",
]
LEGACY_RUNTIMES = [
    None,
    "crt",
    {"kind": "cpp"},
    {"kind": "cpp", "system-lib": True},
    {"kind": "crt"},
    {"kind": "crt", "system-lib": False},
]
LEGACY_PASS_CONFIGS: list[dict[str, Any]] = [
    {},
    {"tir.usmp.enable": True, "tir.usmp.algorithm": "hill_climb"},
    {"relay.backend.use_auto_scheduler": True},
    {"tirx.disable_vectorize": True},
    {"relay.FuseOps.max_depth": 5},
    {"relax.FuseOps.max_depth": 5},
    {"relay.ext.ethos-u.options": {"accelerator_config": "ethos-u55-256"}},
    {"tir.add_lower_pass": [[1, "tvm.tir.transform.LoopPartition"]]},
    {"tir.usmp.custom_algorithm": ""},
    {"tir.no_such_config": 1},
]
LEGACY_BUILDS: list[dict[str, Any]] = [
    {},
    {"output-format": "mlf"},
    {"output-format": "tar"},
    {"desired-layout": ["NHWC"]},
    {"desired-layout": ["NHWC", "NCHW"]},
    {"desired-layout": ["NHWC", "NCHW"], "desired-layout-ops": ["nn.conv2d", "qnn.conv2d"]},
    {"mixed-precision": True, "mixed-precision-ops": ["nn.conv2d"]},
    {"module-name": "net"},
    {"dump-code": ["relay", "tir"]},
    {"dump-code": ["relax"]},
    {"cross-compiler": "aarch64-linux-gnu-gcc", "cross-compiler-options": ["-O2"]},
    {"cross-compiler-options": ["-O2"]},
]
LEGACY_VERSIONS = ["<=0.19", "<=0.18", "0.18", "0.19", "<0.20", ">=0.18, <=0.19", "<0.25", "0.19.1"]
LEGACY_VERSIONS += ["0.17", "<0.18", "0.21", ">=0.20, <0.25"]  # no release tvmc writes for: invalid
DISABLED_PASSES = [["AlterOpLayout"], ["FoldConstant", "FuseOps"], ["NoSuchPass"], ["relax.FuseOps"]]


@st.composite
def legacy_configs(draw: st.DrawFn) -> dict[str, Any]:
    config: dict[str, Any] = {
        "tvm-version": draw(st.sampled_from(LEGACY_VERSIONS)),
        "targets": draw(st.lists(st.sampled_from(LEGACY_TARGETS), min_size=1, max_size=3)),
    }
    for key, choices in (
        ("host", LEGACY_HOSTS),
        ("executor", LEGACY_EXECUTORS),
        ("runtime", LEGACY_RUNTIMES),
        ("pass-config", LEGACY_PASS_CONFIGS),
        ("build", LEGACY_BUILDS),
        ("disabled-pass", [None, *DISABLED_PASSES]),
    ):
        value = draw(st.one_of(st.none(), st.sampled_from(choices)))
        if value not in (None, {}):
            config[key] = value
    return config


def _emits(resolved: api.Resolved | None) -> dict[str, str]:
    """How `tvmc compile --emit tvmc|relay` fares (its functions): "ok", "inexpressible" (this
    format cannot say it; the other may) or "refused" (the release lacks it)."""
    out = {}
    for name, render in (("tvmc", tvmc_argv.render), ("relay", relay.render)):
        if resolved is None:
            out[name] = "refused"
            continue
        try:
            render(plan_legacy(resolved.config, resolved.origins, MODEL))
            out[name] = "ok"
        except Inexpressible:
            out[name] = "inexpressible"
        except TvmcError as err:
            out[name] = f"refused: {err}"
    return out


def _legacy_agree(path: Path, config: object) -> None:
    errors = _validate_errors(path)
    resolved = _resolve(path)
    assert bool(errors) == (resolved is None), (config, errors)
    emits = _emits(resolved)
    if errors:
        assert emits == {"tvmc": "refused", "relay": "refused"}, (config, errors)
    else:
        assert all(e in ("ok", "inexpressible") for e in emits.values()), (config, emits)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(legacy_configs())
def test_legacy_validate_and_emit_agree(tmp_path: Path, config: dict[str, Any]) -> None:
    _legacy_agree(_write(tmp_path, config), config)


def _legacy_files() -> list[Path]:
    corpus = ROOT / "tests" / "validate" / "corpus"
    files = [
        *sorted((ROOT / "configs").rglob("*.toml")),
        *sorted(corpus.rglob("*.toml")),
        *sorted(corpus.rglob("*.json")),
    ]
    out = []
    for path in files:
        resolved = _resolve(path)
        text = path.read_text(encoding="utf-8", errors="replace")
        if (resolved is not None and generation(resolved.config.tvm_version) == "legacy") or (
            resolved is None and "tvm-version" in text
        ):
            out.append(path)
    return out


LEGACY_FILES = _legacy_files()


@pytest.mark.parametrize("path", LEGACY_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_legacy_files_validate_and_emit_agree(path: Path) -> None:
    _legacy_agree(path, path)


def test_legacy_files_include_valid_and_invalid_ones() -> None:
    """The catalogue and corpus give the check above both outcomes (else it would test nothing)."""
    valid = [p for p in LEGACY_FILES if not _validate_errors(p)]
    assert len(valid) >= 3 and len(LEGACY_FILES) - len(valid) >= 3, LEGACY_FILES


@pytest.mark.parametrize(
    ("config", "rule"),
    [  # disagreements the property found: validation passed, every legacy emitter refused
        ({"targets": [{"kind": "trn"}]}, "legacy-release"),
        ({"targets": [{"kind": "cudnn"}]}, "legacy-release"),
        ({"targets": [{"kind": "tensorrt"}], "host": "llvm"}, "legacy-release"),
        ({"targets": ["hexagon", "opencl"]}, "legacy-release"),
        ({"targets": ["llvm"], "executor": {"kind": "vm"}}, "legacy-release"),
        ({"targets": ["llvm"], "pass-config": {"relay.ext.ethos-u.options": {}}}, "legacy-release"),
        ({"targets": ["llvm"], "build": {"output-format": "mlf"}}, "legacy-release"),
        ({"targets": ["llvm"], "build": {"dump-code": ["relax"]}}, "legacy-release"),
        # --emit tvmc wrote these (old tvmc refused them), --emit relay refused the second
        ({"targets": ["llvm"], "disabled-pass": ["relax.FuseOps"]}, "legacy-release"),
        ({"targets": ["llvm"], "build": {"desired-layout": ["NHWC", "NCHW"]}}, "legacy-release"),
        # config show refused it, validation passed (in any generation)
        ({"targets": ["c -link-params=1"], "executor": {"kind": "vm"}}, "wrong-kind-option"),
        # a tvm-version admitting no release tvmc supports: validation and show passed, every emitter refused
        ({"tvm-version": "0.17", "targets": ["llvm"]}, "unsupported-tvm-version"),
        ({"tvm-version": "0.21", "targets": ["llvm"]}, "unsupported-tvm-version"),
        ({"tvm-version": ">=0.20, <0.25", "targets": ["llvm"]}, "unsupported-tvm-version"),
    ],
)
def test_found_disagreements(tmp_path: Path, config: dict[str, Any], rule: str) -> None:
    path = _write(tmp_path, {"tvm-version": "<=0.19", **config})
    errors = _validate_errors(path)
    assert errors and {e.split(":")[0] for e in errors} == {rule}, errors
    assert _resolve(path) is None


# ---- 4: `config show --as tvm-target` is accepted by TVM 0.27 whenever validation passes -----------

TARGET_POOL: list[Any] = [  # modern target specs, mostly valid: every kind's options, tags, hosts, composites
    *target_corpus.random_corpus(200, seed=13),
    *registry.tag_names(),
    *target_corpus.tag_corpus()[::11],
    *target_corpus.misc_corpus()[::2],
    *target_corpus.option_corpus()[::41],
]
COMPILERS = [*[None] * 50, *sorted(registry.compilers())]
TARGET_HOSTS = [h for h in target_corpus.HOSTS if isinstance(h, str | dict)]


@st.composite
def target_configs(draw: st.DrawFn) -> dict[str, Any]:
    """Configs `--as tvm-target` applies to (TVM >= 0.25 or unsaid): one to three targets from the
    pool, some refined by a BYOC `compiler`, with or without a host."""
    targets = []
    for spec in draw(st.lists(st.sampled_from(TARGET_POOL), min_size=1, max_size=3)):
        compiler = draw(st.sampled_from(COMPILERS))
        targets.append({**spec, "compiler": compiler} if compiler and isinstance(spec, dict) else spec)
    config: dict[str, Any] = {"targets": targets}
    host = draw(st.one_of(st.none(), st.sampled_from(TARGET_HOSTS)))
    if host is not None:
        config["host"] = host
    version = draw(st.sampled_from([None, ">=0.25", "0.27"]))
    if version is not None:
        config["tvm-version"] = version
    return config


@pytest.fixture(scope="module")
def tvm_target() -> Any:
    return pytest.importorskip("tvm.target", reason="apache-tvm is not installed (pip install -e '.[tvm]')")


def _tvm_accepts(tvm_target: Any, path: Path, config: object) -> str:
    """How the config fares: "invalid", "mixin" (valid as a layer, nothing to show: invariant 1's
    tests check that pair), "not-a-target" (legacy kinds: no TVM >= 0.25 target) or "accepted".
    Fails when validation passes but TVM refuses the emitted target, or exports another one."""
    if _validate_errors(path):
        return "invalid"
    resolved = _resolve(path)
    if resolved is None:
        return "mixin"
    try:
        target, _ = to_tvm_target(resolved.config)
    except TargetError:
        assert any(is_legacy(t) for t in (*resolved.config.targets, resolved.config.host)), config
        return "not-a-target"
    try:
        built = tvm_target.Target(json.dumps(target))
    except Exception as err:  # TVMError, ValueError, ...: the invariant is broken
        raise AssertionError(f"TVM refuses {target} of {config}: {err}") from None
    exported = strip_paths(plain(built.export()), env_dependent_keys(target))
    # Several devices: tvmc writes the composite around them as {kind, devices, host}; TVM adds its
    # empty keys and tag.
    expected = {"keys": [], "tag": "", **target} if target["kind"] == "composite" else target
    assert exported == expected, (config, target, exported)
    return "accepted"


@pytest.mark.tvm
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(target_configs(), configs()))
def test_tvm_accepts_the_target_of_every_valid_config(tmp_path: Path, tvm_target: Any, config: dict[str, Any]) -> None:
    event(_tvm_accepts(tvm_target, _write(tmp_path, config), config))


@pytest.mark.tvm
def test_tvm_accepts_the_target_of_every_valid_shipped_and_corpus_file(tvm_target: Any) -> None:
    corpus = ROOT / "tests" / "validate" / "corpus"
    files = [
        *sorted((ROOT / "configs").rglob("*.toml")),
        *sorted(corpus.rglob("*.toml")),
        *sorted(corpus.rglob("*.json")),
    ]
    outcomes = collections.Counter(_tvm_accepts(tvm_target, path, path) for path in files)
    assert outcomes["accepted"] >= 30 and outcomes["invalid"] >= 30 and outcomes["not-a-target"] >= 1, outcomes


# ---- issue 26's invariants ----------------------------------------------------------------------

ISSUE26_CONFIGS = [
    ["aws/c5"],
    ["nvidia/jetson-nano"],
    ["nvidia/jetson-agx-orin-64gb"],
    ["boards/nucleo-l4r5zi"],
    ["aws/c5", "nvidia/geforce-rtx-4090"],
    ["qcom/adreno-opencl"],
    ["arm/rasp4b"],  # a tag table with an override: `{ tag = "arm/rasp4b", mfloat-abi = "hard" }`
    ["boards/corstone-300"],  # codegen kinds before the CPU target the host is derived from
]


def _leaves(value: Any, pointer: str = "") -> list[tuple[str, Any]]:
    """The leaf values `config get` prints: scalars, and lists of scalars as one value."""
    if isinstance(value, dict):
        return [leaf for key, child in value.items() for leaf in _leaves(child, f"{pointer}/{key}")]
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        return [leaf for index, child in enumerate(value) for leaf in _leaves(child, f"{pointer}/{index}")]
    return [(pointer, value)]


@st.composite
def _leaf_of_a_config(draw: st.DrawFn) -> tuple[list[str], str, Any]:
    configs = draw(st.sampled_from(ISSUE26_CONFIGS))
    leaves = _leaves(api.resolve(configs, [], env={}).to_dict())
    pointer, value = draw(st.sampled_from(leaves))
    return configs, pointer, value


@settings(max_examples=60, deadline=None)
@given(_leaf_of_a_config())
def test_issue26_every_path_get_prints_can_be_set_and_unset(case: tuple[list[str], str, Any]) -> None:
    """Invariant 2: `--set PATH=<its value>` is a no-op; after `--unset PATH` the value is gone
    (or is a default no layer wrote); explain's final value = get = show."""
    from tvmc import explain as explaining
    from tvmc.pointers import display_path

    configs, pointer, value = case
    path = display_path(pointer)
    before = api.resolve(configs, [], env={})
    found = explaining.get(before.to_dict(), before.origins, path)
    assert found is not None and found.value == value
    again = api.resolve(configs, [("--set", f"{path}={json.dumps(value)}")], env={})
    assert again.to_dict() == before.to_dict() and again.fingerprint() == before.fingerprint(), path
    try:
        unset = api.resolve(configs, [("--unset", path)], env={})
    except TvmcError as err:
        # A default no layer wrote is not set (a usage error saying so); a value the config cannot
        # be without (a target's kind) is refused by a rule — never kept.
        written = explaining.lookup(before.tree.data, explaining.parse(path), expand=True)
        unwritten = not written or (path.endswith(".tag") and value == "")  # `tag = ""`: TVM's "no label"
        assert (unwritten and err.message == f"{path} is not set") or err.rule is not None, (path, err.one_line())
    else:
        after = explaining.get(unset.to_dict(), unset.origins, path)
        assert after is None or after.origin.kind == "default", (path, after)
    explained = api.explain(configs, [], path, env={})
    assert explained.final is not None and explained.final.value == value
    if found.origin.kind != "default":  # explain's winner is the origin `get` and `show --origin` print
        assert explained.steps and explained.steps[-1].where == str(found.origin), (path, explained.steps)


@pytest.mark.parametrize("shipped", ISSUE26_CONFIGS, ids=" ".join)
def test_issue26_equal_canonical_form_equal_hash_equal_eq(shipped: list[str]) -> None:
    """Invariant 4 over written-out forms: a config and its own canonical form, given back as one
    file, are equal in every sense (`==`, `hash()`, fingerprint, plan)."""
    import tomli_w

    resolved = api.resolve(shipped, [], env={})
    canonical = resolved.to_dict()
    text = tomli_w.dumps(canonical)
    layer = api.resolve(["-"], [], env={}, stdin=__import__("io").BytesIO(text.encode()))
    assert layer.to_dict() == canonical
    assert layer.config == resolved.config and hash(layer.config) == hash(resolved.config)
    assert layer.fingerprint() == resolved.fingerprint()
    other = api.resolve(shipped, [("-O", "1")], env={})
    assert other.config != resolved.config and other.fingerprint() != resolved.fingerprint()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(configs(), configs())
def test_issue26_equal_fingerprint_iff_equal(tmp_path: Path, one: dict[str, Any], two: dict[str, Any]) -> None:
    """Invariant 4: equal canonical meaning ⇔ equal fingerprint ⇔ `==` (and equal `hash()`)."""
    (tmp_path / "a").mkdir(exist_ok=True)
    (tmp_path / "b").mkdir(exist_ok=True)
    a, b = _resolve(_write(tmp_path / "a", one)), _resolve(_write(tmp_path / "b", two))
    if a is None or b is None:
        return
    same_meaning = {k: v for k, v in a.config.meaning().items() if k != "description"} == {
        k: v for k, v in b.config.meaning().items() if k != "description"
    }
    assert same_meaning == (a.fingerprint() == b.fingerprint())
    same_description = a.config.description == b.config.description
    assert (a.config == b.config) == (same_meaning and same_description)
    if a.config == b.config:
        assert hash(a.config) == hash(b.config)


@pytest.mark.parametrize(
    ("part", "whole"),
    [
        (["nvidia/jetson-nano:cuda"], ["nvidia/jetson-nano"]),
        (["aws/c5", "nvidia/jetson-nano:cuda"], ["aws/c5", "nvidia/jetson-nano"]),
        (
            ["base/aarch64-linux", "nvidia/jetson-agx-orin-64gb:cuda"],
            ["base/aarch64-linux", "nvidia/jetson-agx-orin-64gb"],
        ),
    ],
)
def test_issue26_a_part_is_the_same_layers_then_the_selection(part: list[str], whole: list[str]) -> None:
    """Invariant 1: NAME:PART = the same layers without the part (each file once), then the
    selection: everything but the targets and host is what the whole gives."""
    with_part, without = api.resolve(part, [], env={}).to_dict(), api.resolve(whole, [], env={}).to_dict()
    assert {k: v for k, v in with_part.items() if k not in ("targets", "host")} == {
        k: v for k, v in without.items() if k not in ("targets", "host")
    }
    assert [t["kind"] for t in with_part["targets"]] == ["cuda"]


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789+_.", min_size=1, max_size=6)


@st.composite
def _quoted_value(draw: st.DrawFn) -> str:
    """A legacy option value as a user writes it: bare, in old tvmc's double quotes, or in TVM's
    single quotes (the quoted forms may hold commas and spaces)."""
    words = draw(st.lists(_WORD, min_size=1, max_size=3))
    form = draw(st.sampled_from(["bare", "double", "single"]))
    if form == "bare":
        return ",".join(words)
    text = draw(st.sampled_from([",", ", ", " "])).join(words)
    return f'"{text}"' if form == "double" else f"'{text}'"


_LEGACY_OPTIONS = {
    "llvm": ["device", "keys", "libs", "model", "mtriple", "mabi"],
    "opencl": ["device", "keys", "libs", "model"],
    "cuda": ["device", "keys", "libs", "model", "arch"],
}


@st.composite
def _legacy_string(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(sorted(_LEGACY_OPTIONS)))
    options = draw(st.lists(st.sampled_from(_LEGACY_OPTIONS[kind]), unique=True, max_size=3))
    return " ".join([kind, *(f"-{option}={draw(_quoted_value())}" for option in options)])


def _targets_or_problem(configs: list[str], flags: list[tuple[str, str]], env: dict[str, str]) -> Any:
    try:
        resolved = api.resolve(configs, flags, env=env)
    except TvmcError as err:
        return ("error", err.rule, err.message)
    return resolved.to_dict()["targets"], resolved.to_dict()["host"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_legacy_string())
def test_issue26_one_legacy_string_grammar_for_flag_env_and_file(tmp_path: Path, text: str) -> None:
    """Row 15 as a property: a legacy string gives the same canonical target (or the same refusal)
    whether a file's `targets`, `--target` or `TVMC_TARGET` carries it."""
    path = tmp_path / "t.toml"
    path.write_text(f"targets = [{json.dumps(text)}]\n", encoding="utf-8")
    file = _targets_or_problem([str(path)], [], {})
    flag = _targets_or_problem([], [("--target", text)], {})
    env = _targets_or_problem([], [], {"TVMC_TARGET": text})
    event("refused" if file[0] == "error" else "accepted")
    assert file == flag == env, text


@pytest.mark.parametrize(
    "text",
    ["nvidia/nvidia-a100 -l2_cache_size_bytes=5", "aws/cpu/c5.large -mcpu=skylake", "arm/rasp4b -mfloat-abi=hard"],
)
def test_issue26_a_tag_with_options_reads_alike_in_a_file(tmp_path: Path, text: str) -> None:
    """The tvmc extension `TAG -opt=v` was refused in a file (`unknown-tag`: "neither a TVM tag
    nor a target string starting with a kind name") while `--target` and `TVMC_TARGET` read it."""
    path = tmp_path / "t.toml"
    path.write_text(f"targets = [{json.dumps(text)}]\n", encoding="utf-8")
    file = _targets_or_problem([str(path)], [], {})
    assert file[0] != "error", file
    assert (
        file == _targets_or_problem([], [("--target", text)], {}) == _targets_or_problem([], [], {"TVMC_TARGET": text})
    )
    assert _validate_errors(path) == []


def test_issue26_a_tag_between_spaces_is_the_tag_in_a_flag_the_environment_and_a_file(tmp_path: Path) -> None:
    """`--target "nvidia/nvidia-a100 "` was the tag with no options (`{ tag = … }`, a label that
    hashes apart) while TVMC_TARGET, whose value is stripped, was the bare tag."""
    bare = _targets_or_problem([], [("--target", "nvidia/nvidia-a100")], {})
    assert bare[0][0]["tag"] == ""
    for text in ("nvidia/nvidia-a100 ", " nvidia/nvidia-a100"):
        assert (
            _targets_or_problem([], [("--target", text)], {})
            == bare
            == _targets_or_problem([], [], {"TVMC_TARGET": text})
        )
    path = tmp_path / "t.toml"
    path.write_text('targets = ["nvidia/nvidia-a100 "]\n', encoding="utf-8")
    assert _targets_or_problem([str(path)], [], {}) == bare


PARSE_COUNT = """
import sys
from tvmc.targets import canonical, parse as parsing
from tvmc.cli.app import app
from typer.testing import CliRunner
calls, canonicalizations = [], []
def profile(frame, event, arg):
    if event == "call" and frame.f_code is parsing.parse_target.__code__:
        calls.append(repr(frame.f_locals.get("value")))
    elif event == "call" and frame.f_code is canonical.canonicalize.__code__:
        canonicalizations.append(1)
sys.setprofile(profile)
result = CliRunner().invoke(app, ["config", "show", *sys.argv[1:]])
sys.setprofile(None)
assert result.exit_code == 0, result.output
print(len(calls), len(set(calls)), len(canonicalizations))
"""


def _parse_calls(*configs: str) -> tuple[int, int, int]:
    """(calls, distinct values) of `parse_target`, and the calls of `canonicalize`, while a fresh
    process runs `config show -c CONFIG...` (a fresh process: no memo of an earlier test helps)."""
    import subprocess
    import sys

    from testkit import cli_env

    args = [a for config in configs for a in ("-c", config)]
    done = subprocess.run(
        [sys.executable, "-c", PARSE_COUNT, *args],
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    calls, distinct, canonicalizations = done.stdout.split()
    return int(calls), int(distinct), int(canonicalizations)


@pytest.mark.parametrize(
    ("configs", "targets"),
    [
        (["aws/c5"], 1),
        (["nvidia/jetson-nano"], 2),  # a GPU target and a written host
        (["nvidia/jetson-agx-orin-64gb"], 1),  # a board's tag carrying its own host
        (["aws/c5", "nvidia/geforce-rtx-4090"], 2),  # a host derived from the replaced CPU
    ],
    ids=["c5", "jetson-nano", "orin", "c5-then-4090"],
)
def test_issue26_one_parse_per_distinct_target_input(configs: list[str], targets: int) -> None:
    """Invariant 5: one `parse_target` (and one canonicalization) per distinct target input for
    `config show` (for `-c aws/c5`: 5 parses before issue 26, 2 after its first round, 1 since a
    tree's targets are read once, `targets.TargetReader`)."""
    assert _parse_calls(*configs) == (targets, targets, targets)


def test_issue26_a_legacy_config_is_parsed_once_too() -> None:
    """A config for TVM <= 0.19: its legacy rules read the target system from the same values
    (`validate.legacy.view` with the tree's reader), not from a parse of their own."""
    calls, distinct, _ = _parse_calls("boards/nucleo-l4r5zi")
    assert (calls, distinct) == (1, 1)
