"""Finding configs: the search path, name → file, paths, tag fallback, and listing.

Unlike old tvmc (which treated any existing file in the working directory as the config and
matched names by basename anywhere under one directory), a reference is either a PATH, loaded
as written, or a NAME, looked up as `NAME.toml`/`NAME.json` in each search directory in order
and never allowed to leave that directory.
"""

from __future__ import annotations

import errno
import os
import re
from functools import cache

from tvmc.records import field, record
from tvmc.sources import NATIVE
from tvmc.sources.installed import shipped_folder
from tvmc.text import one_line

# The errors, the loader (a TOML parser) and host/native (platform) are imported where they are
# used: a TAB in a --config value (tvmc.cli.fast) lists the search path and must start quickly.
# Paths are text here (os.path), and typing and pathlib are not imported at run time: every
# `config show` searches, and the two cost a third of a bare Python's start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from pathlib import Path

    from tvmc.errors import ConfigNotFoundError, Location
    from tvmc.sources.layer import Layer

    PathText = str | os.PathLike[str]

ENV_VAR = "TVMC_CONFIG_PATH"
SUFFIXES = (".toml", ".json")  # per directory, NAME.toml beside NAME.json is an ambiguity error


def _has_drive(text: str) -> bool:
    """Whether `text` starts with a drive letter and a colon (`C:`): checked on every reference,
    so without a pattern to compile."""
    return len(text) >= 2 and text[1] == ":" and text[0].isascii() and text[0].isalpha()


@cache
def _part() -> re.Pattern[str]:
    """The PART of `NAME:PART`: compiled on the first reference with a ':'."""
    return re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


@record(slots=True, frozen=True)
class SearchDir:
    """One directory of the search path and why it is there. `path` is a Path, made when first
    asked for: searching reads `text`, the same path as text (pathlib is not imported at start-up)."""

    text: str
    origin: str  # "--search-path", "TVMC_CONFIG_PATH", "user", "shipped"
    _path: Path | None = field(default=None, compare=False, repr=False)

    def __init__(self, path: str | os.PathLike[str], origin: str) -> None:
        init = object.__setattr__
        init(self, "text", lexical_path(os.fspath(path)))  # as str(Path(path)): equal paths compare equal
        init(self, "origin", origin)
        init(self, "_path", None)  # made from `text` when first asked for

    @property
    def path(self) -> Path:
        if self._path is None:
            from pathlib import Path

            object.__setattr__(self, "_path", Path(self.text))
        assert self._path is not None
        return self._path

    def __repr__(self) -> str:
        return f"SearchDir(path={self.text!r}, origin={self.origin!r})"

    def __str__(self) -> str:
        return f"{self.text} ({self.origin})"


def user_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/tvmc/configs`, default `~/.config/tvmc/configs` (on every OS, like
    Black, rather than platformdirs' `~/Library/Application Support` on macOS)."""
    from pathlib import Path

    return Path(_user_config_dir(os.environ if env is None else env))


def _user_config_dir(env: Mapping[str, str]) -> str:
    xdg = env.get("XDG_CONFIG_HOME", "")
    if xdg and os.path.isabs(xdg):  # the XDG spec says to ignore relative values
        base = lexical_path(xdg)
    else:
        home = env.get("HOME") or os.path.expanduser("~")  # Path.home() without pathlib
        base = os.path.join(lexical_path(home), ".config")
    return os.path.join(base, "tvmc", "configs")


def lexical_path(path: str) -> str:
    """`path` as pathlib writes it: no empty or '.' parts, no trailing separator ('..' is kept;
    a leading '//' is POSIX's own root). Messages name a path as `Path(path)` would."""
    if os.sep != "/":
        from pathlib import Path

        return str(Path(path))
    root = "//" if path.startswith("//") and not path.startswith("///") else "/" if path.startswith("/") else ""
    return root + "/".join(part for part in path.split("/") if part not in ("", ".")) or "."


def _expand_home(entry: str, env: Mapping[str, str]) -> str:
    # `~` follows the given environment (not only os.environ), like the rest of search_path.
    home = env.get("HOME")
    if home and (entry == "~" or entry.startswith(("~/", "~" + os.sep))):
        return home + entry[1:]
    return _expanduser(entry)


def _expanduser(path: str) -> str:
    # Unlike Path.expanduser, leaves "~nobody" as it is instead of raising.
    try:
        return os.path.expanduser(path)
    except ValueError:  # a NUL byte in "~user"
        return path


ISOLATED_VAR = "TVMC_ISOLATED"
ENV_PREFIX = "TVMC_"
_FALSE = ("", "0", "false", "no", "off")


def is_isolated(env: Mapping[str, str] | None = None) -> bool:
    """Whether `TVMC_ISOLATED` asks for isolation (any value but empty, 0, false, no, off)."""
    env = os.environ if env is None else env
    return env.get(ISOLATED_VAR, "").strip().lower() not in _FALSE


def isolated_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment without any `TVMC_*` variable: what an isolated resolution sees."""
    return {k: v for k, v in env.items() if not k.startswith(ENV_PREFIX)}


SEARCH_PATH_FLAG = "--search-path"


def search_path(
    env: Mapping[str, str] | None = None, *, isolated: bool = False, extra: Sequence[str | os.PathLike[str]] = ()
) -> list[SearchDir]:
    """`extra` directories (`--search-path DIR`, in order, relative to the cwd), then
    `TVMC_CONFIG_PATH` entries (os.pathsep-separated; missing ones are kept, and skipped when
    searching), then the user directory, then the shipped configs. A directory listed twice
    is kept at its first place only. Isolated (`isolated`, or `TVMC_ISOLATED` in `env`): the
    `extra` directories and the shipped configs alone (what the command line says, nothing
    from the user's environment)."""
    env = os.environ if env is None else env
    dirs = [SearchDir(os.path.abspath(os.fspath(entry)), SEARCH_PATH_FLAG) for entry in extra]
    if not (isolated or is_isolated(env)):
        dirs += [
            SearchDir(os.path.abspath(_expand_home(entry, env)), ENV_VAR)
            for entry in env.get(ENV_VAR, "").split(os.pathsep)
            if entry
        ]
        dirs.append(SearchDir(_user_config_dir(env), "user"))
    shipped = shipped_folder("configs")
    if shipped is not None:
        dirs.append(SearchDir(shipped, "shipped"))
    unique: list[SearchDir] = []
    seen: set[object] = set()
    for d in dirs:
        # One stat finds a directory listed twice under two names (a symbolic link); a missing
        # one is skipped when searching, so its own (absolute) path is enough.
        try:
            info = os.stat(d.text)
            identity: object = (info.st_dev, info.st_ino)
        except (OSError, ValueError):
            identity = d.text
        if identity not in seen:
            seen.add(identity)
            unique.append(d)
    return unique


def _is_windows(windows: bool | None) -> bool:
    return os.name == "nt" if windows is None else windows


def is_path_ref(ref: str, *, windows: bool | None = None) -> bool:
    """A PATH ends in .toml/.json or starts with `/`, `./`, `../`, `~` (or on Windows has a
    drive letter or a backslash); anything else, like `aws/c5`, is a NAME."""
    if ref.lower().endswith(SUFFIXES) or ref in (".", ".."):
        return True
    if ref.startswith(("/", "./", "../", "~")):
        return True
    return _is_windows(windows) and ("\\" in ref or _has_drive(ref))


def split_part(ref: str, *, windows: bool | None = None) -> tuple[str, str | None]:
    """`"aws/c5:gpu"` → `("aws/c5", "gpu")`; `"x.toml:gpu"` → `("x.toml", "gpu")`.

    Not split: a drive letter (`C:\\x.toml`), a colon inside a path (`./a:b/c.toml`, where the
    part would contain a separator or end in .toml/.json), and a path without a config suffix
    before the colon (`/dev/fd:3` names a file, not a part)."""
    start = 2 if _has_drive(ref) and ref[2:3] in ("\\", "/") else 0
    i = ref.rfind(":", start)
    if i <= 0:
        return ref, None
    head, part = ref[:i], ref[i + 1 :]
    if not _part().fullmatch(part) or part.lower().endswith(SUFFIXES):
        return ref, None
    if is_path_ref(head, windows=windows) and not head.lower().endswith(SUFFIXES):
        return ref, None
    return head, part


def tag_layer(name: str) -> Layer:
    """A config standing for a TVM target tag: one target, the tag itself."""
    from tvmc.sources.layer import Layer

    return Layer(
        source=f"tag:{name}",
        path=None,
        data={"targets": [name], "description": f"TVM target tag {name}"},
        format="tag",
        name=name,
    )


def find_config(
    ref: str,
    dirs: Sequence[SearchDir],
    *,
    relative_to: PathText | None = None,
    tag_lookup: Callable[[str], bool] | None = None,
    candidates: Callable[[], Iterable[str]] | None = None,
    origin: Location | None = None,
) -> Layer:
    """The layer a `--config`/`extends` reference names. A `NAME:PART`/`PATH:PART` reference
    loads NAME/PATH; the caller handles PART (see `split_part`).

    `relative_to` anchors relative paths (e.g. the extending file's directory; default cwd),
    `tag_lookup` says whether a name is a TVM target tag (fallback after the search path),
    `candidates` adds names (e.g. tags) for did-you-mean, `origin` is where the reference was
    written and becomes the location of not-found errors.
    """
    head, _part = split_part(ref)
    if is_path_ref(ref) or is_path_ref(head):
        # A file whose name really contains the colon wins over the PATH:PART reading.
        if head != ref and _exists(_anchor(ref, relative_to)):
            head = ref
        return _load_path(head, relative_to, origin)
    return find_named(head, dirs, tag_lookup=tag_lookup, candidates=candidates, origin=origin, relative_to=relative_to)


def _anchor(ref: str, relative_to: PathText | None) -> str:
    """`ref` (`~` expanded) anchored at `relative_to`, default the working directory."""
    path = lexical_path(_expanduser(ref))
    if os.path.isabs(path):
        return path
    return lexical_path(os.path.join(os.fspath(relative_to) if relative_to is not None else os.getcwd(), path))


def _load_path(ref: str, relative_to: PathText | None, origin: Location | None) -> Layer:
    from tvmc.errors import ConfigNotFoundError
    from tvmc.sources.loader import load_file

    path = _anchor(ref, relative_to)
    if not _exists(path):
        if os.path.islink(path):  # exists() follows links: a loop or a dangling link
            try:
                os.stat(path)
            except OSError as err:
                raise ConfigNotFoundError(f"config file {ref!r}: {_link_problem(err)}", origin) from None
        where = "" if path == ref else f" (no such file: {os.path.abspath(path)})"
        suggestions = _sibling_suggestions(ref, path)
        raise ConfigNotFoundError(f"config file {ref!r} not found{where}", origin, suggestions=suggestions)
    return load_file(path)


def _sibling_suggestions(ref: str, path: str) -> list[str]:
    """`../base/aarch64.toml` when `../base/aarch64-linux.toml` exists: the config files beside
    the missing one whose names are close, written as the reference was (its directory part kept).
    Best effort and bounded, like name suggestions: a miss is the error to report."""
    import contextlib  # here, not at the top: a found config never needs it

    from tvmc.errors import did_you_mean
    from tvmc.sources.limits import MAX_LIST_ENTRIES

    head, sep, tail = ref.rpartition("/")
    siblings: list[str] = []
    with contextlib.suppress(OSError, ValueError), os.scandir(os.path.dirname(path)) as it:
        for count, entry in enumerate(it):
            if count >= MAX_LIST_ENTRIES:
                break
            if entry.name.endswith(SUFFIXES) and not entry.name.startswith(".") and entry_is_file(entry):
                siblings.append(entry.name)
    return [head + sep + name for name in did_you_mean(tail, siblings)]  # one, as _not_found


def is_within(path: str, root: str) -> bool:
    """Whether `path` is `root` or below it, both absolute and normalized (as os.path.realpath
    gives them): Path.is_relative_to's answer, on text."""
    return path == root or path.startswith(root if root.endswith(os.sep) else root + os.sep)


def _link_problem(err: OSError) -> str:
    if err.errno == errno.ELOOP:
        return "symbolic link loop"
    return f"symbolic link to a missing file ({err.strerror})"


def _exists(path: str) -> bool:
    try:
        return os.path.exists(path)
    except ValueError:  # an embedded NUL (a name too long for the file system is False)
        return False


def _is_file(path: str) -> bool:
    try:
        return os.path.isfile(path)
    except ValueError:
        return False


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a config name, or None. Names are relative, `/`-separated and
    cannot climb out of their search directory."""
    if not name:
        return "the name is empty"
    if name.startswith("/") or _has_drive(name):
        return "a name is relative to the search path; give a path like ./x.toml to load a file"
    if "\\" in name:
        return "use '/' to separate the parts of a name"
    if "\0" in name:
        return "NUL is not allowed in a name"
    if ":" in name:
        # `NAME:PART` whose PART is not one (split_part left it whole): say what is wrong with the
        # part, not that the name has a ':'.
        head, _, part = name.rpartition(":")
        if head and name_problem(head) is None:
            return _part_problem(part)
        return "':' is not allowed in a name"
    parts = name.split("/")
    if "" in parts:
        return "a name cannot have empty parts"
    if "." in parts or ".." in parts:
        return "'.' and '..' are not allowed: a name cannot leave its search directory"
    return None


def _part_problem(part: str) -> str:
    """Why PART of `NAME:PART` is not a part (a target kind, key or tag name)."""
    if not part:
        return "nothing after ':' (NAME:PART names a part: a target kind, key or tag)"
    if part.splitlines() != [part]:
        return f"the part {part!r} after ':' contains a line break"
    return f"the part {part!r} after ':' is not a part name (a target kind, key or tag: letters, digits, _ . -)"


def find_named(
    name: str,
    dirs: Sequence[SearchDir],
    *,
    tag_lookup: Callable[[str], bool] | None = None,
    candidates: Callable[[], Iterable[str]] | None = None,
    origin: Location | None = None,
    relative_to: PathText | None = None,
) -> Layer:
    """The first `NAME.toml`/`NAME.json` on the search path, else the tag NAME, else an error.
    A miss says so when NAME is a file or folder where a path would be read (`relative_to`,
    default the working directory): NAME is read as a name, and `./NAME.toml` as a path."""
    from tvmc.errors import ConfigNotFoundError
    from tvmc.sources.loader import load_file

    problem = name_problem(name)
    if problem is not None:
        raise ConfigNotFoundError(
            f"invalid config name {name!r}: {problem}", origin, hint=_local_hint(name, relative_to)
        )
    for d in dirs:
        found = [os.path.join(d.text, f"{name}{suffix}") for suffix in SUFFIXES]
        found = [candidate for candidate in found if _is_file(candidate)]
        if len(found) > 1:
            raise ConfigNotFoundError(f"config {name!r} is ambiguous: {_ambiguity(found, d)}", origin)
        for candidate in found:
            outside = _outside(candidate, d)
            if outside is not None:
                raise ConfigNotFoundError(f"config {name!r} {outside}; refusing to load it", origin)
            return load_file(candidate).named(name)
    if tag_lookup is not None and tag_lookup(name):
        return tag_layer(name)
    from tvmc.sources import native

    if name == NATIVE:  # detected on demand (sources.native), unless a file pins it above
        return native.native_layer()
    raise _not_found(name, dirs, candidates, origin, tags=tag_lookup is not None, relative_to=relative_to)


def _local_path(name: str, relative_to: PathText | None) -> tuple[str, bool] | None:
    """(the reference as a path, whether it is a config file) when NAME.toml/.json is a file, or
    NAME a folder, where a path would be read; None otherwise."""
    base = os.fspath(relative_to) if relative_to is not None else os.curdir
    written = "./" + name.rstrip("/")
    for suffix in SUFFIXES:
        if _is_file(os.path.join(base, name.rstrip("/") + suffix)):
            return written + suffix, True
    if name.strip("/") and os.path.isdir(os.path.join(base, name)):
        return written, False
    return None


def _local_hint(name: str, relative_to: PathText | None) -> str | None:
    """What a NAME that is a local file or folder is: a name is looked up on the search path only."""
    found = _local_path(name, relative_to)
    if found is None:
        return None
    path, is_config = found
    return f"{path} is here: give its path" if is_config else f"{path} is a folder, not a config file"


def _ambiguity(paths: Sequence[PathText], d: SearchDir) -> str:
    names = " and ".join(os.path.relpath(p, d.text) for p in paths)
    return f"both {names} are in {d}; remove or rename one"


def _outside(path: PathText, d: SearchDir) -> str | None:
    """A description of how `path` escapes `d` through a symlink, or None if it stays inside."""
    real, root = os.path.realpath(path), os.path.realpath(d.text)
    if is_within(real, root):
        return None
    return f"is {path}, a symlink to {real}, outside its search directory {d}"


def _not_found(
    name: str,
    dirs: Sequence[SearchDir],
    candidates: Callable[[], Iterable[str]] | None,
    origin: Location | None,
    *,
    tags: bool,
    relative_to: PathText | None = None,
) -> ConfigNotFoundError:
    import contextlib

    from tvmc.errors import ConfigNotFoundError, TvmcError, did_you_mean

    known: list[str] = []
    for d in dirs:
        # Suggestions are best effort; the miss is the error to report.
        with contextlib.suppress(TvmcError):
            known.extend(n for n, _ in _config_paths(d))
    if candidates is not None:
        known.extend(candidates())
    known.append(NATIVE)  # a name on every search path, though no file holds it
    # "c5" most likely means "aws/c5": same last part first, then spelling neighbours. One, as
    # every problem record has one suggestion: `config validate` (its diagnostic's `suggestion`)
    # and `config show` (this error) then offer the same name for the same miss.
    same_base = sorted({k for k in known if k.rsplit("/", 1)[-1] == name})
    suggestions = [*same_base, *did_you_mean(name, known)][:1]
    local = _local_path(name, relative_to)
    if local is not None and local[1]:
        suggestions = [local[0]]  # `-c myconf` beside ./myconf.toml: surely the file
    searched = ", ".join(str(d) for d in dirs) or "nothing (the search path is empty)"
    if local is not None:
        searched += f"; {_local_hint(name, relative_to)}"
    shown = one_line(name)  # the message stays one line
    what = f"{shown}.toml or {shown}.json on the search path" + (" and no TVM target tag" if tags else "")
    return ConfigNotFoundError(
        f"config {name!r} not found: no {what}", origin, suggestions=suggestions, hint=f"searched {searched}"
    )


@record(slots=True, frozen=True)
class ConfigEntry:
    """One config file on the search path, as `tvmc config list` shows it."""

    name: str
    path: Path
    directory: SearchDir
    description: str | None
    error: str | None = None  # why the file cannot be loaded, if it cannot
    shadowed: bool = False  # an earlier file of the same name wins


def _config_paths(d: SearchDir, unnamed: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    """(name, path) of every config file below `d`, by name, .toml before .json. Hidden files and
    directories are skipped; symlinked directories are followed once. Did-you-mean lists a whole
    search directory, so this walk uses os.scandir (no stat for regular files) and no pathlib.
    Files no name can ask for (`a:b.toml`) are left out, and added to `unnamed` when it is given."""
    from tvmc.errors import LimitError
    from tvmc.sources.limits import MAX_LIST_ENTRIES

    root = d.text
    if not os.path.isdir(root):
        return []
    found: list[tuple[str, int, str]] = []
    visited: set[str] = set()
    seen_entries = 0
    pending = [(root, "")]  # (directory, its name prefix); depth first, sorted like os.walk's
    while pending:
        top, prefix = pending.pop()
        real = os.path.realpath(top)
        if real in visited:  # a symlink loop or a second link to the same directory
            continue
        visited.add(real)
        try:
            with os.scandir(top) as it:
                entries = list(it)
        except OSError:
            continue
        seen_entries += len(entries)
        if seen_entries > MAX_LIST_ENTRIES:
            raise LimitError(
                f"search directory {d} holds more than {MAX_LIST_ENTRIES} entries; is it the right directory?"
            )
        subdirs: list[tuple[str, str]] = []
        for entry in entries:
            entry_name = entry.name
            if entry_name.startswith("."):
                continue
            # Both suffixes have 5 characters; a file before a directory test, as files are most entries.
            rank = _SUFFIX_RANK.get(entry_name[-5:])
            # Regular files only, as name lookup: opening a FIFO to read its description would block.
            if rank is not None and entry_is_file(entry):
                name = prefix + entry_name[:-5]
                # Parts of a listed name are never empty, hidden, '.' or '..': only ':' and '\' can
                # make it invalid, which name_problem then confirms.
                if (":" not in name and "\\" not in name) or name_problem(name) is None:
                    found.append((name, rank, entry.path))
                elif unnamed is not None:
                    unnamed.append((name, entry.path))
            elif entry_is_dir(entry):  # follows symlinks, as os.walk(followlinks=True) does
                subdirs.append((entry.path, f"{prefix}{entry_name}/"))
        pending.extend(sorted(subdirs, reverse=True))
    found.sort()  # by name, then .toml before .json
    return [(name, path) for name, _, path in found]


_SUFFIX_RANK = {suffix: rank for rank, suffix in enumerate(SUFFIXES)}


def entry_is_dir(entry: os.DirEntry[str]) -> bool:
    """Whether a directory entry is a directory (following symlinks, as os.stat does)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def entry_is_file(entry: os.DirEntry[str]) -> bool:
    """Whether a directory entry is a regular file (following symlinks)."""
    try:
        return entry.is_file()
    except OSError:
        return False


def _describe(path: Path, d: SearchDir) -> tuple[str | None, str | None]:
    from tvmc.errors import TvmcError
    from tvmc.sources.loader import load_file

    outside = _outside(path, d)
    if outside is not None:
        return None, outside
    try:
        data = load_file(path).data
    except TvmcError as e:
        return None, e.one_line()
    description = data.get("description")
    return (description if isinstance(description, str) else None), None


def list_configs(dirs: Sequence[SearchDir], *, with_native: bool = False) -> list[ConfigEntry]:
    """Every *.toml/*.json below each search directory, sorted by name, then search order.

    Each file is parsed for its `description`; a broken file gets `error` instead of failing
    the listing. `shadowed` marks files hidden by an earlier one of the same name. `with_native`
    adds `host/native`, the config detected on first use: its entry is the cache file it is read
    from (which may not exist yet), in the directory origin "detected", shadowed by a file of
    that name on the search path."""
    from pathlib import Path  # an entry's path is a Path (`config list` is not on a hot path)

    entries: list[ConfigEntry] = []
    winners: set[str] = set()
    for d in dirs:
        unnamed: list[tuple[str, str]] = []
        files = [(name, Path(path)) for name, path in _config_paths(d, unnamed)]
        by_name: dict[str, list[Path]] = {}
        for name, path in files:
            by_name.setdefault(name, []).append(path)
        for name, path in files:
            description, error = _describe(path, d)
            if len(by_name[name]) > 1:  # NAME.toml beside NAME.json: --config NAME is an error
                error = f"ambiguous: {_ambiguity(by_name[name], d)}"
            entries.append(ConfigEntry(name, path, d, description, error, shadowed=name in winners))
        winners.update(by_name)
        for name, text in unnamed:
            why = "no config name can ask for this file (':' and '\\' are not allowed in names): rename it"
            entries.append(ConfigEntry(name, Path(text), d, None, f"{why}, or give its path"))
    if with_native:
        from tvmc.sources import native

        detected = SearchDir(native.cache_dir(), "detected")
        shadowed = NATIVE in winners
        cached = native.cache_path(ask=False)  # never imports TVM to list
        entries.append(ConfigEntry(NATIVE, cached, detected, native.DESCRIPTION, shadowed=shadowed))
    entries.sort(key=lambda e: e.name)  # stable: search order is kept within a name
    return entries
