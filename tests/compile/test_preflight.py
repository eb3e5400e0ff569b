"""Preflight (issue 16): a library that would fault on this machine is named before the build."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

pytestmark = pytest.mark.tvm
preflight = pytest.importorskip("tvmc.backend.preflight")
pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -e '.[tvm]')")

C5 = {"kind": "llvm", "mcpu": "skylake-avx512", "mtriple": "x86_64-linux-gnu", "keys": ["x86", "cpu"]}


def test_avx512_code_on_an_avx2_cpu_is_named() -> None:
    found = preflight.missing_isa(C5, system_cpu="znver3", system_triple="x86_64-linux-gnu")
    assert found and found[0][0] == "mcpu skylake-avx512"
    assert {"avx512f", "avx512bw"} <= set(found[0][1]) and not any(
        f.startswith(("fast-", "prefer-")) for f in found[0][1]
    )


def test_what_the_machine_has_is_not_named() -> None:
    assert preflight.missing_isa(C5, system_cpu="sapphirerapids", system_triple="x86_64-linux-gnu") == []
    generic = {"kind": "llvm", "mtriple": "x86_64-linux-gnu"}
    assert preflight.missing_isa(generic, system_cpu="x86-64", system_triple="x86_64-linux-gnu") == []


def test_another_architecture_is_not_this_machines_business() -> None:
    arm = {"kind": "llvm", "mcpu": "cortex-a72", "mtriple": "aarch64-linux-gnu", "mattr": ["+neon"]}
    assert preflight.missing_isa(arm, system_cpu="x86-64", system_triple="x86_64-linux-gnu") == []


def test_the_host_of_a_gpu_target_is_checked_too() -> None:
    cuda = {"kind": "cuda", "arch": "sm_80", "host": C5}
    assert preflight.missing_isa(cuda, system_cpu="haswell", system_triple="x86_64-linux-gnu")


def test_mattr_alone_can_need_features() -> None:
    target = {"kind": "llvm", "mtriple": "x86_64-linux-gnu", "mattr": ["+avx512f"]}
    found = preflight.missing_isa(target, system_cpu="haswell", system_triple="x86_64-linux-gnu")
    assert found and found[0][0] == "mattr +avx512f" and "avx512f" in found[0][1]


def _machine_has_avx512() -> bool:
    try:
        return "avx512f" in Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return True  # cannot tell: expect no warning


def test_compile_warns_when_this_machine_cannot_run_the_library(
    invoke: Callable[..., Result], mlp_path: Path, tmp_path: Path
) -> None:
    result = invoke("compile", str(mlp_path), "--config", "aws/c5", "-o", str(tmp_path / "c5.so"))
    assert result.exit_code == 0, result.output
    warned = "the library will not run here" in result.stderr
    assert warned == (not _machine_has_avx512()), result.stderr


def test_objects_the_default_compiler_cannot_link_are_refused_before_the_build() -> None:
    """aws/c6g without its cross compiler, or a macOS host: said before the build, with the way out."""
    import platform

    from tvmc.backend.preflight import link_problem

    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("the cases are written for an x86-64 build machine")
    arm = link_problem({"kind": "llvm", "mtriple": "aarch64-linux-gnu"}, "so", None)
    assert arm is not None and "the code is for aarch64-linux-gnu, which this machine's default compiler" in str(arm)
    assert "--set build.output-format=tar" in arm.one_line()
    mac = link_problem({"kind": "metal", "host": {"kind": "llvm", "mtriple": "x86_64-apple-macos"}}, "so", None)
    assert mac is not None and "x86_64-apple-macos" in str(mac)
    assert link_problem({"kind": "llvm", "mtriple": "aarch64-linux-gnu"}, "tar", None) is None
    assert link_problem({"kind": "llvm", "mtriple": "aarch64-linux-gnu"}, "so", "aarch64-linux-gnu-gcc") is None
    assert link_problem({"kind": "llvm", "mtriple": "x86_64-linux-gnu"}, "so", None) is None
    assert link_problem({"kind": "llvm"}, "so", None) is None
