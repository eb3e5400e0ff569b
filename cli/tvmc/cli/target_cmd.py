"""`tvmc target …`: canonicalize targets, list kinds and tags, explain one of them."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from tvmc import registry
from tvmc.cli.common import LazyGroup, reports_errors, warn, write_stdout
from tvmc.cli.completion import complete_kind, complete_kind_or_tag
from tvmc.cli.options import format_option
from tvmc.errors import LimitError, Location, TargetError, TvmcError, UsageError, did_you_mean
from tvmc.flag_docs import kind_flags, kind_flags_text
from tvmc.text import one_line

app = typer.Typer(
    cls=LazyGroup,
    help="Parse, canonicalize and explain TVM targets.",
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


# Parameter declarations (module-level so that the signatures stay readable).
_TARGETS = typer.Argument(
    None, metavar="TARGET…|-", help="Targets (tag, JSON, legacy string); '-' reads one per line from stdin."
)
_OutFormat = Annotated[
    str, format_option(("json", "legacy"), "json: TVM's export as compact JSON; legacy: a v0.10-style string.")
]
_FILL = typer.Option(
    False,
    "--fill-from-machine",
    help="Fill in what TVM detects on this machine (llvm mtriple, cuda arch...); needs TVM.",
)
_KINDS = typer.Option(False, "--kinds", help="List target kinds.")
_TAGS = typer.Option(False, "--tags", help="List tags.")
_KIND = typer.Option(
    None, "--kind", metavar="K", help="Only this kind (and the tags of this kind).", autocompletion=complete_kind
)
_ListFormat = Annotated[str, format_option(("text", "json"), "text or json.")]
_NAME = typer.Argument(..., help="A kind (llvm) or a tag (nvidia/jetson-nano).", autocompletion=complete_kind_or_tag)


def _compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _stdin_text() -> str:
    """Standard input as the config loader reads it: at most MAX_FILE_BYTES, strict UTF-8."""
    from tvmc.sources import MAX_FILE_BYTES, read_limited

    data = read_limited(sys.stdin.buffer)
    if len(data) > MAX_FILE_BYTES:
        raise LimitError(f"standard input is larger than {MAX_FILE_BYTES} bytes; refusing to read it", "<stdin>")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise TargetError(f"invalid UTF-8 (byte 0x{data[err.start]:02x})", Location("<stdin>", line)) from None


def _inputs(args: list[str]) -> list[tuple[str, Location]]:
    items: list[tuple[str, Location]] = []
    for i, arg in enumerate(args, 1):
        if arg == "-":
            # One output line per input line: split on "\n" only (str.splitlines would also split on
            # \x0c, \x1c, U+2028 ...), blank lines kept (each gets its error line), CRLF accepted.
            lines = _stdin_text().split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            for n, line in enumerate(lines, 1):
                items.append((line.removesuffix("\r"), Location("<stdin>", n, 1)))
        else:
            items.append((arg, Location(f"<arg{i}>", 1, 1)))
    return items


@app.command("canonicalize")
@reports_errors
def canonicalize_cmd(
    targets: list[str] | None = _TARGETS,
    fmt: _OutFormat = "json",
    fill_from_machine: bool = _FILL,
) -> None:
    """Print the canonical form of each TARGET, one line per input, in order.

    An invalid input prints {"error": MESSAGE} on stdout and the message on stderr; the exit code
    is 1 if any input was invalid. Options a legacy string moves out of the target (system-lib,
    runtime, executor, link-params, ...) are reported as warnings.
    """
    from tvmc.targets import canonicalize, parse_target, to_legacy

    if not targets:
        raise UsageError("give at least one TARGET, or '-' to read targets from stdin")
    failed = False
    for text, loc in _inputs(targets):
        try:
            parsed = parse_target(text, source=loc)
            canonical = canonicalize(parsed.spec, source=loc, fill_from_machine=fill_from_machine)
            line = to_legacy(canonical) if fmt == "legacy" else _compact(canonical)
            if not line.isprintable():  # a value with a line break: a legacy string cannot hold it
                raise TargetError("a value holds a line break or control character, which a legacy string cannot", loc)
        except TvmcError as err:
            failed = True
            write_stdout(json.dumps({"error": err.one_line()}) + "\n")
            typer.echo(f"tvmc: error: {one_line(err.one_line())}", err=True)
            continue
        for note in parsed.notes:
            warn(f"{loc.source}: {note}")
        write_stdout(line + "\n")
    if failed:
        raise typer.Exit(1)


def _kind_info(name: str) -> dict[str, Any]:
    kind = registry.kind(name)
    assert kind is not None
    options = {}
    for opt, typ in kind.options.items():
        options[opt] = {"type": typ, "default": kind.defaults[opt]} if opt in kind.defaults else {"type": typ}
    info: dict[str, Any] = {
        "name": name,
        "legacy": kind.legacy,
        "device_type": kind.device_type,
        "device": registry.DEVICE_NAMES.get(kind.device_type, str(kind.device_type)),
        "default_keys": list(kind.default_keys),
        "options": options,
        "tags": sum(1 for _, k in _tag_kinds() if k == name),
        "flags": [flag.to_json() for flag in kind_flags(name)],
    }
    if kind.legacy:
        info.update(
            byoc=kind.byoc, last_version=kind.last_version, open_options=kind.open_options, renamed_to=kind.renamed_to
        )
    else:  # BYOC compilers that can specialise a target of this kind
        info["compilers"] = sorted(c.name for c in registry.compilers().values() if kind.device_type in c.device_types)
    legacy_opts = kind.legacy_options
    if legacy_opts:
        info["legacy_options"] = {
            o.name: {"type": o.type, "until": o.versions[-1], "now": o.lifts_to} for o in legacy_opts.values()
        }
    return info


def _tag_kinds() -> list[tuple[str, str]]:
    from tvmc.targets import kind_of

    return [(t, kind_of(t)) for t in registry.tag_names()]


def _tag_info(name: str) -> dict[str, Any]:
    from tvmc.targets import canonicalize, env_dependent_keys, to_legacy

    config = registry.tag_config(name) or {}
    canonical = canonicalize(name)
    return {
        "name": name,
        "kind": config.get("kind"),
        "config": config,
        "canonical": canonical,
        "legacy": to_legacy(canonical),
        "machine_filled": [".".join(str(p) for p in path) for path in env_dependent_keys(canonical)],
    }


@app.command("list")
@reports_errors
def list_cmd(
    kinds: bool = _KINDS,
    tags: bool = _TAGS,
    kind: str | None = _KIND,
    fmt: _ListFormat = "text",
) -> None:
    """List target kinds and tags (both unless --kinds or --tags is given)."""
    if kind is not None and registry.kind(kind) is None:
        names = registry.public_kinds()
        raise TargetError(f'Target kind "{kind}" is not defined', "--kind", suggestions=did_you_mean(kind, names))
    if not kinds and not tags:
        kinds = tags = True
    kind_names = [kind] if kind else registry.public_kinds()  # TVM's internal test kinds only when asked for
    tag_rows = [(t, k) for t, k in _tag_kinds() if kind is None or k == kind]
    if fmt == "json":
        out: dict[str, Any] = {}
        if kinds:
            out["kinds"] = [_kind_summary(k) for k in kind_names]
        if tags:
            out["tags"] = [{"name": t, "kind": k} for t, k in tag_rows]
        write_stdout(json.dumps(out, indent=2) + "\n")
        return
    lines: list[str] = []
    if kinds:
        for k in kind_names:
            s = _kind_summary(k)
            status = ""
            if s["legacy"]:
                status = f"legacy, until TVM {s['last_version']}" + (", BYOC" if s["byoc"] else "")
            keys = ",".join(s["default_keys"]) or "-"
            lines.append(f"{k:<20} {s['device']:<10} keys={keys:<16} {status}".rstrip())
    if tags:
        lines += [f"{t:<44} {k}" for t, k in tag_rows]
    write_stdout("".join(line + "\n" for line in lines))


def _kind_summary(name: str) -> dict[str, Any]:
    kind = registry.kind(name)
    assert kind is not None
    return {
        "name": name,
        "device": registry.DEVICE_NAMES.get(kind.device_type, str(kind.device_type)),
        "device_type": kind.device_type,
        "default_keys": list(kind.default_keys),
        "legacy": kind.legacy,
        "byoc": kind.byoc,
        "last_version": kind.last_version,
    }


@app.command("show")
@reports_errors
def show_cmd(
    name: str = _NAME,
    fmt: _ListFormat = "text",
) -> None:
    """Explain a kind (its --target-KIND-ATTR flags with type, default and description; keys, device
    type, legacy status) or a tag."""
    if registry.is_tag(name):
        info = _tag_info(name)
        text = _tag_text(info)
    elif registry.kind(name) is not None:
        info = _kind_info(name)
        text = _kind_text(info)
    else:
        renamed = registry.renamed_tag(name)
        names = [*registry.public_kinds(), *registry.tag_names()]
        raise TargetError(
            f"{name!r} is neither a target kind nor a tag",
            "NAME",
            suggestions=[renamed] if renamed else did_you_mean(name, names),
            hint=f"TVM renamed the tag to {renamed!r}" if renamed else None,
        )
    write_stdout(json.dumps(info, indent=2) + "\n" if fmt == "json" else text)


def _kind_text(info: dict[str, Any]) -> str:
    lines = [f"kind {info['name']}"]
    if info["legacy"]:
        what = "a tvmc BYOC codegen" if info["byoc"] else "a target kind"
        lines.append(
            f"  status:       legacy — {what} removed after TVM {info['last_version']}; "
            "tvmc reads it, TVM 0.27 cannot build it"
        )
        if info.get("renamed_to"):
            lines.append(f"  renamed to:   {info['renamed_to']}")
    elif info["name"] in registry.INTERNAL_KINDS:
        lines.append(f"  status:       TVM {registry.tvm_version()}, a kind for TVM's own tests (never listed)")
    else:
        lines.append(f"  status:       TVM {registry.tvm_version()}")
    lines.append(f"  device type:  {info['device_type']} ({info['device']})")
    lines.append(f"  default keys: {', '.join(info['default_keys']) or '(none)'}")
    if info.get("compilers"):
        lines.append(f"  compilers:    {', '.join(info['compilers'])}")
    lines.append(f"  tags:         {info['tags']}")
    text = "".join(line + "\n" for line in lines) + kind_flags_text(info["name"])
    lines = []
    for opt, spec in info.get("legacy_options", {}).items():
        now = f"now {spec['now']}" if spec["now"] else "no equivalent"
        lines.append(f"  legacy option {opt} ({spec['type']}, until TVM {spec['until']}): {now}")
    return text + "".join(line + "\n" for line in lines)


def _tag_text(info: dict[str, Any]) -> str:
    lines = [
        f"tag {info['name']} (kind {info['kind']})",
        "  registered config:",
        f"    {_compact(info['config'])}",
        "  canonical:",
        f"    {_compact(info['canonical'])}",
        "  legacy string:",
        f"    {info['legacy']}",
    ]
    if info["machine_filled"]:
        lines.append(f"  filled by TVM from the machine (left out): {', '.join(info['machine_filled'])}")
    return "".join(line + "\n" for line in lines)
