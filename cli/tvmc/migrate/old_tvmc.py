"""What old tvmc (TVM <= 0.19) accepted, read the way it read it (python/tvm/driver/tvmc/compiler.py, target.py and
config_options.py at v0.19.0).

Both input forms become one list of `Setting`s keyed by old tvmc's flags: a command line
directly, a JSON config file the way `convert_config_json_to_cli` turned it into argparse
defaults (with its quirks undone: every target attribute is read, not just the first; hyphenated
kinds and attributes are not ignored; key order does not matter).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from functools import cache
from typing import Any

from tvmc import rewrites, sources
from tvmc.errors import TvmcError
from tvmc.pointers import join
from tvmc.provenance import Origin
from tvmc.records import record

VALUE, SWITCH, MANY = "value", "switch", "many"

MODEL = "how to read the model, not how to compile it: give it to `tvmc compile`"
OUTPUT = "the output path of one build: give it to `tvmc compile -o`"
DIAGNOSTIC = "a diagnostic of one run, not compilation config"
USMP = "workspace pools (Relay AOT's unified static memory planning) have no tvmc config equivalent"
TUNING = "a tuning option of `tvmc tune`; tuning settings are not compilation config"


@record(frozen=True)
class OldFlag:
    """One option of old `tvmc compile`/`tune`: arity, and what it becomes (or why it cannot)."""

    names: tuple[str, ...]
    arity: str
    action: str  # "rewrite" | "build:<key>" | "disabled-pass" | "config" | "drop"
    reason: str = ""

    @property
    def name(self) -> str:
        return self.names[-1]


_FLAGS = (
    OldFlag(("--target",), VALUE, "rewrite"),
    OldFlag(("--target-host",), VALUE, "rewrite"),
    OldFlag(("--executor",), VALUE, "rewrite"),
    OldFlag(("--runtime",), VALUE, "rewrite"),
    OldFlag(("--pass-config",), VALUE, "rewrite"),
    OldFlag(("-O", "--opt-level"), VALUE, "rewrite"),
    OldFlag(("--disabled-pass",), VALUE, "disabled-pass"),
    OldFlag(("--config",), VALUE, "config"),
    OldFlag(("-f", "--output-format"), VALUE, "build:output-format"),
    OldFlag(("--module-name",), VALUE, "build:module-name"),
    OldFlag(("--cross-compiler",), VALUE, "build:cross-compiler"),
    OldFlag(("--cross-compiler-options",), VALUE, "build:cross-compiler-options"),
    OldFlag(("--tuning-records",), VALUE, "build:tuning-records"),
    OldFlag(("--desired-layout",), MANY, "build:desired-layout"),
    OldFlag(("--desired-layout-ops",), MANY, "build:desired-layout-ops"),
    OldFlag(("--mixed-precision",), SWITCH, "build:mixed-precision"),
    OldFlag(("--mixed-precision-ops",), MANY, "build:mixed-precision-ops"),
    OldFlag(("--mixed-precision-calculation-type",), VALUE, "build:mixed-precision-calculation-type"),
    OldFlag(("--mixed-precision-acc-type",), VALUE, "build:mixed-precision-acc-type"),
    OldFlag(("--dump-code",), VALUE, "build:dump-code"),
    OldFlag(("--model-format",), VALUE, "drop", MODEL),
    OldFlag(("--input-shapes",), VALUE, "drop", MODEL),
    OldFlag(("-o", "--output"), VALUE, "drop", OUTPUT),
    OldFlag(("--dump-offloads",), VALUE, "drop", DIAGNOSTIC),
    OldFlag(("--print-pass-times",), SWITCH, "drop", DIAGNOSTIC),
    OldFlag(("--print-ir-before",), VALUE, "drop", DIAGNOSTIC),
    OldFlag(("--print-ir-after",), VALUE, "drop", DIAGNOSTIC),
    OldFlag(("-v", "--verbose"), SWITCH, "drop", DIAGNOSTIC),
    *(
        OldFlag((f"--workspace-pools{suffix}",), VALUE, "drop", USMP)
        for suffix in (
            "",
            "-targets",
            "-size-hint-bytes",
            "-clock-frequency-hz",
            "-read-bandwidth-bytes-per-cycle",
            "-write-bandwidth-bytes-per-cycle",
            "-read-latency-cycles",
            "-write-latency-cycles",
            "-target-burst-bytes",
        )
    ),
    *(
        OldFlag((f"--{name}",), VALUE, "drop", TUNING)
        for name in (
            "trials",
            "early-stopping",
            "min-repeat-ms",
            "number",
            "repeat",
            "parallel",
            "timeout",
            "rpc-key",
            "rpc-tracker",
            "tasks",
            "tuner",
            "cache-line-bytes",
            "num-cores",
            "vector-unit-bytes",
            "max-shared-memory-per-block",
            "max-local-memory-per-block",
            "max-threads-per-block",
            "max-vthread-extent",
            "warp-size",
        )
    ),
    *(
        OldFlag((f"--{name}",), SWITCH, "drop", TUNING)
        for name in ("enable-autoscheduler", "include-simple-tasks", "log-estimated-latency")
    ),
)


@cache
def old_flags() -> dict[str, OldFlag]:
    """Every old flag by each of its names; the registry-generated target/executor/runtime flags
    (verbatim underscore spellings such as `--target-ethos-u-accelerator_config` included)."""
    table = {name: flag for flag in _FLAGS for name in flag.names}
    for spec in rewrites.generated_flags().values():
        flag = OldFlag((*spec.aliases, spec.name), VALUE, "rewrite")
        for name in flag.names:
            table.setdefault(name, flag)
    return table


@cache
def _option_flags() -> dict[tuple[str, str, str], str]:
    """(section, owner, option) → the generated flag that sets it."""
    return {(s.section, s.owner, s.option): s.name for s in rewrites.generated_flags().values()}


def option_flag(section: str, owner: str, option: str) -> str | None:
    """The flag for an option, accepting old tvmc's `-`/`_` mixes (`num_cores`, `unpacked_api`)."""
    table = _option_flags()
    for spelling in (option, option.replace("_", "-"), option.replace("-", "_")):
        flag = table.get((section, owner, spelling))
        if flag is not None:
            return flag
    return None


@record(frozen=True)
class Setting:
    """One value old tvmc would have used: its flag, value (text, JSON value, list or True), where."""

    flag: str  # the old flag's canonical name, e.g. --opt-level for -O
    value: Any
    shown: str  # as the user wrote it, for reports
    origin: Origin
    from_file: bool = False  # a config file's value: an argparse default that the command line overrides
    where: str = ""  # where it was written, for reports ("" when `shown` is the whole story)


@record(frozen=True)
class Dropped:
    """Something the input holds that a tvmc config cannot carry, and why."""

    what: str
    reason: str
    where: str = ""

    def __str__(self) -> str:
        where = f" ({self.where})" if self.where else ""
        return f"{self.what}{where}: {self.reason}"


@record
class Reading:
    """What one input said: settings in order, what cannot be carried, notes, other configs."""

    settings: list[Setting]
    dropped: list[Dropped]
    notes: list[str]
    configs: list[Setting]  # --config NAME values, for the caller to load


def _show_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


class _JsonConfig:
    """Reads one old JSON config; every setting and drop keeps its file position."""

    def __init__(self, layer: sources.Layer) -> None:
        self.layer = layer
        self.out = Reading([], [], [], [])

    def origin(self, pointer: str) -> Origin:
        return Origin("file", self.layer.source, pointer, (), self.layer)

    def add(self, flag: str, value: Any, shown: str, pointer: str) -> None:
        origin = self.origin(pointer)
        self.out.settings.append(Setting(flag, value, shown, origin, True, str(origin.location())))

    def drop(self, what: str, reason: str, pointer: str) -> None:
        self.out.dropped.append(Dropped(what, reason, str(self.origin(pointer).location())))

    def read(self) -> Reading:
        for key, value in self.layer.data.items():
            norm = key.replace("_", "-")  # old tvmc's dest names: both spellings worked
            pointer = join("", key)
            if norm == "targets":
                self.targets(value, pointer)
            elif norm in ("executor", "runtime"):
                self.component(norm, value, pointer)
            elif norm == "pass-config" and isinstance(value, dict):
                for name, item in value.items():
                    self.add(
                        "--pass-config",
                        f"{name}={flag_text(item)}",
                        f"{key}.{name} = {_show_json(item)}",
                        join(pointer, name),
                    )
            elif isinstance(value, dict):
                self.drop(
                    key, "unknown key; old tvmc read any object as pass-config entries, tvmc does not guess", pointer
                )
            else:
                flag = old_flags().get("--" + norm)
                shown = f"{key} = {_show_json(value)}"
                if flag is None or flag.action == "config":
                    self.drop(shown, "unknown key; old tvmc ignored it", pointer)
                else:
                    self.add(flag.name, value, shown, pointer)
        return self.out

    def targets(self, value: Any, pointer: str) -> None:
        if not isinstance(value, list):
            self.drop(f"targets = {_show_json(value)}", 'expected a list of {"kind": ...} objects', pointer)
            return
        kinds: list[str] = []
        for index, entry in enumerate(value):
            here = join(pointer, index)
            kind_text = entry.get("kind") if isinstance(entry, dict) else None
            if not isinstance(kind_text, str) or not kind_text.strip():
                self.drop(f"targets[{index}] = {_show_json(entry)}", 'a target needs a "kind" string', here)
                continue
            kinds.append(kind_text.strip())  # may carry inline options: "ethos-u -accelerator_config=..."
            kind = kinds[-1].split()[0]
            options = [k for k in entry if k != "kind"]
            if len(options) > 1:
                self.out.notes.append(
                    f"targets[{index}] ({kind}): old tvmc used only the first attribute of "
                    f"a target ({options[0]}); all of {', '.join(options)} are carried"
                )
            for option in options:
                self.target_option(index, kind, option, entry[option], join(here, option))
        if kinds:
            self.add("--target", ", ".join(kinds), f"targets = {_show_json(value)}", pointer)

    def target_option(self, index: int, kind: str, option: str, item: Any, pointer: str) -> None:
        shown = f"targets[{index}].{option} = {_show_json(item)}"
        if option == "from_device":
            self.drop(
                shown,
                "from_device asks TVM to query a live device at build time and is never "
                "stored in a target, so a config cannot carry it (old tvmc ignored it in config files)",
                pointer,
            )
            return
        flag = option_flag("target", kind, option)
        if flag is None:
            self.drop(shown, f"not an option of target kind {kind!r}", pointer)
            return
        if "-" in kind or "-" in option:
            self.out.notes.append(
                f"{shown}: old tvmc silently ignored this option of {kind!r} (a hyphen in "
                "the kind or option name); it is carried"
            )
        self.add(flag, item, shown, pointer)

    def component(self, section: str, value: Any, pointer: str) -> None:
        if isinstance(value, str):
            value = {"kind": value}
        if not isinstance(value, dict) or not isinstance(value.get("kind"), str):
            self.drop(f"{section} = {_show_json(value)}", f'expected {{"kind": ...}} naming the {section}', pointer)
            return
        name = value["kind"]
        self.add(f"--{section}", name, f"{section}.kind = {_show_json(name)}", join(pointer, "kind"))
        for option, item in value.items():
            if option == "kind":
                continue
            shown = f"{section}.{option} = {_show_json(item)}"
            flag = option_flag(section, name, option)
            if flag is None:
                self.drop(shown, f"not an option of {section} {name!r}", join(pointer, option))
            else:
                self.add(flag, item, shown, join(pointer, option))


def read_config_json(layer: sources.Layer) -> Reading:
    """An old tvmc JSON config → the settings old tvmc derived from it (`convert_config_json_to_cli`,
    python/tvm/driver/tvmc/config_options.py at v0.19.0)."""
    return _JsonConfig(layer).read()


def flag_text(value: Any) -> str:
    """A JSON value as the flag text old tvmc's argparse would have seen."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return _show_json(value)  # a TOML array literal as well
    return str(value)


def read_command(tokens: Sequence[str], where: str = "") -> Reading:
    """The options of `tvmc [--config X] compile|tune ...` (`tokens` without the program name);
    `where` names the file and line the command was read from, if any."""
    out = Reading([], [], [], [])
    table = old_flags()
    command: str | None = None
    positional = 0
    index = 0
    swallowed: str | None = None  # a nargs='+' flag whose values ran to the end of the line

    def origin(text: str) -> Origin:
        return Origin("flag", f"{where}: {text}" if where else text)

    def drop(token: str, reason: str) -> None:
        out.dropped.append(Dropped(token, reason, where))

    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token == "--version":
            drop(token, "prints the version")
            continue
        if not token.startswith("-") or token == "-":
            if command is None and token in ("compile", "tune"):
                command = token
            elif command is None and token in ("run", "micro"):
                raise TvmcError(
                    f"`tvmc {token}` holds no compilation config to migrate",
                    where or None,
                    hint="migrate the `tvmc compile` command",
                    rule="migrate-input",
                )
            else:
                positional += 1
                drop(token, MODEL if positional == 1 else "an unexpected extra argument")
            continue
        name, eq, inline = token.partition("=") if token.startswith("--") else (token[:2], "", token[2:])
        if not token.startswith("--") and inline:
            eq = "="
        flag = table.get(name)
        if flag is None:
            drop(token, "not an option of old tvmc compile or tune")
            continue
        value: Any
        if flag.arity == SWITCH:
            value, shown = True, shlex.quote(token)
            if name == "-v" and inline.strip("v"):
                drop(token, "not an option of old tvmc compile or tune")
                continue
        elif flag.arity == MANY:
            items = [inline] if eq else []
            while index < len(tokens) and not tokens[index].startswith("-"):
                items.append(tokens[index])
                index += 1
            value, shown = items, shlex.join([name, *items])
            swallowed = shown if index == len(tokens) and not eq else None
        elif eq:
            value, shown = inline, shlex.quote(token)
        elif index < len(tokens):
            value, shown = tokens[index], shlex.join(tokens[index - 1 : index + 1])
            index += 1
        else:
            drop(token, "the option has no value")
            continue
        setting = Setting(flag.name, value, shown, origin(shown), where=where)
        (out.configs if flag.action == "config" else out.settings).append(setting)
    if command == "compile" and positional == 0 and swallowed is not None:
        # argparse gives a nargs='+' option every following word; FILE then has none.
        raise TvmcError(
            f"{swallowed}: old tvmc refused this command line (the following arguments are required: FILE): "
            "the option took the model as one of its values",
            where or None,
            hint="put the model before the option, or another option after its values",
            rule="old-tvmc-refused",
        )
    if command == "tune":
        out.notes.append("a `tvmc tune` command: its target settings are carried, its tuning options are not")
    return out
