"""The target system of one compilation: targets, their host, and BYOC specialisations.

TVM's CompilationConfig (TVM 0.10 src/target/compilation_config.cc) chose a host by rules A–C and silently
re-hosted every target; here disagreements are errors. One plain target per device type; targets
with a `compiler` (Collage specialisations) or BYOC legacy kinds refine the plain one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial

from tvmc import registry
from tvmc.errors import Location, TargetError
from tvmc.pointers import display_path
from tvmc.records import record
from tvmc.targets.canonical import (
    DUPLICATE_DEVICE,
    HOST_CONFLICT,
    HOST_NOT_CPU,
    Spec,
    canonicalize,
    check_compiler,
    device_clashes,
    device_type,
    host_conflicts,
    host_problem,
    is_default_host,
)
from tvmc.targets.hosting import detach_host
from tvmc.targets.value import TargetValue

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@record(slots=True, frozen=True)
class TargetSystem:
    """Canonical targets (none carries a host), the build's one host, notes. `targets.hosting`
    writes the host on a target where TVM's form needs it."""

    targets: tuple[dict[str, Any], ...]
    host: dict[str, Any]
    notes: tuple[str, ...]


def _label(target: Mapping[str, Any]) -> str:
    comp = target.get("compiler")
    return f"{target['kind']} (compiler {comp})" if comp else str(target["kind"])


def is_specialisation(target: Mapping[str, Any]) -> bool:
    """A BYOC refinement: a `compiler` key, or a legacy BYOC kind (cmsis-nn, ethos-u, ...)."""
    return "compiler" in target or registry.all_kinds()[target["kind"]].byoc


def _canonical(target: Spec | str | TargetValue, where: Callable[[], Location | None]) -> dict[str, Any]:
    """A target's canonical form (with its `compiler`), a fresh dict: read once when given as a value.
    An error is located at `where()`, asked only then: locating a key indexes its file's positions,
    which a valid config never needs."""
    try:
        if not isinstance(target, TargetValue):
            return canonicalize(target)
        if target.compiler is not None:
            check_compiler(target.compiler, target.canonical)
        return target.with_compiler()
    except TargetError as err:
        if err.location is None:
            err.location = where()
        raise


def _nowhere() -> None:
    return None


def resolve_system(
    targets: Sequence[Spec | str | TargetValue],
    host: Spec | str | TargetValue | None,
    *,
    source_of: Callable[[int], Location | None] | None = None,
    host_source: Callable[[], Location | None] = _nowhere,
) -> TargetSystem:
    """Canonicalize the targets (a `TargetValue` is canonical already) and settle the host.

    * A config-level `host` applies to every target; a target whose own host differs from it
      is an error naming both.
    * Without a config host the effective host is the first target's own host (TVM's rule A;
      targets with a different own host are an error), else the first plain CPU target, else
      `llvm`.
    * The host is a field: a target's own host (equal to the build's, as just checked) is
      detached from it, so no later stage strips one (`hosting` attaches it for TVM's form).
    * At most one plain target per device type; `compiler` targets refine it.
    * Composite targets are containers: they take the host but no device-type slot.
    """

    def loc(i: int) -> Location | None:
        return source_of(i) if source_of is not None else None

    if not targets:
        raise TargetError("Require at least one target", loc(0) if source_of else None)
    canon = [_canonical(t, partial(loc, i)) for i, t in enumerate(targets)]
    notes: list[str] = []
    own_hosts = [t["host"] if isinstance(t.get("host"), dict) else None for t in canon]
    for i, own in enumerate(own_hosts):
        if own is not None and (problem := host_problem(own)):
            raise TargetError(
                f"the host of targets[{i}] {problem}", loc(i), rule=HOST_NOT_CPU, pointer=f"/targets/{i}/host"
            )
    effective = _canonical(host, _nowhere) if host is not None else None
    if effective is not None and (problem := host_problem(effective)):
        raise TargetError(f"the host {problem}", host_source(), rule=HOST_NOT_CPU, pointer="/host")
    for conflict in host_conflicts(own_hosts, effective):
        other = display_path(f"/targets/{conflict.other}") if conflict.other is not None else ""
        raise TargetError(
            conflict.message(other), loc(conflict.target), rule=HOST_CONFLICT, pointer=f"/targets/{conflict.target}"
        )
    if effective is None:
        effective = _default_host(canon, notes)
    _check_device_types(canon, loc)
    return TargetSystem(tuple(detach_host(t) for t in canon), effective, tuple(notes))


def _default_host(canon: list[dict[str, Any]], notes: list[str]) -> dict[str, Any]:
    """The host of a config without one (its targets' own hosts agree: `host_conflicts`)."""
    hosted = [(i, t) for i, t in enumerate(canon) if "host" in t]
    if hosted:
        first_i, first = hosted[0]
        notes.append(f"host: the own host of targets[{first_i}] ({_label(first)})")
        return dict(first["host"])
    for i, t in enumerate(canon):
        if is_default_host(t):
            notes.append(f"host: targets[{i}] ({_label(t)}), the first CPU target")
            return detach_host(t)  # a CPU target is its own host: it has none of its own, nor a compiler
    notes.append("host: llvm (no target is a CPU target; TVM's build uses llvm then)")
    return canonicalize({"kind": "llvm"})


def _check_device_types(canon: list[dict[str, Any]], loc: Callable[[int], Location | None]) -> None:
    for clash in device_clashes([(t, t.get("compiler")) for t in canon]):
        message = clash.message(display_path(f"/targets/{clash.earlier}"))
        raise TargetError(message, loc(clash.later), rule=DUPLICATE_DEVICE, pointer=f"/targets/{clash.later}")


def least_specialised(system: TargetSystem, device: int | str) -> dict[str, Any]:
    """The target for a device type (number or name, e.g. 2 or "cuda"): the plain one if any,
    else the first specialisation; TargetError when no target has that device type."""
    if isinstance(device, str):
        by_name = {v: k for k, v in registry.DEVICE_NAMES.items()}
        if device not in by_name:
            raise TargetError(f"unknown device type {device!r}", suggestions=sorted(by_name))
        dev = by_name[device]
    else:
        dev = device
    matching = [t for t in system.targets if t["kind"] != "composite" and device_type(t) == dev]
    for t in matching:
        if not is_specialisation(t):
            return t
    if matching:
        return matching[0]
    available = ", ".join(
        f"{registry.DEVICE_NAMES.get(device_type(t), device_type(t))}: {_label(t)}" for t in system.targets
    )
    raise TargetError(
        f"No target is specified for device type {registry.DEVICE_NAMES.get(dev, dev)}. "
        f"The available device types and targets are: {available}"
    )
