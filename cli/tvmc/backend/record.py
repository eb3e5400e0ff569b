"""What tvmc knows of a build before TVM runs it, for the library's manifest (issue 27): the config, its
fingerprint and origins, the model file, the target and the tuning records. `embed.complete_manifest`
adds what only the build knows. No TVM here (`--emit python` writes it into its script).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tvmc import __version__, manifest
from tvmc.backend.plan import BuildPlan
from tvmc.config import CompilationConfig
from tvmc.errors import Location
from tvmc.provenance import Origin, walk
from tvmc.sources.installed import shipped_config_dir


def origin_text(origin: Origin, shipped: Path | None) -> str:
    """An origin as the manifest records it: the same whatever the working directory (messages name
    a file relative to it, which made two builds of one config differ). A file by its absolute
    path, a shipped config by its name in the catalogue (`shipped:base/x.toml:3:1`): it comes with
    this version of tvmc, wherever that is installed."""
    file = getattr(origin.layer, "file", None)
    if origin.kind != "file" or not isinstance(file, str) or not Path(file).is_absolute():
        return str(origin)
    where = origin.location()
    name = file
    if shipped is not None and Path(file).is_relative_to(shipped):
        name = "shipped:" + Path(file).relative_to(shipped).as_posix()
    text = str(Location(name, where.line, where.col))
    return text + (" (via " + ", ".join(origin.chain) + ")" if origin.chain else "")


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
        shipped = shipped_config_dir()
        doc["origins"] = {p: origin_text(origins[p], shipped) for p, _node in walk(data) if p and p in origins}
    return doc
