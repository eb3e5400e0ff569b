"""Which old TVM release `--emit tvmc`/`--emit relay` write for, and targets narrowed to it.

A canonical target (TVM 0.27's export) holds every default 0.27 fills in; old TVM never had
many of those attributes (`opencl -texture_depth_limit`, `webgpu -thread_warp_size`) and its
string parser refuses them ("Cannot recognize"). So a legacy string holds only what the user
set — the attributes 0.27 would not fill in by itself — plus the attributes whose default in
that release differs from the config's value. An attribute the user set that the release lacks
is refused, naming the release. The facts come from `registry.generation` (apache/tvm at the
release's tag: src/target/target_kind.cc and the contrib target.cc files).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tvmc import registry
from tvmc import targets as tg
from tvmc.errors import TvmcError, UsageError
from tvmc.versions import allows as version_allows

LAST_TVMC = "0.19"  # the last release with tvmc, Relay and its executors/runtimes


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def last_with(has: Callable[[registry.Generation], bool]) -> str | None:
    """The newest release tvmc writes for that has something, e.g. a codegen or output format."""
    found = [v for v in registry.generation_versions() if has(registry.generation(v))]
    return max(found, key=_key) if found else None


def _elsewhere(has: Callable[[registry.Generation], bool]) -> str | None:
    last = last_with(has)
    return f"TVM {last} has it: set tvm-version = '<={last}' or use --tvm-version {last}" if last else None


def choose(spec: str | None, requested: str | None) -> registry.Generation:
    """The release to write for: `requested` (`--tvm-version`) if given, else the newest one the
    config's `tvm-version` admits. Raises TvmcError naming the releases tvmc can write for."""
    versions = registry.generation_versions()
    shown = " and ".join(versions)
    if requested is not None:
        wanted = requested.strip().lstrip("v")
        wanted = ".".join(wanted.split(".")[:2])
        if wanted not in versions:
            raise UsageError(f"tvmc writes old tvmc/Relay output for TVM {shown} only", f"--tvm-version {requested}")
        if spec and not version_allows(spec, ((*_key(wanted), 0),)):
            raise TvmcError(f"the config is written for TVM {spec}, which excludes TVM {wanted} (--tvm-version)")
        return registry.generation(wanted)
    allowed = [v for v in versions if not spec or version_allows(spec, ((*_key(v), 0),))]
    if not allowed:
        raise TvmcError(f"the config is written for TVM {spec}, which excludes TVM {shown}")
    return registry.generation(max(allowed, key=_key))


def _canonical(target: Mapping[str, Any]) -> dict[str, Any] | None:
    try:
        return tg.canonicalize(dict(target))
    except TvmcError:
        return None


def _has_option(kind: str, option: str) -> Callable[[registry.Generation], bool]:
    return lambda gen: kind in gen.kinds and option in gen.kinds[kind].options


def narrow(target: Mapping[str, Any], gen: registry.Generation) -> dict[str, Any]:
    """`target` (canonical, no host) as the release takes it; TvmcError naming the release for a
    kind or an attribute it lacks."""
    name = str(target["kind"])
    kind = gen.kinds.get(name)
    if kind is None or name in gen.codegens:
        raise TvmcError(f"TVM {gen.version} has no target kind {name!r}", hint=_elsewhere(lambda g: name in g.kinds))
    whole = _canonical(target)
    minimal = dict(target)
    if whole is not None:
        for key in [k for k in target if k not in ("kind", "tag")]:
            trial = {k: v for k, v in minimal.items() if k != key}
            if _canonical(trial) == whole:  # TVM 0.27 fills it in by itself: the user did not set it
                minimal = trial
    out = dict(minimal)
    for key, value in target.items():
        if key in ("kind", "tag") or key.startswith("feature."):
            continue
        if key not in kind.options:
            if key in minimal:
                raise TvmcError(
                    f"TVM {gen.version} has no attribute {key!r} of target kind {name!r}",
                    hint=_elsewhere(_has_option(name, key)),
                )
            continue
        if key not in minimal and key in kind.defaults and kind.defaults[key] != value:
            out[key] = value  # the release's own default differs: write what the config means
    return {k: out[k] for k in target if k in out}
