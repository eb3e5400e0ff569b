"""`tvmc config diff` and `tvmc config migrate`, added to the `config` group by `register`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tvmc.cli.common import reports_errors, warn, write_stdout
from tvmc.cli.options import Isolated, SearchPaths, format_option, search_dirs
from tvmc.text import one_line

DIFF_HELP = """Show how two resolved configs differ, key path by key path, with the origin of each side.

A and B are config references like --config takes: a name on the search path (aws/c5), a TVM
tag, NAME:PART (nvidia/jetson-nano:cuda) or a path to a TOML/JSON file; or a library tvmc
built (.so or .tar): the config it was built with, from its manifest. --set rewrites both
sides; --left-set / --right-set one side (PATH=VALUE or PATH+=VALUE, as `config show --set`).
Configs are compared in canonical form and `description` is ignored, like the fingerprint.

Exit status: 0 when the configs are equal (same fingerprint), 1 when they differ, 2 on an
error (as diff(1)).
"""

MIGRATE_HELP = """Convert what old tvmc (TVM <= 0.19) used into a tvmc config (TOML).

OLD is an old tvmc JSON config file, a file holding a `tvmc compile` command line (a shell
script or a snippet), a legacy target string ('llvm -mcpu=cascadelake', 'cmsis-nn, c'), or any
of these given as the text itself; `-` reads stdin. Everything that cannot be carried (tuning
options, the model, output paths, removed features) is listed with the reason on stderr and
as comments in the file.
"""


DETECT_HELP = """Write the config of the machine tvmc runs on (needs TVM: its LLVM and runtime).

The CPU becomes an llvm target with LLVM's host triple and CPU name and the number of cores; each
GPU the installed TVM runtime can open (cuda, rocm, vulkan, opencl, metal) becomes a target with
the CPU as its host. Code built for the result runs here: use it with --config FILE, or save it
on the search path (for example as host/native.toml in your user config directory).
"""


def register(app: typer.Typer) -> None:
    """Add `diff`, `migrate` and `detect` to the `config` command group."""
    app.command("diff", help=DIFF_HELP)(diff_command)
    app.command("migrate", help=MIGRATE_HELP)(migrate_command)
    app.command("detect", help=DETECT_HELP)(detect_command)


_Left = Annotated[
    str, typer.Argument(metavar="A", help="The left config: name, tag, NAME:PART, path, or a library tvmc built.")
]
_Right = Annotated[
    str, typer.Argument(metavar="B", help="The right config: name, tag, NAME:PART, path, or a library tvmc built.")
]
_Edits = list[str] | None
_SetBoth = Annotated[_Edits, typer.Option("--set", metavar="PATH=VALUE", help="Rewrite both sides.")]
_SetLeft = Annotated[_Edits, typer.Option("--left-set", metavar="PATH=VALUE", help="Rewrite side A.")]
_SetRight = Annotated[_Edits, typer.Option("--right-set", metavar="PATH=VALUE", help="Rewrite side B.")]
_Format = Annotated[str, format_option(("text", "json"), "Output format.")]
_Old = Annotated[str, typer.Argument(metavar="OLD", help="Old config file, command-line file, text, or -.")]
_Output = Annotated[
    Path | None,
    typer.Option("--output", "-o", metavar="NEW", help="Write the config to NEW (atomically), not to stdout."),
]


@reports_errors
def diff_command(
    left: _Left,
    right: _Right,
    set_: _SetBoth = None,
    left_set: _SetLeft = None,
    right_set: _SetRight = None,
    format: _Format = "text",
    isolated: Isolated = False,
    search: SearchPaths = None,
) -> None:
    from tvmc import api, manifest, rewrites
    from tvmc import diff as diffing
    from tvmc.errors import Location, TvmcError, UsageError
    from tvmc.provenance import Origin, printable

    try:
        if left == right == "-":  # standard input is read once
            raise UsageError("A and B are both '-': standard input can be read once")
        sides = []
        for ref, own, flag in ((left, left_set, "--left-set"), (right, right_set, "--right-set")):
            # Shared rewrites first, then the side's own; each origin names the flag it came from.
            edits = [("--set", e) for e in set_ or []] + [(flag, e) for e in own or []]
            rws = [
                rw
                for name, e in edits
                for rw in rewrites.flag_rewrites("--set", e, origin=Origin("flag", f"{name}={e}"))
            ]
            if manifest.is_library(ref):  # a library's own config, from its manifest
                if rws:
                    raise UsageError(f"{ref} is a library: its config is as built (no --set on its side)")
                sides.append(api.from_library(ref, source=printable(ref)))
            else:
                # The side as the user typed it (an argument, not a --config they did not type).
                named = [(ref, Location(printable(ref)))]
                sides.append(api.resolve(named, rws, search=search_dirs(search, isolated=isolated), isolated=isolated))
    except TvmcError as err:
        # Like diff(1): 1 means "different", so trouble of any kind is 2.
        typer.echo(f"tvmc: error: {one_line(err.one_line())}", err=True)
        raise typer.Exit(2) from None
    differences = diffing.diff(sides[0], sides[1])
    if format == "json":
        write_stdout(diffing.format_json(differences, (left, sides[0]), (right, sides[1])))
    else:
        write_stdout(diffing.format_text(differences, left, right))
    if differences:
        raise typer.Exit(1)


@reports_errors
def migrate_command(old: _Old, output: _Output = None) -> None:
    from tvmc.migrate import migrate

    result = migrate(old)
    for item in result.dropped:
        warn(f"not carried: {item}")
    for note in result.notes:
        typer.echo(f"tvmc: note: {one_line(note)}", err=True)
    if output is None:
        write_stdout(result.toml_text)
        return
    from tvmc.fileio import write_atomic

    write_atomic(output, result.toml_text, inputs=result.inputs)


_DetectOutput = Annotated[
    Path | None,
    typer.Option("--output", "-o", metavar="FILE", help="Write the config to FILE (atomically), not to stdout."),
]


_DetectFormatOption = Annotated[str, format_option(("toml", "json"), "toml or json.")]


@reports_errors
def detect_command(output: _DetectOutput = None, format: _DetectFormatOption = "toml") -> None:
    from tvmc.emit.canonical import to_json
    from tvmc.sources.detect import detect, to_toml
    from tvmc.sources.installed import schema_directive

    detected = detect()
    text = to_json(detected.config) if format == "json" else to_toml(detected, schema_directive())
    if output is None:
        write_stdout(text)
        return
    from tvmc.fileio import write_atomic

    write_atomic(output, text)
