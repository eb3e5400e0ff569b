"""`tvmc compile MODEL`: build with TVM >= 0.25, or print the build (`--emit`) for either generation."""

from __future__ import annotations

import os
import sys
import threading
import time
from enum import StrEnum
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Annotated

import typer

from tvmc.cli.common import ISOLATED_HELP, reports_errors, warn, write_stdout
from tvmc.cli.completion import complete_config
from tvmc.cli.rewrite_options import RewriteCommand, ordered_rewrite_flags

if TYPE_CHECKING:
    from tvmc.api import Resolved
    from tvmc.build.model import ModelSpec

CONFIG_HELP = "A config name on the search path (aws/c5, a TVM tag) or a TOML/JSON path; repeatable, layered in order."
SHAPES_HELP = (
    "Input shapes, e.g. 'x:[1,3,224,224] mask:[1,?]'; -1 or ? is a dynamic dimension, x:[] a scalar; "
    'quote names with spaces ("my input":[1]).'
)
OUTPUT_HELP = (
    "The library to write (default: MODEL's name with .so or .tar, here); with --emit, the text (default: stdout)."
)
EMIT_HELP = (
    "Print the build instead of running it (no TVM needed): python (TVM >= 0.25), tvmc or relay "
    "(old tvmc's command line or a Relay script, TVM 0.18/0.19), plan (JSON)."
)
TVM_VERSION_HELP = "For --emit tvmc/relay: 0.18 or 0.19 (default: the newest the config admits)."


class EmitFormat(StrEnum):
    python = "python"
    tvmc = "tvmc"
    relay = "relay"
    plan = "plan"


class ModelFormat(StrEnum):
    onnx = "onnx"
    tflite = "tflite"
    pytorch = "pytorch"
    keras = "keras"
    pb = "pb"
    paddle = "paddle"
    relay = "relay"


class Progress:
    """A one-line `stage… 3.1 s` ticker on stderr, only when stderr is a terminal."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.name = ""
        self.start = time.perf_counter()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._tick, daemon=True)

    def __enter__(self) -> Progress:
        if self.enabled:
            self.thread.start()
        return self

    def __exit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        if self.enabled:
            self.done.set()
            self.thread.join()
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()

    def stage(self, name: str) -> None:
        self.name = name

    def _tick(self) -> None:
        while not self.done.wait(0.2):
            sys.stderr.write(f"\r\033[Ktvmc: {self.name}… {time.perf_counter() - self.start:.1f} s")
            sys.stderr.flush()


def _inputs(resolved: Resolved, model: str) -> set[Path]:
    """Files tvmc read: never overwritten by -o."""
    return {*resolved.tree.inputs, Path(model)}


def _emit(fmt: EmitFormat, resolved: Resolved, spec: ModelSpec, tvm_version: str | None = None) -> str:
    if fmt in (EmitFormat.python, EmitFormat.plan):
        from tvmc.build.plan import plan_build

        plan = plan_build(resolved.config, resolved.origins, spec)
        if fmt is EmitFormat.python:
            from tvmc.emit import python

            text, notes = python.render(plan)
        else:
            from tvmc.emit import plan as plan_json

            text, notes = plan_json.render(plan, resolved.to_dict())
    else:
        from tvmc.emit.legacy import plan_legacy

        legacy = plan_legacy(resolved.config, resolved.origins, spec, tvm_version)
        if fmt is EmitFormat.tvmc:
            from tvmc.emit import tvmc_argv

            text, notes = tvmc_argv.render(legacy)
        else:
            from tvmc.emit import relay

            text, notes = relay.render(legacy)
    for note in notes:
        warn(note)
    return text


def _size(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB" if n < 1024**2 else f"{n / 1024**2:.1f} MiB"


def _build(resolved: Resolved, spec: ModelSpec, output: str | None, verbose: bool) -> None:
    from tvmc.build import runner
    from tvmc.build.model import check_exists
    from tvmc.build.plan import plan_build
    from tvmc.emit.canonical import to_compact_json
    from tvmc.errors import TvmcError, UsageError
    from tvmc.fileio import write_atomic

    plan = plan_build(resolved.config, resolved.origins, spec)
    for note in plan.notes:
        warn(note)
    check_exists(spec)
    from tvmc.build.preflight import cross_compiler_problem

    cc_origin = resolved.origin("/build/cross-compiler") if plan.cc else None
    problem = cross_compiler_problem(plan.cc, cc_origin.location() if cc_origin else None)
    if problem is not None:
        raise problem
    path = Path(output) if output else Path(spec.default_output(plan.output_format))
    if output and (output.endswith(("/", os.sep)) or path.is_dir()):
        # A directory (or a path ending in /) receives MODEL.so, like cp; a missing one is an error.
        if not path.is_dir():
            raise TvmcError(f"cannot write into {output}: the directory does not exist", f"-o {output}")
        path = path / spec.default_output(plan.output_format)
    inputs = _inputs(resolved, spec.path)
    # Said before a build, not after it, with the errors (and exit codes) every command's -o gives.
    if path.is_dir():
        raise UsageError(f"{path} is a directory", f"-o {path}")
    if not path.resolve().parent.is_dir():
        raise TvmcError(f"cannot write {path}: directory {path.resolve().parent} does not exist", f"-o {path}")
    if path.resolve() in {p.resolve() for p in inputs}:
        raise UsageError(f"refusing to overwrite the input file {path}", f"-o {path}")
    started = time.perf_counter()
    runner.require_tvm()
    from tvmc.build.preflight import will_not_run_here

    for message in will_not_run_here(plan.target):
        warn(message)
    from tvmc.build import frontends, isolated

    frontends.check_available(spec)

    with Progress(sys.stderr.isatty()) as progress:
        result = isolated.build(plan, on_stage=progress.stage, verbose=verbose)
    write_atomic(path, result.library, inputs=inputs)
    for fmt, text in result.dumps.items():
        write_atomic(f"{path}.{fmt}", text, inputs=inputs)
    elapsed = time.perf_counter() - started
    target = {k: v for k, v in plan.target.items() if k != "host"}
    stages = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in result.timings.items())
    lines = [
        f"tvmc: built {path} ({_size(len(result.library))}) from {spec.path} in {elapsed:.2f} s",
        f"  target  {to_compact_json(target)}",
        f"  host    {to_compact_json(plan.host) if plan.host else '(the target)'}",
        f"  vm      exec-mode {plan.exec_mode}, system-lib "
        f"{'auto' if plan.system_lib is None else str(plan.system_lib).lower()}",
        f"  time    {stages}",
    ]
    lines += [f"  dump    {path}.{fmt}" for fmt in result.dumps]
    write_stdout("\n".join(lines) + "\n")


@reports_errors
def compile_command(
    ctx: typer.Context,
    model: Annotated[str, typer.Argument(metavar="MODEL", help="The model (.onnx, .tflite, .pt2, ...).")],
    config: Annotated[
        list[str] | None,
        typer.Option("--config", "-c", metavar="NAME_OR_PATH", help=CONFIG_HELP, autocompletion=complete_config),
    ] = None,
    # Text, not Path: Path drops the trailing "/" that says "into this directory".
    output: Annotated[str | None, typer.Option("--output", "-o", metavar="PATH", help=OUTPUT_HELP)] = None,
    model_format: Annotated[
        ModelFormat | None, typer.Option("--model-format", help="The model format (default: from the suffix).")
    ] = None,
    input_shapes: Annotated[str | None, typer.Option("--input-shapes", metavar="SPEC", help=SHAPES_HELP)] = None,
    emit: Annotated[EmitFormat | None, typer.Option("--emit", metavar="FORMAT", help=EMIT_HELP)] = None,
    tvm_version: Annotated[str | None, typer.Option("--tvm-version", metavar="X.Y", help=TVM_VERSION_HELP)] = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Show TVM's own output (log, full errors); also TVMC_VERBOSE=1.")
    ] = False,
    isolated: Annotated[bool, typer.Option("--isolated", help=ISOLATED_HELP)] = False,
) -> None:
    """Compile MODEL with the resolved config (same --config and rewrites as `config show`)."""
    from tvmc import api
    from tvmc.build.model import model_spec
    from tvmc.shapes import parse_input_shapes

    shapes = parse_input_shapes(input_shapes) if input_shapes is not None else None
    spec = model_spec(model, model_format.value if model_format else None, shapes)
    resolved = api.resolve(config or [], ordered_rewrite_flags(ctx), isolated=isolated)
    for note in resolved.notes:
        warn(note)
    if tvm_version is not None and emit not in (EmitFormat.tvmc, EmitFormat.relay):
        from tvmc.errors import UsageError

        raise UsageError("--tvm-version applies to --emit tvmc and --emit relay only", "--tvm-version")
    if emit is None:
        from_env = not resolved.participation.isolated and os.environ.get("TVMC_VERBOSE", "") not in ("", "0")
        _build(resolved, spec, output, verbose or from_env)
        return
    path = Path(output) if output is not None else None
    text = _emit(emit, resolved, spec, tvm_version)
    if path is None:
        write_stdout(text)
        return
    from tvmc.fileio import write_atomic

    write_atomic(path, text, inputs=_inputs(resolved, spec.path))


def register(app: typer.Typer) -> None:
    """Add the top-level `compile` command."""
    app.command("compile", cls=RewriteCommand, no_args_is_help=True)(compile_command)
