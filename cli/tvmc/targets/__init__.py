"""TVM targets: parse every form, canonicalize to exactly TVM 0.27's export, print legacy strings.

Pure Python: TVM is only imported (lazily) by `canonicalize(..., fill_from_machine=True)`.

    parse_target(x)        tag / JSON / dict / legacy string → ParsedTarget(spec, lifted, notes)
    parse_targets(x)       also old tvmc comma lists → ParsedTargets(targets, host, lifted, notes)
    canonicalize(spec)     → dict equal to `tvm.target.Target(spec).export()` (machine values left out)
    to_legacy(canonical)   → v0.10-style string that parses back to the same canonical target
    read_target(x)         → TargetValue: parsed once and canonical (TargetReader: each target of a tree once)
    resolve_system(...)    → TargetSystem(targets, host, notes) with CompilationConfig semantics: the host a field
    attach_host / detach_host / tvm_target   the one place a host is written on a target or taken off
    device_clashes(...)    → the duplicate-device rule (resolution raises the first, validation reports all)
"""

from __future__ import annotations

from tvmc import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tvmc.targets.canonical import (
        COMPILER_MISMATCH,
        DUPLICATE_DEVICE,
        HOST_CONFLICT,
        HOST_NOT_CPU,
        SECOND_TARGET_HINT,
        DeviceClash,
        HostConflict,
        Spec,
        canonicalize,
        compiler_mismatch,
        device_clashes,
        device_type,
        host_conflicts,
        host_problem,
        is_default_host,
        second_target,
        second_target_message,
    )
    from tvmc.targets.hosting import attach_host, detach_host, tvm_target
    from tvmc.targets.parse import ParsedTarget, parse_target
    from tvmc.targets.printer import to_legacy
    from tvmc.targets.queries import check_modern, env_dependent_keys, is_legacy, kind_of
    from tvmc.targets.system import TargetSystem, is_specialisation, least_specialised, resolve_system
    from tvmc.targets.tvmc_list import ParsedTargets, parse_targets, split_list
    from tvmc.targets.value import TargetReader, TargetValue, read_target

__all__ = [
    "COMPILER_MISMATCH",
    "DUPLICATE_DEVICE",
    "HOST_CONFLICT",
    "HOST_NOT_CPU",
    "SECOND_TARGET_HINT",
    "DeviceClash",
    "HostConflict",
    "ParsedTarget",
    "ParsedTargets",
    "Spec",
    "TargetReader",
    "TargetSystem",
    "TargetValue",
    "attach_host",
    "canonicalize",
    "check_modern",
    "compiler_mismatch",
    "detach_host",
    "device_clashes",
    "device_type",
    "env_dependent_keys",
    "host_conflicts",
    "host_problem",
    "is_default_host",
    "is_legacy",
    "is_specialisation",
    "kind_of",
    "least_specialised",
    "parse_target",
    "parse_targets",
    "read_target",
    "resolve_system",
    "second_target",
    "second_target_message",
    "split_list",
    "to_legacy",
    "tvm_target",
]

# Name → the submodule that defines it, imported when the name is first used: `config validate`
# needs only parsing and canonicalization, not the printer, the system resolver or comma lists.
_SUBMODULE = {
    "COMPILER_MISMATCH": "canonical",
    "DUPLICATE_DEVICE": "canonical",
    "compiler_mismatch": "canonical",
    "HOST_CONFLICT": "canonical",
    "HOST_NOT_CPU": "canonical",
    "DeviceClash": "canonical",
    "HostConflict": "canonical",
    "host_conflicts": "canonical",
    "second_target": "canonical",
    "second_target_message": "canonical",
    "SECOND_TARGET_HINT": "canonical",
    "Spec": "canonical",
    "device_clashes": "canonical",
    "canonicalize": "canonical",
    "device_type": "canonical",
    "host_problem": "canonical",
    "is_default_host": "canonical",
    "attach_host": "hosting",
    "detach_host": "hosting",
    "tvm_target": "hosting",
    "ParsedTarget": "parse",
    "parse_target": "parse",
    "to_legacy": "printer",
    "check_modern": "queries",
    "env_dependent_keys": "queries",
    "is_legacy": "queries",
    "kind_of": "queries",
    "TargetSystem": "system",
    "is_specialisation": "system",
    "least_specialised": "system",
    "resolve_system": "system",
    "ParsedTargets": "tvmc_list",
    "parse_targets": "tvmc_list",
    "split_list": "tvmc_list",
    "TargetReader": "value",
    "TargetValue": "value",
    "read_target": "value",
}

if not TYPE_CHECKING:  # mypy sees the imports above instead, and still rejects names not exported
    __getattr__ = lazy_exports(__name__, _SUBMODULE, globals())
