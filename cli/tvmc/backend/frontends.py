"""Model import through TVM's relax frontends (TVM >= 0.25). TVM and the frameworks are untyped: `Any`."""

from __future__ import annotations

import importlib
from typing import Any

from tvmc import deps
from tvmc.backend.model import FORMATS, ModelSpec, check_exists
from tvmc.errors import BuildError, did_you_mean
from tvmc.shapes import Shapes

WHY = {
    "onnx": "importing ONNX models",
    "tflite": "importing TFLite models",
    "torch": "importing PyTorch exported programs",
}


def _missing(package: str) -> BuildError:
    return deps.missing_error([deps.PACKAGES[package]], WHY.get(package, f"this model format ({package})"))


def require(package: str) -> Any:
    """Import a framework package, or say which one to install."""
    try:
        return importlib.import_module(package)
    except ImportError:
        raise _missing(package) from None


def check_available(model: ModelSpec) -> None:
    """Before a build starts (the child process imports the package): is the model's framework
    package installed? Found without importing it (torch takes seconds)."""
    package = FORMATS[model.format].package
    if package is not None and not deps.is_importable(package):
        raise _missing(package)


def shape_dict(shapes: Shapes | None) -> dict[str, list[Any]] | None:
    """{name: dims} for a frontend; a dynamic dimension becomes a symbolic int64 variable."""
    if shapes is None:
        return None
    tvm = importlib.import_module("tvm")
    return {
        name: [tvm.tirx.Var(f"{name}_dim{i}", "int64") if d is None else d for i, d in enumerate(shape)]
        for name, shape in shapes.items()
    }


def check_input_names(shapes: Shapes | None, inputs: list[str]) -> None:
    for name in shapes or {}:
        if name not in inputs:
            raise BuildError(
                f"the model has no input {name!r} (inputs: {', '.join(inputs) or 'none'})",
                "--input-shapes",
                suggestions=did_you_mean(name, inputs),
            )


def import_model(model: ModelSpec) -> Any:
    """The model as a relax IRModule (weights bound as constants)."""
    path = str(check_exists(model))
    fmt = FORMATS[model.format]
    if model.format == "onnx":
        onnx = require("onnx")
        proto = onnx.load(path)
        initializers = {t.name for t in proto.graph.initializer}
        check_input_names(model.shapes, [i.name for i in proto.graph.input if i.name not in initializers])
        frontend = importlib.import_module("tvm.relax.frontend.onnx")
        return frontend.from_onnx(proto, shape_dict=shape_dict(model.shapes))
    if model.format == "tflite":
        tflite = require("tflite")
        with open(path, "rb") as handle:
            tfl_model = tflite.Model.GetRootAsModel(handle.read(), 0)
        frontend = importlib.import_module("tvm.relax.frontend.tflite")
        return frontend.from_tflite(tfl_model, shape_dict=shape_dict(model.shapes))
    if model.format == "pytorch":
        torch = require("torch")
        program = torch.export.load(path)
        frontend = importlib.import_module("tvm.relax.frontend.torch")
        return frontend.from_exported_program(program)
    raise BuildError(f"model format {fmt.name!r}: {fmt.why_not_modern}", "--model-format")
