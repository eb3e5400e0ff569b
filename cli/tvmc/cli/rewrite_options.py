"""The rewrite flags as click options, and their recovery in command-line order.

Commands that resolve a config (`config show`, `config validate`, `compile`, ...) use
`RewriteCommand`: it adds `--target`, `--set`, ... and every registry-generated
`--target-<kind>-<attr>` / `--executor-<name>-<opt>` / `--runtime-<name>-<opt>` flag, groups
them by kind in `--help`, and hands the command the flags *in argv order* (click collects each
option separately, which would lose the order that the rewrite semantics depend on).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

import click
from typer.core import TyperCommand

from tvmc.cli import completion

if TYPE_CHECKING:
    from tvmc.rewrites.flags import FlagSpec

ARGV_KEY = "tvmc.argv"
_GENERATED_KEY = "tvmc.generated-options"

# (declarations, metavar, help) of the hand-written rewrite flags.
_BASE_FLAGS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (
        ("--target",),
        "TARGET",
        "Replace the targets (repeat to give several): a tag, a JSON object, a legacy string such as "
        "'llvm -mcpu=cascadelake', or a tvmc comma list such as 'cmsis-nn, c'.",
    ),
    (("--target-host",), "TARGET", "Set the target host."),
    (("--executor",), "NAME", "Choose the executor (graph, aot, vm); options of another kind are dropped."),
    (("--runtime",), "NAME", "Choose the runtime (cpp, crt)."),
    (("--pass-config",), "NAME=VALUE", "Set a PassContext config (repeatable)."),
    (("-O", "--opt-level"), "N", "PassContext optimisation level (0-3)."),
    (
        ("--set",),
        "PATH=VALUE",
        "Set any config value; PATH+=VALUE appends to a list, e.g. --set 'targets[kind=llvm].mattr+=+avx2'.",
    ),
    (("--unset",), "PATH", "Remove a config value or list element."),
)


_GENERATED_PREFIXES = ("--target-", "--executor-", "--runtime-")
_BASE_NAMES = frozenset(name for decls, _, _ in _BASE_FLAGS for name in decls)


class _RewriteOption(click.Option):
    """A rewrite flag; `help_section` groups it in --help."""

    def __init__(self, *args: Any, help_section: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help_section = help_section


_COMPLETERS = {
    "--target": completion.complete_target,
    "--target-host": completion.complete_target,
    "--executor": completion.complete_executor,
    "--runtime": completion.complete_runtime,
    "--pass-config": completion.complete_pass_config,
}


def _option(param: str, decls: tuple[str, ...], metavar: str, help_: str, section: str) -> _RewriteOption:
    return _RewriteOption(
        [*decls, param],
        help_section=section,
        metavar=metavar,
        help=help_,
        multiple=True,
        expose_value=True,
        type=click.STRING,
        show_default=False,
        shell_complete=_COMPLETERS.get(decls[-1], completion.complete_bool if metavar == "BOOL" else None),
    )


@cache
def _base_options() -> tuple[_RewriteOption, ...]:
    return tuple(
        _option(decls[-1].lstrip("-").replace("-", "_"), decls, metavar, help_, "Rewrites")
        for decls, metavar, help_ in _BASE_FLAGS
    )


@cache
def _flag_specs() -> dict[str, FlagSpec]:
    """Every registry-generated flag and alias → its spec (specs in registry order)."""
    from tvmc.rewrites.flags import generated_flags  # here: building the ~370 specs takes ms

    by_name: dict[str, FlagSpec] = {}
    for spec in generated_flags().values():
        for decl in (spec.name, *spec.aliases):
            by_name[decl] = spec
    return by_name


@cache
def _generated_option(spec: FlagSpec) -> _RewriteOption:
    section = f"{spec.section.capitalize()} {spec.owner} options"
    param = "rw_" + spec.name.lstrip("-").replace("-", "_")
    return _option(param, (spec.name, *spec.aliases), spec.type.upper(), spec.help, section)


def _all_generated() -> list[_RewriteOption]:
    from tvmc.rewrites.flags import generated_flags

    return [_generated_option(spec) for spec in generated_flags().values()]


def _generated_for(args: list[str] | None, ctx: click.Context, no_args_is_help: bool) -> list[_RewriteOption]:
    """The generated options an invocation needs: all of them for help, completion and a flag that
    is not one (click's did-you-mean needs them); else only those its argv names. Building and
    parsing ~370 options costs more than validating a few dozen files."""
    if args is None or ctx.resilient_parsing or (not args and no_args_is_help):
        return _all_generated()
    wanted: dict[FlagSpec, None] = {}
    for token in args:
        if token == "--":
            break
        if token in ("--help", "-h"):
            return _all_generated()
        if not token.startswith(_GENERATED_PREFIXES):
            continue
        name = token.partition("=")[0]
        specs = _flag_specs()  # only now: a command line without such flags needs no spec
        if name in specs:
            wanted[specs[name]] = None
        elif name not in _BASE_NAMES:
            return _all_generated()
    return [_generated_option(spec) for spec in wanted]


class RewriteCommand(TyperCommand):
    """A typer command that also accepts every rewrite flag, in order.

    The command's own parameters stay in `params`; the rewrite options are added per invocation by
    `get_params`, and of the ~370 generated ones only those the command line uses (all of them for
    --help and completion)."""

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        args = ctx.meta.get(ARGV_KEY)
        known = ctx.meta.get(_GENERATED_KEY)
        if known is not None and known[0] is args and args is not None:
            generated = known[1]  # click asks several times per invocation; argv can be thousands of files
        else:
            generated = _generated_for(args, ctx, self.no_args_is_help)
            ctx.meta[_GENERATED_KEY] = (args, generated)
        help_option = self.get_help_option(ctx)
        return [*self.params, *_base_options(), *generated, *([help_option] if help_option is not None else [])]

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[ARGV_KEY] = list(args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        for param in self.get_params(ctx):
            if isinstance(param, _RewriteOption) and param.name:
                ctx.params.pop(param.name, None)
        return super().invoke(ctx)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        sections: dict[str, list[tuple[str, str]]] = {"Options": []}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            section = param.help_section if isinstance(param, _RewriteOption) else "Options"
            sections.setdefault(section, []).append(record)
        for name, rows in sections.items():
            if rows:
                with formatter.section(name):
                    formatter.write_dl(rows)


def ordered_rewrite_flags(ctx: click.Context) -> list[tuple[str, str]]:
    """The rewrite flags of this invocation as (canonical flag, value), in command-line order."""
    return list(_walk(ctx.meta.get(ARGV_KEY, []), ctx.command.get_params(ctx)))


def _walk(args: list[str], params: list[click.Parameter]) -> Iterator[tuple[str, str]]:
    by_name: dict[str, click.Parameter] = {}
    for param in params:
        if isinstance(param, click.Option):
            for decl in (*param.opts, *param.secondary_opts):
                by_name[decl] = param
    index = 0
    while index < len(args):
        token = args[index]
        index += 1
        if token == "--":
            return
        if not token.startswith("-") or token == "-":
            continue
        if token.startswith("--"):
            name, eq, value = token.partition("=")
        else:  # short option, possibly with the value attached (-O3)
            name, eq, value = token[:2], ("=" if len(token) > 2 else ""), token[2:]
        found = by_name.get(name)
        if found is None:
            continue
        param = found
        takes_value = isinstance(param, click.Option) and not param.is_flag and not param.count
        if takes_value and not eq:
            if index >= len(args):
                return
            value = args[index]
            index += 1
        if isinstance(param, _RewriteOption):
            yield name, value
