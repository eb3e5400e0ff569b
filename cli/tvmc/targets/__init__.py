"""TVM targets: parse every form, canonicalize to exactly TVM 0.27's export, print legacy strings.

Pure Python: TVM is only imported (lazily) by `canonicalize(..., fill_from_machine=True)`.

    parse_target(x)        tag / JSON / dict / legacy string → ParsedTarget(spec, lifted, notes)
    parse_targets(x)       also old tvmc comma lists → ParsedTargets(targets, host, lifted, notes)
    canonicalize(spec)     → dict equal to `tvm.target.Target(spec).export()` (machine values left out)
    to_legacy(canonical)   → v0.10-style string that parses back to the same canonical target
    resolve_system(...)    → TargetSystem(targets, host, notes) with CompilationConfig semantics
"""

from __future__ import annotations

from tvmc.targets.canonical import Spec, canonicalize, device_type
from tvmc.targets.parse import ParsedTarget, parse_target
from tvmc.targets.printer import to_legacy
from tvmc.targets.queries import check_modern, env_dependent_keys, is_legacy, kind_of
from tvmc.targets.system import TargetSystem, is_specialisation, least_specialised, resolve_system
from tvmc.targets.tvmc_list import ParsedTargets, parse_targets, split_list

__all__ = [
    "ParsedTarget",
    "ParsedTargets",
    "Spec",
    "TargetSystem",
    "canonicalize",
    "check_modern",
    "device_type",
    "env_dependent_keys",
    "is_legacy",
    "is_specialisation",
    "kind_of",
    "least_specialised",
    "parse_target",
    "parse_targets",
    "resolve_system",
    "split_list",
    "to_legacy",
]
