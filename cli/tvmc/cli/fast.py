"""What tvmc answers without importing click and typer, whose import is most of a command's start-up
(~35 ms, three times a bare Python's): `tvmc --help`, a TAB in a --config value under bash (a
keystroke waits for it), and `tvmc config show` (the command scripts and editors run most). All
read tables generated from the app's one declaration of its options (tvmc.cli.fast_tables, by
scripts/gen_cli_tables.py; tests check them against the app and these answers against click's),
and answer only where click would answer alike: anything else returns, and the command runs as
usual."""

from __future__ import annotations

import os
import sys

from tvmc.cli.exiting import exit_now

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NoReturn


def answer() -> None:
    """Print the answer and exit, or return when click has to give it."""
    if "_TVMC_COMPLETE" in os.environ:
        if os.environ["_TVMC_COMPLETE"] == "complete_bash":
            _complete_bash()
    elif sys.argv[1:] in (["--help"], ["-h"]):
        _root_help()


def _print(text: str) -> NoReturn:
    try:
        sys.stdout.write(text)
    except BrokenPipeError:  # the reader went away: end quietly, as click's path does
        pass
    except OSError as err:  # e.g. a full disk behind `> file`
        exit_now(f"tvmc: error: cannot write the output: {err.strerror or err}")
    exit_now(0)


def _columns() -> int:
    """The terminal width click wraps help at, as `shutil.get_terminal_size().columns` finds it
    (COLUMNS, else the terminal of stdout, else 80), without importing shutil."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def _root_help() -> None:
    """`tvmc --help` as click prints it, where click lays it out alike: the click that rendered it,
    which wraps at min(columns, 80) - 2, so at 80 columns or more."""
    from tvmc.cli.fast_tables import HELP_CLICK, HELP_COLUMNS, ROOT_HELP

    if _columns() >= HELP_COLUMNS and installed_version("click") == HELP_CLICK:
        _print(ROOT_HELP)


def installed_version(package: str) -> str | None:
    """The version of the distribution of the import package `package` (one of the same name),
    from its `.dist-info` folder's name in the first sys.path entry that holds the package, as
    the import would find it; None when that is not one plain folder (importlib.metadata would
    cost more than the answer saves)."""
    prefix, suffix = f"{package}-", ".dist-info"
    for entry in sys.path:
        directory = entry or "."
        if not os.path.isdir(os.path.join(directory, package)):
            if os.path.exists(os.path.join(directory, f"{package}.py")):
                return None
            continue
        try:
            names = os.listdir(directory)
        except OSError:
            return None
        found = [n[len(prefix) : -len(suffix)] for n in names if n.startswith(prefix) and n.endswith(suffix)]
        return found[0] if len(found) == 1 else None
    return None


def _complete_bash() -> None:
    """A TAB in the value of --config (`tvmc config show --config aws/<TAB>`) under typer's bash
    protocol: the config names tvmc.cli.completion offers, printed as typer prints them. Only for a
    command line click would read the same way: plain words (no quotes or escapes to undo, no
    word bash split off at ':' or '='), a command of the table with nothing before it, every option
    one the table names (a generated --target-KIND-ATTR flag, --opt=VALUE, `--` and the like
    leave it to click), and --config/-c as the last word."""
    words_text, cword_text = os.environ.get("COMP_WORDS"), os.environ.get("COMP_CWORD", "")
    if words_text is None or not (cword_text.isascii() and cword_text.isdigit()):
        return
    if any(c in "\"'\\" or (c.isspace() and c not in " \t\r\n") for c in words_text):
        return  # click splits with shlex: quotes, escapes and other blanks are its to read
    words, cword = words_text.split(), int(cword_text)
    if not 1 <= cword <= len(words):
        return
    args, incomplete = words[1:cword], words[cword] if cword < len(words) else ""
    if incomplete.startswith("-") or ":" in incomplete or "=" in incomplete:
        return  # an option's name, NAME:PART (resolves the config), a word bash may have split
    if any(not word.strip(":=") for word in args):
        return  # a word bash split off at ':' or '=': tvmc's bash class joins them back

    from tvmc.cli.fast_tables import CONFIG_COMMANDS, CONFIG_OPTIONS

    found = [
        (path.split(), table) for path, table in CONFIG_COMMANDS.items() if args[: len(path.split())] == path.split()
    ]
    if not found:
        return
    (names, (values, flags, search_names, isolated_names)), *_ = found
    rest = args[len(names) :]
    if not rest or rest[-1] not in CONFIG_OPTIONS:
        return
    search: list[str] = []
    isolated = False
    index = 0
    while index < len(rest):  # as click's parser reads the words, for --search-path and --isolated
        token = rest[index]
        index += 1
        if not token.startswith("-") or token == "-":
            continue  # an argument
        if token in values:
            if index < len(rest):  # the option takes the next word, whatever it looks like
                if token in search_names:
                    search.append(rest[index])
                index += 1
        elif token in flags:
            isolated = isolated or token in isolated_names
        else:
            return
    _print("\n".join(_config_names(incomplete, search, isolated)) + "\n")


def _config_names(incomplete: str, search: list[str], isolated: bool) -> list[str]:
    """What tvmc.cli.completion.complete_config offers for a word without ':', filtered as typer
    filters an autocompletion's values."""
    from tvmc.cli.config_names import config_names
    from tvmc.sources import is_isolated, search_path

    extra = [d for d in search if os.path.isdir(d)]
    dirs = search_path(isolated=isolated or is_isolated(), extra=extra)
    return [name for name in config_names(incomplete, dirs) if name.startswith(incomplete)]


# The options of `config show` the fast path reads (by parameter); any other (--as, --output, --from,
# --search-path, --help) leaves the command line to click.
_SHOW_VALUES = ("config", "format")
_SHOW_FLAGS = ("origin", "hash_", "isolated")
_GENERATED_PREFIXES = ("--target-", "--executor-", "--runtime-")
_GENERATED = "<generated rewrite flag>"


def config_show(args: list[str]) -> Callable[[], int] | None:
    """`tvmc config show ARGS` as a function returning the exit code, its modules loaded, when the
    command line is one click reads the same way (options it declares, each value where click takes
    it, a valid choice, no argument, no `--`); else None, and click reads it. The function calls
    tvmc.cli.config_show.show, as the typer command does, and reports errors as it does."""
    from tvmc.cli.fast_tables import SHOW_CHOICES, SHOW_FLAGS, SHOW_OPTIONS, SHOW_REWRITES

    configs: list[str] = []
    rewrites: list[tuple[str, str]] = []
    chosen: dict[str, str] = {}
    flags: dict[str, bool] = {}
    index = 0
    while index < len(args):
        token = args[index]
        index += 1
        if not token.startswith("-") or token in ("-", "--"):
            return None  # an argument (`config show` takes none: click's usage error), or `--`
        if token.startswith("--"):
            name, eq, value = token.partition("=")
            attached = bool(eq)
        else:  # a short option: the rest of the word is its value (-O3, -cNAME)
            name, value = token[:2], token[2:]
            attached = len(token) > 2
        param = SHOW_OPTIONS.get(name)
        if param is None and name.startswith(_GENERATED_PREFIXES) and name in _generated_names():
            param = _GENERATED  # a registry-generated rewrite flag (--target-llvm-mcpu)
        if param is None:
            if attached or SHOW_FLAGS.get(name) not in _SHOW_FLAGS:
                return None  # unknown, --help, a flag given a value
            flags[SHOW_FLAGS[name]] = True
            continue
        if not attached:
            if index >= len(args):
                return None  # click's "requires an argument"
            value = args[index]
            index += 1
        if param in SHOW_REWRITES or param == _GENERATED:
            rewrites.append((name, value))  # as written, in command-line order
        elif param == "config":
            configs.append(value)
        elif param not in _SHOW_VALUES or param in chosen or value not in SHOW_CHOICES.get(param, (value,)):
            return None  # an option read elsewhere; given twice; a value click refuses
        else:
            chosen[param] = value

    from tvmc import api  # noqa: F401  (loaded now, while Ctrl-C still ends the process at once)
    from tvmc.cli import config_show
    from tvmc.cli.output import error_report
    from tvmc.emit import canonical  # noqa: F401
    from tvmc.errors import TvmcError

    def run() -> int:
        try:
            config_show.show(
                configs,
                rewrites,
                format=chosen.get("format", "toml"),
                format_given="format" in chosen,
                origin=flags.get("origin", False),
                isolated=flags.get("isolated", False),
                hash_=flags.get("hash_", False),
            )
        except (TvmcError, RecursionError, KeyboardInterrupt) as err:
            line, code = error_report(err)
        except BrokenPipeError:  # the reader went away (`| head`): exit 1 quietly, as click does
            return 1
        except OSError as err:  # a warning to a closed stderr: as tvmc.cli.app.main reports it
            line, code = f"tvmc: error: cannot write the output: {err.strerror or err}", 1
        else:
            return 0
        try:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):  # stderr is closed too: the exit code says it
            pass
        return code

    return run


def _generated_names() -> frozenset[str]:
    """Every registry-generated rewrite flag and alias (--target-llvm-mcpu, ...)."""
    from tvmc.rewrites.flags import generated_flags

    return frozenset(name for spec in generated_flags().values() for name in (spec.name, *spec.aliases))
