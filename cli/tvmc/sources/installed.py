"""Where the installed tvmc keeps what it ships beside its code: the config catalogue and the JSON
Schema of a config, and the `#:schema` line of the configs tvmc writes."""

from __future__ import annotations

from pathlib import Path

import tvmc

SCHEMA_FILE = "compilation-config.schema.json"


def _shipped(folder: str) -> Path | None:
    """`folder` inside the package (a wheel: tvmc/configs, tvmc/schemas) or at the top of the
    clone (an editable install), whichever exists: they sit beside each other in both, so a
    shipped config's `#:schema ../../schemas/…` holds in both."""
    package = Path(tvmc.__file__).resolve().parent
    for candidate in (package / folder, package.parents[1] / folder):
        if candidate.is_dir():
            return candidate
    return None


def shipped_config_dir() -> Path | None:
    """The configs shipped with tvmc."""
    return _shipped("configs")


def shipped_schema_file() -> Path | None:
    """The installed JSON Schema of a config (`tvmc config schema --path`), if it is there."""
    folder = _shipped("schemas")
    path = folder / SCHEMA_FILE if folder is not None else None
    return path if path is not None and path.is_file() else None


def schema_directive() -> str | None:
    """The `#:schema` line for a config tvmc writes (`config migrate`, `config detect`, the
    `host/native` cache): the installed schema as a file URI, which editors resolve wherever the
    file is written; None (no line) when the schema is not installed. Never a URL nothing serves."""
    path = shipped_schema_file()
    return f"#:schema {path.as_uri()}" if path is not None else None
