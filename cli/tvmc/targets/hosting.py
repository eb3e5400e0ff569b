"""A target and the build's host: attaching and detaching the host, in one place.

A resolved config holds its host once, as a field (`CompilationConfig.host`); its targets carry
none (`resolve_system` detaches the own host a tag or a table brought, after checking that it is
the build's host). What leaves tvmc in TVM's form nests it again, by one of these functions:

    detach_host(t)        the target without a host
    attach_host(t, h)     the target built with host h (its own host, if it has one, stays)
    tvm_target(t, h)      as TVM's Target(t, host=h) is written: a CPU target that is its own host
                          carries none (TVM's default), any other target carries h
"""

from __future__ import annotations

from collections.abc import Mapping

from tvmc import registry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def device_type(canonical: Mapping[str, Any]) -> int:
    """TVM's GetTargetDeviceType: the `target_device_type` attr, else the kind's."""
    explicit = canonical.get("target_device_type")
    if isinstance(explicit, int):
        return explicit
    return registry.all_kinds()[canonical["kind"]].device_type


def detach_host(target: Mapping[str, Any]) -> dict[str, Any]:
    """The target without its `host` (a new dict; the values are shared)."""
    return {k: v for k, v in target.items() if k != "host"}


def attach_host(target: Mapping[str, Any], host: Mapping[str, Any] | None) -> dict[str, Any]:
    """The target with the host it is built with written on it: its own, else `host`."""
    if "host" in target or host is None:
        return dict(target)
    return {**target, "host": host}


def tvm_target(target: Mapping[str, Any], host: Mapping[str, Any] | None) -> dict[str, Any]:
    """The target as `tvm.target.Target` takes it with the build's host: a CPU target that is its
    own host needs none (TVM's default, so written out or not it is one meaning); any other target
    carries `host` (or its own host, which equals it)."""
    bare = detach_host(target)
    own = target.get("host", host)
    if own is None or (own == bare and device_type(bare) == registry.CPU_DEVICE):
        return bare
    return {**bare, "host": own}
