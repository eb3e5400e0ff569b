"""The options and arguments several commands share, each declared once (pip-tools' style): the
same flag has the same name, help, completion and checks wherever it appears."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from tvmc.cli.completion import complete_config
from tvmc.errors import UsageError

CONFIG_HELP = (
    "A config name on the search path (aws/c5, host/native for this machine, a TVM tag) or a TOML/JSON path; "
    "repeatable, layered in order."
)
SHAPES_HELP = (
    "Input shapes, e.g. 'x:[1,3,224,224] mask:[1,?]'; -1 or ? is a dynamic dimension, x:[] a scalar; "
    'quote names with spaces ("my input":[1]).'
)


class ModelFormat(StrEnum):
    onnx = "onnx"
    tflite = "tflite"
    pytorch = "pytorch"
    keras = "keras"
    pb = "pb"
    paddle = "paddle"
    relay = "relay"


Configs = Annotated[
    list[str] | None,
    typer.Option("--config", "-c", metavar="NAME_OR_PATH", help=CONFIG_HELP, autocompletion=complete_config),
]
Isolated = Annotated[bool, typer.Option("--isolated", help="Ignore user configs and TVMC_* variables.")]
Model = Annotated[str, typer.Argument(metavar="MODEL", help="The model (.onnx, .tflite, .pt2, ...).")]
ModelFormatOption = Annotated[
    ModelFormat | None, typer.Option("--model-format", help="The model format (default: from the suffix).")
]
InputShapes = Annotated[str | None, typer.Option("--input-shapes", metavar="SPEC", help=SHAPES_HELP)]
RpcTracker = Annotated[
    str | None, typer.Option("--rpc-tracker", metavar="HOST:PORT", help="Use a device of this RPC tracker.")
]
RpcKey = Annotated[str | None, typer.Option("--rpc-key", metavar="KEY", help="The tracker's device key.")]


def rpc_device(tracker: str | None, key: str | None) -> tuple[str, int, str] | None:
    """(host, port, key) of --rpc-tracker HOST:PORT --rpc-key KEY, which go together; None without them."""
    if (tracker is None) != (key is None):
        raise UsageError("--rpc-tracker and --rpc-key go together", "--rpc-tracker" if key is None else "--rpc-key")
    if tracker is None or key is None:
        return None
    host, sep, port = tracker.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"{tracker!r} is not HOST:PORT", "--rpc-tracker")
    return host, int(port), key
