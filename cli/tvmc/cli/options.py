"""The options and arguments several commands share, each declared once (pip-tools' style): the
same flag has the same name, help, completion and checks wherever it appears."""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tvmc.cli.completion import complete_config
from tvmc.errors import UsageError

if TYPE_CHECKING:
    from tvmc.sources import SearchDir

CONFIG_HELP = "A config name (aws/c5, host/native: this machine, a TVM tag) or a TOML/JSON path; repeatable."
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
SEARCH_PATH_HELP = "Look config names up in DIR first (repeatable)."
SearchPaths = Annotated[
    list[Path] | None,
    typer.Option("--search-path", metavar="DIR", help=SEARCH_PATH_HELP, show_default=False),
]
Model = Annotated[str, typer.Argument(metavar="MODEL", help="The model (.onnx, .tflite, .pt2, ...).")]
ModelFormatOption = Annotated[
    ModelFormat | None, typer.Option("--model-format", help="The model format (default: from the suffix).")
]
InputShapes = Annotated[str | None, typer.Option("--input-shapes", metavar="SPEC", help=SHAPES_HELP)]
RpcTracker = Annotated[
    str | None, typer.Option("--rpc-tracker", metavar="HOST:PORT", help="Use a device of this RPC tracker.")
]
RpcKey = Annotated[str | None, typer.Option("--rpc-key", metavar="KEY", help="The tracker's device key.")]


def format_option(choices: tuple[str, ...], help: str) -> Any:
    """`--format`/`-f`, declared once: each command names the formats it writes (a registry's keys)
    and the parser refuses any other (a one-line usage error, exit 2)."""
    import click  # typer's own dependency, loaded with it

    return typer.Option("--format", "-f", click_type=click.Choice(list(choices)), help=help)


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


def search_dirs(extra: list[Path] | None, *, isolated: bool = False) -> list[SearchDir] | None:
    """The search path `--search-path DIR...` (and --isolated) make, or None without the flag (the
    API then builds the usual one). A DIR that is not a directory is a usage error: a hook or a CI
    job that names one means it."""
    if not extra:
        return None
    from tvmc import sources

    for directory in extra:
        if not os.path.isdir(directory):
            why = "no such directory" if not os.path.exists(directory) else "not a directory"
            raise UsageError(f"{str(directory)!r}: {why}", "--search-path")
    return sources.search_path(isolated=isolated, extra=extra)
