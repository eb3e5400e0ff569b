"""Shell-completion callbacks for option values: config names, targets, executors, runtimes.

Every TAB runs tvmc afresh, so these stay as cheap as the command itself: config names come from
directory listings of the search path (one `scandir` per search directory, for the part of the
name typed so far), never from reading a config file; tags, kinds and options from the registry.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import click
from click.shell_completion import CompletionItem

from tvmc.cli.config_names import config_names

if TYPE_CHECKING:
    from tvmc.sources import SearchDir

Completer = Callable[[click.Context, click.Parameter, str], list[CompletionItem]]

# The word a shell's TAB completes, while its completion runs (None otherwise): a command needs only
# the options its command line names to find where that word belongs (tvmc.cli.rewrite_options).
completing: ContextVar[str | None] = ContextVar("completing", default=None)


def _isolated(ctx: click.Context | None) -> bool:
    from tvmc.sources import is_isolated

    return bool(ctx is not None and ctx.params.get("isolated")) or is_isolated()


def search_dirs(ctx: click.Context | None) -> list[SearchDir]:
    """The search path of the command line being completed: its --search-path directories (those
    that exist), and no user directory or TVMC_CONFIG_PATH after --isolated."""
    from tvmc.sources import search_path

    extra = [d for d in (ctx.params.get("search") or [] if ctx is not None else []) if os.path.isdir(d)]
    return search_path(isolated=_isolated(ctx), extra=extra)


def complete_config(ctx: click.Context, incomplete: str) -> list[str]:
    """typer `autocompletion=` for `--config`: names, and `NAME:PART` parts."""
    dirs = search_dirs(ctx)
    head, colon, part = incomplete.rpartition(":")
    if colon and head and ":" not in head:
        return [f"{head}:{p}" for p in config_parts(head, dirs, _isolated(ctx)) if p.startswith(part)]
    return config_names(incomplete, dirs)


def config_parts(ref: str, dirs: Sequence[SearchDir], isolated: bool) -> list[str]:
    """What `REF:PART` can select: the kinds and keys of REF's targets and host (resolving REF)."""
    config = _resolved([ref], dirs, isolated)
    if config is None:
        return []
    parts: dict[str, None] = {}
    for target in [*config.get("targets", []), config.get("host") or {}]:
        for word in (target.get("kind"), *target.get("keys", ())):
            if isinstance(word, str) and word:
                parts[word] = None
    return list(parts)


def _resolved(refs: list[str], dirs: Sequence[SearchDir], isolated: bool) -> dict[str, Any] | None:
    """The canonical config `refs` resolve to, or None when they do not (a TAB shows no error)."""
    from tvmc import api
    from tvmc.errors import TvmcError

    try:
        return api.resolve(refs, search=dirs, isolated=isolated).to_dict()
    except (TvmcError, RecursionError):
        return None


def _config_at_hand(ctx: click.Context) -> dict[str, Any] | None:
    """The config the command line names with --config (None without one: nothing to resolve)."""
    refs = ctx.params.get("config")
    if not refs:
        return None
    return _resolved(list(refs), search_dirs(ctx), _isolated(ctx))


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


# ---- values of target options -------------------------------------------------------------------

_CPU_ARCHES = ("x86", "aarch64", "arm", "riscv")  # an llvm target without a triple: any of these
_MCPU_ARCH = {"nvptx": "nvptx", "rocm": "amdgcn", "hexagon": "hexagon", "cuda": "nvptx"}


def _llvm_arches(ctx: click.Context) -> list[str]:
    """The LLVM targets whose names fit the llvm target at hand: --target-llvm-mtriple's, else the
    first llvm target's of the --config at hand, else every CPU architecture."""
    from tvmc import registry

    triples = list(ctx.params.get("rw_target_llvm_mtriple") or ())
    if not triples:
        config = _config_at_hand(ctx)
        targets = [*config.get("targets", []), config.get("host") or {}] if config else []
        triples = [t["mtriple"] for t in targets if t.get("kind") == "llvm" and isinstance(t.get("mtriple"), str)]
    arch = registry.llvm_target(triples[-1] if triples else "")
    return [arch] if arch else list(_CPU_ARCHES)


def cpu_names(kind: str, ctx: click.Context) -> list[str]:
    """`mcpu` (or cuda's `arch`) values TVM's LLVM knows for a kind at hand, sorted."""
    from tvmc import registry

    arches = _llvm_arches(ctx) if kind == "llvm" else [_MCPU_ARCH[kind]] if kind in _MCPU_ARCH else []
    found: set[str] = set()
    for arch in arches:
        names = registry.llvm_names(arch)
        if names is not None:
            found |= names.cpus
    return sorted(found)


def mattr_values(incomplete: str, ctx: click.Context) -> list[str]:
    """`+feature`/`-feature` for the last entry of a comma list (`+avx2,+fm` → `+avx2,+fma`, ...)."""
    from tvmc import registry

    done, comma, last = incomplete.rpartition(",")
    prefix = done + comma
    signs = last[:1] if last[:1] in ("+", "-") else "+-"
    features: set[str] = set()
    for arch in _llvm_arches(ctx):
        names = registry.llvm_names(arch)
        if names is not None:
            features |= names.features
    return [f"{prefix}{sign}{name}" for sign in signs for name in sorted(features)]


def option_values(section: str, owner: str, option: str, type_: str) -> Completer | None:
    """The completer of a generated `--<section>-<owner>-<option>` flag's value, if it has a
    finite or known set of values."""
    if section == "target" and (
        (option == "mcpu" and owner in ("llvm", *_MCPU_ARCH)) or (owner, option) == ("cuda", "arch")
    ):

        def cpus(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
            return _items(cpu_names(owner, ctx), incomplete)

        return cpus
    if section == "target" and option == "mattr" and owner == "llvm":

        def mattr(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
            return _items(mattr_values(incomplete, ctx), incomplete)

        return mattr
    if type_ == "bool":
        return complete_bool
    if section in ("executor", "runtime"):
        from tvmc import registry

        component = registry.components(section).get(owner)
        choices = component.options[option].enum if component is not None and option in component.options else ()
        if choices:
            return lambda _ctx, _param, incomplete: _items(list(choices), incomplete)
    return None


# ---- key paths (--set, --unset, config get/explain) -----------------------------------------------


def _kind_options(kind: str | None) -> list[str]:
    from tvmc import registry

    if kind is not None:
        found = registry.kind(kind)
        return [o for o in found.options if o != "host"] if found is not None else []
    options: dict[str, None] = {}
    for name in registry.public_kinds():
        options.update(dict.fromkeys(o for o in _kind_options(name)))
    return list(options)


def _target_at(selector: str, config: dict[str, Any] | None) -> dict[str, Any] | None:
    """The target `targets[SELECTOR]` or `host` stands for in the config at hand, if known."""
    if config is None:
        return None
    if selector == "host":
        host = config.get("host")
        return host if isinstance(host, dict) else None
    targets = [t for t in config.get("targets", []) if isinstance(t, dict)]
    if selector.isdigit():
        return targets[int(selector)] if int(selector) < len(targets) else None
    return None


def key_paths(incomplete: str, ctx: click.Context) -> list[str]:
    """Dotted paths as --set/--unset/`config get`/`config explain` take them, one level at a time."""
    import re

    from tvmc import registry
    from tvmc.keys import TOP_LEVEL

    target = re.fullmatch(r"(targets\[([^\]]*)\]|host)\.([^.\[]*)", incomplete)
    if target:  # a target's options
        head, selector = incomplete[: incomplete.rfind(".") + 1], target.group(2) or "host"
        kind = selector[5:] if selector.startswith("kind=") else None
        if kind is None:
            found = _target_at(selector, _config_at_hand(ctx))
            kind = found.get("kind") if found else None
        return [head + option for option in _kind_options(kind)]
    if incomplete.startswith("targets["):
        config = _config_at_hand(ctx)
        count = len(config.get("targets", [])) if config else 1
        kinds = sorted({t.get("kind") for t in config.get("targets", [])}) if config else registry.public_kinds()
        return [*(f"targets[{i}]." for i in range(max(count, 1))), *(f"targets[kind={k}]." for k in kinds)]
    section, dot, _ = incomplete.partition(".")
    if dot and section in ("executor", "runtime"):
        options: dict[str, None] = {"kind": None}
        for component in registry.components(section).values():
            options.update(dict.fromkeys(component.options))
        return [f"{section}.{o}" for o in options]
    if dot and section == "pass-config":
        return [f"pass-config.{name}" for name in sorted(registry.pass_configs())]  # the rest is the name
    paths: list[str] = []
    for key, spec in TOP_LEVEL.items():
        if spec.type == "targets":
            paths.append("targets[")
        elif spec.type in ("target", "table") or key == "pass-config":
            paths += [key, f"{key}."]
        else:
            paths.append(key)
    return paths


def path_values(path: str, incomplete: str, ctx: click.Context) -> list[str]:
    """Values after `PATH=` (or `PATH+=`) where the key has known ones: CPUs, features, enums, bools."""
    from tvmc import registry
    from tvmc.keys import TOP_LEVEL

    option = path.rsplit(".", 1)[-1]
    selector = path[8 : path.find("]")] if path.startswith("targets[") else "host" if path.startswith("host.") else ""
    if selector:
        kind = selector[5:] if selector.startswith("kind=") else None
        if kind is None:
            found = _target_at(selector, _config_at_hand(ctx))
            kind = found.get("kind") if found else "llvm"
        if option == "mattr":
            return mattr_values(incomplete, ctx)
        if option in ("mcpu", "arch"):
            return cpu_names(kind or "llvm", ctx)
        found_kind = registry.kind(kind or "")
        if found_kind is not None and found_kind.options.get(option) == "bool":
            return ["true", "false"]
        return []
    if path in ("executor", "executor.kind"):
        return list(registry.executors())
    if path in ("runtime", "runtime.kind"):
        return list(registry.runtimes())
    spec = TOP_LEVEL.get(path)
    if spec is not None and spec.enum:
        return list(spec.enum)
    return []


def complete_path(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """`config get PATH`, `config explain PATH`, `--unset PATH`."""
    return _items(key_paths(incomplete, ctx), incomplete)


def complete_path_argument(ctx: click.Context, incomplete: str) -> list[str]:
    """typer `autocompletion=` for the PATH of `config get` and `config explain`."""
    return [p for p in key_paths(incomplete, ctx) if p.startswith(incomplete)]


def _split_assignment(text: str) -> tuple[str, str, str]:
    """`PATH=VALUE` at the first '=' outside a `[...]` selector (`targets[kind=llvm].mcpu=x`)."""
    depth = 0
    for index, char in enumerate(text):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if char == "=" and depth <= 0:
            return text[:index], "=", text[index + 1 :]
    return text, "", ""


def complete_set(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """`--set PATH=VALUE`: the path, then (after `=` or `+=`) the values it has, if known."""
    path, eq, value = _split_assignment(incomplete)
    if not eq:
        return _items([p if p.endswith((".", "[")) else f"{p}=" for p in key_paths(incomplete, ctx)], incomplete)
    path, plus = path.removesuffix("+"), "+" if path.endswith("+") else ""
    return _items([f"{path}{plus}={v}" for v in path_values(path, value, ctx)], incomplete)


def choices(values: Sequence[str]) -> Callable[[str], list[str]]:
    """typer `autocompletion=` for a str option with a fixed set of values (checked by the command)."""

    def complete(incomplete: str) -> list[str]:
        return [v for v in values if v.startswith(incomplete)]

    return complete


# ---- the shells ---------------------------------------------------------------------------------

SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")
COMPLETE_VAR = "_TVMC_COMPLETE"


def _bash_class() -> type[click.shell_completion.ShellComplete]:
    from typer._completion_classes import BashComplete as TyperBash

    class BashComplete(TyperBash):
        """typer's bash protocol, with `NAME:PART` and `PATH=VALUE` whole again. bash splits words at
        the characters of COMP_WORDBREAKS (':' and '=' by default), so `--config aws/c5:cu`
        arrives as `aws/c5`, `:`, `cu`, and readline replaces only `cu`: the words are joined
        back (a lone ':' or '=' is never a tvmc argument) and the offered values lose what
        precedes the last break (bash-completion's `__ltrim_colon_completions`). Without them in
        COMP_WORDBREAKS the word arrives whole and is completed whole."""

        word = ""  # the word being completed, joined
        kept = 0  # how many of its characters bash keeps (they precede the last break)

        def get_completion_args(self) -> tuple[list[str], str]:
            args, incomplete = super().get_completion_args()
            joined: list[str] = []
            glue = False  # the last word was a break bash split off, to be joined to the next
            split = False  # the last joined word was put together here
            for word in [*args, incomplete]:
                if joined and ((glue and word) or _breaks(word)):
                    joined[-1] += word
                    split = True
                else:
                    joined.append(word)
                    split = False
                glue = _breaks(word)
            *args, incomplete = joined
            if split:
                self.word = incomplete
                self.kept = max(incomplete.rfind(":"), incomplete.rfind("=")) + 1
            return args, incomplete

        def format_completion(self, item: CompletionItem) -> str:
            value, word, kept = str(item.value), self.word, self.kept
            if not kept:
                return value
            if value.startswith(word[:kept]):
                return value[kept:]
            option, eq, rest = word.partition("=")  # click completes `--opt=VALUE` as VALUE
            offset = kept - len(option) - 1
            if eq and option.startswith("-") and offset >= 0 and value.startswith(rest[:offset]):
                return value[offset:]
            return value

    return BashComplete


def _breaks(word: str) -> bool:
    """A word bash made of word-break characters alone (`:`, `=`, `::`)."""
    return bool(word) and set(word) <= {":", "="}


def register_shells() -> None:
    """typer's completion classes, with bash's colon handling (before the completion runs)."""
    from typer._completion_classes import completion_init

    completion_init()
    click.shell_completion.add_completion_class(_bash_class(), "bash")
    for shell in SHELLS:
        found = click.shell_completion.get_completion_class(shell)
        if found is not None:
            click.shell_completion.add_completion_class(_noting_the_word(found), shell)


def _noting_the_word(
    shell: type[click.shell_completion.ShellComplete],
) -> type[click.shell_completion.ShellComplete]:
    """`shell`, setting `completing` to the word being completed while it completes."""

    def get_completions(self: click.shell_completion.ShellComplete, args: list[str], incomplete: str) -> Any:
        token = completing.set(incomplete)
        try:
            return shell.get_completions(self, args, incomplete)
        finally:
            completing.reset(token)

    return type(shell.__name__, (shell,), {"get_completions": get_completions, "__doc__": shell.__doc__})


def install_completion(shell: str | None, *, show: bool) -> str:
    """`--install-completion [SHELL]` / `--show-completion [SHELL]`: for SHELL when given (typer's own
    option ignores a value and installs for the shell it detects), else the detected one."""
    from typer._completion_shared import _get_shell_name, get_completion_script, install

    if not shell:
        shell = _get_shell_name()
        if shell not in SHELLS:
            from tvmc.errors import UsageError

            detected = f"the shell detected ({shell}) is" if shell else "no shell could be detected:"
            raise UsageError(f"{detected} not one of {', '.join(SHELLS)}; name it: --install-completion SHELL")
    if show:
        return get_completion_script(prog_name="tvmc", complete_var=COMPLETE_VAR, shell=shell)
    installed, path = install(shell=shell, prog_name="tvmc", complete_var=COMPLETE_VAR)
    return f"{installed} completion installed in {path}\nCompletion will take effect once you restart the terminal"
