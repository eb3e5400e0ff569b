"""Flags and environment variables → rewrites; the `--target-<kind>-<attr>`, `--executor-<n>-<opt>`
and `--runtime-<n>-<opt>` flags generated from the registry."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from tvmc import registry
from tvmc import targets as tg
from tvmc.errors import UsageError, did_you_mean
from tvmc.keys import LEGACY_DEFAULT_KIND, pass_config_identity
from tvmc.provenance import Origin, printable
from tvmc.records import record
from tvmc.rewrites.grammar import MAX_REWRITES, Key, Rewrite, Select, parse_set, parse_unset
from tvmc.sources.limits import MAX_STRING
from tvmc.text import has_surrogate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def flag_name(*parts: str) -> str:
    """One separator style for every generated flag: `--target-cuda-max-num-threads`."""
    return "--" + "-".join(p.replace("_", "-") for p in parts)


@record(slots=True, frozen=True)
class FlagSpec:
    """A generated flag: which rewrite it makes, and its help."""

    name: str
    section: str  # "target" | "executor" | "runtime"
    owner: str  # kind / executor / runtime name
    option: str
    type: str
    help: str
    aliases: tuple[str, ...] = ()


@cache
def generated_flags() -> dict[str, FlagSpec]:
    """Every `--target-<kind>-<attr>`, `--executor-<name>-<opt>`, `--runtime-<name>-<opt>` flag."""
    flags: dict[str, FlagSpec] = {}
    for kind_name, kind in registry.all_kinds().items():  # sorted by name
        suffix = f" (legacy TVM <= {kind.last_version})" if kind.legacy else ""
        for option, type_ in kind.options.items():
            if option in ("kind", "host"):
                continue
            name = flag_name("target", kind_name, option)
            verbatim = f"--target-{kind_name}-{option}"
            flags[name] = FlagSpec(
                name,
                "target",
                kind_name,
                option,
                type_,
                f"{option} of the {kind_name} target ({type_}){suffix}",
                (verbatim,) if verbatim != name else (),
            )
    for section, comps in (("executor", registry.executors()), ("runtime", registry.runtimes())):
        for comp_name, comp in comps.items():
            for option, spec in comp.options.items():
                name = flag_name(section, comp_name, option)
                flags[name] = FlagSpec(
                    name,
                    section,
                    comp_name,
                    option,
                    spec.type,
                    f"{spec.description} ({spec.type}, default {spec.default!r})",
                )
    return flags


@cache
def _flag_lookup() -> dict[str, FlagSpec]:
    lookup = {}
    for spec in generated_flags().values():
        lookup[spec.name] = spec
        for alias in spec.aliases:
            lookup[alias] = spec
    return lookup


def _targets_rewrites(value: str, origin: Origin, first: bool) -> list[Rewrite]:
    parsed = tg.parse_targets(value, source=origin.location())
    out = [
        Rewrite("set" if first else "append", (Key("targets"),), origin, value=list(parsed.targets), notes=parsed.notes)
    ]
    if parsed.host is not None:
        out.append(Rewrite("set", (Key("host"),), origin, value=parsed.host))
    for section, settings in parsed.lifted.items():
        # A flag is later than the config, so its options set; only the kind is a default.
        out.append(Rewrite("default", (Key(section), Key("kind")), origin, value=LEGACY_DEFAULT_KIND[section]))
        # The kind first: a kind change replaces the table, so a kind after an option in the
        # string (`llvm -system-lib -runtime=c`) would drop that option (the options are unordered).
        for option, setting in sorted(settings.items(), key=lambda item: item[0] != "kind"):
            out.append(Rewrite("set", (Key(section), Key(option)), origin, value=setting))
    return out


def flag_text(flag: str, value: str) -> str:
    """A flag as messages and `--origin` show it, on one line: the value is quoted when it holds
    line breaks or other unprintable characters."""
    return f"{flag}={printable(value)}" if flag.startswith("--") else f"{flag} {printable(value)}"


LOWER_PASSES = "tir.add_lower_pass"  # PassContext's (level, pass) list, `tirx.add_lower_pass` in TVM >= 0.25


def is_lower_passes(name: str) -> bool:
    return pass_config_identity(name) == pass_config_identity(LOWER_PASSES)


def lower_pass_pairs(text: str, source: str) -> list[list[Any]]:
    """`LEVEL,PASS[,LEVEL,PASS...]` as old tvmc's pass_config.py (v0.18/v0.19) read it: pairs of an
    integer level and a pass (a global function or a dotted Python path). The one reading of this
    form, for `--pass-config` and `config migrate`."""
    items = text.split(",")
    if len(items) % 2:
        raise UsageError(f"the value must be of the form '{LOWER_PASSES}=opt_level1,pass1,opt_level2,pass2'", source)
    pairs: list[list[Any]] = []
    for level, name in zip(items[::2], items[1::2], strict=True):
        try:
            pairs.append([int(level.strip()), name.strip()])
        except ValueError:
            raise UsageError(f"the level {level.strip()!r} is not an integer", source) from None
    return pairs


def flag_rewrites(
    flag: str, value: str, *, origin: Origin, first_target: bool = True, first_lower_passes: bool = True
) -> list[Rewrite]:
    """The rewrites one command-line flag (or its environment variable) stands for."""
    if has_surrogate(value):
        # Python's stand-in for argv/environment bytes that are not UTF-8; files refuse them too.
        raise UsageError("the value is not valid UTF-8 text", origin.where())
    # The limit strings in config files have, on the value: for `--set PATH=VALUE` and
    # `--pass-config NAME=VALUE` the part after `=` (the path has its own limit).
    measured = value.split("=", 1)[-1] if flag in ("--set", "--pass-config") else value
    if len(measured) > MAX_STRING:
        raise UsageError(
            f"the value of {len(measured)} characters is longer than {MAX_STRING}",
            origin.location() if origin.kind == "env" else flag,
        )  # not the whole value
    if flag == "--target":
        return _targets_rewrites(value, origin, first_target)
    if flag == "--target-host":
        return [Rewrite("set", (Key("host"),), origin, value=tg.parse_target(value, source=origin.location()).spec)]
    if flag in ("--executor", "--runtime"):
        # A name is well typed: an unknown one is the rule engine's `unknown-executor` (exit 1),
        # as the same name in a file or `--set executor.kind=…`.
        return [Rewrite("set", (Key(flag[2:]), Key("kind")), origin, value=value)]
    if flag == "--pass-config":
        name, eq, text = value.partition("=")
        if not eq or not name.strip():
            raise UsageError(f"expected NAME=VALUE, got {value!r}", origin.where())
        path = (Key("pass-config"), Key(name.strip()))
        if is_lower_passes(name.strip()) and not text.strip().startswith("["):
            # Old tvmc's form, LEVEL,PASS[,LEVEL,PASS...]; a repeated flag adds its pairs.
            pairs = lower_pass_pairs(text, origin.where())
            return [Rewrite("set" if first_lower_passes else "append", path, origin, value=pairs)]
        return [Rewrite("set", path, origin, text=text.strip())]
    if flag in ("-O", "--opt-level"):
        return [Rewrite("set", (Key("opt-level"),), origin, text=value)]
    if flag == "--set":
        return [parse_set(value, origin.where(), origin)]
    if flag == "--unset":
        return [parse_unset(value, origin.where(), origin)]
    spec = _flag_lookup().get(flag)
    if spec is None:
        raise UsageError(
            f"unknown flag {flag}",
            origin.where(),
            suggestions=did_you_mean(flag, list(_flag_lookup()) + list(REWRITE_FLAGS)),
        )
    if spec.section == "target":
        # Every target of the kind and the host (old tvmc's host was a target of its list).
        return [Rewrite("set", (Select("kind", spec.owner), Key(spec.option)), origin, text=value)]
    return [
        Rewrite(
            "set",
            (Key(spec.section), Select("kind", spec.owner), Key(spec.option)),
            origin,
            text=value,
            hint=f"pass --{spec.section} {spec.owner} before it",
        )
    ]


REWRITE_FLAGS = (
    "--target",
    "--target-host",
    "--executor",
    "--runtime",
    "--pass-config",
    "-O",
    "--opt-level",
    "--set",
    "--unset",
)


def argv_rewrites(pairs: Iterable[tuple[str, str]]) -> list[Rewrite]:
    """Rewrites from (flag, value) pairs in command-line order."""
    out: list[Rewrite] = []
    seen_target = seen_lower_passes = False
    for flag, value in pairs:
        text = flag_text(flag, value)
        origin = Origin("flag", text)
        out += flag_rewrites(
            flag, value, origin=origin, first_target=not seen_target, first_lower_passes=not seen_lower_passes
        )
        seen_target = seen_target or flag == "--target"
        if flag == "--pass-config" and is_lower_passes(value.partition("=")[0].strip()):
            seen_lower_passes = True
        if len(out) > MAX_REWRITES:
            raise UsageError(f"more than {MAX_REWRITES} rewrites", text)
    return out
