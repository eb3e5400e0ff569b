#!/usr/bin/env python3
"""Write the small ONNX models in models/: the MLP the README compiles, and a small CNN.

    mlp: y = relu(relu(x @ W1 + b1) @ W2 + b2)      x: float32[batch, 8]  →  y: float32[batch, 4]
    cnn: Conv(3→4, 3x3, pad 1) → Relu → MaxPool 2x2 → Flatten → Gemm(→5)
                                                     x: float32[1, 3, 8, 8] (NCHW) → y: float32[1, 5]

The MLP's `batch` is symbolic (fix it with `--input-shapes x:[1,8]`); the CNN's shapes are fixed.
The weights come from a seeded generator, so the files are byte-identical on every run;
`reference()` computes the MLP with numpy, for tests.

    scripts/make_model.py [-o models/mlp.onnx] [--cnn models/cnn.onnx]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

IN_FEATURES, HIDDEN, OUT_FEATURES = 8, 16, 4
SEED = 20250225
OPSET = 17


def weights() -> dict[str, Any]:
    import numpy as np

    rng = np.random.default_rng(SEED)
    return {
        "W1": rng.standard_normal((IN_FEATURES, HIDDEN)).astype("float32"),
        "b1": rng.standard_normal(HIDDEN).astype("float32"),
        "W2": rng.standard_normal((HIDDEN, OUT_FEATURES)).astype("float32"),
        "b2": rng.standard_normal(OUT_FEATURES).astype("float32"),
    }


def make_mlp() -> Any:
    """The model as an onnx.ModelProto (MatMul, Add, Relu; opset 17)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes = [
        helper.make_node("MatMul", ["x", "W1"], ["h0"]),
        helper.make_node("Add", ["h0", "b1"], ["h1"]),
        helper.make_node("Relu", ["h1"], ["h"]),
        helper.make_node("MatMul", ["h", "W2"], ["y0"]),
        helper.make_node("Add", ["y0", "b2"], ["y1"]),
        helper.make_node("Relu", ["y1"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", IN_FEATURES])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", OUT_FEATURES])],
        [numpy_helper.from_array(array, name) for name, array in weights().items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="tvmc")
    model.ir_version = 8  # readable by every onnx >= 1.10
    onnx.checker.check_model(model)
    return model


CNN_CHANNELS, CNN_SIZE, CNN_FILTERS, CNN_CLASSES = 3, 8, 4, 5


def make_cnn(batch: int | str = 1) -> Any:
    """A small NCHW CNN as an onnx.ModelProto (Conv, Relu, MaxPool, Flatten, Gemm; opset 17);
    `batch` a name makes the batch dimension dynamic."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(SEED + 1)
    flat = CNN_FILTERS * (CNN_SIZE // 2) ** 2
    params = {
        "conv_w": rng.standard_normal((CNN_FILTERS, CNN_CHANNELS, 3, 3)).astype("float32"),
        "conv_b": rng.standard_normal(CNN_FILTERS).astype("float32"),
        "fc_w": (rng.standard_normal((CNN_CLASSES, flat)) / np.sqrt(flat)).astype("float32"),
        "fc_b": rng.standard_normal(CNN_CLASSES).astype("float32"),
    }
    nodes = [
        helper.make_node("Conv", ["x", "conv_w", "conv_b"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["y"], transB=1),
    ]
    graph = helper.make_graph(
        nodes,
        "cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, CNN_CHANNELS, CNN_SIZE, CNN_SIZE])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, CNN_CLASSES])],
        [numpy_helper.from_array(array, name) for name, array in params.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="tvmc")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def reference(x: Any) -> Any:
    """What the model computes, with numpy."""
    import numpy as np

    w = weights()
    hidden = np.maximum(x @ w["W1"] + w["b1"], 0)
    return np.maximum(hidden @ w["W2"] + w["b2"], 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("models/mlp.onnx"),
        help="where to write the model (default: models/mlp.onnx)",
    )
    parser.add_argument(
        "--cnn", type=Path, default=Path("models/cnn.onnx"), help="where to write the CNN (default: models/cnn.onnx)"
    )
    args = parser.parse_args(argv)
    try:
        models = [(args.output, make_mlp()), (args.cnn, make_cnn())]
    except ImportError as err:
        print(f"make_model: {err.name} is not installed (pip install onnx numpy)", file=sys.stderr)
        return 1
    for path, model in models:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(model.SerializeToString())
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
