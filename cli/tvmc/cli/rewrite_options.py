"""The rewrite flags as click options, and their recovery in command-line order.

Commands that resolve a config (`config show`, `config validate`, `compile`, ...) use
`RewriteCommand`: it adds `--target`, `--set`, ... and every registry-generated
`--target-<kind>-<attr>` / `--executor-<name>-<opt>` / `--runtime-<name>-<opt>` flag, and hands
the command the flags *in argv order* (click collects each option separately, which would lose
the order that the rewrite semantics depend on). The ~370 generated flags are hidden from
`--help`, which names their pattern instead (`tvmc target show KIND` lists a kind's), and are
still offered by shell completion.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Iterable, Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

import click
from click.shell_completion import CompletionItem
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
        "Replace the targets (repeatable): a tag, JSON, a legacy string ('llvm -mcpu=x') or a comma list.",
    ),
    (("--target-host",), "TARGET", "Set the target host."),
    (("--executor",), "NAME", "Set the executor (graph, aot, vm), dropping the old one's options."),
    (("--runtime",), "NAME", "Set the runtime (cpp, crt)."),
    (("--pass-config",), "NAME=VALUE", "Set a PassContext config (repeatable)."),
    (("-O", "--opt-level"), "N", "PassContext optimisation level (0-3)."),
    (
        ("--set",),
        "PATH=VALUE",
        "Set any config value; PATH+=VALUE appends to a list: 'targets[kind=llvm].mattr+=+avx2'.",
    ),
    (("--unset",), "PATH", "Remove a config value or list element."),
)


_GENERATED_PREFIXES = ("--target-", "--executor-", "--runtime-")
_BASE_NAMES = frozenset(name for decls, _, _ in _BASE_FLAGS for name in decls)


class _RewriteOption(click.Option):
    """A rewrite flag (a hidden one: a registry-generated flag)."""


_COMPLETERS = {
    "--target": completion.complete_target,
    "--target-host": completion.complete_target,
    "--executor": completion.complete_executor,
    "--runtime": completion.complete_runtime,
    "--pass-config": completion.complete_pass_config,
    "--set": completion.complete_set,
    "--unset": completion.complete_path,
}


def _option(
    param: str,
    decls: tuple[str, ...],
    metavar: str,
    help_: str,
    *,
    hidden: bool = False,
    values: completion.Completer | None = None,
) -> _RewriteOption:
    return _RewriteOption(
        [*decls, param],
        hidden=hidden,
        metavar=metavar,
        help=help_,
        multiple=True,
        expose_value=True,
        type=click.STRING,
        show_default=False,
        shell_complete=values or _COMPLETERS.get(decls[-1], completion.complete_bool if metavar == "BOOL" else None),
    )


@cache
def _base_options() -> tuple[_RewriteOption, ...]:
    return tuple(
        _option(decls[-1].lstrip("-").replace("-", "_"), decls, metavar, help_) for decls, metavar, help_ in _BASE_FLAGS
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
    from tvmc.flag_docs import flag_help

    param = "rw_" + spec.name.lstrip("-").replace("-", "_")
    values = completion.option_values(spec.section, spec.owner, spec.option, spec.type)
    return _option(param, (spec.name, *spec.aliases), spec.type.upper(), flag_help(spec), hidden=True, values=values)


def _all_generated() -> list[_RewriteOption]:
    from tvmc.rewrites.flags import generated_flags

    return [_generated_option(spec) for spec in generated_flags().values()]


def _generated_for(args: list[str] | None, ctx: click.Context, no_args_is_help: bool) -> list[_RewriteOption]:
    """The generated options an invocation needs: all of them for help, for completing an option
    (its name, or `--opt=VALUE`: the word may name any of them) and for a flag that is not one
    (click's did-you-mean needs them); else only those its argv names, also when a TAB completes
    a value or an argument (the options its command line names are all the parse can meet).
    Building and parsing ~370 options costs more than validating a few dozen files."""
    if args is None or (not args and no_args_is_help):
        return _all_generated()
    if ctx.resilient_parsing:
        word = completion.completing.get()
        if word is None or word.startswith("-"):  # an option's name, or not a shell's TAB
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


class _HelpFormatter(click.HelpFormatter):
    """click's formatter, except that a definition's text is never broken at a hyphen: a flag such
    as `--target-llvm-mcpu` or a value such as `link-params` stays whole on its line."""

    def write_dl(self, rows: Iterable[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        rows = list(rows)
        first_col = min(max((len(first) for first, _ in rows), default=0), col_max) + col_spacing
        text_width = max(self.width - first_col - 2, 10)
        for first, second in rows:
            self.write(f"{'':>{self.current_indent}}{first}")
            if not second:
                self.write("\n")
                continue
            if len(first) <= first_col - col_spacing:
                self.write(" " * (first_col - len(first)))
            else:
                self.write("\n" + " " * (first_col + self.current_indent))
            lines = textwrap.wrap(second, text_width, break_on_hyphens=False, break_long_words=False) or [""]
            self.write(lines[0] + "\n")
            for line in lines[1:]:
                self.write(f"{'':>{first_col + self.current_indent}}{line}\n")


class _Context(click.Context):
    formatter_class = _HelpFormatter


class RewriteCommand(TyperCommand):
    """A typer command that also accepts every rewrite flag, in order.

    The command's own parameters stay in `params`; the rewrite options are added per invocation by
    `get_params`, and of the ~370 generated ones only those the command line uses (all of them for
    --help and completion). `--help` lists the environment variables that change the resolved
    config, unless `environment_help` is false."""

    environment_help = True
    context_class = _Context

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
        own: list[tuple[str, str]] = []
        rewrites: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            if isinstance(param, click.Argument):
                continue  # the usage line names it, the description explains it
            record = param.get_help_record(ctx)  # None for a hidden (generated) flag
            if record is not None:
                (rewrites if isinstance(param, _RewriteOption) else own).append(record)
        with formatter.section("Options"):
            formatter.write_dl(own, col_max=26)  # a longer option goes on its own line: more room for text
        with formatter.section("Rewrites, applied in command-line order"):
            formatter.write_dl([*rewrites, *_generated_rows()])
        if self.environment_help:
            with formatter.section("Environment"):
                formatter.write_dl(_environment_rows())

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        """Option names as click offers them, and the hidden generated flags too (but not those
        of TVM's internal test kinds)."""
        from tvmc.flag_docs import flag_is_internal

        results = super().shell_complete(ctx, incomplete)
        if incomplete.startswith(_GENERATED_PREFIXES):
            for param in self.get_params(ctx):
                if isinstance(param, _RewriteOption) and param.hidden:
                    results.extend(
                        CompletionItem(name, help=param.help)
                        for name in param.opts
                        if name.startswith(incomplete) and not flag_is_internal(name)
                    )
        return results


def _generated_rows() -> list[tuple[str, str]]:
    """One --help row per family of generated flags, instead of ~370 rows."""
    from tvmc import registry

    rows = [
        (
            "--target-KIND-ATTR VALUE",
            "Set ATTR on every KIND target (--target-llvm-mcpu znver3); one flag per option of every "
            "target kind: `tvmc target show KIND` lists them.",
        )
    ]
    for section in ("executor", "runtime"):
        options = "; ".join(
            f"{name}: {', '.join(comp.options)}" for name, comp in registry.components(section).items() if comp.options
        )
        rows.append((f"--{section}-NAME-OPT VALUE", f"Set an option of the {section} NAME ({options})."))
    return rows


def _environment_rows() -> list[tuple[str, str]]:
    """The environment variables that change the resolved config, and the search path."""
    from tvmc.layering import BASE_ENV, DEFAULT_BASE
    from tvmc.rewrites import ENV_FLAGS
    from tvmc.sources import ENV_VAR

    return [
        (BASE_ENV, f"The base configs (comma-separated) when no --config is given; default {DEFAULT_BASE}."),
        (
            ENV_VAR,
            f"Directories ({os.pathsep}-separated) searched for config names before "
            "$XDG_CONFIG_HOME/tvmc/configs (~/.config/...) and the shipped ones: `tvmc config list`.",
        ),
        ("TVMC_<FLAG>", f"{', '.join(ENV_FLAGS)}: as that flag, before the command line's flags."),
        ("TVMC_ISOLATED", "1: as --isolated (no user configs, no TVMC_* variables)."),
    ]


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
