#!/usr/bin/env python3
"""Write the small ONNX model the README compiles: a two-layer MLP with fixed weights.

    y = relu(relu(x @ W1 + b1) @ W2 + b2)      x: float32[batch, 8]  →  y: float32[batch, 4]

`batch` is symbolic (fix it with `--input-shapes x:[1,8]`). The weights come from a seeded
generator, so the file is byte-identical on every run; `reference()` computes the same function
with numpy, for tests.

    scripts/make_model.py [-o models/mlp.onnx]
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
    args = parser.parse_args(argv)
    try:
        model = make_mlp()
    except ImportError as err:
        print(f"make_model: {err.name} is not installed (pip install onnx numpy)", file=sys.stderr)
        return 1
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_bytes(model.SerializeToString())
    print(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
