"""`tvmc run LIBRARY`: run a library `tvmc compile` built (Relax VM), check it against the model."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tvmc.cli.common import reports_errors, write_stdout

_Library = Annotated[Path, typer.Argument(metavar="LIBRARY", help="A library `tvmc compile` wrote (.so).")]
_Device = Annotated[str, typer.Option("--device", help="cpu, cuda, rocm, vulkan, opencl or metal.")]
_Inputs = Annotated[Path | None, typer.Option("--inputs", metavar="NPZ", help="Inputs by name from an .npz file.")]
_Fill = Annotated[str, typer.Option("--fill", help="Generated inputs: random, zeros or ones.")]
_Batch = Annotated[int, typer.Option("--batch", min=1, help="The size of a dynamic dimension in generated inputs.")]
_Outputs = Annotated[Path | None, typer.Option("--outputs", metavar="NPZ", help="Save the outputs to an .npz file.")]
_Top = Annotated[int, typer.Option("--print-top", min=0, help="Print the N largest values of each output.")]
_Time = Annotated[bool, typer.Option("--print-time", help="Time main with TVM's time_evaluator.")]
_Repeat = Annotated[int, typer.Option("--repeat", min=1, help="Timing: measurements.")]
_Number = Annotated[int, typer.Option("--number", min=1, help="Timing: runs per measurement.")]
_Check = Annotated[
    Path | None,
    typer.Option("--check", metavar="MODEL", help="Compare with the ONNX reference evaluator on the same inputs."),
]
_Rtol = Annotated[float, typer.Option("--rtol", help="--check: relative tolerance.")]
_Atol = Annotated[float, typer.Option("--atol", help="--check: absolute tolerance.")]


def register(app: typer.Typer) -> None:
    app.command("run")(run_command)


@reports_errors
def run_command(
    library: _Library,
    device: _Device = "cpu",
    inputs: _Inputs = None,
    fill: _Fill = "random",
    batch: _Batch = 1,
    outputs: _Outputs = None,
    print_top: _Top = 0,
    print_time: _Time = False,
    repeat: _Repeat = 3,
    number: _Number = 10,
    check: _Check = None,
    rtol: _Rtol = 1e-4,
    atol: _Atol = 1e-4,
) -> None:
    """Run a library `tvmc compile` built (Relax VM); --check MODEL compares with ONNX's reference.

    Inputs come from --inputs NPZ or are generated from --check's model signature (--fill,
    --batch for dynamic dimensions); outputs are summarised or saved (--outputs); --print-time
    times main with TVM's time_evaluator. Exit 1 when a check is outside the tolerance.
    """
    import io

    from tvmc.build import run as running
    from tvmc.errors import UsageError

    if fill not in ("random", "zeros", "ones"):
        raise UsageError(f"unknown fill {fill!r} (random, zeros or ones)", "--fill")
    if not library.is_file():
        raise UsageError(f"{library} is not a file", "LIBRARY")
    if inputs is not None:
        given = running.load_inputs(inputs)
    elif check is not None:
        given = running.generate_inputs(running.model_signature(check), fill, batch)  # type: ignore[arg-type]
    else:
        raise UsageError("give --inputs NPZ, or --check MODEL to generate inputs from the model", "tvmc run")
    result = running.run(library, given, device=device, time_it=print_time, repeat=repeat, number=number)
    lines = []
    for name, value in result.outputs.items():
        lines.append(f"{name}: shape {tuple(value.shape)} {value.dtype}")
        if print_top:
            flat = value.reshape(-1)
            top = flat.argsort()[::-1][:print_top]
            lines.append("  top: " + ", ".join(f"[{int(i)}] {float(flat[i]):.6g}" for i in top))
    if result.timing:
        t = result.timing
        lines.append(
            f"time: mean {t.mean_ms:.6g} ms, median {t.median_ms:.6g} ms, std {t.std_ms:.3g} ms, "
            f"min {t.min_ms:.6g} ms, max {t.max_ms:.6g} ms ({t.repeat} x {t.number} runs)"
        )
    failed = False
    if check is not None:
        for c in running.check(result, check, rtol=rtol, atol=atol):
            failed = failed or not c.ok
            verdict = "ok" if c.ok else f"OUTSIDE rtol {rtol:g} / atol {atol:g}"
            lines.append(f"check {c.output}: max abs error {c.max_abs:.3g}, max rel error {c.max_rel:.3g}: {verdict}")
    write_stdout("\n".join(lines) + "\n")
    if outputs is not None:
        import numpy as np

        from tvmc.fileio import write_atomic

        buffer = io.BytesIO()
        np.savez(buffer, **result.outputs)
        write_atomic(outputs, buffer.getvalue())
    if failed:
        raise typer.Exit(1)
