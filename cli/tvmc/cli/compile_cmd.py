"""`tvmc compile MODEL`: build with TVM >= 0.25, or print the build (`--emit`) for either generation."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tvmc.cli.common import reports_errors, warn, write_stdout
from tvmc.cli.options import Configs, InputShapes, Isolated, Model, ModelFormatOption, SearchPaths, search_dirs
from tvmc.cli.rewrite_options import RewriteCommand, ordered_rewrite_flags

if TYPE_CHECKING:
    from tvmc.backend.compile import Compiled
    from tvmc.backend.reproduce import Reproduction

OUTPUT_HELP = "The library (default: MODEL's name with .so or .tar, here); with --emit, the text (stdout)."
REPRODUCE_HELP = "Rebuild LIB from its manifest: identical or not."
EMIT_HELP = "Print the build, not run it (no TVM needed): python, plan (TVM >= 0.25), tvmc, relay (0.18/0.19)."
TVM_VERSION_HELP = "For --emit tvmc/relay: 0.18 or 0.19."


class EmitFormat(StrEnum):
    python = "python"
    tvmc = "tvmc"
    relay = "relay"
    plan = "plan"


def _size(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB" if n < 1024**2 else f"{n / 1024**2:.1f} MiB"


def summary(compiled: Compiled) -> str:
    """The lines `tvmc compile` prints about a library it built."""
    from tvmc.emit.canonical import to_compact_json

    plan = compiled.plan
    target = {k: v for k, v in plan.target.items() if k != "host"}
    stages = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in compiled.timings.items())
    lines = [
        f"tvmc: built {compiled.path} ({_size(compiled.size)}) from {compiled.model} in {compiled.elapsed:.2f} s",
        f"  target  {to_compact_json(target)}",
        f"  host    {to_compact_json(plan.host) if plan.host else '(the target)'}",
        f"  vm      exec-mode {plan.exec_mode}, system-lib "
        f"{'auto' if plan.system_lib is None else str(plan.system_lib).lower()}",
        f"  time    {stages}",
    ]
    if compiled.tuning:
        lines.append(f"  tuning  {compiled.tuning}")
    lines += [f"  dump    {dump}" for dump in compiled.dumps]
    return "\n".join(lines) + "\n"


def reproduction(verdict: Reproduction) -> str:
    """What `compile --reproduce` prints: the verdict, then one line per input that differs."""
    if verdict.identical:
        lines = [
            f"tvmc: reproduced {verdict.library}: byte-identical ({verdict.size} bytes, sha256 {verdict.sha256[:16]})"
        ]
    else:
        lines = [f"tvmc: {verdict.library} is not reproduced: the rebuild differs in"]
        lines += [f"  {line}" for line in verdict.differences]
    if verdict.written is not None:
        lines.append(f"  rebuilt {verdict.written}")
    return "\n".join(lines) + "\n"


def _reproduce_only(ctx: typer.Context, given: dict[str, object]) -> None:
    """--reproduce takes its config, shapes and model format from the library: no other source."""
    from tvmc.errors import UsageError

    for flag, value in given.items():
        if value not in (None, False, []):
            raise UsageError(f"--reproduce builds from the library's manifest: {flag} does not apply", flag)
    flags = ordered_rewrite_flags(ctx)
    if flags:
        raise UsageError(f"--reproduce builds from the library's manifest: {flags[0][0]} does not apply", flags[0][0])


@reports_errors
def compile_command(
    ctx: typer.Context,
    model: Model,
    config: Configs = None,
    # Text, not Path: Path drops the trailing "/" that says "into this directory".
    output: Annotated[str | None, typer.Option("--output", "-o", metavar="PATH", help=OUTPUT_HELP)] = None,
    model_format: ModelFormatOption = None,
    input_shapes: InputShapes = None,
    emit: Annotated[EmitFormat | None, typer.Option("--emit", metavar="FORMAT", help=EMIT_HELP)] = None,
    tvm_version: Annotated[str | None, typer.Option("--tvm-version", metavar="X.Y", help=TVM_VERSION_HELP)] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show TVM's output (also TVMC_VERBOSE=1).")] = False,
    isolated: Isolated = False,
    search: SearchPaths = None,
    no_tuning: Annotated[bool, typer.Option("--no-tuning", help="Apply no tuning records (tvmc tune).")] = False,
    database: Annotated[
        Path | None, typer.Option("--database", metavar="DIR", help="The tuning database to apply.")
    ] = None,
    tune: Annotated[
        int | None,
        typer.Option("--tune", metavar="N", min=1, help="Tune what the database lacks first (N trials per task)."),
    ] = None,
    reproduce: Annotated[Path | None, typer.Option("--reproduce", metavar="LIB", help=REPRODUCE_HELP)] = None,
) -> None:
    """Compile MODEL with the config that --config and the rewrites resolve to."""
    from tvmc import api
    from tvmc.errors import UsageError

    if tvm_version is not None and emit not in (EmitFormat.tvmc, EmitFormat.relay):  # before a build starts
        raise UsageError("--tvm-version applies to --emit tvmc and --emit relay only", "--tvm-version")
    if tune is not None and emit is not None:
        raise UsageError("--tune builds; --emit prints the build instead", "--tune")
    if reproduce is not None:
        given: dict[str, object] = {"--config": config, "--model-format": model_format, "--input-shapes": input_shapes}
        given |= {"--emit": emit, "--isolated": isolated, "--search-path": search, "--no-tuning": no_tuning}
        _reproduce_only(ctx, given | {"--tune": tune})
        from tvmc.cli.progress import Progress

        with Progress(sys.stderr.isatty()) as progress:
            verdict = api.reproduce(
                reproduce,
                model,
                output=output,
                database=database,
                verbose=verbose,
                on_stage=progress.stage,
                on_warning=progress.warn,
                source="--reproduce",
            )
        write_stdout(reproduction(verdict))
        if not verdict.identical:
            raise typer.Exit(1)
        return
    if emit is None:
        from tvmc.cli.progress import Progress
        from tvmc.cli.tune_cmd import Display, Warnings

        display = Display("") if tune is not None else None
        said = Warnings()
        with Progress(sys.stderr.isatty() and tune is None) as progress:
            compiled = api.compile(
                model,
                config or [],
                ordered_rewrite_flags(ctx),
                output=output,
                model_format=model_format.value if model_format else None,
                input_shapes=input_shapes,
                verbose=verbose,
                isolated=isolated,
                search=search_dirs(search, isolated=isolated),
                on_stage=progress.stage,
                on_warning=lambda message: said(message) if tune is not None else progress.warn(message),
                tuning=not no_tuning,
                database=database,
                tune=tune,
                on_tune_event=display,
            )
        if display is not None:
            display.close()
        write_stdout(summary(compiled))
        return
    emitted = api.emit(
        model,
        config or [],
        ordered_rewrite_flags(ctx),
        form=emit.value,
        model_format=model_format.value if model_format else None,
        input_shapes=input_shapes,
        tvm_version=tvm_version,
        tuning=not no_tuning,
        database=database,
        search=search_dirs(search, isolated=isolated),
        isolated=isolated,
        on_warning=warn,
    )
    if output is None:
        write_stdout(emitted.text)
        return
    from tvmc.fileio import write_atomic

    write_atomic(Path(output), emitted.text, inputs=emitted.inputs)


def register(app: typer.Typer) -> None:
    """Add the top-level `compile` command."""
    app.command("compile", cls=RewriteCommand, no_args_is_help=True)(compile_command)
