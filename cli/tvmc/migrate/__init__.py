"""`tvmc config migrate`: what users of old tvmc have → a tvmc config.

    >>> from tvmc.migrate import migrate
    >>> result = migrate("tvmc compile --target 'llvm -mcpu=cascadelake' --trials 3 model.onnx")
    >>> result.config["targets"]
    [{'kind': 'llvm', 'mcpu': 'cascadelake'}]
    >>> [d.what for d in result.dropped]
    ['model.onnx', '--trials 3']

OLD is an old tvmc JSON config file, a file holding a `tvmc compile` command line (a shell
script or a README snippet), a legacy target string, or any of these as text. The result
resolves to the same targets, executor, runtime and pass config as the original meant; what a
config cannot carry is listed in `dropped` with the reason (and as comments in the TOML).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tvmc import registry, sources
from tvmc.config import CompilationConfig, canonicalize_config
from tvmc.errors import Location, TvmcError
from tvmc.migrate import inputs, writer
from tvmc.migrate.convert import convert
from tvmc.migrate.old_tvmc import Dropped, Reading, Setting, read_command, read_config_json
from tvmc.provenance import Origin, origin_of
from tvmc.records import field, record
from tvmc.validate.rules import config_findings
from tvmc.values import ValueTypeError, coerce_text

__all__ = ["Dropped", "MigrationResult", "migrate"]

LAST_RELAY_TVM = "0.19"  # the last release with tvmc, Relay and its executors/runtimes (MLF: 0.18)


@record(frozen=True)
class MigrationResult:
    """The migrated config as TOML text, what could not be carried (with reasons), and notes."""

    toml_text: str
    dropped: tuple[Dropped, ...]
    notes: tuple[str, ...] = ()
    config: dict[str, Any] = field(default_factory=dict)  # the TOML's content
    inputs: tuple[Path, ...] = ()  # files that were read (never to be overwritten)


def migrate(old: str | Path, *, stdin_text: str | None = None) -> MigrationResult:
    """Migrate OLD (a path, `-` for stdin, or the text itself); raises TvmcError for bad input."""
    given = inputs.read(old, stdin_text=stdin_text)
    files = [given.path] if given.path is not None else []
    readings: list[Reading] = []
    if given.form == "config":
        assert given.layer is not None
        readings.append(read_config_json(given.layer))
        about = f"the old tvmc config {given.source}"
    elif given.form == "target":
        where = given.source if given.source != "<text>" else given.text
        target = Setting("--target", given.text, given.text, Origin("flag", where))
        readings.append(Reading([target], [], [], []))
        about = f"the target {given.text!r}" if given.source == "<text>" else f"the target in {given.source}"
    else:
        where = f"{given.source}:{given.line}" if given.source != "<text>" else ""
        command = read_command(given.tokens, where)
        base = given.path.parent if given.path is not None else None
        for ref in command.configs[:-1]:
            command.dropped.append(
                Dropped(ref.shown, "a later --config replaces it (old tvmc used the last one)", ref.where)
            )
        reading = _old_config(command.configs[-1], base, command, files) if command.configs else None
        readings += [reading, command] if reading is not None else [command]
        about = f"the tvmc command in {given.source}" if given.source != "<text>" else "a tvmc command line"
    converted = convert(readings)
    located = _Where(converted.tree.origins, given.source)
    doc, notes = _finish(converted.tree.data, about, located, whole_config=given.form != "target")
    notes = list(dict.fromkeys([*converted.notes, *notes]))
    text = writer.render(doc, origin=about, dropped=converted.dropped, notes=notes)
    return MigrationResult(text, tuple(converted.dropped), tuple(notes), doc, tuple(files))


def _old_config(ref: Setting, base: Path | None, command: Reading, files: list[Path]) -> Reading | None:
    """An old `--config NAME`, found the way config_options.py (v0.18/v0.19) found it: NAME (with
    `.json` appended unless it holds `.json`) as a path from the working directory, else a file of
    that name anywhere under `$TVM_CONFIGS_JSON_DIR` (TVM's own configs/ when it is unset); here
    also beside the file the command was read from. Found nowhere, old tvmc stopped."""
    name = str(ref.value)
    if name == "default":
        command.notes.append(f"{ref.shown}: old tvmc's default config (an llvm target) is tvmc's default too")
        return None
    file_name = name if ".json" in name else f"{name.strip()}.json"
    candidates = [Path.cwd() / file_name, *([base / file_name] if base is not None else [])]
    configs_dir = os.environ.get("TVM_CONFIGS_JSON_DIR", "")
    if configs_dir and os.path.isdir(configs_dir):
        for root, _dirs, names in sorted(os.walk(configs_dir)):
            if file_name in names:  # find_json_file: the first directory os.walk visits that has it
                candidates.append(Path(root) / file_name)
                break
    for path in candidates:
        if path.is_file():
            files.append(path)
            return read_config_json(sources.load_file(path))
    usable = configs_dir and os.path.isdir(configs_dir)  # old tvmc ignored a variable naming no directory
    where = f"$TVM_CONFIGS_JSON_DIR ({configs_dir})" if usable else "TVM's configs/ directory"
    raise TvmcError(
        f"{ref.shown}: old tvmc stopped here: File {file_name} does not exist in the working directory or {where}",
        ref.where or None,
        hint="set TVM_CONFIGS_JSON_DIR to the directory holding it, or give its path",
        rule="config-not-found",
    )


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def legacy_features(config: CompilationConfig) -> list[tuple[str, str]]:
    """(what, last TVM version that had it) for everything in the config only legacy TVM builds."""
    out: list[tuple[str, str]] = []
    for kind_name in sorted({t["kind"] for t in config.targets} | {config.host["kind"]}):
        kind = registry.kind(kind_name)
        if kind is not None and kind.legacy:
            out.append((f"target kind {kind_name!r}", kind.last_version or LAST_RELAY_TVM))
    for section, table in (("executor", config.executor), ("runtime", config.runtime)):
        if table is not None and "modern" not in registry.components(section)[table["kind"]].generations:
            out.append((f"{section} {table['kind']!r}", LAST_RELAY_TVM))
    if config.build.get("output-format") == "mlf":  # python/tvm/driver/tvmc/compiler.py: "so" only in v0.19.0
        last = [v for v in registry.generation_versions() if "mlf" in registry.generation(v).output_formats]
        out.append(("output-format 'mlf'", max(last, key=_version_key)))
    return out


def _legacy_pass_configs(passes: dict[str, Any]) -> list[tuple[str, str]]:
    """(what, last TVM version that had it) for the pass configs only legacy TVM registers."""
    out = []
    for name in passes:
        if registry.pass_config_spec(name, "modern")[1] is None and registry.pass_config_spec(name, "legacy")[1]:
            had = [v for v in registry.generation_versions() if name in registry.generation(v).pass_configs]
            out.append((f"pass-config {name!r}", max(had, key=_version_key)))
    return out


def _finish(
    data: dict[str, Any], about: str, where: _Where | None = None, *, whole_config: bool
) -> tuple[dict[str, Any], list[str]]:
    """The config document: typed, `tvm-version` set for legacy-only configs, checked to resolve."""
    passes = data.get("pass-config")
    bare = {k: v for k, v in data.items() if k != "pass-config"}
    _check(bare, where)  # the rule engine decides first; canonicalization then only normalizes
    config, _ = canonicalize_config(bare, {})
    legacy = legacy_features(config) + (_legacy_pass_configs(passes) if isinstance(passes, dict) else [])
    notes: list[str] = []
    doc: dict[str, Any] = {"description": f"Migrated from {about}"}
    if legacy:
        version = min((v for _, v in legacy), key=_version_key)
        doc["tvm-version"] = f"<={version}"
        why = ", ".join(f"{what} (last in TVM {v})" for what, v in legacy)
        notes.append(f"tvm-version <={version}: {why}")
    elif whole_config and "executor" not in data:
        notes.append(
            "no executor given: old tvmc built with the graph executor and the cpp runtime "
            "(TVM <= 0.19); the config leaves them unset so that it builds with TVM >= 0.25"
        )
    if isinstance(passes, dict):
        data["pass-config"] = {
            name: value for name, value in (_pass_config(n, v, not legacy, notes) for n, v in passes.items())
        }
    doc.update({k: data[k] for k in writer.ORDER if k in data})
    _check(doc, where)
    return doc, notes


@record(frozen=True)
class _Where:
    """Where the old input's values came from: a refusal names the old file (and line) it read."""

    origins: Mapping[str, Origin]
    source: str  # the old input as given: a path, "<stdin>" or "<text>"

    def of(self, pointer: str) -> Location | None:
        origin = origin_of(self.origins, pointer) if pointer else None
        if origin is not None and origin.kind in ("file", "flag"):  # the old file:line, or old flag
            return origin.location()
        return Location(self.source) if self.source != "<text>" else None  # text: the argument itself


def _check(doc: dict[str, Any], where: _Where | None = None) -> None:
    """The migrated config must be valid on its own: the rule engine every command runs decides
    (`config validate` ok <=> `config show` ok, so what migrate writes, every command reads)."""
    error = next((f for f in config_findings(doc) if f.severity == "error"), None)
    if error is not None:
        raise TvmcError(  # as every command words an error: the source, the message, then the hint
            error.message,
            where.of(error.pointer) if where is not None else None,
            hint="the migrated config would not be valid",
            rule=error.rule,
            pointer=error.pointer or None,
            suggestions=(error.suggestion,) if error.suggestion else (),
        )


def _pass_config(name: str, value: Any, modern: bool, notes: list[str]) -> tuple[str, Any]:
    """Old tvmc typed a pass config's text by TVM's registry (`=1` a bool); TVM >= 0.25 renamed the
    `tir.*` configs to `tirx.*`, and a modern config uses the new name."""
    twin, modern_type = registry.pass_config_spec(name, "modern")
    legacy_type = registry.pass_config_spec(name, "legacy")[1]
    type_ = (modern_type or legacy_type) if modern else (legacy_type or modern_type)
    if type_ == "IntImm":  # old tvmc: digits are an integer, true/false a bool
        type_ = "int" if isinstance(value, int) or (isinstance(value, str) and value.strip().isdigit()) else "bool"
    if type_ in ("bool", "int", "str"):
        with contextlib.suppress(ValueTypeError):  # a wrong value is reported when the config resolves
            value = coerce_text(value if isinstance(value, str) else json.dumps(value), type_)
    if modern and twin != name:
        notes.append(f"pass-config {name!r} is {twin!r} in TVM >= 0.25")
        return twin, value
    return name, value
