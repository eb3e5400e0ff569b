"""The config of the machine tvmc runs on, as TVM's LLVM and runtime see it (`tvmc config detect`).

- the CPU: an `llvm` target with LLVM's host triple and CPU name (`llvm_get_system_triple`,
  `llvm_get_system_cpu`), the instruction-set features that CPU name implies
  (`llvm_get_cpu_features`), and the number of cores;
- each GPU the installed TVM runtime can open (cuda, rocm, vulkan, opencl, metal), as
  `tvm.target.Target.from_device` describes it, with the CPU as its host.

Code built for this config runs here, which code for a named CPU (aws/c5's AVX-512) may not.
"""

from __future__ import annotations

import datetime
import importlib
import os
import platform
from typing import Any, NamedTuple

from tvmc import deps

GPU_KINDS = ("cuda", "rocm", "vulkan", "opencl", "metal")
_VENDORS = {"conda", "unknown", "pc"}  # vendor fields that say nothing about the code (LLVM from conda)


class Detected(NamedTuple):
    config: dict[str, Any]  # a tvmc config: description, targets, host
    header: tuple[str, ...]  # where and when it was detected, for comments or notes


def _tvm() -> tuple[Any, Any]:
    try:
        return importlib.import_module("tvm"), importlib.import_module("tvm.target.codegen")
    except ImportError as err:
        lacking = deps.missing(["tvm", "tvm_ffi"]) or [deps.package_of(err.name) or deps.PACKAGES["tvm"]]
        raise deps.missing_error(
            lacking, "detecting this machine (with TVM's LLVM and runtime)", "config detect"
        ) from None


def plain_triple(triple: str) -> str:
    """`x86_64-conda-linux-gnu` → `x86_64-linux-gnu`: the vendor field of LLVM's own build says
    nothing about the code and cross compilers are named without it."""
    parts = triple.split("-")
    if len(parts) == 4 and parts[1] in _VENDORS:
        return "-".join([parts[0], *parts[2:]])
    return triple


def detect() -> Detected:
    tvm, codegen = _tvm()
    triple = plain_triple(str(codegen.llvm_get_system_triple()))
    cpu = str(codegen.llvm_get_system_cpu())
    host: dict[str, Any] = {"kind": "llvm", "mtriple": triple, "mcpu": cpu}
    cores = os.cpu_count()
    if cores:
        host["num-cores"] = cores
    targets: list[dict[str, Any]] = []
    for kind in GPU_KINDS:
        try:
            device = tvm.device(kind, 0)
            present = bool(device.exist)
        except Exception:  # a runtime built without this backend raises
            present = False
        if present:
            exported = dict(tvm.target.Target.from_device(device).export())
            exported.pop("host", None)
            targets.append(exported)
    machine = platform.node() or "this machine"
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    gpus = ", ".join(str(t["kind"]) for t in targets) or "no GPU"
    config: dict[str, Any] = {
        "description": f"Detected on {machine} at {when}: {cpu} CPU ({triple}), {gpus}.",
        "targets": [*targets, host] if targets else [host],
    }
    if targets:
        config["host"] = host
    header = (
        f"Detected on {machine} at {when} by `tvmc config detect` (TVM {tvm.__version__}, "
        f"LLVM {codegen.llvm_version_major()}).",
        "Code built for it runs on this machine; regenerate it on another machine.",
    )
    return Detected(config, header)


def to_toml(detected: Detected, schema_line: str | None) -> str:
    """The detected config as a TOML file: the `#:schema` line (if any), then where and when it
    was detected as comments."""
    import tomli_w

    comments = "".join(f"# {line}\n" for line in detected.header)
    head = f"{schema_line}\n" if schema_line else ""
    return head + comments + tomli_w.dumps(detected.config, multiline_strings=False)
