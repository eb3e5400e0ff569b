"""Where the installed tvmc keeps what it ships beside its code: the config catalogue and the JSON
Schema of a config, and the `#:schema` line of the configs tvmc writes."""

from __future__ import annotations

import os

import tvmc

# pathlib is imported only where a Path is returned: the search path (every `config show`) takes
# the shipped folder as text, and importing pathlib costs a quarter of a bare Python's start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

SCHEMA_FILE = "compilation-config.schema.json"


def shipped_folder(folder: str) -> str | None:
    """`folder` inside the package (a wheel: tvmc/configs, tvmc/schemas) or at the top of the
    clone (an editable install), whichever exists, as an absolute path with symbolic links
    resolved: they sit beside each other in both, so a shipped config's `#:schema ../../schemas/…`
    holds in both."""
    package = os.path.dirname(os.path.realpath(tvmc.__file__))
    for candidate in (os.path.join(package, folder), os.path.join(os.path.dirname(os.path.dirname(package)), folder)):
        if os.path.isdir(candidate):
            return candidate
    return None


def shipped_config_dir() -> Path | None:
    """The configs shipped with tvmc."""
    from pathlib import Path

    folder = shipped_folder("configs")
    return Path(folder) if folder is not None else None


def shipped_schema_file() -> Path | None:
    """The installed JSON Schema of a config (`tvmc config schema --path`), if it is there."""
    from pathlib import Path

    folder = shipped_folder("schemas")
    path = os.path.join(folder, SCHEMA_FILE) if folder is not None else None
    return Path(path) if path is not None and os.path.isfile(path) else None


def schema_directive() -> str | None:
    """The `#:schema` line for a config tvmc writes (`config migrate`, `config detect`, the
    `host/native` cache): the installed schema as a file URI, which editors resolve wherever the
    file is written; None (no line) when the schema is not installed. Never a URL nothing serves."""
    path = shipped_schema_file()
    return f"#:schema {path.as_uri()}" if path is not None else None
