"""The config as the one JSON target TVM >= 0.25 takes: `tvm.target.Target(json)`.

TVM's modern API has a single configuration object, the target (with its host). One device
target is emitted as itself with its host; several device targets become TVM's container kind,
`{"kind": "composite", "devices": [...], "host": ...}`. Everything else a config holds is not
part of a TVM target and is reported, one line each, with where it goes instead.
"""

from __future__ import annotations

import json
from typing import Any

from tvmc import registry, targets
from tvmc.config import CompilationConfig
from tvmc.frozen import thaw
from tvmc.targets.hosting import tvm_target


def to_tvm_target(config: CompilationConfig) -> tuple[dict[str, Any], list[str]]:
    """(the JSON for `tvm.target.Target`, what the target cannot hold).

    Raises `TargetError` when a target uses a kind TVM >= 0.25 no longer has (ethos-u,
    cmsis-nn, ...): such a config cannot be written as a modern TVM target at all.
    """
    dropped: list[str] = []
    config_targets: list[dict[str, Any]] = thaw(config.targets)  # plain: the JSON is built from them
    for index, target in enumerate(config_targets):
        targets.check_modern(target, source=f"targets[{index}]")
    devices = [dict(t) for t in config_targets if "compiler" not in t]
    for index, target in enumerate(config_targets):
        if "compiler" not in target:
            continue
        dropped.append(_compiler_line(index, str(target["compiler"])))
        # A specialisation refines the plain target of its device type; it is a device of its
        # own only when there is no such plain target.
        plain = {k: v for k, v in target.items() if k != "compiler"}
        if all(targets.device_type(d) != targets.device_type(plain) for d in devices):
            devices.append(plain)
    host: dict[str, Any] = thaw(config.host)
    targets.check_modern(host, source="host")
    if len(devices) == 1:
        target = tvm_target(devices[0], host)  # a CPU target that is its own host carries none
    else:
        # The composite holds the host once (a resolved config's targets carry none).
        target = {"kind": "composite", "devices": devices, "host": host}
    return target, dropped + _not_in_target(config)


def to_tvm_target_text(config: CompilationConfig) -> tuple[str, list[str]]:
    """The same as indented JSON text (sorted keys, trailing newline)."""
    target, dropped = to_tvm_target(config)
    return json.dumps(target, indent=2, sort_keys=True, ensure_ascii=False) + "\n", dropped


def _compiler_line(index: int, compiler: str) -> str:
    entry = registry.compilers().get(compiler)
    how = (
        f"partition the module with {entry.partition}"
        if entry is not None and entry.partition
        else "partition the module for it before the build"
    )
    return f"targets[{index}].compiler = {compiler!r}: a TVM target has no BYOC compiler; {how}"


def _show(value: Any) -> str:
    return json.dumps(thaw(value), sort_keys=True, ensure_ascii=False)


def _not_in_target(config: CompilationConfig) -> list[str]:
    out: list[str] = []
    if config.executor is not None:
        out.append(
            f"executor = {_show(config.executor)}: not part of a TVM target; "
            + (
                "pass exec_mode to tvm.compile / relax.build"
                if config.executor["kind"] == "vm"
                else "a Relay executor (TVM <= 0.19): pass executor= to relay.build"
            )
        )
    if config.runtime is not None:
        out.append(
            f"runtime = {_show(config.runtime)}: not part of a TVM target; "
            + (
                "pass system_lib to tvm.compile / relax.build"
                if config.runtime["kind"] == "cpp"
                else "a Relay runtime (TVM <= 0.19): pass runtime= to relay.build"
            )
        )
    if config.pass_config:
        out.append(
            f"pass-config = {_show(config.pass_config)}: not part of a TVM target; "
            "use tvm.transform.PassContext(config=...)"
        )
    if config.disabled_pass:
        out.append(
            f"disabled-pass = {_show(list(config.disabled_pass))}: not part of a TVM target; "
            "use tvm.transform.PassContext(disabled_pass=...)"
        )
    out.append(
        f"opt-level = {config.opt_level}: not part of a TVM target; "
        f"use tvm.transform.PassContext(opt_level={config.opt_level})"
    )
    for key, value in config.build.items():
        out.append(f"build.{key} = {_show(value)}: a build option, not part of a TVM target")
    return out
