"""`tvmc inspect LIBRARY`: what a library tvmc built is, from its manifest (no TVM needed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from tvmc.cli.common import reports_errors, warn, write_stdout
from tvmc.cli.options import format_option

_Library = Annotated[Path, typer.Argument(metavar="LIBRARY", help="A library `tvmc compile` wrote (.so or .tar).")]
_Format = Annotated[str, format_option(("text", "json"), "text or json (the manifest itself).")]


def register(app: typer.Typer) -> None:
    app.command("inspect")(inspect_command)


@reports_errors
def inspect_command(library: _Library, fmt: _Format = "text") -> None:
    """What a library tvmc built is: its manifest (config, model, inputs, CPU features).

    From the manifest `tvmc compile` linked into LIBRARY: versions, model file and SHA-256, the
    config and where each value came from, inputs and outputs, CPU features, tuning. No TVM needed.
    """
    from tvmc import manifest

    doc = manifest.require(library)
    try:  # shown as it is, and a damaged target named once (`run` refuses the library for it)
        manifest.target_kind(doc, str(library))
    except manifest.ManifestError as err:
        warn(err.message)
    if fmt == "json":
        write_stdout(json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        return
    write_stdout(text(library, doc))


def _get(doc: dict[str, Any], key: str) -> dict[str, Any]:
    value = doc.get(key)
    return value if isinstance(value, dict) else {}


def _entries(doc: dict[str, Any], key: str) -> list[dict[str, Any]]:
    entries = doc.get(key)
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def _tensor(entry: dict[str, Any]) -> str:
    from tvmc import manifest
    from tvmc.text import one_line

    line = f"  {one_line(str(entry.get('name')))}  {entry.get('dtype')}  {manifest.shape_text(entry.get('shape'))}"
    shape = entry.get("shape")
    dynamic = [d for d in shape if isinstance(d, str)] if isinstance(shape, list) else []
    if dynamic:
        line += f"  (dynamic: {', '.join(dynamic)})"
    model_shape = entry.get("model-shape")
    if model_shape is not None and model_shape != entry.get("shape"):
        line += f"  (the model: {manifest.shape_text(model_shape)})"
    index_range = entry.get("index-range")
    if isinstance(index_range, list) and len(index_range) == 2:  # another tvmc's manifest: not trusted
        low, high = index_range
        line += f"  (indexes: {low} ≤ value < {high})"
    elif entry.get("indexes"):
        line += "  (indexes a tensor of unknown size)"
    return line


def text(library: Path, doc: dict[str, Any]) -> str:
    """The manifest as `tvmc inspect` prints it: one fact a line, then the config's origin view."""
    from tvmc import manifest
    from tvmc.emit.canonical import origin_view, to_compact_json
    from tvmc.provenance import Origin
    from tvmc.text import one_line  # a path may hold a line break: one fact a line

    model, tuning, cpu = _get(doc, "model"), _get(doc, "tuning"), _get(doc, "cpu-features")
    target = _get(doc, "target")
    host = target.get("host")
    features = cpu.get("features")
    features = [str(f) for f in features] if isinstance(features, list) else []
    if tuning.get("database"):
        kernels = tuning.get("kernels")
        supplied = f": {tuning.get('kernels-from-records')} of {kernels} kernels from its records" if kernels else ""
        tuned = f"database {tuning['database']}{supplied}"
    else:
        tuned = "no tuning records applied"
    shapes = model.get("input-shapes")
    lines = [
        f"library      {one_line(str(library))} ({doc.get('output-format')}, {doc.get('format')})",
        f"built by     tvmc {doc.get('tvmc')}, TVM {doc.get('tvm')}, LLVM {doc.get('llvm')}",
        f"model        {model.get('file')} ({model.get('format')}, {model.get('size')} bytes, "
        f"sha256 {model.get('sha256')})",
        "input-shapes " + (to_compact_json(shapes) if shapes else "(the model's own)"),
        f"config       fingerprint {doc.get('fingerprint')}",
        f"target       {to_compact_json({k: v for k, v in target.items() if k != 'host'})}",
        f"host         {to_compact_json(host) if isinstance(host, dict) else '(the target)'}",
        f"cpu          {cpu.get('arch') or '-'}: "
        + (f"needs {', '.join(features)}" if features else "generic code (no CPU feature beyond the architecture's)"),
        f"tuning       {tuned}",
        "inputs:",
        *[_tensor(e) for e in manifest.input_signature(doc)],
        "outputs:",
        *[_tensor(e) for e in _entries(doc, "outputs")],
        "config (origin of each value):",
    ]
    recorded = _get(doc, "origins")
    origins = {str(p): Origin("flag", str(o)) for p, o in recorded.items()}
    view = origin_view(_get(doc, "config"), origins)
    lines += ["  " + line for line in view.splitlines()]
    return "\n".join(lines) + "\n"
