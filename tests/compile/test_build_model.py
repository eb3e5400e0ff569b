"""Model formats, default output names, and the README's model (`scripts/make_model.py`)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from tvmc.backend.model import guess_format, model_spec
from tvmc.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        ("m.onnx", "onnx"),
        ("M.ONNX", "onnx"),
        ("a/b.tflite", "tflite"),
        ("m.pt2", "pytorch"),
        ("m.pth", "pytorch"),
        ("m.zip", "pytorch"),
        ("m.h5", "keras"),
        ("m.pb", "pb"),
        ("m.pdmodel", "paddle"),
        ("m.relay", "relay"),
    ],
)
def test_format_from_suffix(path: str, fmt: str) -> None:
    assert guess_format(path) == fmt


def test_unknown_suffix_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match=r"cannot guess the model format of 'm' .*give --model-format"):
        guess_format("m")


def test_default_output_is_named_after_the_model() -> None:
    spec = model_spec("models/mlp.onnx", None, None)
    assert spec.default_output("so") == "mlp.so" and spec.default_output("tar") == "mlp.tar"
    assert model_spec("x/.onnx", "onnx", None).default_output("so") == ".onnx.so"


@pytest.mark.tvm
def test_shipped_model_is_what_the_script_writes(make_model: ModuleType, tmp_path: Path) -> None:
    pytest.importorskip("onnx", reason="onnx is not installed (pip install -e '.[tvm]')")
    out = tmp_path / "mlp.onnx"
    assert make_model.main(["-o", str(out)]) == 0
    assert out.read_bytes() == (ROOT / "models" / "mlp.onnx").read_bytes()


def test_reference_is_an_mlp(make_model: ModuleType) -> None:
    np = pytest.importorskip("numpy")
    x = np.ones((2, make_model.IN_FEATURES), dtype="float32")
    y = make_model.reference(x)
    assert y.shape == (2, make_model.OUT_FEATURES) and (y >= 0).all() and y.any()
