"""`tvmc config validate` and `tvmc config schema`. Parsing and printing only; the work is `tvmc.validate`.

Imports here stay light: this module is loaded with the `config` group, and `jsonschema` must never
be imported by commands that do not validate (the fast engine does not use it at all).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import click
import typer

from tvmc.cli.common import reports_errors, write_stdout
from tvmc.cli.options import Configs, Isolated, SearchPaths, search_dirs
from tvmc.cli.rewrite_options import RewriteCommand, ordered_rewrite_flags
from tvmc.errors import UsageError
from tvmc.validate.diagnostics import REGISTRY
from tvmc.validate.reporters import FORMATS

if TYPE_CHECKING:
    from tvmc.validate.diagnostics import FileResult

PATHS_HELP = (
    "Config files to validate; a directory means every *.toml/*.json below it, '-' reads stdin. "
    "Each file is checked on its own and as resolved through its 'extends' chain."
)
EPILOG = (
    "Problems are located at the key or value of the file that set it (also through 'extends'). Rule ids: "
    + ", ".join(REGISTRY)
    + ". Warnings: "
    + ", ".join(rule.id for rule in REGISTRY.values() if rule.severity == "warning")
    + "; the legacy-* ones are errors with --strict or when tvm-version says >= 0.25, and silent when it "
    "says < 0.25. Exit codes: 0 every input valid (warnings allowed), 1 an input is invalid, 2 usage error."
)


class Engine(StrEnum):
    fast = "fast"
    jsonschema = "jsonschema"


STRICT_HELP = "Make the legacy-* warnings errors."
STDIN_HELP = "Name of '-' in messages; its directory anchors relative 'extends', its suffix the format."
JOBS_HELP = "Processes (default: the cores)."
ENGINE_HELP = "fast (compiled from the registry) or jsonschema (the generated schema)."
FORMAT_HELP = "Report format (on stdout)."
QUIET_HELP = "Errors only; no summary when all pass."
REPORT_SCHEMA_HELP = "Print the JSON report's JSON Schema."


def validate(
    ctx: typer.Context,
    paths: Annotated[
        list[str] | None, typer.Argument(metavar="[PATH...|-]", help=PATHS_HELP, show_default=False)
    ] = None,
    format: Annotated[
        str, typer.Option("--format", "-f", click_type=click.Choice(list(FORMATS)), help=FORMAT_HELP)
    ] = "text",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help=QUIET_HELP)] = False,
    strict: Annotated[bool, typer.Option("--strict", help=STRICT_HELP)] = False,
    config: Configs = None,
    stdin_filename: Annotated[str | None, typer.Option("--stdin-filename", metavar="NAME", help=STDIN_HELP)] = None,
    engine: Annotated[Engine, typer.Option("--engine", help=ENGINE_HELP)] = Engine.fast,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, metavar="N", help=JOBS_HELP, show_default=False)
    ] = None,
    isolated: Isolated = False,
    search: SearchPaths = None,
    report_schema: Annotated[bool, typer.Option("--report-schema", help=REPORT_SCHEMA_HELP)] = False,
) -> None:
    """Validate config files: syntax, schema, extends chains, semantic rules.

    PATH: files, directories or '-' (stdin), each checked alone and through its 'extends'
    chain; without PATH, the config --config and the rewrites give.
    """
    if report_schema:
        from tvmc.validate.reporters import report_schema_text

        write_stdout(report_schema_text())
        return
    from tvmc.validate.diagnostics import Summary
    from tvmc.validate.parallel import default_jobs
    from tvmc.validate.reporters import make_reporter, summary_line

    paths = paths or []
    config = config or []
    flags = ordered_rewrite_flags(ctx)
    if paths and config:
        raise UsageError("give PATHs or --config, not both", "--config")
    if not paths and not config and not flags:
        raise UsageError("nothing to validate: give PATH..., '-' (stdin), or --config NAME")
    dirs = search_dirs(search, isolated=isolated)
    stream: Iterable[FileResult]
    if paths:  # rewrites applied on top of every file
        # What `tvmc.api.validate_paths` runs, without importing tvmc.api (and the stages only a
        # resolution needs): validating files starts in the time the start-up budget allows.
        from tvmc import sources
        from tvmc.validate.runner import Settings, Validator

        applied: tuple[object, ...] = ()
        if flags:
            from tvmc import rewrites

            applied = tuple(rewrites.argv_rewrites(flags))
        isolated = isolated or sources.is_isolated()
        validator = Validator(
            Settings(strict=strict, engine=engine.value, rewrites=applied),
            sources.search_path(isolated=isolated) if dirs is None else dirs,
        )
        stream = validator.paths(paths, stdin=sys.stdin.buffer, stdin_name=stdin_filename, jobs=jobs or default_jobs())
    else:  # resolved before the report starts: a flag that does not apply is a usage error
        from tvmc import api

        stream = [
            api.validate_config(config, flags, strict=strict, engine=engine.value, search=dirs, isolated=isolated)
        ]
    reporter = make_reporter(format, sys.stdout, sys.stderr, os.environ)
    summary = Summary()
    reporter.start()
    try:
        for result in stream:
            if quiet:
                result = errors_only(result)
            summary.add(result)
            reporter.file(result)
        reporter.finish(summary)
        sys.stdout.flush()
        if not (quiet and summary.ok):
            sys.stderr.write(f"tvmc: {summary_line(summary)}\n")
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, no traceback
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    raise typer.Exit(0 if summary.ok else 1)


def errors_only(result: FileResult) -> FileResult:
    from tvmc.validate.diagnostics import FileResult

    return FileResult(result.name, result.errors)


def schema(
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", metavar="FILE", help="Write to FILE (atomically); '-' is stdout."),
    ] = None,
    path: Annotated[
        bool,
        typer.Option("--path", help="Print where the installed schema file is (for editors), not the schema."),
    ] = False,
) -> None:
    """Print the JSON Schema (2020-12) of config files, generated from the TVM registry."""
    if path:
        from tvmc.errors import TvmcError, UsageError
        from tvmc.sources.installed import shipped_schema_file

        if output is not None:
            raise UsageError("prints a path: it takes no --output", "--path")
        installed = shipped_schema_file()
        if installed is None:
            raise TvmcError("the schema is not installed with tvmc: write a copy with `tvmc config schema -o FILE`")
        write_stdout(f"{installed}\n")
        return
    from tvmc.validate.schema import schema_text

    text = schema_text()
    if output is None or str(output) == "-":
        write_stdout(text)
        return
    from tvmc.fileio import write_atomic

    write_atomic(output, text)


class ValidateCommand(RewriteCommand):
    """`config validate` reads files unless --config is given: no environment section in --help."""

    environment_help = False


def register(app: typer.Typer) -> None:
    """Add `validate` and `schema` to the `config` group."""
    app.command("validate", cls=ValidateCommand, epilog=EPILOG)(reports_errors(validate))
    app.command("schema")(reports_errors(schema))
