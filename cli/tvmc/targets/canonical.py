"""Canonicalization: a target spec → exactly what TVM 0.27's `Target(spec).export()` gives.

The pipeline follows TVM's `FromConfig` (TVM 0.27 src/target/target.cc): tag expansion, kind, host,
option validation in declaration order, unknown options, defaults, the kind's canonicalizer, then
keys. Canonical targets are plain JSON: lists, nested dicts for `host` and composite `devices`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tvmc import registry
from tvmc.errors import Location, TargetError, did_you_mean
from tvmc.records import record
from tvmc.targets import tables as T
from tvmc.targets.canonicalizers import HOOKS
from tvmc.targets.hosting import detach_host
from tvmc.targets.hosting import device_type as device_type  # re-exported: its home before tvmc.targets.hosting
from tvmc.targets.machine import NO_MACHINE, Machine, tvm_machine
from tvmc.targets.parse import parse_legacy_strict
from tvmc.targets.spec import Spec as Spec
from tvmc.targets.spec import as_location, load_json_object, tag_base, tag_configs, unknown_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_MISSING: Any = object()
_STR_CACHE: dict[tuple[str, bool], dict[str, Any]] = {}
_STR_CACHE_MAX = 4096


def clear_cache() -> None:
    """Forget cached canonical forms of strings (tags, JSON, legacy strings), e.g. for benchmarks."""
    _STR_CACHE.clear()


def kind_error(value: Any, loc: Location | None, where: str) -> TargetError:
    if value is _MISSING:
        return TargetError(
            f"{where}target has no 'kind' (and no 'tag')",
            loc,
            hint='write e.g. {"kind": "llvm"} or {"tag": "nvidia/nvidia-a100"}',
        )
    got = T.type_name(value)
    return TargetError(f'{where}Expect type of field "kind" is String, but get type: {got}', loc)


def resolve_kind(spec: Mapping[str, Any], loc: Location | None, where: str) -> tuple[registry.Kind, Mapping[str, Any]]:
    """The kind and the spec with a tag expanded (the tag's config overlaid with the spec)."""
    name = spec.get("kind", _MISSING)
    if name is _MISSING:
        tag = spec.get("tag", _MISSING)
        if tag is _MISSING:
            raise kind_error(_MISSING, loc, where)
        if not isinstance(tag, str):
            got = T.type_name(tag)
            raise TargetError(f'{where}Expect type of field "tag" is String, but get type: {got}', loc)
        spec = {**tag_base(tag, loc, where), **spec}
        name = spec["kind"]
    if not isinstance(name, str):
        raise kind_error(name, loc, where)
    kind = registry.all_kinds().get(name)
    if kind is None:
        err = T.unknown_kind(name, loc)
        raise _prefixed(err, where) if where else err
    return kind, spec


def _prefixed(err: TargetError, where: str) -> TargetError:
    return TargetError(where + err.message, err.location, suggestions=err.suggestions, hint=err.hint, rule=err.rule)


def canon_dict(spec: Mapping[str, Any], loc: Location | None, machine: Machine, where: str, top: bool) -> Spec:
    """FromConfig for one target; `where` prefixes messages of nested targets ("host: ")."""
    kind, spec = resolve_kind(spec, loc, where)
    codes = kind.codes
    attrs: dict[str, Any] = {}
    feats: dict[str, Any] = {}
    keys: list[str] | None = None
    tag = ""
    host: Any = _MISSING
    compiler: Any = _MISSING
    deferred: list[tuple[str, int, Any]] = []
    from_device = -1
    bad = False
    for k, v in spec.items():
        code = codes.get(k)
        if code is None:
            if k == "compiler":
                compiler = v
            elif k.startswith("feature.") and len(k) > 8:
                feats[k] = T.own_json(v)  # not validated, like TVM
            elif kind.open_options:
                attrs[k] = T.own_json(v)
            else:
                bad = True
                break
        elif code == T.STR:
            if type(v) is not str:
                v = T.convert_scalar(code, v)
                if v is T.BAD:
                    bad = True
                    break
            attrs[k] = v
        elif code == T.INT or code == T.BOOL:
            t = type(v)
            if (t is bool and code == T.BOOL) or (t is int and code == T.INT and T.INT64_MIN <= v <= T.INT64_MAX):
                attrs[k] = v
            else:
                v = T.convert_scalar(code, v)
                if v is T.BAD:
                    bad = True
                    break
                attrs[k] = v
        elif code == T.KIND:
            continue
        elif code == T.HOST:
            host = v
        elif code == T.TAG:
            if type(v) is not str:
                v = T.convert_scalar(T.STR, v)
                if v is T.BAD:
                    bad = True
                    break
            tag = v
        elif code == T.STR_ARRAY or code == T.KEYS or code == T.INT_ARRAY:
            v = T.convert_scalar(code, v)
            if v is T.BAD:
                bad = True
                break
            if code == T.KEYS:
                keys = v
            else:
                attrs[k] = v
        elif code == T.FROM_DEVICE:
            v = T.convert_scalar(T.INT, v)
            if v is T.BAD:
                bad = True
                break
            from_device = v
        elif code == T.TARGET or code == T.TARGET_ARRAY:
            deferred.append((k, code, v))
        else:
            attrs[k] = T.own_json(v)
    if bad:
        _raise_first_error(kind, spec, loc, machine, where)

    if host is not _MISSING and host is not None:
        host = canon_value(host, loc, machine, where + "host: ")
    for k, code, v in deferred:
        attrs[k] = _canon_targets(k, code, v, loc, machine, where)
    for k, v in kind.defaults.items():
        if k not in attrs:
            attrs[k] = list(v) if type(v) is list else v
    if from_device >= 0:
        for k, v in machine.device_attrs(kind.name, from_device).items():
            attrs.setdefault(k, v)
    hook = HOOKS.get(kind.name)
    if hook is not None:
        keys = hook(kind.name, attrs, keys, feats, machine, loc, where)

    device = attrs.get("device")
    if keys is None:
        keys = list(kind.default_keys) if device is None else _dedup([device, *kind.default_keys])
    elif device is not None or len(keys) > 1:
        keys = _dedup([*keys, device] if device is not None else keys)
    out: dict[str, Any] = {"kind": kind.name, "tag": tag, "keys": keys}
    if host is not _MISSING and host is not None:
        out["host"] = host
    out.update(attrs)
    if feats:
        out.update(feats)
    if compiler is not _MISSING:
        out["compiler"] = _check_compiler(compiler, out, kind, loc, where, top)
    return out


def _dedup(keys: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for k in keys:
        if k not in seen:
            seen.add(k)
            out.append(k)
    return out


CPU_SIDE = (registry.CPU_DEVICE, 16)  # device types that run host code (hexagon's scalar cores too)


HOST_NOT_CPU = "host-not-cpu"  # the rule id of a `host_problem`, in resolution and validation alike
HOST_CONFLICT = "host-conflict"  # the rule id of a HostConflict


def host_problem(host: Mapping[str, Any]) -> str | None:
    """Why a canonical target cannot be a host (None: it can). One rule for resolution and validation."""
    if "compiler" in host:
        return (
            f"names a BYOC codegen (compiler {host['compiler']!r}); a codegen refines a device target, "
            "never the host, and TVM's target has no 'compiler'"
        )
    kind = registry.all_kinds().get(host["kind"])
    if kind is not None and kind.byoc:  # `cmsis-nn`, `ethos-u`: legacy kinds that are codegens
        return f"is the BYOC codegen kind {host['kind']!r}; a codegen refines a device target, never the host"
    device = device_type(host)
    if device in CPU_SIDE:
        return None
    return (
        f"is a {host['kind']!r} target (device type {registry.DEVICE_NAMES.get(device, device)}); "
        "a host must run on the CPU (device type cpu, or hexagon)"
    )


def is_default_host(target: Mapping[str, Any]) -> bool:
    """Whether a canonical target is the host of a config that writes none, when it is the first
    such target: a plain CPU target (no codegen, no composite; a hexagon target can be a host
    but is not the default one: TVM builds its host code with llvm). The one rule for the host
    `config show` derives and the one `--set host.*` edits and a device layer keeps."""
    return target["kind"] != "composite" and host_problem(target) is None and device_type(target) == registry.CPU_DEVICE


DUPLICATE_DEVICE = "duplicate-device"  # the rule id of a DeviceClash, in resolution and validation alike


@record(slots=True, frozen=True)
class DeviceClash:
    """Two targets competing for one device slot: a second plain target for a device type, or one
    BYOC codegen given twice for it. Positions are indices into the sequence given to `device_clashes`."""

    earlier: int  # the target that holds the slot
    later: int  # the one that collides with it (where the problem is reported)
    device_type: int
    compiler: str | None  # the codegen given twice; None: two plain targets
    earlier_kind: str

    def message(self, earlier_at: str) -> str:
        """The one message of the rule; `earlier_at` names the earlier target ("targets[0]")."""
        device = registry.DEVICE_NAMES.get(self.device_type, str(self.device_type))
        if self.compiler is not None:
            return f"compiler {self.compiler!r} is given twice for device type {device} (also {earlier_at})"
        return (
            f"a second plain target for device type {device} ({earlier_at} is {self.earlier_kind!r}); keep one, "
            "or add a 'compiler' to this one to make it a BYOC refinement"
        )


def device_clashes(targets: Sequence[tuple[Mapping[str, Any], str | None]]) -> list[DeviceClash]:
    """Every device-slot collision among canonical targets, each given with its `compiler` (None:
    none), in order: one plain target per device type; a `compiler` target (or a legacy BYOC kind)
    refines it, once per codegen. Composite targets are containers and take no slot. The one
    rule that resolution (which raises the first) and validation (which reports all) apply."""
    plain: dict[int, int] = {}
    refined: dict[tuple[int, str], int] = {}
    found: list[DeviceClash] = []
    for i, (target, compiler) in enumerate(targets):
        kind = str(target["kind"])
        if kind == "composite":
            continue
        dev = device_type(target)
        if compiler is not None or registry.all_kinds()[kind].byoc:
            name = compiler or kind
            j = refined.setdefault((dev, name), i)
            if j != i:
                found.append(DeviceClash(j, i, dev, name, str(targets[j][0]["kind"])))
        elif (j := plain.setdefault(dev, i)) != i:
            found.append(DeviceClash(j, i, dev, None, str(targets[j][0]["kind"])))
    return found


SECOND_TARGET_HINT = "put the host in `host`, or compile once per target"


def second_target_message(kind: str) -> str:
    """The one message of the second-target rule (`SECOND_TARGET_HINT` says what to do)."""
    return f"a second target ({kind}): relax.build compiles for one target and its host"


def second_target(targets: Sequence[tuple[Mapping[str, Any], str | None]]) -> int | None:
    """The build plan's rule (TVM >= 0.25): relax.build compiles for one target, refined by BYOC
    `compiler` targets, and its host. Among canonical targets, each given with its `compiler` (None:
    none), the index of the first one without a compiler that differs, hosts aside, from the first
    such target (a composite counts as one target); None when there is none. A kind TVM >= 0.25
    lacks is left to its own rule (legacy-kind). The build plan refuses with it, and validation
    reports it for a config written for TVM >= 0.25."""
    first: dict[str, Any] | None = None
    for index, (target, compiler) in enumerate(targets):
        if compiler is not None or str(target["kind"]) not in registry.kinds():
            continue
        plain = detach_host(target)
        if first is None:
            first = plain
        elif plain != first:
            return index
    return None


@record(slots=True, frozen=True)
class HostConflict:
    """A target whose own host differs from the config's host or, without one, from the first own
    host: one build has one host. Positions are indices into the sequence given to `host_conflicts`."""

    target: int
    other: int | None  # the target whose own host it differs from; None: the config's host
    difference: str  # the first keys on which the two hosts differ

    def message(self, other_at: str = "") -> str:
        """The one message of the rule; `other_at` names the other target ("targets[0]")."""
        if self.other is None:
            return (
                f"this target's own host differs from the config's host ({self.difference}); "
                "remove one of them or make them equal"
            )
        return (
            f"this target's host differs from the host of {other_at} ({self.difference}); "
            "one build has one host: set it once, as 'host'"
        )


def host_conflicts(own_hosts: Sequence[Mapping[str, Any] | None], host: Mapping[str, Any] | None) -> list[HostConflict]:
    """Every target whose own host (canonical; None: it has none) is not the build's one host: the
    config's `host` when there is one, else the first own host. The one rule that resolution
    (which raises the first) and validation (which reports all) apply."""
    if host is not None:
        return [
            HostConflict(i, None, difference(own, host)) for i, own in enumerate(own_hosts) if own not in (None, host)
        ]
    hosted = [(i, own) for i, own in enumerate(own_hosts) if own is not None]
    if not hosted:
        return []
    first_i, first = hosted[0]
    return [HostConflict(i, first_i, difference(own, first)) for i, own in hosted[1:] if own != first]


def difference(a: Mapping[str, Any], b: Mapping[str, Any]) -> str:
    """`mtriple 'x86_64-linux-gnu' vs 'aarch64-linux-gnu'`: the first keys on which two targets differ."""
    keys = [k for k in dict.fromkeys([*a, *b]) if k != "keys" and a.get(k) != b.get(k)] or ["keys"]
    return ", ".join(f"{k} {a.get(k)!r} vs {b.get(k)!r}" for k in keys[:2])


def _check_compiler(
    value: Any, out: dict[str, Any], kind: registry.Kind, loc: Location | None, where: str, top: bool
) -> str:
    if not top:
        raise TargetError(f"{where}'compiler' is only allowed on a top-level target", loc)
    if not isinstance(value, str):
        raise T.type_error("compiler", "str", value, loc, where)
    compilers = registry.compilers()
    comp = compilers.get(value)
    if comp is None:
        raise TargetError(
            f"{where}Unknown compiler {value!r}",
            loc,
            suggestions=did_you_mean(value, list(compilers)),
            option=T.top_option(where, "compiler"),
        )
    if problem := compiler_mismatch(comp, out):
        raise TargetError(f"{where}{problem}", loc, option=T.top_option(where, "compiler"), rule=COMPILER_MISMATCH)
    return str(value)


COMPILER_MISMATCH = "compiler-mismatch"  # the rule id of a `compiler_mismatch`


def check_compiler(value: Any, target: Mapping[str, Any], source: Location | None = None) -> str:
    """The `compiler` of a top-level canonical target (given without it), checked as `canonicalize`
    checks it: a known BYOC codegen that can refine the target. TargetError otherwise."""
    return _check_compiler(value, dict(target), registry.all_kinds()[target["kind"]], source, "", True)


def compiler_mismatch(comp: registry.Compiler, target: Mapping[str, Any]) -> str | None:
    """Why a BYOC codegen cannot refine a canonical target (None: it can): the target's device type
    is not one the codegen offloads from. One rule for resolution and validation."""
    device = device_type(target)
    if device in comp.device_types:
        return None
    suits = sorted(name for name, kind in registry.kinds().items() if kind.device_type in comp.device_types)
    return (
        f"compiler {comp.name!r} cannot refine a {target['kind']!r} target (device type "
        f"{registry.DEVICE_NAMES.get(device, device)}); it refines {', '.join(suits) or 'no modern kind'}"
    )


def _canon_targets(opt: str, code: int, value: Any, loc: Location | None, machine: Machine, where: str) -> Any:
    if code == T.TARGET:
        return canon_value(value, loc, machine, f"{where}{opt}: ")
    if not isinstance(value, (list, tuple)):
        raise T.type_error(opt, "Array<target.Target>", value, loc, where)
    out = []
    for i, elem in enumerate(value):
        if not isinstance(elem, (str, Mapping)):
            # TVM 0.27 lets a None element through as a null Target; that cannot be built, so reject.
            raise TargetError(
                f"{where}Expected Target, string, or dict in '{opt}' array, got '{T.type_name(elem)}' (element [{i}])",
                loc,
            )
        out.append(canon_value(elem, loc, machine, f"{where}{opt}[{i}]: "))
    return out


def canon_value(value: Any, loc: Location | None, machine: Machine, where: str) -> Spec:
    """A nested target (host, composite device): a string or a dict."""
    if isinstance(value, str):
        return canon_str(value, loc, machine, where)
    if isinstance(value, Mapping):
        return canon_dict(value, loc, machine, where, top=False)
    raise TargetError(
        f"{where}Cannot create target with type: {T.type_name(value)}",
        loc,
        hint="a target is a tag or kind name, JSON text, or a dict",
    )


def canon_str(text: str, loc: Location | None, machine: Machine, where: str, top: bool = False) -> Spec:
    fill = machine is not NO_MACHINE
    cached = _STR_CACHE.get((text, fill))
    if cached is None:
        cached = _canon_str_uncached(text, loc, machine, where, top)
        if "compiler" in cached:  # depends on top/nested position: do not cache
            return cached
        if len(_STR_CACHE) >= _STR_CACHE_MAX:
            _STR_CACHE.clear()
        _STR_CACHE[(text, fill)] = cached
    return T.copy_json(cached)


def _canon_str_uncached(text: str, loc: Location | None, machine: Machine, where: str, top: bool) -> Spec:
    base = tag_configs().get(text)
    if base is not None:
        return canon_dict(base, loc, machine, where, top)
    if text.startswith("{"):
        return canon_dict(load_json_object(text, loc, where), loc, machine, where, top)
    return canon_dict(parse_legacy_strict(text, loc, where), loc, machine, where, top)


def _raise_first_error(
    kind: registry.Kind, spec: Mapping[str, Any], loc: Location | None, machine: Machine, where: str
) -> None:
    """Report the error TVM reports first: host, then options in declaration order, then unknowns."""
    host = spec.get("host")
    if host is not None:
        canon_value(host, loc, machine, where + "host: ")
    for opt in kind.order:
        if opt not in spec or opt in ("kind", "host"):
            continue
        code = kind.codes[opt]
        value = spec[opt]
        if code in (T.TARGET, T.TARGET_ARRAY):
            _canon_targets(opt, code, value, loc, machine, where)
            continue
        check = {T.KEYS: T.STR_ARRAY, T.TAG: T.STR, T.FROM_DEVICE: T.INT}.get(code, code)
        if T.convert_scalar(check, value) is T.BAD:
            raise T.type_error(opt, kind.options[opt], value, loc, where)
    unknown = [
        opt
        for opt in spec
        if not (opt in kind.codes or opt == "compiler" or (opt.startswith("feature.") and len(opt) > 8))
    ]
    if unknown:
        raise unknown_options(kind, unknown, loc, where)
    raise TargetError(f"{where}invalid target {spec!r}", loc)  # unreachable: a check above failed


# ---------------------------------------------------------------------------------------------
# Public API


def canonicalize(
    spec: Spec | str, *, source: str | Location | None = None, fill_from_machine: bool = False
) -> dict[str, Any]:
    """The canonical form of a target: TVM 0.27's `Target(spec).export()` as plain JSON.

    `spec` is a dict (`{"kind": ...}` or `{"tag": ..., <overrides>}`), a tag name, JSON object
    text, or a legacy string (whose legacy-only options must not need lifting; use
    `parse_target` for those). The result has `kind`, `tag`, `keys`, `host` (nested, if any),
    every option incl. defaults, and the `feature.*` entries TVM computes deterministically.

    Values TVM fills in from the machine it runs on are left out unless given: llvm `mtriple`
    (when neither `mtriple` nor `mcpu` is given), cuda `arch`, nvptx `mcpu`, rocm `mcpu`, and
    the LLVM-computed Arm A-profile `feature.*` (user values for those are dropped, since TVM
    overwrites them). With `fill_from_machine=True` they are filled in by asking the installed
    TVM, so the result equals TVM's export on this machine; without TVM that is a TargetError.

    `from_device` is validated and dropped, as TVM does. For N >= 0 TVM also queries device N's
    attributes when its runtime is compiled in; that only happens with `fill_from_machine=True`
    (otherwise the result is what TVM gives on a machine without that device runtime).

    A `compiler` key (a Collage BYOC specialisation, e.g. `{"kind": "cuda", "compiler":
    "tensorrt"}`) is kept; it must name a compiler whose device types include the target's.
    Legacy kinds (`stackvm`, `cmsis-nn`, ...) canonicalize with their legacy options, defaults
    and keys; see `is_legacy` and `check_modern`.
    """
    loc = as_location(source)
    machine = _machine(fill_from_machine)
    if isinstance(spec, str):
        return canon_str(spec, loc, machine, "", top=True)
    if isinstance(spec, Mapping):
        return canon_dict(spec, loc, machine, "", top=True)
    raise TargetError(f"Cannot create target with type: {T.type_name(spec)}", loc)


def _machine(fill: bool) -> Machine:
    if not fill:
        return NO_MACHINE
    return tvm_machine()
