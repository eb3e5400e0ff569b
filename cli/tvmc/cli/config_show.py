"""The body of `tvmc config show`, without click: the typer command (tvmc.cli.config_cmd) and the
fast path (tvmc.cli.fast, for the command lines it reads in full) both call `show`, so both
print what the same function prints."""

from __future__ import annotations

from tvmc.cli.output import warn, write_stdout
from tvmc.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from tvmc.sources import SearchDir

FORMATS = ("toml", "json")
AS = ("config", "tvm-target")


def refuse_conflicts(*, hash_: bool, origin: bool, as_: str, format: str, format_given: bool) -> None:
    """`config show` options that one another would silently override are a usage error naming
    both: --hash prints only the fingerprint, --as tvm-target only TVM's JSON."""
    tvm_target = as_ == "tvm-target"
    format_ = f"--format {format}"
    pairs = [
        (hash_ and origin, "--hash", "--origin"),
        (hash_ and tvm_target, "--hash", "--as tvm-target"),
        (hash_ and format_given, "--hash", format_),
        (tvm_target and origin, "--as tvm-target", "--origin"),
        (tvm_target and format_given and format != "json", "--as tvm-target", format_),
    ]
    for conflict, first, second in pairs:
        if conflict:
            raise UsageError(f"{first} and {second} cannot be used together")


def show(
    configs: Sequence[str],
    rewrites: Sequence[tuple[str, str]],
    *,
    format: str = "toml",
    format_given: bool = False,
    origin: bool = False,
    isolated: bool = False,
    search: Callable[[], Sequence[SearchDir] | None] | None = None,
    hash_: bool = False,
    as_: str = "config",
    output: Path | None = None,
    from_: Path | None = None,
) -> None:
    """Print the resolved, canonical config of `configs` and `rewrites` (the rewrite flags as
    (flag, value) in command-line order) on the search path `search` makes (None, or None made:
    the usual one; made only when the config is resolved, as --search-path's checks come after
    the other usage errors), as the options of `config show` ask."""
    from tvmc import api
    from tvmc.emit import canonical

    refuse_conflicts(hash_=hash_, origin=origin, as_=as_, format=format, format_given=format_given)
    if from_ is not None:
        if configs or rewrites:
            raise UsageError("--from LIBRARY shows the library's own config: give no --config or rewrite with it")
        resolved = api.from_library(from_, source="--from")
    else:
        dirs = search() if search is not None else None
        resolved = api.resolve(list(configs), list(rewrites), search=dirs, isolated=isolated)
    for note in resolved.notes:
        warn(note)
    if hash_:
        text = resolved.fingerprint() + "\n"
    elif as_ == "tvm-target":
        from tvmc.emit.tvm_target import to_tvm_target_text

        text, dropped = to_tvm_target_text(resolved.config)
        for line in dropped:
            warn(f"not in the TVM target: {line}")
    elif format == "json" and origin:
        text = canonical.to_json(resolved.to_dict(), resolved.origins, resolved.participation.to_dict())
    elif format == "json":
        text = canonical.to_json(resolved.to_dict())
    elif origin:
        text = f"# {resolved.participation.summary()}\n" + canonical.origin_view(resolved.to_dict(), resolved.origins)
    else:
        text = canonical.to_toml(resolved.to_dict())
    if output is None:
        write_stdout(text)
        return
    from tvmc.fileio import write_atomic

    write_atomic(output, text, inputs=resolved.tree.inputs)
