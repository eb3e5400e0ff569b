"""`tvmc run LIBRARY`: run a library `tvmc compile` built (Relax VM), check it against the model."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tvmc.cli.common import reports_errors, warn, write_stdout
from tvmc.cli.completion import choices
from tvmc.cli.options import InputShapes, RpcKey, RpcTimeout, RpcTracker, format_option, rpc_device

if TYPE_CHECKING:
    from tvmc.backend.run import OpProfile, RunResult

_Library = Annotated[Path, typer.Argument(metavar="LIBRARY", help="A library `tvmc compile` wrote (.so).")]
DEVICES = ("cpu", "cuda", "rocm", "vulkan", "opencl", "metal")
FILLS = ("random", "zeros", "ones")
FORMATS = ("text", "json")
_Device = Annotated[
    str | None,
    typer.Option(
        "--device",
        help="cpu, cuda, rocm, vulkan, opencl or metal (default: the library's own).",
        autocompletion=choices(DEVICES),
    ),
]
_Inputs = Annotated[Path | None, typer.Option("--inputs", metavar="NPZ", help="Inputs by name from an .npz file.")]
_Fill = Annotated[
    str, typer.Option("--fill", help="Generated inputs: random, zeros or ones.", autocompletion=choices(FILLS))
]
_Batch = Annotated[int, typer.Option("--batch", min=1, help="The size of a dynamic dimension in generated inputs.")]
_Force = Annotated[bool, typer.Option("--force", help="Run even when the manifest says the library cannot run here.")]
_Verbose = Annotated[bool, typer.Option("--verbose", "-v", help="Show TVM's output (also TVMC_VERBOSE=1).")]
_Outputs = Annotated[Path | None, typer.Option("--outputs", metavar="NPZ", help="Save the outputs to an .npz file.")]
_Top = Annotated[int, typer.Option("--print-top", min=0, help="Print the N largest values of each output.")]
_Time = Annotated[bool, typer.Option("--print-time", help="Time main with TVM's time_evaluator.")]
_Repeat = Annotated[int, typer.Option("--repeat", min=1, help="Timing: measurements.")]
_Number = Annotated[int, typer.Option("--number", min=1, help="Timing: runs per measurement.")]
_Check = Annotated[
    Path | None,
    typer.Option("--check", metavar="MODEL", help="Compare with the ONNX reference evaluator on the same inputs."),
]
_Profile = Annotated[
    bool, typer.Option("--profile", help="Per-function VM profile over --repeat runs: calls, time, shapes.")
]
_Format = Annotated[str, format_option(FORMATS, "text or json.")]
_Rtol = Annotated[
    float | None, typer.Option("--rtol", help="--check: relative tolerance of floats (default: by dtype).")
]
_Atol = Annotated[
    float | None, typer.Option("--atol", help="--check: absolute tolerance of floats (default: by dtype).")
]


def register(app: typer.Typer) -> None:
    app.command("run")(run_command)


@reports_errors
def run_command(
    library: _Library,
    device: _Device = None,
    inputs: _Inputs = None,
    fill: _Fill = "random",
    batch: _Batch = 1,
    input_shapes: InputShapes = None,
    outputs: _Outputs = None,
    print_top: _Top = 0,
    print_time: _Time = False,
    repeat: _Repeat = 3,
    number: _Number = 10,
    check: _Check = None,
    rtol: _Rtol = None,
    atol: _Atol = None,
    profile: _Profile = False,
    fmt: _Format = "text",
    rpc_tracker: RpcTracker = None,
    rpc_key: RpcKey = None,
    rpc_timeout: RpcTimeout = 60.0,
    force: _Force = False,
    verbose: _Verbose = False,
) -> None:
    """Run a library `tvmc compile` built (Relax VM); --check MODEL compares with ONNX's reference.

    Inputs come from --inputs NPZ (matched by name, checked against the library's manifest) or
    are generated from the manifest (--fill; --batch or --input-shapes for dynamic dimensions);
    outputs are named as in the model, summarised or saved (--outputs); --print-time times main
    with TVM's time_evaluator; --profile lists the functions the VM called with their time. The
    library is loaded and run in a child process. Exit 1 when a check is outside the tolerance.
    """
    import io

    from tvmc import api
    from tvmc.cli.progress import Progress
    from tvmc.errors import UsageError

    if device is not None and device not in DEVICES:  # a choice that is none: the command line's error
        from tvmc.errors import did_you_mean

        raise UsageError(
            f"unknown device {device!r} ({', '.join(DEVICES)})", "--device", suggestions=did_you_mean(device, DEVICES)
        )
    from tvmc.backend.run import writable_file

    rpc = rpc_device(rpc_tracker, rpc_key)
    if outputs is not None:
        writable_file(outputs, "--outputs", (library, inputs, check))
    with Progress(sys.stderr.isatty()) as progress:
        result = api.run(
            library,
            inputs,
            check=check,
            device=device,
            fill=fill,  # type: ignore[arg-type]  # checked by api.run
            batch=batch,
            input_shapes=input_shapes,
            rtol=rtol,
            atol=atol,
            time_it=print_time,
            repeat=repeat,
            number=number,
            profile=profile,
            on_stage=progress.stage,
            rpc=rpc,
            rpc_timeout=rpc_timeout,
            force=force,
            verbose=verbose or os.environ.get("TVMC_VERBOSE", "") not in ("", "0"),
        )
    for note in result.notes:
        warn(note)
    failed = any(not c.ok for c in result.checks)
    if fmt == "json":
        write_stdout(json.dumps(_json(result, print_top), indent=2) + "\n")
    else:
        write_stdout(_text(result, print_top))
    if outputs is not None:
        import numpy as np

        from tvmc.fileio import write_atomic

        buffer = io.BytesIO()
        np.savez(buffer, **result.outputs)
        write_atomic(outputs, buffer.getvalue(), inputs=(library, inputs, check), flag="--outputs")
    if failed:
        raise typer.Exit(1)


def time_unit(ms: float) -> tuple[float, str]:
    """(factor from ms, unit) that shows `ms` with a sensible number: ns, µs, ms or s."""
    if ms < 1e-3:
        return 1e6, "ns"
    if ms < 1:
        return 1e3, "µs"
    if ms < 1e3:
        return 1.0, "ms"
    return 1e-3, "s"


def _top(value: Any, n: int) -> list[tuple[int, float]]:
    flat = value.reshape(-1)
    return [(int(i), float(flat[i])) for i in flat.argsort()[::-1][:n]]


def _text(result: RunResult, print_top: int) -> str:
    lines = []
    for name, value in result.outputs.items():
        lines.append(f"{name}: shape {tuple(value.shape)} {value.dtype}")
        if print_top:
            lines.append("  top: " + ", ".join(f"[{i}] {v:.6g}" for i, v in _top(value, print_top)))
    if result.profile is not None:
        lines.append(_profile_table(result.profile))
    if result.timing:
        t = result.timing
        scale, unit = time_unit(t.median_ms)
        lines.append(
            f"time: mean {t.mean_ms * scale:.4g} {unit}, median {t.median_ms * scale:.4g} {unit}, "
            f"std {t.std_ms * scale:.3g} {unit}, min {t.min_ms * scale:.4g} {unit}, max {t.max_ms * scale:.4g} {unit} "
            f"({t.repeat} x {t.number} runs)"
        )
    for c in result.checks:
        tolerance = "exact" if c.rtol == 0 and c.atol == 0 else f"rtol {c.rtol:g} / atol {c.atol:g}"
        verdict = f"ok ({tolerance}, {c.dtype})" if c.ok else f"OUTSIDE {tolerance} ({c.dtype})"
        lines.append(f"check {c.output}: max abs error {c.max_abs:.3g}, max rel error {c.max_rel:.3g}: {verdict}")
    return "\n".join(lines) + "\n"


def _profile_table(ops: list[OpProfile]) -> str:
    if not ops:
        return "profile: the VM recorded no calls (exec-mode compiled runs without the VM's instrument hook)"
    total = sum(op.total_us for op in ops) or 1.0
    width = max(len("function"), *(len(op.name) for op in ops))
    rows = [f"{'function':<{width}}  {'calls':>6}  {'total us':>10}  {'mean us':>9}  {'%':>5}  shapes"]
    for op in ops:
        rows.append(
            f"{op.name:<{width}}  {op.calls:>6}  {op.total_us:>10.1f}  {op.mean_us:>9.2f}  "
            f"{100 * op.total_us / total:>5.1f}  {op.shapes}"
        )
    return "\n".join(rows)


def _json(result: RunResult, print_top: int) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "outputs": [
            {
                "name": name,
                "shape": list(value.shape),
                "dtype": str(value.dtype),
                **({"top": [{"index": i, "value": v} for i, v in _top(value, print_top)]} if print_top else {}),
            }
            for name, value in result.outputs.items()
        ]
    }
    if result.profile is not None:
        doc["profile"] = [
            {
                "function": op.name,
                "calls": op.calls,
                "total_us": op.total_us,
                "mean_us": op.mean_us,
                "shapes": op.shapes,
            }
            for op in result.profile
        ]
    if result.timing:
        doc["time_ms"] = vars(result.timing)
    if result.checks:
        doc["checks"] = [
            {
                "output": c.output,
                "dtype": c.dtype,
                "max_abs": c.max_abs,
                "max_rel": c.max_rel,
                "ok": c.ok,
                "rtol": c.rtol,
                "atol": c.atol,
            }
            for c in result.checks
        ]
    return doc
