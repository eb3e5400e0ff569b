"""`python -m tvmc.backend.probe`: what `tvmc doctor` asks of this Python, in a child process.

Each optional package tvmc declares (`tvmc.deps.PACKAGES`) is imported for real (a package that is
present but broken counts as broken, not as installed), then TVM is asked for its version, its
LLVM and this CPU as LLVM names it, with the instruction-set features that name implies (as
`host/native` detection does). One JSON object per line on stdout, written as soon as it is known:
a crash while importing TVM (a bad tvm-ffi) leaves the lines before it, and the parent names the
crash. Nothing here calls what a known-bad version crashes (tvm.ir.save_json).
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

from tvmc import deps


def _emit(record: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def _short(err: BaseException) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    text = f"{type(err).__name__}: {lines[-1]}" if lines else type(err).__name__
    return text if len(text) <= 300 else text[:297] + "..."


def check(package: deps.Package) -> dict[str, Any]:
    """Import a package: its state (ok, missing or broken), version and, on failure, why."""
    record: dict[str, Any] = {"package": package.module, "distribution": package.distribution}
    record["version"] = deps.installed_version(package.distribution)
    try:
        module = importlib.import_module(package.module)
    except ModuleNotFoundError as err:
        own = err.name is not None and err.name.split(".")[0] == package.module
        return {**record, "state": "missing" if own else "broken", "error": _short(err)}
    except BaseException as err:  # a broken install raises anything (and native code can SystemExit)
        return {**record, "state": "broken", "error": _short(err)}
    record["version"] = record["version"] or str(getattr(module, "__version__", "") or "") or None
    if package.module == "tomli":  # the `fast` extra is about speed: is this the compiled build?
        parser = sys.modules.get("tomli._parser")
        record["compiled"] = bool(parser and str(getattr(parser, "__file__", "")).endswith((".so", ".pyd")))
    return {**record, "state": "ok"}


def tvm_facts() -> dict[str, Any]:
    """TVM's version, its LLVM, and this CPU as that LLVM names it."""
    from tvmc.backend import preflight
    from tvmc.sources.detect import plain_triple

    tvm = importlib.import_module("tvm")
    codegen = importlib.import_module("tvm.target.codegen")
    facts: dict[str, Any] = {"tvm": str(getattr(tvm, "__version__", "")) or None}
    if not hasattr(codegen, "llvm_get_system_cpu"):
        return {**facts, "llvm": None, "cpu": None}
    triple = plain_triple(str(codegen.llvm_get_system_triple()))
    cpu = str(codegen.llvm_get_system_cpu())
    facts["llvm"] = str(codegen.llvm_version_major())
    features = sorted(preflight.isa_features({"kind": "llvm", "mtriple": triple, "mcpu": cpu}))
    facts["cpu"] = {"name": cpu, "triple": triple, "features": features}
    return facts


def main() -> None:
    tvm_packages = ("tvm_ffi", "tvm")
    for package in deps.PACKAGES.values():
        if package.module not in tvm_packages:
            _emit(check(package))
    for module in tvm_packages:
        _emit(check(deps.PACKAGES[module]))
    if "tvm" in sys.modules:
        try:
            _emit({"facts": tvm_facts()})
        except Exception as err:  # TVM raises many types
            _emit({"facts-error": _short(err)})
    _emit({"done": True})


if __name__ == "__main__":
    main()
