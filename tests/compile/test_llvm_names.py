"""Are the values real (issue 16): mcpu, mattr and cuda arch against the names TVM's LLVM knows
(registry/data/llvm.json), in config validate and in compile, with a did-you-mean. No TVM needed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from tvmc import registry
from tvmc.targets.llvm_names import name_problems
from tvmc.validate.canon import canonicalize

Invoke = Callable[..., Result]
MODEL = Path(__file__).resolve().parents[2] / "models" / "mlp.onnx"


@pytest.mark.parametrize(
    ("flag", "value", "message", "suggestion"),
    [
        ("--target-llvm-mcpu", "skylake-avx51", "mcpu 'skylake-avx51' is not a CPU LLVM 22", "skylake-avx512"),
        ("--target-llvm-mattr", "+avx9000", "knows no feature 'avx9000'", None),
        ("--target-llvm-mattr", "avx2", "mattr 'avx2' has no sign, so LLVM ignores it", None),
    ],
)
def test_validate_and_compile_refuse_unknown_llvm_names(
    invoke: Invoke, flag: str, value: str, message: str, suggestion: str | None, tmp_path: Path
) -> None:
    validated = invoke("config", "validate", "--config", "host/default", flag, value)
    assert validated.exit_code == 1 and message in validated.output and "[unknown-cpu]" in validated.output
    if suggestion:
        assert f"(did you mean {suggestion!r}?)" in validated.output
    # compile stops before the build (no TVM needed to refuse), at the flag that set the value,
    # with validate's exit code (the rule engine refuses it, wherever the value came from)
    compiled = invoke("compile", str(MODEL), "--config", "host/default", flag, value, "-o", str(tmp_path / "x.so"))
    assert compiled.exit_code == 1
    assert compiled.stderr.startswith(f"tvmc: error: {flag}={value}: ") and message in compiled.stderr
    assert not (tmp_path / "x.so").exists()


def test_cuda_arch_and_names_per_triple() -> None:
    problems = name_problems({"kind": "cuda", "arch": "sm_800", "host": {"kind": "llvm", "mcpu": "znver7"}})
    assert [(p.path, p.suggestion) for p in problems] == [(("arch",), "sm_80"), (("host", "mcpu"), "znver5")]
    assert "sm_20 … sm_121f" in problems[0].message
    # a CPU is checked against its triple's architecture: cortex-a72 is no x86 CPU
    wrong = name_problems({"kind": "llvm", "mtriple": "x86_64-linux-gnu", "mcpu": "cortex-a72"})
    assert [p.path for p in wrong] == [("mcpu",)]
    assert not name_problems({"kind": "llvm", "mtriple": "armv8l-linux-gnueabihf", "mcpu": "cortex-a72"})
    assert not name_problems({"kind": "llvm", "mcpu": "native", "mattr": ["+avx2,-avx512f"]})
    # an architecture tvmc has no names for is not checked
    assert not name_problems({"kind": "llvm", "mtriple": "wasm32-unknown-unknown", "mcpu": "anything"})


def test_every_shipped_config_and_tvm_tag_uses_real_names() -> None:
    """TVM's own tags pass, except riscv/spacemit-k3, whose mcpu LLVM 22 lacks (a warning only)."""
    unknown = set()
    for tag in registry.tag_names():
        try:
            canonical, _, _ = canonicalize(tag)
        except Exception:  # tags TVM >= 0.25 cannot canonicalize are another test's
            continue
        if name_problems(canonical):
            unknown.add(tag)
    assert unknown == {"riscv/spacemit-k3"}


def test_llvm_data_comes_from_the_registry_sync() -> None:
    """The names are generated (scripts/sync_registry.py), with the LLVM and TVM they came from."""
    assert registry.llvm_version() >= 17
    x86 = registry.llvm_names("x86")
    assert x86 is not None and {"skylake-avx512", "znver4"} <= x86.cpus and {"avx2", "avx512f"} <= x86.features
    assert registry.llvm_target("arm64-apple-macos") == "aarch64"
    assert registry.llvm_target("thumbv7em-none-eabi") == "arm"
    assert registry.llvm_target("i686-linux-gnu") == "x86"


def test_native_is_resolved_to_this_cpu_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    from tvmc.backend import compile as building
    from tvmc.backend.model import model_spec
    from tvmc.backend.plan import plan_build
    from tvmc.targets import llvm_names

    monkeypatch.setattr(llvm_names, "native_cpu", lambda: "znver4")
    from tvmc import api

    resolved = api.resolve(["host/default"], [("--target-llvm-mcpu", "native")])
    plan = plan_build(resolved.config, resolved.origins, model_spec(str(MODEL), None, None))
    notes: list[str] = []
    resolved_plan = building.resolve_native(plan, notes.append)
    assert resolved_plan.target["mcpu"] == "znver4"
    assert notes == ["mcpu 'native' is this machine's CPU: building for mcpu 'znver4' (LLVM's name for it)"]
    assert building.resolve_native(resolved_plan, notes.append) is resolved_plan


def test_emit_says_what_native_becomes(invoke: Invoke) -> None:
    result = invoke("compile", str(MODEL), "--target", "llvm -mcpu=native", "--emit", "plan")
    assert result.exit_code == 0, result.output
    assert "tvmc: warning: mcpu 'native' is passed to TVM as written: its LLVM does not resolve it" in result.stderr
