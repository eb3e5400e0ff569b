"""Checks before a build that need TVM's LLVM (issue 16): will the library run on this machine?

A target whose triple is this machine's architecture and whose `mcpu`/`mattr` need instruction-set
features this CPU lacks builds fine and then dies with `Illegal instruction` (aws/c5's AVX-512 on an
AVX2 machine). LLVM knows both feature sets: the target's (`llvm_get_cpu_features` of the target)
and this machine's (the features of `llvm_get_system_cpu`). Only instruction-set features count;
LLVM's tuning flags (`fast-*`, `slow-*`, `prefer-*` …) never make code fault.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
from collections.abc import Iterator, Mapping
from typing import Any

from tvmc import registry
from tvmc.errors import BuildError, Location

# Instruction-set extensions (x86 and AArch64 spellings of LLVM): a missing one faults at run time.
_ISA = re.compile(
    r"(avx.*|sse.*|ssse3|fma.*|f16c|bmi2?|aes|sha|sha512|vaes|vpclmulqdq|pclmul|gfni|amx.*|popcnt|lzcnt|"
    r"movbe|adx|rdrnd|rdseed|xsave.*|clflushopt|clwb|cx16|prfchw|sm3|sm4|"
    r"neon|sve.*|dotprod|i8mm|bf16|fullfp16|fp16fml|crc|crypto|lse|rcpc|mte|sme.*)"
)
ISA_PATTERN = _ISA.pattern  # the manifest records the features of this pattern (tvmc.backend.embed)


def _llvm_nodes(target: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """The llvm targets of a build: the target, its host, a composite's devices."""
    for node in (target, target.get("host"), *(target.get("devices") or ())):
        if isinstance(node, Mapping) and node.get("kind") == "llvm":
            yield node


def isa_features(spec: Mapping[str, Any]) -> set[str]:
    """The instruction-set features LLVM enables for an llvm target (its mcpu and mattr)."""
    tvm = importlib.import_module("tvm")
    codegen = importlib.import_module("tvm.target.codegen")
    return {str(f) for f in codegen.llvm_get_cpu_features(tvm.target.Target(dict(spec))) if _ISA.fullmatch(str(f))}


def missing_isa(
    target: Mapping[str, Any], *, system_cpu: str | None = None, system_triple: str | None = None
) -> list[tuple[str, list[str]]]:
    """(what the code is built for, the ISA features it needs that this machine lacks) for each llvm
    target built for this machine's architecture. `system_cpu`/`system_triple` stand in for the
    machine (tests)."""
    codegen = importlib.import_module("tvm.target.codegen")
    triple_here = system_triple or str(codegen.llvm_get_system_triple())
    cpu_here = system_cpu or str(codegen.llvm_get_system_cpu())
    arch_here = triple_here.split("-", 1)[0]

    isa = isa_features
    found: list[tuple[str, list[str]]] = []
    for node in _llvm_nodes(target):
        triple = str(node.get("mtriple") or triple_here)
        mcpu, mattr = node.get("mcpu"), [str(a) for a in node.get("mattr") or ()]
        if triple.split("-", 1)[0] != arch_here or not (mcpu or any(a.startswith("+") for a in mattr)):
            continue  # another machine's code, or generic code that runs on any CPU of the architecture
        spec: dict[str, Any] = {"kind": "llvm", "mtriple": triple}
        if mcpu:
            spec["mcpu"] = mcpu
        if mattr:
            spec["mattr"] = mattr
        lacking = sorted(isa(spec) - isa({"kind": "llvm", "mtriple": triple, "mcpu": cpu_here}))
        if lacking:
            what = f"mcpu {mcpu}" if mcpu else f"mattr {','.join(mattr)}"
            found.append((what, lacking))
    return found


def host_isa() -> set[str]:
    """The instruction-set features of this machine's CPU, as LLVM names them."""
    tvm = importlib.import_module("tvm")
    codegen = importlib.import_module("tvm.target.codegen")
    spec = {
        "kind": "llvm",
        "mtriple": str(codegen.llvm_get_system_triple()),
        "mcpu": str(codegen.llvm_get_system_cpu()),
    }
    return {str(f) for f in codegen.llvm_get_cpu_features(tvm.target.Target(spec)) if _ISA.fullmatch(str(f))}


def host_arch() -> str:
    """This machine's architecture as LLVM's triple names it (x86_64, aarch64)."""
    return str(importlib.import_module("tvm.target.codegen").llvm_get_system_triple()).split("-", 1)[0]


def will_not_run_here(target: Mapping[str, Any]) -> list[str]:
    """One warning per llvm target whose code would fault on this machine."""
    cpu_here = str(importlib.import_module("tvm.target.codegen").llvm_get_system_cpu())
    warnings = []
    for what, lacking in missing_isa(target):
        shown = ", ".join(lacking[:6]) + (f" and {len(lacking) - 6} more" if len(lacking) > 6 else "")
        warnings.append(
            f"{what} needs {shown}, which this machine (LLVM: {cpu_here}) lacks: the library will not run "
            f"here; to run it here, build for --config host/native (this machine, mcpu {cpu_here})"
        )
    return warnings


_OTHER_OBJECT_FORMATS = ("apple", "darwin", "macos", "ios", "windows", "msvc")


def link_problem(target: Mapping[str, Any], output_format: str, cc: str | None) -> BuildError | None:
    """A .so linked by this machine's default compiler from objects it cannot read: another CPU
    architecture, or another object format (macOS's Mach-O, Windows' COFF). Said before the build,
    not after it as `export failed: file format not recognized`."""
    import platform

    if output_format != "so" or cc is not None:
        return None
    here = registry.llvm_target(platform.machine().lower())
    for node in _llvm_nodes(target):
        triple = node.get("mtriple")
        if not isinstance(triple, str):
            continue
        parts = triple.lower().split("-")
        if registry.llvm_target(parts[0]) != here or any(p.startswith(_OTHER_OBJECT_FORMATS) for p in parts[1:]):
            return BuildError(
                f"the code is for {triple}, which this machine's default compiler cannot link into a .so",
                "compile",
                hint="name a compiler that can (build.cross-compiler), or write the objects as a tar: "
                "--set build.output-format=tar",
            )
    return None


# A triple to suggest for an LLVM CPU target (what `mtriple` would say for a Linux board).
EXAMPLE_TRIPLES = {
    "x86": "x86_64-linux-gnu",
    "aarch64": "aarch64-linux-gnu",
    "arm": "armv7a-linux-gnueabihf",
    "riscv": "riscv64-linux-gnu",
}


def foreign_cpu(node: Mapping[str, Any], machine: str | None = None) -> str | None:
    """Why an llvm target's `mcpu` cannot be built for its triple (its `mtriple`, or this machine's
    when it has none): a CPU of another architecture, which LLVM would ignore, building generic
    code of the triple's (`llvm -mcpu=cortex-a72` on x86_64). None when it fits, or is unknown
    everywhere (the unknown-cpu rule says that)."""
    import platform

    mcpu = node.get("mcpu")
    if node.get("kind") != "llvm" or not isinstance(mcpu, str) or mcpu in ("native", "generic"):
        return None
    triple = node.get("mtriple")
    arch = str(triple) if isinstance(triple, str) else (machine or platform.machine())
    own = registry.llvm_target(arch)
    names = registry.llvm_names(own) if own else None
    if names is None or mcpu in names.cpus:
        return None
    others = [t for t in EXAMPLE_TRIPLES if t != own and mcpu in (getattr(registry.llvm_names(t), "cpus", ()) or ())]
    if not others:
        return None
    which = f"mtriple {triple}" if isinstance(triple, str) else f"this machine ({arch}: the target has no mtriple)"
    return (
        f"mcpu {mcpu!r} is a CPU of {', '.join(others)}, not of {which}: LLVM would build generic {own} code; "
        f"name the triple: mtriple = {EXAMPLE_TRIPLES[others[0]]!r}"
    )


GPU_KINDS = ("cuda", "rocm", "vulkan", "opencl", "metal", "hexagon", "webgpu")


def no_runtime_here(target: Mapping[str, Any]) -> list[str]:
    """A warning when the installed TVM cannot load what the build makes: the pip wheel has no CUDA
    (or other GPU) runtime, so its library builds but does not load here."""
    try:
        tvm = importlib.import_module("tvm")
    except ImportError:  # nothing to load it with, and nothing built either
        return []
    kinds = [str(n.get("kind")) for n in (target, *(target.get("devices") or ())) if isinstance(n, Mapping)]
    return [
        f"{kind}: this TVM has no {kind} runtime: the library cannot be loaded here (tvmc run needs one)"
        for kind in dict.fromkeys(kinds)
        if kind in GPU_KINDS and not runtime_enabled(tvm, kind)
    ]


def runtime_enabled(tvm: Any, kind: str) -> bool:
    """Whether this TVM has the runtime of `kind`; a kind it does not know (webgpu: TVM raises
    "Unknown optional runtime") it has not."""
    try:
        return bool(tvm.runtime.enabled(kind))
    except Exception:  # TVM's InternalError for a runtime name it was built without knowing
        return False


def cross_compiler_problem(cc: str | None, origin: Location | None) -> BuildError | None:
    """A configured cross compiler that is not on PATH, said before the build (not after it, as
    `export failed: FileNotFoundError`), with where it was set, the Debian/Ubuntu package that has
    it, and the way to build without it."""
    if cc is None or shutil.which(cc) is not None:
        return None
    package = debian_package(cc)
    install = f"install it (Debian/Ubuntu: apt-get install {package}), or " if package else "install it, or "
    return BuildError(
        f"the cross compiler {cc!r} is not on PATH",
        origin,
        hint=f"{install}build without it: --unset build.cross-compiler --set build.output-format=tar",
    )


def debian_package(cc: str) -> str | None:
    """The Debian/Ubuntu package of a GNU cross compiler: `aarch64-linux-gnu-gcc` →
    `gcc-aarch64-linux-gnu`; None for a compiler Debian does not package by that name (the NDK's
    `aarch64-linux-android28-clang`)."""
    name = os.path.basename(cc)
    for tool, prefix in (("-gcc", "gcc-"), ("-g++", "g++-"), ("-cc", "gcc-")):
        if name.endswith(tool) and "android" not in name:
            return prefix + name[: -len(tool)]
    return None


def how_to_install(cc: str) -> str:
    """One line saying how to get a cross compiler onto PATH."""
    package = debian_package(cc)
    if package is not None:
        return f"apt-get install {package}"
    if "android" in os.path.basename(cc):
        return "install the Android NDK and put its toolchains/llvm/prebuilt/*/bin on PATH"
    return "install the toolchain that provides it and put it on PATH"
