"""TVM 0.27's per-kind target canonicalizers, in Python (TVM 0.27 src/target/target_kind.cc and
src/target/canonicalizer/).

Each hook gets the resolved attrs (a private dict it may change), the user's `keys` entry (None
if absent), the dict of `feature.*` entries and the machine to ask for detected values; it
returns the new `keys` entry. Values only the machine knows are left out when it knows nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from tvmc.errors import Location, TargetError
from tvmc.targets.machine import APROFILE_FEATURES, Machine
from tvmc.targets.tables import top_option
from tvmc.values import INT64_MAX, INT64_MIN, IntTooLong, parse_int

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    # (kind, attrs, keys entry, features, machine, location, message prefix) → keys entry
    Hook = Callable[
        [str, dict[str, Any], list[str] | None, dict[str, Any], Machine, Location | None, str], list[str] | None
    ]

_MPROFILE_BASE = ("cortex-m0", "cortex-m3")
_MPROFILE_DSP = ("cortex-m55", "cortex-m4", "cortex-m7", "cortex-m33", "cortex-m35p", "cortex-m85")
_MPROFILE_MVE = ("cortex-m55", "cortex-m85")
_ARM_KEYS = ("arm_cpu", "cpu")


def _merge_arm_keys(keys: list[str] | None) -> list[str]:
    if keys is None:
        return list(_ARM_KEYS)
    return keys + [k for k in _ARM_KEYS if k not in keys]


def _has_flag(mcpu: str | None, mattr: list[str] | None, flag: str) -> bool:
    # TVM tests substrings, so "+nodsp" inside a longer mattr entry counts too.
    return (mcpu is not None and flag in mcpu) or (mattr is not None and any(flag in a for a in mattr))


def is_mprofile(mcpu: str | None) -> bool:
    return mcpu is not None and mcpu.startswith(_MPROFILE_BASE + _MPROFILE_DSP)


def is_aprofile(mtriple: str | None, mcpu: str | None) -> bool:
    if mtriple is None:
        return False
    if mtriple.startswith("aarch64"):
        return True
    return mtriple.startswith("arm") and not (mcpu is not None and mcpu.startswith("cortex-m"))


def cpu_profile(kind: str, mtriple: str | None, mcpu: str | None) -> Literal["M", "A"] | None:
    """The Arm profile whose features `llvm` sets for this target ("M": has_dsp/has_mve, "A": the
    APROFILE_FEATURES), or None. The one place that decides it, for the canonicalizer, the printer and
    `env_dependent_keys`: M-profile is tested first, on mcpu alone, as TVM's CPU parser does, so an
    M-profile mcpu with an aarch64 triple is M-profile."""
    if HOOKS.get(kind) is not llvm:
        return None
    if is_mprofile(mcpu):
        return "M"
    if kind == "llvm" and is_aprofile(mtriple, mcpu):
        return "A"
    return None


def llvm(
    kind: str,
    attrs: dict[str, Any],
    keys: list[str] | None,
    feats: dict[str, Any],
    machine: Machine,
    loc: Location | None,
    where: str,
) -> list[str] | None:
    """llvm::Canonicalize (kinds llvm and c; legacy cmsis-nn had the same CPU parser)."""
    mtriple = attrs.get("mtriple")
    mcpu = attrs.get("mcpu")
    if kind == "llvm" and mtriple is None and mcpu is None:
        mtriple = machine.llvm_triple()
        if mtriple is not None:
            attrs["mtriple"] = mtriple
    profile = cpu_profile(kind, mtriple, mcpu)
    if profile == "M" and mcpu is not None:  # "M" implies an mcpu: narrowed for mypy
        mattr = attrs.get("mattr")
        nodsp = _has_flag(mcpu, mattr, "+nodsp")
        nomve = _has_flag(mcpu, mattr, "+nomve")
        mve = mcpu.startswith(_MPROFILE_MVE) and not nomve and not nodsp
        dsp = mve or (mcpu.startswith(_MPROFILE_DSP) and not nodsp)
        feats["feature.has_dsp"] = dsp
        feats["feature.has_mve"] = mve
        return _merge_arm_keys(keys)
    if profile == "A":
        _check_llvm_options(attrs, loc, where)
        computed = machine.aprofile_features(attrs)
        for name in APROFILE_FEATURES:
            # TVM overwrites user values with LLVM's; without LLVM we cannot know them.
            feats.pop(name, None)
        if computed:
            feats.update(computed)
        return _merge_arm_keys(keys)
    return keys


def _check_llvm_options(attrs: dict[str, Any], loc: Location | None, where: str) -> None:
    """The checks of LLVMTargetInfo's constructor, which TVM runs for Arm A-profile targets only
    (to compute their features); for other llvm targets they happen at build time."""
    bad = [(opt, why) for opt in attrs.get("cl-opt", ()) if (why := cl_opt_problem(opt)) is not None]
    if bad:
        detail = "; ".join(f"while parsing option {opt!r}: {why}" for opt, why in bad)
        raise TargetError(
            f"{where}there were errors parsing command-line options ({detail})",
            loc,
            option=top_option(where, "cl-opt"),
            hint="each cl-opt entry is -name[:bool|int|uint|string][=value]",
        )
    abi = attrs.get("mfloat-abi")
    if abi is not None and abi not in ("hard", "soft"):
        raise TargetError(
            f"{where}invalid -mfloat-abi option {abi}",
            loc,
            hint="use 'hard' or 'soft'",
            option=top_option(where, "mfloat-abi"),
        )
    jit = attrs.get("jit")
    if jit is not None and jit not in ("mcjit", "orcjit"):
        raise TargetError(
            f"{where}invalid jit option {jit} (can be `orcjit` or `mcjit`).", loc, option=top_option(where, "jit")
        )
    width = attrs.get("vector-width")
    if width is not None and not 0 < width <= 65536:
        raise TargetError(
            f"{where}Invalid -vector-width value: {width}",
            loc,
            hint="use 1..65536",
            option=top_option(where, "vector-width"),
        )


@cache
def _stoll_re() -> re.Pattern[str]:  # compiled on first use: only a string given for an int option needs it
    return re.compile(r"[ \t\n\v\f\r]*[+-]?[0-9]+")


def _stoll(text: str) -> int | None:
    """`std::stoll` that must consume the whole text."""
    if _stoll_re().fullmatch(text) is None:
        return None
    try:
        value = parse_int(text)
    except IntTooLong:
        return None
    return value if INT64_MIN <= value <= INT64_MAX else None


def cl_opt_problem(text: str) -> str | None:
    """What LLVMTargetInfo::ParseOptionString rejects in a cl-opt entry (None: accepted).

    Ported with its tokenizer, including that `-name:type` without `=value` is rejected.
    """
    n = len(text)
    parts: list[str] = []
    pos = n - len(text.lstrip("-"))
    if pos > 0:
        parts.append(text[:pos])
    end = min((i for i in (text.find(":", pos), text.find("=", pos)) if i >= 0), default=n)
    parts.append(text[pos:end])
    pos = end
    c = text[pos] if pos < n else ""
    if c:
        parts.append(c)
        pos += 1
    if c == ":":
        eq = text.find("=", pos)
        eq = n if eq < 0 else eq
        if eq > pos:
            parts.append(text[pos:eq])
        if eq < n:
            parts.append("=")
            pos = eq + 1
    if pos < n:
        parts.append(text[pos:])
    i, m = 0, len(parts)
    if i < m:
        p = parts[i]
        i += 1
        if len(p) not in (1, 2) or p.strip("-"):
            return 'option must start with "-" or "--"'
    if i < m:
        i += 1
        if not parts[i - 1]:
            return "option name must not be empty"
    typ = None
    if i < m and parts[i] == ":":
        i += 1
        if i < m and parts[i] != "=":
            typ = parts[i] if parts[i] in ("bool", "int", "uint", "string") else None
            i += 1
        if typ is None:
            return "invalid type"
    value = None
    if i < m:
        if parts[i] != "=":
            return 'expecting "="'
        value = parts[i + 1] if i + 1 < m else ""
    if value is None:
        return None if typ in (None, "bool") else "must have a value"
    if typ in ("int", "uint"):
        return None if _stoll(value) is not None else f'invalid integer value "{value}"'
    if typ == "string":
        return None
    number = _stoll(value)
    if number in (0, 1) or value.lower() in ("true", "false"):
        return None
    return f'invalid boolean value "{value}"'


def _sm_check(what: str, opt: str, value: str, loc: Location | None, where: str) -> None:
    if not value.startswith("sm_"):
        raise TargetError(
            f"{where}{what} target gets an invalid CUDA arch: -{opt}={value}",
            loc,
            hint=f"'{opt}' must start with 'sm_', e.g. 'sm_80'",
            option=top_option(where, opt),
        )


def _force(kind: str, attrs: dict[str, Any], opt: str, value: str, loc: Location | None, where: str) -> None:
    given = attrs.get(opt)
    if given is None:
        attrs[opt] = value
    elif given != value:
        raise TargetError(
            f'{where}Expects "{opt}" to be "{value}", but gets: "{given}"',
            loc,
            hint=f"{kind} always uses {opt} {value!r}; leave it out",
            option=top_option(where, opt),
        )


def cuda(
    kind: str,
    attrs: dict[str, Any],
    keys: list[str] | None,
    feats: dict[str, Any],
    machine: Machine,
    loc: Location | None,
    where: str,
) -> list[str] | None:
    arch = attrs.get("arch")
    if arch is not None:
        _sm_check("CUDA", "arch", arch, loc, where)
    else:
        detected = machine.cuda_arch()
        if detected is not None:
            attrs["arch"] = detected
    return keys


def nvptx(
    kind: str,
    attrs: dict[str, Any],
    keys: list[str] | None,
    feats: dict[str, Any],
    machine: Machine,
    loc: Location | None,
    where: str,
) -> list[str] | None:
    _force(kind, attrs, "mtriple", "nvptx64-nvidia-cuda", loc, where)
    mcpu = attrs.get("mcpu")
    if mcpu is not None:
        _sm_check("NVPTX", "mcpu", mcpu, loc, where)
    else:
        detected = machine.nvptx_mcpu()
        if detected is not None:
            attrs["mcpu"] = detected
    return keys


def rocm(
    kind: str,
    attrs: dict[str, Any],
    keys: list[str] | None,
    feats: dict[str, Any],
    machine: Machine,
    loc: Location | None,
    where: str,
) -> list[str] | None:
    _force(kind, attrs, "mtriple", "amdgcn-amd-amdhsa-hcc", loc, where)
    mcpu = attrs.get("mcpu")
    if mcpu is not None:
        # ExtractStringWithPrefix: "gfx" followed by at least one ASCII letter or digit.
        if not (mcpu.startswith("gfx") and len(mcpu) > 3 and mcpu[3].isascii() and mcpu[3].isalnum()):
            raise TargetError(
                f"{where}ROCm target gets an invalid GFX version: -mcpu={mcpu}",
                loc,
                hint="'mcpu' must look like 'gfx908' or 'gfx90a'",
                option=top_option(where, "mcpu"),
            )
    else:
        detected = machine.rocm_mcpu()
        if detected is not None:
            attrs["mcpu"] = detected
    extra = machine.rocm_extra_mattr()
    if extra:
        attrs["mattr"] = list(attrs.get("mattr", ())) + list(extra)
    return keys


def webgpu(
    kind: str,
    attrs: dict[str, Any],
    keys: list[str] | None,
    feats: dict[str, Any],
    machine: Machine,
    loc: Location | None,
    where: str,
) -> list[str] | None:
    subgroups = bool(attrs.get("supports_subgroups", False))
    warp = attrs.get("thread_warp_size")
    if warp is not None and not subgroups and warp > 1:
        raise TargetError(
            f"{where}WebGPU target with thread_warp_size={warp} requires supports_subgroups=true",
            loc,
            option=top_option(where, "thread_warp_size"),
        )
    if subgroups:
        attrs["thread_warp_size"] = 32
    return keys


def test(
    kind: str,
    attrs: dict[str, Any],
    keys: list[str] | None,
    feats: dict[str, Any],
    machine: Machine,
    loc: Location | None,
    where: str,
) -> list[str] | None:
    feats["feature.is_test"] = True
    return keys


HOOKS: dict[str, Hook] = {
    "llvm": llvm,
    "c": llvm,
    "cmsis-nn": llvm,
    "cuda": cuda,
    "nvptx": nvptx,
    "rocm": rocm,
    "webgpu": webgpu,
    "test": test,
}
