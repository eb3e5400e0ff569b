"""`tvmc config ...`: show, get, explain and list (validate, diff, ... are registered by their modules)."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import click
import typer
from click.core import ParameterSource

from tvmc.cli import completion
from tvmc.cli.common import LazyGroup, fail, reports_errors, warn, write_stdout
from tvmc.cli.options import Configs, Isolated, SearchPaths, format_option, search_dirs
from tvmc.cli.rewrite_options import RewriteCommand, ordered_rewrite_flags
from tvmc.pointers import display_path
from tvmc.text import one_line

app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    cls=LazyGroup,
    help="Resolve, inspect and list compilation configs.",
)


class ShowAs(StrEnum):
    config = "config"
    tvm_target = "tvm-target"


# The --format values of `show` and `get`, and of `explain` and `list`.
CONFIG_FORMATS = ("toml", "json")
LIST_FORMATS = ("text", "json")


def resolve_from_cli(  # type: ignore[no-untyped-def]
    ctx: click.Context, configs: list[str] | None, isolated: bool = False, search: list[Path] | None = None
):
    """Run the pipeline with this invocation's --config values and rewrite flags (in argv order)."""
    from tvmc import api

    dirs = search_dirs(search, isolated=isolated)
    return api.resolve(configs or [], ordered_rewrite_flags(ctx), search=dirs, isolated=isolated)


@app.command("show", cls=RewriteCommand)
@reports_errors
def show(
    ctx: typer.Context,
    config: Configs = None,
    format: Annotated[str, format_option(CONFIG_FORMATS, "Output format.")] = "toml",
    origin: bool = typer.Option(False, "--origin", help="Show where each value came from."),
    isolated: Isolated = False,
    search: SearchPaths = None,
    hash_: bool = typer.Option(False, "--hash", help="Print the config's SHA-256 fingerprint instead."),
    as_: ShowAs = typer.Option(
        ShowAs.config,
        "--as",
        help="config: the canonical config; tvm-target: the "
        "JSON to pass to tvm.target.Target in TVM >= 0.25 (what it cannot hold is "
        "reported on stderr).",
    ),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write to FILE (atomically)."),
    from_: Path | None = typer.Option(
        None, "--from", metavar="LIBRARY", help="The config a library tvmc built was built with (its manifest)."
    ),
) -> None:
    """Print the resolved, canonical config (sorted keys; byte-identical for identical inputs)."""
    from tvmc.cli import config_show

    config_show.show(
        config or [],
        ordered_rewrite_flags(ctx),
        format=format,
        format_given=_given(ctx, "format"),
        origin=origin,
        isolated=isolated,
        search=lambda: search_dirs(search, isolated=isolated),
        hash_=hash_,
        as_=as_,
        output=output,
        from_=from_,
    )


GET_PATH_HELP = (
    "A dotted path as --set takes it: targets[0].mcpu, executor.kind, host, targets[kind=llvm].mattr, "
    'pass-config."tir.disable_vectorize".'
)


@app.command("get", cls=RewriteCommand)
@reports_errors
def get(
    ctx: typer.Context,
    path: str = typer.Argument(
        ..., metavar="PATH", help=GET_PATH_HELP, show_default=False, autocompletion=completion.complete_path_argument
    ),
    config: Configs = None,
    format: Annotated[
        str, format_option(CONFIG_FORMATS, "toml: a string as is, a table as TOML; json: the JSON value.")
    ] = "toml",
    origin: bool = typer.Option(False, "--origin", help="Prefix the value with where it came from (tab-separated)."),
    isolated: Isolated = False,
    search: SearchPaths = None,
) -> None:
    """Print one value of the resolved config (exit 1 when it is unset), like `git config --get`.

    Same --config and rewrites as `config show`; `config explain PATH` shows every layer that set it.
    """
    from tvmc import explain
    from tvmc.emit import canonical

    explain.parse(path)  # a malformed PATH is a usage error before anything is resolved
    resolved = resolve_from_cli(ctx, config, isolated, search)
    for note in resolved.notes:
        warn(note)
    found = explain.get(resolved.to_dict(), resolved.origins, path)
    if found is None:
        typer.echo(f"tvmc: {explain.unset_message(path)}", err=True)
        raise typer.Exit(1)
    if format == "json":
        doc: object = found.value
        if origin:
            leaves = {p: str(o) for p, o in found.origins.items() if p in _leaf_pointers(found)}
            doc = {"path": found.path, "value": found.value, "origin": str(found.origin), "origins": leaves}
        text = json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    elif origin and isinstance(found.value, dict | list) and found.value:
        text = canonical.origin_view(found.value, found.origins, found.pointer)
    elif origin:
        text = f"{found.origin}\t{canonical.value_text(found.value, found.path)}"
    else:
        text = canonical.value_text(found.value, found.path.rsplit(".", 1)[-1])
    write_stdout(text)


@app.command("explain", cls=RewriteCommand)
@reports_errors
def explain_(
    ctx: typer.Context,
    path: str = typer.Argument(
        ..., metavar="PATH", help=GET_PATH_HELP, show_default=False, autocompletion=completion.complete_path_argument
    ),
    config: Configs = None,
    format: Annotated[str, format_option(LIST_FORMATS, "Output format.")] = "text",
    isolated: Isolated = False,
    search: SearchPaths = None,
) -> None:
    """Every layer and rewrite that set PATH, in order, the winner last; then the canonical value.

    One line per step: ORIGIN<TAB>PATH = VALUE as that layer wrote it (or PATH unset), then
    `canonical<TAB>PATH = VALUE`. Exit 1 when the value ends unset.
    """
    from tvmc import api, explain
    from tvmc.emit import canonical

    explain.parse(path)
    dirs = search_dirs(search, isolated=isolated)
    result = api.explain(config or [], ordered_rewrite_flags(ctx), path, search=dirs, isolated=isolated)
    if format == "json":
        write_stdout(json.dumps(result.to_dict(), indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    else:
        lines = [f"# {note}" for note in result.notes]
        for step in result.steps:
            shown = display_path(step.pointer)
            text = f"{shown} = {canonical.toml_value(step.value)}" if step.action == "set" else f"{shown} unset"
            if step.expanded_from is not None:
                text += f"  (expanded from {json.dumps(step.expanded_from, ensure_ascii=False)})"
            if step.applying is not None:
                text += f"  [applying {step.applying}]"
            lines.append(f"{step.where}\t{text}")
        if result.final is not None:
            lines.append(f"canonical\t{result.final.path} = {canonical.toml_value(result.final.value)}")
        write_stdout("\n".join(lines) + "\n" if lines else "")
    if result.error is not None:
        fail(result.error)
    if result.final is None:
        typer.echo(f"tvmc: {explain.unset_message(path)}", err=True)
        raise typer.Exit(1)


def _leaf_pointers(found: object) -> set[str]:
    from tvmc.explain import Found
    from tvmc.provenance import walk

    assert isinstance(found, Found)
    return {p for p, node in walk(found.value, found.pointer) if not isinstance(node, dict | list) or not node}


def _given(ctx: click.Context, name: str) -> bool:
    """Whether the command line gave the option (not its default)."""
    return ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)


@app.command("list")
@reports_errors
def list_(
    format: Annotated[str, format_option(LIST_FORMATS, "Output format.")] = "text",
    tags: bool = typer.Option(
        False, "--tags", help="List the TVM tags usable as config names too (JSON always has them)."
    ),
    isolated: Isolated = False,
    search: SearchPaths = None,
) -> None:
    """List the named configs on the search path, with description and directory."""
    from tvmc import registry, sources

    dirs = search_dirs(search, isolated=isolated) or sources.search_path(isolated=isolated)
    entries = sources.list_configs(dirs, with_native=True)
    tag_names = registry.tag_names()  # every tag is a config name too: listed apart from the files
    if format == "json":
        doc = {
            "search_path": [{"path": str(d.path), "origin": d.origin} for d in dirs],
            "configs": [
                {
                    "name": e.name,
                    "path": str(e.path),
                    "directory": str(e.directory.path),
                    "origin": e.directory.origin,
                    "description": e.description,
                    "shadowed": e.shadowed,
                    **({"error": e.error} if e.error else {}),
                }
                for e in entries
            ],
            "tags": tag_names,
        }
        write_stdout(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        return
    width = max((len(e.name) for e in entries), default=10)
    lines = []
    for entry in entries:
        note = " (shadowed)" if entry.shadowed else ""
        about = (
            f"[error: {one_line(entry.error)}]"
            if entry.error
            else one_line(" ".join((entry.description or "").split()))
        )
        lines.append(f"{entry.name:<{width}}  {about}{note}  [{entry.directory.origin}: {entry.directory.path}]")
    if not tags:
        lines.append(f"(and {len(tag_names)} TVM tags, usable as config names: tvmc config list --tags)")
    else:
        lines.append("")
        lines.append("TVM tags (usable as config names):")
        lines.extend(f"  {name}" for name in tag_names)
    write_stdout("\n".join(lines) + "\n")
