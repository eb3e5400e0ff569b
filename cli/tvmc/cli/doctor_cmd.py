"""`tvmc doctor [FEATURE...]`: what this installation can do, and the command that fixes what it cannot."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated

import typer

from tvmc.cli.common import reports_errors, write_stdout


class DoctorFormat(StrEnum):
    text = "text"
    json = "json"


# Written out (not read from tvmc.deps): `tvmc doctor --help` stays as cheap as every other help.
FEATURE_HELP = (
    "Features to require (exit 1 when one cannot run here): compile-onnx, compile-tflite, compile-torch, "
    "run, tune, rpc, jsonschema, fast-toml, or a cross compiler the shipped configs name "
    "(aarch64-linux-gnu-gcc: on PATH?). None: report only."
)


@reports_errors
def doctor_command(
    features: Annotated[list[str] | None, typer.Argument(metavar="[FEATURE]...", help=FEATURE_HELP)] = None,
    format: Annotated[
        DoctorFormat, typer.Option("--format", "-f", help="text, or json (stable keys, for CI).")
    ] = DoctorFormat.text,
) -> None:
    """Check this installation: versions, this CPU, what each feature needs and the command that fixes it.

    Prints the tvmc, Python, TVM, tvm-ffi and LLVM versions; this CPU as LLVM names it, with its
    features; for each feature whether it can run here and, if not, the one command that fixes it;
    known-bad versions; the cross compilers the shipped configs name (on PATH or not, with their
    Debian package); the cache, user-config and tuning-database paths.

    FEATURE: compile-onnx, compile-tflite, compile-torch, run, tune, rpc, jsonschema, fast-toml, or
    a cross compiler the shipped configs name (aarch64-linux-gnu-gcc: is it on PATH?).

    Exit status: with FEATUREs, 1 when one of them cannot run here; without, 1 only when something
    installed is broken (a known-bad version combination, a package that does not import); a missing
    optional package is reported, not an error."""
    from tvmc import api

    report = api.doctor(features or [])
    if format is DoctorFormat.json:
        write_stdout(json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        write_stdout(report.text())
    verdict = report.verdict()
    if verdict is not None:
        typer.echo(f"tvmc: doctor: {verdict}", err=True)
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add the top-level `doctor` command."""
    app.command("doctor")(doctor_command)
