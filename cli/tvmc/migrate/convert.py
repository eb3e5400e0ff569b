"""Old tvmc settings → a tvmc config tree, through tvmc's own rewrites.

Old tvmc applied its flags as argparse values: order did not matter, a command-line value
replaced the config file's default for the same flag, and `--pass-config` entries accumulated.
Here the effective settings are computed the same way and then applied as tvmc rewrites in a
fixed order (targets before their options, an executor before its options), so that every flag
tvmc shares with old tvmc means exactly what `tvmc config show` would make of it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from tvmc import registry, rewrites
from tvmc import targets as tg
from tvmc.errors import TvmcError, UsageError, did_you_mean, suggestion_text
from tvmc.keys import BUILD_OPTIONS
from tvmc.layering import Tree
from tvmc.migrate.old_tvmc import Dropped, Reading, Setting, flag_text, old_flags
from tvmc.records import record
from tvmc.rewrites import Key, Rewrite
from tvmc.values import ValueTypeError, coerce_text

OLD_DEFAULTS = {"executor": "graph", "runtime": "cpp"}  # old tvmc's argparse defaults
ADD_LOWER_PASS = "tir.add_lower_pass"
_PHASES = {"--target": 0, "--target-host": 1, "--executor": 3, "--runtime": 5, "--pass-config": 7, "--opt-level": 8}
_SECTION_PHASE = {"target": 2, "executor": 4, "runtime": 6}


@record
class Converted:
    tree: Tree
    dropped: list[Dropped]
    notes: list[str]


def effective(readings: Sequence[Reading]) -> tuple[list[Setting], list[str]]:
    """The settings old tvmc would have used: per flag, the command line over the config file;
    `--pass-config` entries accumulate, the last per name winning."""
    chosen: dict[str, Setting] = {}
    notes: list[str] = []
    for index, setting in enumerate(s for r in readings for s in r.settings):
        key = setting.flag
        if key == "--pass-config":
            name = str(setting.value).partition("=")[0].strip()
            # pass_config.py (v0.18/v0.19): an Array config's values are concatenated, not replaced.
            key += ":" + name + (f"#{index}" if name == ADD_LOWER_PASS else "")
        earlier = chosen.pop(key, None)
        if earlier is not None and earlier.value != setting.value:
            where = f" ({earlier.where})" if earlier.where else ""
            notes.append(f"{earlier.shown}{where} is overridden by {setting.shown}, as in old tvmc")
        chosen[key] = setting
    ordered = sorted(chosen.values(), key=_phase)  # stable: input order within a phase
    return ordered, notes


def _phase(setting: Setting) -> int:
    if setting.flag in _PHASES:
        return _PHASES[setting.flag]
    spec = rewrites.generated_flags().get(setting.flag)
    return _SECTION_PHASE[spec.section] if spec is not None else 9


def convert(readings: Sequence[Reading]) -> Converted:
    """Apply the effective settings of `readings` (config files first) to an empty tree."""
    settings, notes = effective(readings)
    out = Converted(
        Tree({}, {}), [d for r in readings for d in r.dropped], [*(n for r in readings for n in r.notes), *notes]
    )
    try:
        for setting in settings:
            _apply(out, setting)
    except UsageError as err:  # a bad value in the old input is invalid input, not a usage error
        raise TvmcError(
            err.message, err.location, suggestions=err.suggestions, hint=err.hint, rule=err.rule, pointer=err.pointer
        ) from None
    data = out.tree.data
    for entry in [*(data.get("targets") or []), data.get("host")]:
        if isinstance(entry, dict) and "from_device" in entry:  # written inline: -from_device=N
            out.dropped.append(Dropped(f"{entry.get('kind')} -from_device={entry.pop('from_device')}", FROM_DEVICE))
    if "targets" not in data:
        data["targets"] = ["llvm"]
        out.notes.append("no target given: old tvmc's default config (host/default.json) supplied llvm")
    for section, name in OLD_DEFAULTS.items():
        table = data.get(section)
        if isinstance(table, dict) and "kind" not in table:
            table["kind"] = name  # options without a kind: old tvmc's default kind
            out.notes.append(
                f"{section} options without a {section}: old tvmc's default {section} {name!r} is written out"
            )
    return out


def _apply(out: Converted, setting: Setting) -> None:
    flag = old_flags().get(setting.flag)
    if flag is None or flag.action == "drop":
        reason = flag.reason if flag is not None else "not an option of old tvmc compile"
        out.dropped.append(Dropped(setting.shown, reason, setting.where))
        return
    if flag.action == "disabled-pass":
        value = setting.value
        passes = value if isinstance(value, list) else [p.strip() for p in str(value).split(",") if p.strip()]
        _check_relay_passes(out, setting, [str(p) for p in passes])
        if passes:
            rewrites.apply(out.tree, Rewrite("set", (Key("disabled-pass"),), setting.origin, value=passes))
        return
    if flag.action.startswith("build:"):
        _apply_build(out, setting, flag.action[len("build:") :])
        return
    spec = rewrites.generated_flags().get(setting.flag)
    text = flag_text(setting.value)
    if setting.flag == "--pass-config":
        _check_pass_config(setting, text)
    if setting.flag == "--pass-config" and text.partition("=")[0].strip() == ADD_LOWER_PASS:
        _add_lower_pass(out, setting, text.partition("=")[2])
        return
    if setting.flag == "--target":
        rewrites.apply_all(out.tree, _target_rewrites(out, setting, text))
    elif spec is not None and spec.section == "target":
        _apply_target_option(out, setting, spec, text)
    elif spec is not None:
        table = out.tree.data.get(spec.section)
        kind = table.get("kind") if isinstance(table, dict) else None
        if kind is None and spec.owner == OLD_DEFAULTS[spec.section]:
            out.notes.append(
                f"{setting.shown}: old tvmc's default {spec.section} was {spec.owner!r}; it is written out"
            )
            rewrites.apply(out.tree, Rewrite("set", (Key(spec.section), Key("kind")), setting.origin, value=spec.owner))
        elif kind != spec.owner:
            actual = kind or OLD_DEFAULTS[spec.section]
            out.dropped.append(
                Dropped(
                    setting.shown,
                    f"the {spec.section} is {actual!r}, not {spec.owner!r} (old tvmc refused this combination)",
                    setting.where,
                )
            )
            return
        if spec.type == "bool" and isinstance(setting.value, str):  # argparse converts string defaults too
            text = _boxed_bool(out, setting)
        rewrites.apply_all(out.tree, rewrites.flag_rewrites(setting.flag, text, origin=setting.origin))
    else:
        rewrites.apply_all(out.tree, rewrites.flag_rewrites(setting.flag, text, origin=setting.origin))


def _check_pass_config(setting: Setting, text: str) -> None:
    """pass_config.py `parse_configs` (v0.18/v0.19): NAME=VALUE, a config TVM defines, of a type it
    could set (bool, int, str; of the arrays only tir.add_lower_pass)."""
    name, eq, _ = text.partition("=")
    name = name.strip()
    if not eq or text.count("=") > 1:
        raise TvmcError(
            f"old tvmc refused this: Invalid format for configuration '{text}', use <config>=<value>",
            setting.origin.location(),
            rule="old-tvmc-refused",
        )
    versions = registry.generation_versions()
    types = {registry.generation(v).pass_configs.get(name) for v in versions} - {None}
    if not types:
        raise TvmcError(
            f"old tvmc refused this: Configuration '{name}' is not defined in TVM {' or '.join(versions)}",
            setting.origin.location(),
            suggestions=did_you_mean(name, sorted(registry.generation(versions[-1]).pass_configs)),
            rule="old-tvmc-refused",
        )
    if name != ADD_LOWER_PASS and not types & {"bool", "int", "str"}:
        raise TvmcError(
            f"old tvmc refused this: Configuration '{name}' uses a data type not supported by TVMC",
            setting.origin.location(),
            rule="old-tvmc-refused",
        )


def _check_relay_passes(out: Converted, setting: Setting, passes: list[str]) -> None:
    """pass_list.py (v0.18/v0.19) refused a --disabled-pass name Relay did not register."""
    versions = registry.generation_versions()
    known = registry.generation(versions[-1]).relay_passes
    unknown = [p for p in passes if not any(p in registry.generation(v).relay_passes for v in versions)]
    if not unknown:
        return
    names = ", ".join(map(repr, unknown))
    close = [m for p in unknown for m in did_you_mean(p, sorted(known))]
    out.notes.append(
        f"{setting.shown}: {names} {'is' if len(unknown) == 1 else 'are'} not a Relay pass, so old tvmc refused "
        f"this line (carried as written){suggestion_text(close)}; "
        f"the Relay passes of TVM {versions[-1]}: {', '.join(sorted(known))}"
    )


def _add_lower_pass(out: Converted, setting: Setting, text: str) -> None:
    """`tir.add_lower_pass=LEVEL,PASS[,LEVEL,PASS...]` (`rewrites.lower_pass_pairs`, the reading
    `--pass-config` uses too), appended to the pairs of earlier flags, as old tvmc did."""
    try:
        pairs = rewrites.lower_pass_pairs(text, setting.shown)
    except UsageError as err:
        raise TvmcError(
            f"old tvmc refused this: {err.message}", setting.origin.location(), rule="old-tvmc-refused"
        ) from None
    table = out.tree.data.get("pass-config")
    earlier = table.get(ADD_LOWER_PASS, []) if isinstance(table, dict) else []
    where = (Key("pass-config"), Key(ADD_LOWER_PASS))
    rewrites.apply(out.tree, Rewrite("set", where, setting.origin, value=[*earlier, *pairs]))


def _boxed_bool(out: Converted, setting: Setting) -> str:
    """What old tvmc made of a bool executor/runtime flag: python/tvm/driver/tvmc/registry.py
    (v0.18.0, v0.19.0) types runtime.BoxBool options as argparse `type=bool`, so any non-empty
    text — `0` and `false` included — was true."""
    value = bool(setting.value)
    try:
        meant = coerce_text(setting.value, "bool")
    except ValueTypeError:
        meant = value
    if value and meant is False:
        out.notes.append(
            f"{setting.shown}: the tvmc of TVM 0.18/0.19 read this as true (argparse type=bool) and built "
            "with true; written as true"
        )
    return "true" if value else "false"


def _target_rewrites(out: Converted, setting: Setting, text: str) -> list[Rewrite]:
    value = text.strip()
    if registry.is_tag(value):  # kept as the tag's name rather than its expansion
        note = _tag_changed(value)
        if note:
            out.notes.append(f"{setting.shown}: {note}")
        return [Rewrite("set", (Key("targets"),), setting.origin, value=[value])]
    if not setting.from_file and registry.kind(value.split(" ")[0]) is None and os.path.isfile(value):
        # Old tvmc read a --target naming a file as a JSON target (a kind name is never a file here).
        with open(value, encoding="utf-8") as handle:
            value = handle.read().strip()
        out.notes.append(f"{setting.shown}: the target was read from the file {text.strip()!r}")
    made = rewrites.flag_rewrites("--target", value, origin=setting.origin, first_target=True)
    out.notes.extend(note for rw in made for note in rw.notes)  # the parse's notes, carried by the rewrites
    return made


FROM_DEVICE = (
    "from_device asks TVM to query a live device at build time and is never stored in a target, "
    "so a config cannot carry it"
)


def _shown(value: Any) -> str:
    return "unset" if value is None else repr(value)


def _tag_changed(name: str) -> str | None:
    """How TVM changed a tag since the last old release that had it (src/target/tag.cc), if it did."""
    versions = [v for v in registry.generation_versions() if name in registry.generation(v).tags]
    if not versions:
        return None
    then = tg.canonicalize(dict(registry.generation(versions[-1]).tags[name]))
    now = tg.canonicalize(name)
    changed = []
    for key in sorted(set(then) | set(now)):
        old, new = then.get(key), now.get(key)
        if key != "tag" and isinstance(old, dict) and isinstance(new, dict):
            changed += [
                f"{key}.{k}: {_shown(old.get(k))} → {_shown(new.get(k))}"
                for k in sorted(set(old) | set(new))
                if k != "tag" and old.get(k) != new.get(k)
            ]
        elif key != "tag" and old != new:
            changed.append(f"{key}: {_shown(old)} → {_shown(new)}")
    if not changed:
        return None
    return (
        f"TVM {versions[-1]} registered this tag differently ({'; '.join(changed)}); the config names the tag, "
        "so it means TVM >= 0.25's values"
    )


def _apply_target_option(out: Converted, setting: Setting, spec: rewrites.FlagSpec, text: str) -> None:
    if spec.option == "from_device":
        out.dropped.append(Dropped(setting.shown, FROM_DEVICE, setting.where))
        return
    data = out.tree.data
    kinds = [tg.kind_of(t) for t in data.get("targets") or []]
    if spec.owner in kinds:
        rewrites.apply_all(out.tree, rewrites.flag_rewrites(setting.flag, text, origin=setting.origin))
    elif "host" in data and tg.kind_of(data["host"]) == spec.owner:
        # Old tvmc applied --target-<kind>-<attr> to the host entry of a target list too.
        rewrites.apply(out.tree, Rewrite("set", (Key("host"), Key(spec.option)), setting.origin, text=text))
    else:
        refused = f"'Passed --target-{spec.owner}-{spec.option} but did not specify {spec.owner} target'"
        out.dropped.append(
            Dropped(setting.shown, f"there is no {spec.owner} target (old tvmc refused this: {refused})", setting.where)
        )


def _apply_build(out: Converted, setting: Setting, key: str) -> None:
    spec = BUILD_OPTIONS[key]
    raw = setting.value
    value: Any
    try:
        if key == "cross-compiler-options":  # old tvmc split this on spaces
            value = [str(v) for v in raw] if isinstance(raw, list) else str(raw).split()
        elif key == "dump-code":
            value = []
            for item in raw if isinstance(raw, list) else str(raw).split(","):
                item = str(item).strip()
                if item in spec.enum:
                    value.append(item)
                elif item:
                    reason = (
                        "Relay no longer exists; 'relax' dumps the Relax IR"
                        if item == "relay"
                        else f"not one of {', '.join(spec.enum)}"
                    )
                    out.dropped.append(Dropped(f"{setting.shown} ({item})", reason, setting.where))
            if not value:
                return
        elif spec.type == "Array<str>":
            value = [str(v) for v in raw] if isinstance(raw, list) else [str(raw)]
        else:
            value = coerce_text(flag_text(raw), spec.type)
    except ValueTypeError as err:
        raise TvmcError(f"{setting.shown}: {err}", setting.origin.location(), rule="wrong-type") from None
    if key == "tuning-records":
        out.notes.append(
            f"{setting.shown}: old tvmc read the path relative to the working directory (and "
            "ignored a missing file); tvmc reads it relative to the config file"
        )
    rewrites.apply(out.tree, Rewrite("set", (Key("build"), Key(key)), setting.origin, value=value))
