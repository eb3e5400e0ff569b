"""Are a target's CPU names real? `mcpu`, `mattr` and cuda's `arch` against the names the LLVM inside
TVM knows (issue 16). TVM passes them to LLVM unchecked: `-mcpu=skylake-avx51` builds generic code,
`+avx9000` prints an LLVM warning per function, `avx2` (no sign) is ignored, `sm_800` goes to nvcc.

The names come from `registry/data/llvm.json`, which `scripts/sync_registry.py` asks of the LLVM of
the installed TVM (`llc -mattr=help`'s lists, per LLVM target); no TVM is needed here.

`mcpu = "native"` is accepted: the build resolves it to this machine's CPU (`native_cpu`).
A target without `mtriple` is built for the machine that builds it, which validation does not
assume: its names are checked against every CPU target's names, so a typo is still caught and the
verdict does not depend on the machine that validates.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache, lru_cache

from tvmc import registry
from tvmc.errors import did_you_mean
from tvmc.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NATIVE = "native"
# The LLVM targets of CPUs (a target without mtriple is one of them).
CPU_TARGETS = ("x86", "aarch64", "arm", "riscv")


@record(slots=True, frozen=True)
class NameProblem:
    path: tuple[str | int, ...]  # keys from the target to the option: ("mcpu",), ("host", "mattr")
    message: str
    suggestion: str | None


@cache
def _any_cpu() -> registry.LlvmNames:
    names = [n for n in (registry.llvm_names(t) for t in CPU_TARGETS) if n is not None]
    return registry.LlvmNames(
        "cpu",
        frozenset().union(*(n.cpus for n in names)),
        frozenset().union(*(n.features for n in names)),
    )


@lru_cache(maxsize=1024)
def _closest(word: str, candidates: frozenset[str]) -> str | None:
    # Memoised: difflib over a CPU's hundreds of names is the costliest check of a config, and the
    # same misspelt name tends to come back in many files of a repository.
    found = did_you_mean(word, sorted(candidates))
    return found[0] if found else None


def _llvm() -> str:
    return f"LLVM {registry.llvm_version()} (TVM {registry.tvm_version()})"


def _for(triple: str | None) -> str:
    return f"for {triple}" if triple else "for any CPU target (the target has no mtriple)"


def _cpu(
    names: registry.LlvmNames, triple: str | None, value: Any, path: tuple[str | int, ...]
) -> Iterator[NameProblem]:
    if not isinstance(value, str) or value == NATIVE or value in names.cpus:
        return
    yield NameProblem(path, f"mcpu {value!r} is not a CPU {_llvm()} knows {_for(triple)}", _closest(value, names.cpus))


def _features(
    names: registry.LlvmNames | None, triple: str | None, value: Any, path: tuple[str | int, ...]
) -> Iterator[NameProblem]:
    """The features of `mattr` LLVM does not know (with `names`), and any empty one (always): an
    empty entry or comma part means nothing to LLVM, and the comma lists of the command line
    (`--target-llvm-mattr +a,,+b`, `-mattr=+a,,+b`) drop it, so a list keeping it ("+a", "", "+b")
    would be the same target with another canonical form and hash. One rule refuses it."""
    if not isinstance(value, list):
        return
    for index, entry in enumerate(value):
        if not isinstance(entry, str):
            continue
        items = [part.strip() for part in entry.split(",")]
        if "" in items:
            yield NameProblem(
                (*path, index),
                f"mattr {entry!r} has an empty feature: remove it (LLVM ignores it; a comma list drops it)",
                ",".join(item for item in items if item) or None,
            )
        for item in items:
            if not item or names is None:
                continue
            sign, name = (item[0], item[1:]) if item[0] in "+-" else ("", item)
            at = (*path, index)
            if name not in names.features:
                close = _closest(name, names.features)
                yield NameProblem(
                    at,
                    f"mattr {item!r}: {_llvm()} knows no feature {name!r} {_for(triple)}",
                    (sign or "+") + close if close else None,
                )
            elif not sign:
                yield NameProblem(
                    at,
                    f"mattr {item!r} has no sign, so LLVM ignores it: enable the feature with '+{name}' "
                    f"or disable it with '-{name}'",
                    None,
                )


def _node(target: Mapping[str, Any], path: tuple[str | int, ...]) -> Iterator[NameProblem]:
    kind = target.get("kind")
    triple = target.get("mtriple") if isinstance(target.get("mtriple"), str) else None
    if kind == "llvm":
        llvm = registry.llvm_target(triple) if triple else None
        names = registry.llvm_names(llvm) if llvm else _any_cpu() if triple is None else None
        if names is not None:
            yield from _cpu(names, triple, target.get("mcpu"), (*path, "mcpu"))
        yield from _features(names, triple, target.get("mattr"), (*path, "mattr"))
    elif kind == "hexagon":
        names = registry.llvm_names("hexagon")
        if names is not None:
            yield from _cpu(names, "hexagon", target.get("mcpu"), (*path, "mcpu"))
        yield from _features(names, "hexagon", target.get("mattr"), (*path, "mattr"))
    elif kind in ("nvptx", "rocm") and (names := registry.llvm_names("nvptx" if kind == "nvptx" else "amdgcn")):
        yield from _cpu(names, "nvptx64" if kind == "nvptx" else "amdgcn", target.get("mcpu"), (*path, "mcpu"))
    elif kind == "cuda" and (names := registry.llvm_names("nvptx")) is not None:
        arch = target.get("arch")
        if isinstance(arch, str) and arch not in names.cpus:
            known = sorted(names.cpus, key=lambda a: (len(a), a))
            yield NameProblem(
                (*path, "arch"),
                f"arch {arch!r} is not a CUDA architecture {_llvm()} knows ({known[0]} … {known[-1]})",
                _closest(arch, names.cpus),
            )
    host = target.get("host")
    if isinstance(host, Mapping):
        yield from _node(host, (*path, "host"))
    devices = target.get("devices")
    if kind == "composite" and isinstance(devices, list):
        for index, device in enumerate(devices):
            if isinstance(device, Mapping):
                yield from _node(device, (*path, "devices", index))


def name_problems(target: Mapping[str, Any]) -> list[NameProblem]:
    """Every mcpu, mattr feature and cuda arch of a canonical target (its host and a composite's
    devices included) that TVM's LLVM does not know, with a did-you-mean."""
    return list(_node(target, ()))


def native_cpu() -> str:
    """This machine's CPU as LLVM names it (what `mcpu = "native"` builds for); needs TVM."""
    import importlib

    return str(importlib.import_module("tvm.target.codegen").llvm_get_system_cpu())
