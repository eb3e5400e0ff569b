"""`tvmc model inspect MODEL`: a model's inputs and outputs, what --input-shapes needs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from tvmc.cli.common import reports_errors, write_stdout
from tvmc.cli.options import format_option

app = typer.Typer(name="model", help="Look inside models.", no_args_is_help=True, rich_markup_mode=None)


@app.command("inspect")
@reports_errors
def inspect(
    model: Annotated[Path, typer.Argument(metavar="MODEL", help="An ONNX model.")],
    format: Annotated[str, format_option(("text", "json"), "text or json.")] = "text",
) -> None:
    """List the model's inputs and outputs: names, shapes (a dynamic dimension by its name, or ?)
    and dtypes. A dynamic input dimension is what --input-shapes can fix."""
    from tvmc.backend.model import guess_format_or_none
    from tvmc.backend.run import model_tensors
    from tvmc.errors import UsageError
    from tvmc.readfile import input_file
    from tvmc.text import one_line

    input_file(model, "MODEL")
    kind = guess_format_or_none(str(model))
    if kind not in (None, "onnx"):
        raise UsageError(f"{model} is a {kind} model by its name; model inspect reads ONNX models", "MODEL")
    inputs, outputs = model_tensors(model)
    if format == "json":
        doc = {
            side: [{"name": t.name, "shape": list(t.dims), "dtype": t.dtype} for t in tensors]
            for side, tensors in (("inputs", inputs), ("outputs", outputs))
        }
        write_stdout(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        return
    lines = []
    for side, tensors in (("inputs", inputs), ("outputs", outputs)):
        lines.append(f"{side}:")
        for t in tensors:
            dims = ", ".join(str(d) for d in t.dims)
            dynamic = [d for d in t.dims if isinstance(d, str)]
            note = f"  (dynamic: {', '.join(dynamic)})" if dynamic else ""
            lines.append(f"  {one_line(t.name)}  {t.dtype}  [{one_line(dims)}]{note}")
    write_stdout("\n".join(lines) + "\n")
