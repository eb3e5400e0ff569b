"""What tvmc knows of a build before TVM runs it, for the library's manifest (issue 27): the config, its
fingerprint and origins, the model file, the target and the tuning records. `embed.complete_manifest`
adds what only the build knows. No TVM here (`--emit python` writes it into its script).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tvmc import __version__, manifest
from tvmc.build.plan import BuildPlan
from tvmc.config import CompilationConfig
from tvmc.provenance import Origin, walk


def file_digest(path: str | Path) -> tuple[str, int]:
    """SHA-256 (hex) and size of a file, read in chunks (models can be gigabytes). Self-contained:
    `--emit python` copies it into its script."""
    import hashlib

    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def base_manifest(
    config: CompilationConfig | None,
    origins: Mapping[str, Origin],
    environment: Mapping[str, Any],
    plan: BuildPlan,
    *,
    digest: bool = True,
) -> dict[str, Any]:
    """The manifest's fields tvmc knows before the build. `model.path` is where the build reads the
    model (dropped from the library's manifest: only the file's name, hash and size are kept);
    without `digest` the build hashes the model itself (the `--emit python` script)."""
    shapes = plan.model.shapes
    model: dict[str, Any] = {
        "format": plan.model.format,
        "file": Path(plan.model.path).name,
        "path": plan.model.path,
        "input-shapes": None if shapes is None else {k: list(v) for k, v in shapes.items()},
    }
    if digest:
        model["sha256"], model["size"] = file_digest(plan.model.path)
    doc: dict[str, Any] = {
        "format": manifest.FORMAT,
        "tvmc": __version__,
        "environment": dict(environment),
        "model": model,
        "target": plan.target,
        "output-format": plan.output_format,
        "tuning": {"database": plan.tuning},
    }
    if config is not None:
        data = config.to_dict()
        doc["config"] = data
        doc["fingerprint"] = config.fingerprint()
        doc["origins"] = {p: str(origins[p]) for p, _node in walk(data) if p and p in origins}
    return doc
