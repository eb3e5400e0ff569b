"""`--emit tvmc` per old release: what it writes is accepted by that release's old tvmc (its argument
rules and target string parser, restated in old_tvmc_rules from the registry's facts of the release)
and means the same config (`config migrate` of the line resolves to the same fingerprint)."""

from __future__ import annotations

import glob
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from tvmc import api, registry
from tvmc.backend.model import model_spec
from tvmc.config import CompilationConfig, canonicalize_config
from tvmc.emit import tvmc_argv
from tvmc.emit.legacy import plan_legacy
from tvmc.errors import BuildError, TvmcError
from tvmc.migrate import migrate
from tvmc.validate.rules import config_findings
from typer.testing import CliRunner

from . import old_tvmc_rules as old

ROOT = Path(__file__).resolve().parents[2]
MODEL = model_spec("models/mlp.onnx", None, {"x": (1, 8)})
VERSIONS = registry.generation_versions()
SHIPPED = [
    Path(p).relative_to(ROOT / "configs").with_suffix("").as_posix()
    for p in sorted(glob.glob(str(ROOT / "configs" / "**" / "*.toml"), recursive=True))
]


def emit(config: CompilationConfig, version: str) -> tuple[str, list[str]]:
    return tvmc_argv.render(plan_legacy(config, {}, MODEL, version))


def meaning(config: CompilationConfig, tag_labels: bool = True) -> str:
    """The fingerprint without `tvm-version` (migrate sets it only for legacy-only features), and
    without tag labels when old tvmc's --target could not pass them (they change nothing built)."""
    plain = {k: v for k, v in config.to_dict().items() if k not in ("tvm-version", "description")}
    if "pass-config" in plain:  # `config migrate` writes TVM >= 0.25's names for a modern config
        plain["pass-config"] = {registry.modern_pass_config(k): v for k, v in plain["pass-config"].items()}
    if not tag_labels:
        plain["targets"] = [{**t, "tag": ""} for t in plain["targets"]]
        plain["host"] = {**plain["host"], "tag": ""}
    return canonicalize_config(plain, {})[0].fingerprint()


def accepted_and_same(config: CompilationConfig, version: str) -> old.Compiled:
    text, notes = emit(config, version)
    argv = shlex.split(text)
    assert argv[:2] == ["tvmc", "compile"]
    compiled = old.compile_command(argv[2:], version)
    back = canonicalize_config(migrate(text).config, {})[0]
    labels = not any("the tag label" in note for note in notes)
    assert meaning(back, labels) == meaning(config, labels), text
    return compiled


def _allows(config: CompilationConfig, version: str) -> bool:
    from tvmc.versions import admits_series

    return admits_series(config.tvm_version, version)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_configs(name: str, version: str) -> None:
    config = api.resolve([name], []).config
    if not _allows(config, version):
        with pytest.raises(BuildError, match=f"excludes TVM {version}"):
            emit(config, version)
        return
    if name == "qcom/hexagon-v68":  # the hexagon target is its own host: two hexagon targets for old tvmc
        with pytest.raises(BuildError, match="refused as duplicates"):
            emit(config, version)
        return
    if config.tvm_version and config.tvm_version.startswith(">="):
        return
    try:
        accepted_and_same(config, version)
    except BuildError as err:  # only refusals that name the release (a feature it lacks)
        assert f"TVM {version}" in str(err), err


# ---- a generated corpus: every kind and option of each release ------------------------------------

SAMPLES: dict[str, list[Any]] = {
    "str": ["x1"],
    "int": [7],
    "bool": [True],
    "Array<str>": [["a1", "b2"]],
    "Array<int>": [[2, 3]],
}
SKIP_OPTIONS = {"kind", "tag", "host", "from_device", "target_device_type", "keys"}


def corpus(version: str) -> list[tuple[str, str, Any]]:
    gen = registry.generation(version)
    cases = []
    for kind_name in gen.tvm_kinds():
        kind = registry.kind(kind_name)
        if kind is None or kind.byoc or kind_name in ("composite", "test"):  # BYOC kinds: not old tvmc codegens
            continue
        for option, typ in gen.kinds[kind_name].options.items():
            if option in SKIP_OPTIONS:
                continue
            cases += [(kind_name, option, value) for value in SAMPLES.get(typ, [])]
        cases.append((kind_name, "", None))
    return cases


def valid(data: dict[str, Any]) -> bool:
    """Whether the rule engine every command runs accepts the config: only such a config can be
    written by `config migrate` (issue 26, row 10), so only such a config can round-trip."""
    return not any(f.severity == "error" for f in config_findings(data))


def config_with(kind: str, option: str, value: Any) -> CompilationConfig | None:
    target: dict[str, Any] = {"kind": kind}
    if option:
        target[option] = value
    if not valid({"targets": [target]}):  # e.g. an mattr LLVM does not know (unknown-cpu)
        return None
    try:
        return canonicalize_config({"targets": [target]}, {})[0]
    except TvmcError:  # TVM 0.27 has no such option: a config cannot hold it
        return None


@pytest.mark.parametrize("version", VERSIONS)
def test_every_kind_and_option_of_the_release(version: str) -> None:
    checked = refused = 0
    for kind, option, value in corpus(version):
        config = config_with(kind, option, value)
        if config is None:
            continue
        try:
            compiled = accepted_and_same(config, version)
        except BuildError as err:
            assert f"TVM {version}" in str(err), (kind, option, err)
            refused += 1
            continue
        checked += 1
        assert compiled.target[0] == kind
        if option:  # written, or left to a default of the release that is the same value
            got = compiled.target[1].get(option, registry.generation(version).kinds[kind].defaults.get(option))
            assert got == value, (kind, option, compiled.target)
    assert checked > 100 and refused < checked / 10, (checked, refused)


@pytest.mark.parametrize("version", VERSIONS)
def test_modern_only_attributes_are_refused_naming_the_release(version: str) -> None:
    gen = registry.generation(version)
    refused = 0
    for name, kind in registry.kinds().items():
        if name not in gen.tvm_kinds() or name in ("composite", "test"):
            continue
        for option, typ in kind.options.items():
            if option in gen.kinds[name].options or option in SKIP_OPTIONS or typ not in SAMPLES:
                continue
            config = config_with(name, option, SAMPLES[typ][0])
            if config is None:
                continue
            with pytest.raises(BuildError, match=f"TVM {version} has no attribute '{option}' of target kind"):
                emit(config, version)
            refused += 1
    assert refused >= 5


@pytest.mark.parametrize("version", VERSIONS)
def test_codegens_and_their_options(version: str) -> None:
    gen = registry.generation(version)
    for codegen, options in gen.codegens.items():
        for option, typ in [("", ""), *options.items()]:
            entry: dict[str, Any] = {"kind": codegen}
            kind = registry.kind(codegen)
            typ = kind.options.get(option, typ) if kind is not None else typ
            if option:
                entry[option] = {"str": "x1", "int": 2, "bool": True, "Array<str>": ["x1"]}[typ]
            config = canonicalize_config({"targets": [entry, "llvm"]}, {})[0]
            compiled = accepted_and_same(config, version)
            assert [c[0] for c in compiled.codegens] == [codegen]
            if option:  # it reaches the codegen (a flag's default does not replace it)
                given = config.targets[0][option]
                got = compiled.codegens[0][1][option]
                assert str(got) == (
                    ",".join(given)
                    if isinstance(given, tuple)
                    else str(int(given) if isinstance(given, bool) else given)
                )


@pytest.mark.parametrize("version", VERSIONS)
def test_executors_runtimes_pass_configs(version: str) -> None:
    gen = registry.generation(version)
    for section, table in (("executor", gen.executors), ("runtime", gen.runtimes)):
        for name, options in table.items():
            for option, typ in options.items():
                component = registry.components(section)[name]
                default = component.options[option].default
                value = {"bool": not default, "int": 32, "str": "c"}[typ]
                if option == "interface-api":
                    value = "c"
                data = {"targets": ["c"], section: {"kind": name, option: value}}
                if not valid(data):  # interface-api = 'c' needs unpacked-api (aot-interface-api)
                    continue
                if value is False:
                    with pytest.raises(BuildError, match="as true"):
                        emit(canonicalize_config(data, {})[0], version)
                    continue
                compiled = accepted_and_same(canonicalize_config(data, {})[0], version)
                assert getattr(compiled, section) == (name, {option: value})
    for name, typ in gen.pass_configs.items():
        if typ not in ("bool", "int", "str") or registry.modern_pass_config(name) not in registry.pass_configs():
            continue
        value = {"bool": True, "int": 3, "str": "x"}[typ]
        config = canonicalize_config({"targets": ["llvm"], "pass-config": {name: value}}, {})[0]
        compiled = accepted_and_same(config, version)
        assert name in compiled.pass_config


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("opencl", ["opencl", "llvm"]),  # no -texture_depth_limit / -image_base_address_alignment
        (
            "opencl -device=mali, llvm -mtriple=aarch64-linux-gnu",
            ["opencl -device=mali", "llvm -mtriple=aarch64-linux-gnu"],
        ),
        ("qcom/adreno-opencl", ["opencl -device=adreno", "llvm"]),
        ("webgpu", ["webgpu", "llvm"]),  # no -supports_subgroups, -max_shared_memory_per_block, -thread_warp_size
    ],
)
def test_issue_examples_write_only_what_the_release_has(target: str, expected: list[str]) -> None:
    for version in VERSIONS:
        config = api.resolve([], [("--target", target)]).config
        text, _ = emit(config, version)
        argv = shlex.split(text)
        assert argv[2] == f"--target={', '.join(expected)}"
        old.compile_command(argv[2:], version)


def test_tvm_version_selects_the_release() -> None:
    aot = api.resolve(["boards/nucleo-l4r5zi"], []).config  # tvm-version <=0.18: MLF
    text, _ = emit(aot, "0.18")
    assert "--output-format=mlf" in shlex.split(text)
    with pytest.raises(BuildError, match=r"excludes TVM 0.19 \(--tvm-version\)"):
        emit(aot, "0.19")
    plain = api.resolve([], [("--set", 'build.output-format="mlf"')]).config
    with pytest.raises(BuildError, match=r"the tvmc of TVM 0.19 has no output format 'mlf'.*last in TVM 0.18"):
        emit(plain, "0.19")
    with pytest.raises(old.Refused, match="invalid choice: 'mlf'"):
        old.compile_command(["--target=c", "--output-format=mlf", "m.onnx"], "0.19")


def test_tvm_version_flag(app: typer.Typer) -> None:
    runner = CliRunner()
    base = ["compile", "models/mlp.onnx", "--target", "opencl", "--input-shapes", "x:[1,8]"]
    old18 = runner.invoke(app, [*base, "--emit", "tvmc", "--tvm-version", "0.18"])
    assert old18.exit_code == 0 and "'--target=opencl, llvm'" in old18.stdout
    mlf = runner.invoke(app, [*base, "--set", 'build.output-format="mlf"', "--emit", "relay", "--tvm-version", "0.19"])
    assert mlf.exit_code == 1 and "the tvmc of TVM 0.19 has no output format 'mlf'" in mlf.stderr
    assert runner.invoke(app, [*base, "--emit", "tvmc", "--tvm-version", "0.17"]).exit_code == 2
    assert runner.invoke(app, [*base, "--emit", "python", "--tvm-version", "0.18"]).exit_code == 2


def test_relay_script_writes_the_same_narrowed_targets() -> None:
    from tvmc.emit import relay

    config = api.resolve([], [("--target", "qcom/adreno-opencl")]).config
    for version in VERSIONS:
        text, _ = relay.render(plan_legacy(config, {}, MODEL, version))
        assert "TARGET = 'opencl -device=adreno'" in text and "texture_depth_limit" not in text


@pytest.mark.parametrize("version", VERSIONS)
def test_legacy_kinds_last_version_agrees_with_the_releases(version: str) -> None:
    """`last_version` of a legacy kind (the messages' "last in TVM X") against the extracted releases."""
    newer = [v for v in VERSIONS if tuple(map(int, v.split("."))) > tuple(map(int, version.split(".")))]
    for name, kind in registry.legacy_kinds().items():
        if kind.last_version == version:
            gen = registry.generation(version)
            assert name in gen.kinds or name in gen.codegens, name
            assert not any(name in registry.generation(v).codegens for v in newer), name


# ---- the reference model itself, against old tvmc's own tests (test_target.py, test_pass_list.py) ----


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("foo -opt1=value1 --flag, bar -opt2=value2", ["foo", "-opt1=value1", "--flag", ",", "bar", "-opt2=value2"]),
        (
            "foo -opt1=+value1 --flag, bar -opt2=test,+v",
            ["foo", "-opt1=+value1", "--flag", ",", "bar", "-opt2=test,+v"],
        ),
        ("foo -opt1=v,a,l,u,e,1 --flag", ["foo", "-opt1=v,a,l,u,e,1", "--flag"]),
        ("foo -opt1='v, a, l, u, e', bar", ["foo", "-opt1='v, a, l, u, e'", ",", "bar"]),
        ('foo -opt1="v, a, l, u, e", bar', ["foo", '-opt1="v, a, l, u, e"', ",", "bar"]),
        ("foo-bar1 -opt-1=t-e-s-t, baz", ["foo-bar1", "-opt-1=t-e-s-t", ",", "baz"]),
    ],
)
def test_model_tokenizer(text: str, tokens: list[str]) -> None:
    assert old._TOKEN.findall(text) == tokens


@pytest.mark.parametrize("version", VERSIONS)
def test_model_refuses_what_old_tvmc_refused(version: str) -> None:
    gen = registry.generation(version)
    for option in ("'+v1.0x,+value'", '"+v1.0x,+value"'):
        assert old.parse_target(f"foo -option1={option}", gen)[0]["opts"]["option1"] == "+v1.0x,+value"
    refused = [
        ["--target=llvm, llvm", "m"],  # Duplicate target definitions
        ["--target=cuda, opencl, llvm", "m"],
        ["--target=invalidtarget", "m"],
        ["--target=llvm", "--disabled-pass=MyYobaPass,FuseOps", "m"],
        ["--target=llvm", "--pass-config=tir.LoopPartition=value", "m"],
        ["--target=llvm", "--pass-config=relay.backend.use_auto_scheduler.missing.value=1234", "m"],
        ["--target=llvm", "--pass-config=tir.add_lower_pass=1,a,2", "m"],
        ["--target=llvm", "--target-opencl-device=mali", "m"],  # did not specify opencl target
        ["--target=opencl", "--target-opencl-max_num_threads=404", "m"],  # an int option: no flag in 0.18/0.19
        ["--target=llvm -vector-width=256", "m"],  # Cannot recognize
        ["--target=llvm", "--desired-layout-ops", "nn.conv2d", "m"],  # the model is taken: FILE missing
    ]
    for argv in refused:
        with pytest.raises(old.Refused):
            old.compile_command(argv, version)
    fine = old.compile_command(["--target=opencl -device=mali, llvm -mtriple=aarch64-linux-gnu", "m"], version)
    assert fine.target == ("opencl", {"device": "mali"}) and fine.host == ("llvm", {"mtriple": "aarch64-linux-gnu"})


# ---- the same as a property: random targets of options both TVM 0.27 and the release have ----------

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_.", min_size=1, max_size=8).filter(
    lambda w: w[0].isalpha()
)
_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "str": _WORD,
    "int": st.integers(min_value=0, max_value=2**31 - 1),
    "bool": st.booleans(),
    "Array<str>": st.lists(_WORD, min_size=1, max_size=3),
}


@st.composite
def _release_targets(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    version = draw(st.sampled_from(VERSIONS))
    gen = registry.generation(version)
    names = [
        n
        for n in gen.tvm_kinds()
        if n in registry.kinds() and n not in ("composite", "test") and n not in ("llvm", "c")  # cpu: see below
    ] + ["llvm", "c"]
    kind = draw(st.sampled_from(names))
    shared = [
        o
        for o, t in gen.kinds[kind].options.items()
        if o not in SKIP_OPTIONS
        and o in registry.kinds()[kind].options
        and t in _VALUES
        and registry.kinds()[kind].options[o] == t
        and o not in ("mtriple", "mcpu", "arch", "march", "mfloat-abi", "mabi", "jit", "device", "model")
    ]
    chosen = draw(st.lists(st.sampled_from(shared), unique=True, max_size=4)) if shared else []
    target = {"kind": kind, **{o: draw(_VALUES[gen.kinds[kind].options[o]]) for o in chosen}}
    return version, target


@settings(max_examples=80, deadline=None)
@given(_release_targets())
def test_emitted_targets_are_accepted_and_mean_the_same(case: tuple[str, dict[str, Any]]) -> None:
    version, target = case
    if "mkldnn" in (target.get("libs") or []):
        # Known and left open: old TVM's string reader renames -libs=mkldnn to dnnl (tvmc reads
        # legacy strings as it did), so a table's libs = ["mkldnn"] has no legacy string of the same
        # meaning; the emitter does not yet refuse or note it.
        return
    if not valid({"targets": [target]}):
        return  # a value the rule engine refuses (an mattr LLVM does not know, ...)
    try:
        config = canonicalize_config({"targets": [target]}, {})[0]
    except TvmcError:
        return  # a value TVM 0.27 itself refuses (e.g. a constraint on the option)
    compiled = accepted_and_same(config, version)
    assert compiled.target[0] == target["kind"]


@pytest.mark.parametrize(
    ("name", "releases"),
    [
        ("boards/corstone-300", "TVM 0.18"),
        ("boards/nucleo-l4r5zi", "TVM 0.18"),
        ("base/microcontroller-aot", "TVM 0.18"),
    ],
)
def test_refusal_hints_name_the_releases_the_config_admits(app: typer.Typer, name: str, releases: str) -> None:
    result = CliRunner().invoke(app, ["compile", "models/mlp.onnx", "--config", name])
    assert result.exit_code == 1
    assert f"use --emit tvmc or --emit relay for {releases}" in result.stderr and "0.19" not in result.stderr
    plain = CliRunner().invoke(app, ["compile", "models/mlp.onnx", "--executor", "aot"])
    assert "use --emit tvmc or --emit relay for TVM 0.18 or 0.19" in plain.stderr


@pytest.mark.parametrize("version", VERSIONS)
def test_codegens_of_the_release(version: str) -> None:
    # old: test_composite_target.py test_get_codegen_names, test_invalid_codegen,
    # test_all_codegens_contain_pass_pipeline
    gen = registry.generation(version)
    assert {"vitis-ai", "mrvl", "compute-library"} <= set(gen.codegens)
    assert ("cmsis-nn" in gen.codegens) == (version == "0.18")
    for name, (partition, config_key) in gen.pipelines.items():
        assert partition.startswith("tvm.relay.op.contrib.") and partition.rsplit(".", 1)[1].startswith(
            "partition_for_"
        )
        assert config_key is None or config_key in gen.pass_configs, (name, config_key)
    config = canonicalize_config({"targets": [{"kind": "cuda", "compiler": "cutlass"}]}, {})
    with pytest.raises(BuildError, match="has no 'cutlass' codegen"):
        emit(config[0], version)
