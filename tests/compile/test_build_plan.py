"""The modern build plan (no TVM needed): every config value is mapped or refused with its origin."""

from __future__ import annotations

import glob
from collections.abc import Callable
from pathlib import Path

import pytest
from tvmc import api, registry, versions
from tvmc.backend.model import model_spec
from tvmc.backend.plan import BuildPlan, plan_build
from tvmc.errors import BuildError

ROOT = Path(__file__).resolve().parents[2]
MODEL = model_spec("model.onnx", None, None)


def plan(*flags: tuple[str, str], configs: tuple[str, ...] = ()) -> BuildPlan:
    resolved = api.resolve(list(configs), list(flags))
    return plan_build(resolved.config, resolved.origins, MODEL)


def refusal(*flags: tuple[str, str], configs: tuple[str, ...] = ()) -> str:
    with pytest.raises(BuildError) as err:
        plan(*flags, configs=configs)
    assert err.value.exit_code == 1
    return str(err.value)


def test_default_config() -> None:
    p = plan()
    assert p.target == {"kind": "llvm", "tag": "", "keys": ["cpu"]}
    assert "host" not in p.target  # a CPU target is its own host
    assert (p.exec_mode, p.system_lib, p.opt_level, p.partitions) == ("bytecode", None, 3, ())
    assert p.output_format == "so" and p.export_kwargs() == {}


def test_gpu_target_keeps_its_host() -> None:
    p = plan(("--target", "cuda -arch=sm_80"), ("--target-host", "llvm -mcpu=skylake"))
    assert p.target["kind"] == "cuda" and p.target["host"]["mcpu"] == "skylake"


def test_executor_and_runtime_map_to_build_arguments() -> None:
    p = plan(
        ("--executor", "vm"),
        ("--executor-vm-exec-mode", "compiled"),
        ("--runtime", "cpp"),
        ("--runtime-cpp-system-lib", "true"),
        ("-O", "2"),
    )
    assert (p.exec_mode, p.system_lib, p.opt_level) == ("compiled", True, 2)


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (
            (("--executor", "graph"),),
            [
                "--executor=graph: executor.kind: executor 'graph' has no TVM >= 0.25",
                "--emit tvmc or --emit relay",
                "--executor vm",
            ],
        ),
        ((("--executor", "aot"),), ["executor 'aot'"]),
        ((("--runtime", "crt"),), ["--runtime=crt: runtime.kind: runtime 'crt'", "--runtime cpp"]),
    ],
)
def test_relay_executor_and_runtime_are_refused(flags: tuple[tuple[str, str], ...], expected: list[str]) -> None:
    message = refusal(*flags)
    for text in expected:
        assert text in message


def test_refusal_names_the_file_position(cfgdir: Path) -> None:
    (cfgdir / "relay.toml").write_text('targets = ["llvm"]\n\n[executor]\nkind = "graph"\n', encoding="utf-8")
    message = refusal(configs=("relay",))
    assert "relay.toml:4:" in message and "executor.kind" in message


def test_byoc_compiler_becomes_a_partition() -> None:
    p = plan(("--target", '{"kind": "cuda", "arch": "sm_80", "compiler": "cublas"}'))
    assert [(x.compiler, x.function, x.pointer) for x in p.partitions] == [
        ("cublas", "tvm.relax.backend.cuda.cublas.partition_for_cublas", "/targets/0/compiler")
    ]
    assert "compiler" not in p.target and p.target["arch"] == "sm_80"
    assert p.target["host"]["kind"] == "llvm"
    assert [s["step"] for s in p.steps("m.so")] == ["import", "pass-context", "partition", "codegen", "build", "export"]


def test_specialisations_refine_the_plain_target() -> None:
    p = plan(
        ("--target", '{"kind": "cuda", "arch": "sm_80", "compiler": "cutlass"}'),
        ("--target", '{"kind": "cuda", "arch": "sm_80"}'),
        ("--target", '{"kind": "cuda", "arch": "sm_80", "compiler": "cublas"}'),
    )
    assert [x.compiler for x in p.partitions] == ["cutlass", "cublas"]
    assert p.target["kind"] == "cuda" and "compiler" not in p.target


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (
            (("--target", "cmsis-nn, c"),),
            [
                "targets[0].kind: target kind 'cmsis-nn' does not exist in TVM >= 0.25",
                "last in TVM 0.18",
                "--emit tvmc",
            ],
        ),
        ((("--target", '{"kind": "c", "compiler": "cmsis-nn"}'),), ["no relax partition function"]),
        ((("--target", "llvm"), ("--target", '{"kind": "cuda"}')), ["targets[1]: a second target (cuda)"]),
    ],
)
def test_targets_that_relax_cannot_build(flags: tuple[tuple[str, str], ...], expected: list[str]) -> None:
    message = refusal(*flags)
    for text in expected:
        assert text in message


@pytest.mark.parametrize(
    "flags",
    [
        (("--target", "cuda"), ("--target-host", "stackvm")),
        (("--target", '{"kind": "cuda", "host": "stackvm"}'),),
    ],
)
def test_a_removed_host_kind_is_refused(flags: tuple[tuple[str, str], ...]) -> None:
    # Regression: only the targets' own kinds were checked, so a stackvm host was planned although
    # `config show --as tvm-target` refuses it.
    message = refusal(*flags)
    # The build's one host is the config's field (a target's own host is detached from it), so
    # the refusal names `host`, with the flag that wrote it.
    assert ": host.kind: target kind 'stackvm' does not exist in TVM >= 0.25 (last in TVM 0.19)" in message
    assert "--emit tvmc" in message


def test_a_removed_config_host_is_refused() -> None:
    # A config built in code need not repeat its host in the target, as resolved configs do.
    from tvmc.config import CompilationConfig

    cuda = {"kind": "cuda", "tag": "", "keys": ["cuda", "gpu"]}
    config = CompilationConfig(targets=(cuda,), host={"kind": "stackvm", "tag": "", "keys": []})
    with pytest.raises(BuildError, match=r"^host\.kind: target kind 'stackvm' does not exist in TVM >= 0\.25"):
        plan_build(config, {}, MODEL)


def test_compiler_for_another_device_is_refused() -> None:
    # The core already rejects this while canonicalizing; the plan checks again for configs built in code.
    from tvmc.config import CompilationConfig

    llvm = {"kind": "llvm", "tag": "", "keys": ["cpu"]}
    config = CompilationConfig(targets=({**llvm, "compiler": "cublas"},), host=llvm)
    with pytest.raises(BuildError, match="compiler 'cublas' does not run on cpu targets"):
        plan_build(config, {}, MODEL)


def test_pass_config() -> None:
    p = plan(("--pass-config", "tir.disable_vectorize=true"), ("--pass-config", "tirx.noalias=false"))
    assert p.pass_config == {"tirx.disable_vectorize": True, "tirx.noalias": False}
    notes = api.resolve([], [("--pass-config", "tir.disable_vectorize=true")]).notes  # canonical spelling
    assert any("'tir.disable_vectorize' is 'tirx.disable_vectorize'" in note for note in notes)
    message = refusal(("--pass-config", "relay.backend.use_auto_scheduler=true"))
    assert 'pass-config."relay.backend.use_auto_scheduler": not a PassContext config of TVM 0.27' in message
    assert plan(("--set", 'disabled-pass=["FuseOps"]')).disabled_pass == ("FuseOps",)


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ('build.module-name="net"', "build.module-name: relax.build has no module name"),
        (f'build.tuning-records="{ROOT / "pyproject.toml"}"', "cannot apply AutoTVM/auto-scheduler logs"),  # a file
        ('build.output-format="mlf"', "build.output-format: Model Library Format exists only in TVM <= 0.18"),
        ('build={output-format="tar", cross-compiler="aarch64-linux-gnu-gcc"}', "a tar of object files is not linked"),
        ('build.mixed-precision-ops=["nn.dense"]', None),  # only a note: inert without mixed-precision
        ('build={mixed-precision=true, mixed-precision-ops=["nn.dense"]}', "chooses the operators itself"),
        ('build={mixed-precision=true, mixed-precision-calculation-type="float32"}', "computes in float16 only"),
        ('build={desired-layout=["NHWC"], desired-layout-ops=["nn.conv2d_transpose"]}', "give the kernel layout"),
        ('build={desired-layout=["NHWC", "NCHW", "NHWC"], desired-layout-ops=["nn.conv2d"]}', "3 layouts for 1"),
        ('tvm-version="<=0.19"', "tvm-version: the config is written for TVM <=0.19, which excludes TVM >= 0.25"),
    ],
)
def test_build_options_that_cannot_be_honoured(setting: str, expected: str | None) -> None:
    if expected is None:
        # Inert options are dropped by canonicalization (one form per meaning), which says so.
        notes = api.resolve([], [("--set", setting)]).notes
        assert "build.mixed-precision-ops has no effect without build.mixed-precision = true" in notes
    else:
        message = refusal(("--set", setting))
        assert expected in message and message.startswith(f"--set={setting}: ")


def test_build_options_that_map() -> None:
    p = plan(
        (
            "--set",
            'build={cross-compiler="gcc", cross-compiler-options=["-O2", "-g"], dump-code=["ll"], '
            'desired-layout=["NHWC"], mixed-precision=true, mixed-precision-acc-type="float32"}',
        )
    )
    assert p.export_kwargs() == {"cc": "gcc", "options": ["-O2", "-g"]}
    assert p.layouts == {"relax.nn.conv2d": ["NHWC", "HWIO"]}
    assert p.mixed_precision == "float32" and p.dump_code == ("ll",)
    p = plan(
        (
            "--set",
            'build={desired-layout=["NCHW:OIHW", "NHWC:OHWI"], '
            'desired-layout-ops=["nn.conv2d", "relax.nn.conv2d_transpose"]}',
        )
    )
    assert p.layouts == {"relax.nn.conv2d": ["NCHW", "OIHW"], "relax.nn.conv2d_transpose": ["NHWC", "OHWI"]}


def test_llvm_dumps_need_llvm() -> None:
    assert "needs an llvm target or host" in refusal(
        ("--target", "c"), ("--target-host", "c"), ("--set", 'build.dump-code=["asm"]')
    )
    assert plan(("--target", "c"), ("--set", 'build.dump-code=["tir", "relax"]')).dump_code == ("tir", "relax")


@pytest.mark.parametrize(
    ("spec", "modern", "legacy"),
    [  # modern: admits a TVM >= 0.25; legacy: admits TVM 0.18.x or 0.19.x (what --emit tvmc/relay write for)
        (">=0.25", True, False),
        ("<=0.19", False, True),
        ("<=0.18", False, True),
        ("0.27", True, False),
        ("==0.27.0", True, False),
        ("0.27.1", True, False),  # a patch release (a sample of x.y.0 versions once refused it)
        ("0.29", True, False),  # past the samples once listed here
        (">=1.2", True, False),
        ("0.19.1", False, True),
        (">=0.14,<0.20", False, True),
        (">0.19", True, False),
        ("~=0.26", True, False),
        ("!=0.27", True, True),
        ("<=0.19, !=0.19", False, True),
        ("0.21", False, False),
        (">=0.20, <0.25", False, False),
        ("<0.18", False, False),
        (">=0.25, <0.25", False, False),
        ("whatever", True, True),
    ],
)
def test_version_admits(spec: str, modern: bool, legacy: bool) -> None:
    assert versions.admits(spec, versions.MODERN_SINCE) is modern
    assert any(versions.admits_series(spec, v) for v in registry.generation_versions()) is legacy
    assert registry.supports(spec) is (modern or legacy)


@pytest.mark.parametrize(
    ("path", "fmt", "shapes", "expected"),
    [
        ("m.h5", None, None, "TVM >= 0.25 has no Keras frontend"),
        ("m.pb", None, None, "no TensorFlow frontend"),
        ("m.pth", None, {"x": (1,)}, "looks like TorchScript"),
        ("m.pt2", None, {"x": (1,)}, "a torch.export program carries its own input shapes"),
        ("m.tflite", None, {"x": (None, 3)}, "static shapes only"),
        ("m.bin", "relay", None, "Relay text exists only in TVM <= 0.19"),
    ],
)
def test_models_modern_tvm_cannot_import(
    path: str, fmt: str | None, shapes: dict[str, tuple[int | None, ...]] | None, expected: str
) -> None:
    resolved = api.resolve([], [])
    with pytest.raises(BuildError, match=expected):
        plan_build(resolved.config, resolved.origins, model_spec(path, fmt, shapes))


SHIPPED = sorted(
    Path(p).relative_to(ROOT / "configs").with_suffix("").as_posix()
    for p in glob.glob(str(ROOT / "configs" / "**" / "*.toml"), recursive=True)
)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_configs_plan_like_tvm_target(name: str, invoke_tvm_target: Callable[[str], object]) -> None:
    """The plan's target is what `emit.tvm_target` says TVM takes (one definition of the target JSON)."""
    resolved = api.resolve([name], [])
    try:
        p = plan_build(resolved.config, resolved.origins, MODEL)
    except BuildError as err:
        assert resolved.config.tvm_version or "TVM <= 0.19" in str(err), str(err)
        return
    assert p.target == invoke_tvm_target(name)


@pytest.fixture
def invoke_tvm_target() -> Callable[[str], object]:
    from tvmc.emit.tvm_target import to_tvm_target

    return lambda name: to_tvm_target(api.resolve([name], []).config)[0]
