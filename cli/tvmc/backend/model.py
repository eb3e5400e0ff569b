"""The model to compile: its path, format (guessed from the suffix) and input shapes. No TVM here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tvmc.errors import BuildError, UsageError
from tvmc.readfile import input_file
from tvmc.records import record
from tvmc.shapes import Shapes
from tvmc.validate.legacy import MODERN_HINT


@record(frozen=True)
class Format:
    """A model format (all of them readable by old tvmc) and how TVM >= 0.25 imports it, if it can."""

    name: str
    suffixes: tuple[str, ...]
    modern: str | None = None  # the relax frontend function
    package: str | None = None  # the Python package it needs
    loader: str | None = None  # how that package reads the file
    why_not_modern: str = ""


FORMATS: dict[str, Format] = {
    "onnx": Format("onnx", (".onnx",), "tvm.relax.frontend.onnx.from_onnx", "onnx", "onnx.load"),
    "tflite": Format(
        "tflite", (".tflite",), "tvm.relax.frontend.tflite.from_tflite", "tflite", "tflite.Model.GetRootAsModel"
    ),
    # TVM >= 0.25 imports torch.export programs (.pt2); old tvmc read TorchScript (.pth/.zip).
    "pytorch": Format(
        "pytorch",
        (".pt2", ".pth", ".zip"),
        "tvm.relax.frontend.torch.from_exported_program",
        "torch",
        "torch.export.load",
    ),
    "keras": Format("keras", (".h5",), why_not_modern="TVM >= 0.25 has no Keras frontend; export to ONNX"),
    "pb": Format("pb", (".pb",), why_not_modern="TVM >= 0.25 has no TensorFlow frontend; convert to ONNX"),
    "paddle": Format(
        "paddle", (".pdmodel",), why_not_modern="TVM >= 0.25 has no PaddlePaddle frontend; export to ONNX"
    ),
    "relay": Format("relay", (".relay",), why_not_modern="Relay text exists only in TVM <= 0.19"),
}
EXPORTED_PROGRAM_SUFFIX = ".pt2"


@record(frozen=True)
class ModelSpec:
    """What to import: `path` as given (emitted code keeps it as written), format, input shapes."""

    path: str
    format: str
    shapes: Shapes | None = None

    @property
    def stem(self) -> str:
        return Path(self.path).stem or "module"

    def default_output(self, suffix: str) -> str:
        """`models/mlp.onnx` → `mlp.so` (in the current directory, like a compiler's output)."""
        return f"{self.stem}.{suffix}"

    @property
    def is_exported_program(self) -> bool:
        return self.format == "pytorch" and self.path.endswith(EXPORTED_PROGRAM_SUFFIX)


def import_step(model: ModelSpec) -> dict[str, Any]:
    """The import as data: how the file is read and which frontend converts it (TVM >= 0.25)."""
    fmt = FORMATS[model.format]
    args: dict[str, Any] = {}
    if model.shapes is not None:
        args["shape_dict"] = {name: list(shape) for name, shape in model.shapes.items()}
    return {
        "step": "import",
        "path": model.path,
        "format": model.format,
        "load": fmt.loader,
        "call": fmt.modern,
        "args": args,
    }


def guess_format(path: str) -> str:
    """The model format from the file suffix, as old tvmc guessed it (plus `.pt2`)."""
    suffix = Path(path).suffix.lower()
    for fmt in FORMATS.values():
        if suffix in fmt.suffixes:
            return fmt.name
    known = ", ".join(f"{s} ({f.name})" for f in FORMATS.values() for s in f.suffixes)
    raise UsageError(
        f"cannot guess the model format of {path!r} from its suffix (known: {known})",
        "MODEL",
        hint="give --model-format",
    )


def model_spec(path: str, model_format: str | None, shapes: Shapes | None) -> ModelSpec:
    fmt = model_format or guess_format(path)
    if fmt not in FORMATS:
        raise UsageError(f"unknown model format {fmt!r} (known: {', '.join(FORMATS)})", "--model-format")
    return ModelSpec(path, fmt, shapes)


LEGACY_HINT = "use --emit tvmc or --emit relay for TVM 0.18 or 0.19"


def check_modern(model: ModelSpec) -> None:
    """Raise when TVM >= 0.25 cannot import this model."""
    fmt = FORMATS[model.format]
    where = "--model-format" if model.format != guess_format_or_none(model.path) else "MODEL"
    if fmt.modern is None:
        raise BuildError(f"model format {fmt.name!r}: {fmt.why_not_modern}", where, hint=LEGACY_HINT)
    if model.format == "pytorch" and not model.is_exported_program:
        raise BuildError(
            "TVM >= 0.25 imports PyTorch models saved with torch.export.save (.pt2); "
            f"{Path(model.path).name!r} looks like TorchScript, which only TVM <= 0.19 reads",
            where,
            hint=LEGACY_HINT,
        )
    if model.format == "pytorch" and model.shapes:
        raise BuildError("a torch.export program carries its own input shapes", "--input-shapes")
    if model.format == "tflite" and any(d is None for s in (model.shapes or {}).values() for d in s):
        raise BuildError("the TFLite frontend takes static shapes only (no -1 / ? dimensions)", "--input-shapes")


def check_legacy(model: ModelSpec) -> None:
    """Raise when old tvmc / Relay (TVM <= 0.19) cannot import this model."""
    if model.is_exported_program:
        raise BuildError(
            "TVM 0.18/0.19 cannot read torch.export programs (.pt2); it reads TorchScript (.pth/.zip)",
            "MODEL",
            hint=MODERN_HINT,
        )
    if model.format == "pytorch" and not model.shapes:
        raise BuildError("TVM <= 0.19 needs --input-shapes for PyTorch models", "--input-shapes")


def guess_format_or_none(path: str) -> str | None:
    try:
        return guess_format(path)
    except UsageError:
        return None


def check_exists(model: ModelSpec) -> Path:
    path = Path(model.path)
    input_file(path, "MODEL")  # a device or a FIFO: reading it could be endless or hang
    return path
