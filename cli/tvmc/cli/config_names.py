"""Config names for shell completion, level by level (`aws/` then `aws/c5`), then TVM tags: without
click, so that tvmc.cli.fast completes a --config value without loading the CLI (tvmc.cli.completion
offers them through click)."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing is not imported at run time: a TAB waits for this module
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from tvmc.sources import SearchDir

_SUFFIXES = (".toml", ".json")
_PATH_STARTS = ("/", "./", "../", "~")


def _entries(directory: str) -> Iterator[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as it:
            yield from it
    except OSError:  # missing, unreadable, not a directory: nothing to offer
        return


def config_names(incomplete: str, dirs: Sequence[SearchDir] | None = None) -> list[str]:
    """Names on the search path (`dirs`, default the usual one) that start with `incomplete`, a
    level at a time: `aws/` for the directory, `aws/c5` for `aws/c5.toml`; then TVM tags. Paths
    are left to the shell."""
    if incomplete.startswith(_PATH_STARTS) or incomplete.lower().endswith(_SUFFIXES):
        return []
    from tvmc.sources import NATIVE, name_problem, search_path

    head, _, _ = incomplete.rpartition("/")
    prefix = f"{head}/" if head else ""
    if head and name_problem(head) is not None:  # `..`, absolute names: nothing to list
        return []
    found: dict[str, None] = {}
    for directory in search_path() if dirs is None else dirs:
        for entry in _entries(os.path.join(directory.text, head)):
            if entry.name.startswith("."):
                continue
            stem, suffix = os.path.splitext(entry.name)
            if suffix in _SUFFIXES and entry.is_file():
                name = prefix + stem
            elif not suffix and entry.is_dir():
                name = prefix + entry.name + "/"
            else:
                continue
            if name.startswith(incomplete) and name_problem(name.rstrip("/")) is None:
                found[name] = None
    # host/native has no file until first used (sources.native), so no listing shows it.
    native_head, _, _ = NATIVE.rpartition("/")
    offered = NATIVE if head == native_head else f"{native_head}/" if not head else None
    if offered is not None and offered.startswith(incomplete):
        found[offered] = None
    tags = [t for t in tag_names() if t.startswith(incomplete)]
    return sorted(found) + [t for t in tags if t not in found]


def tag_names() -> list[str]:
    """`tvmc.registry.tag_names()`, from the same reader of the tag table (`tvmc.datafiles`) without
    importing the registry: its records and tables are more than a TAB keystroke needs."""
    from tvmc import datafiles

    return list(datafiles.tags())
