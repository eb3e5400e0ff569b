"""Shell-completion callbacks for option values: config names, targets, executors, runtimes.

Every TAB runs tvmc afresh, so these stay as cheap as the command itself: config names come from
directory listings of the search path (one `scandir` per search directory, for the part of the
name typed so far), never from reading a config file; tags, kinds and options from the registry.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import click
from click.shell_completion import CompletionItem

_SUFFIXES = (".toml", ".json")
_PATH_STARTS = ("/", "./", "../", "~")


def _entries(directory: str) -> Iterator[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as it:
            yield from it
    except OSError:  # missing, unreadable, not a directory: nothing to offer
        return


def config_names(incomplete: str) -> list[str]:
    """Names on the search path that start with `incomplete`, a level at a time: `aws/` for the
    directory, `aws/c5` for `aws/c5.toml`; then TVM tags. Paths are left to the shell."""
    if incomplete.startswith(_PATH_STARTS) or incomplete.lower().endswith(_SUFFIXES):
        return []
    from tvmc.sources import name_problem, search_path
    from tvmc.sources.native import NATIVE

    head, _, _ = incomplete.rpartition("/")
    prefix = f"{head}/" if head else ""
    if head and name_problem(head) is not None:  # `..`, absolute names: nothing to list
        return []
    found: dict[str, None] = {}
    for directory in search_path():
        for entry in _entries(os.path.join(directory.path, head)):
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
    from tvmc import registry

    tags = [t for t in registry.tag_names() if t.startswith(incomplete)]
    return sorted(found) + [t for t in tags if t not in found]


def complete_config(incomplete: str) -> list[str]:
    """typer `autocompletion=` for `--config`."""
    return config_names(incomplete)


def _items(values: list[str], incomplete: str) -> list[CompletionItem]:
    return [CompletionItem(v) for v in values if v.startswith(incomplete)]


def complete_target(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """`--target`/`--target-host`: tag names and target kinds (not TVM's internal test kinds)."""
    from tvmc import registry

    return _items([*registry.tag_names(), *sorted(registry.public_kinds())], incomplete)


def complete_kind(incomplete: str) -> list[str]:
    """typer `autocompletion=` for a target kind (`target list --kind`); no TVM-internal test kind."""
    from tvmc import registry

    return [k for k in registry.public_kinds() if k.startswith(incomplete)]


def complete_kind_or_tag(incomplete: str) -> list[str]:
    """typer `autocompletion=` for `target show NAME`: kinds, then tags."""
    from tvmc import registry

    return [*complete_kind(incomplete), *(t for t in registry.tag_names() if t.startswith(incomplete))]


def complete_executor(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    from tvmc import registry

    return _items(list(registry.executors()), incomplete)


def complete_runtime(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    from tvmc import registry

    return _items(list(registry.runtimes()), incomplete)


def complete_pass_config(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """`--pass-config NAME=`: the pass-config names TVM registers."""
    from tvmc import registry

    return _items([f"{name}=" for name in sorted(registry.pass_configs())], incomplete)


def complete_bool(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    return _items(["true", "false"], incomplete)
