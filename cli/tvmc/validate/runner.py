"""Inputs → one `FileResult` each, streamed: files, directories, stdin, or the `--config` resolution.

Per file: read it (syntax errors carry the parser's position), check its own document (what the
schema says), expand its `extends` chain, then check the merged tree again and apply the semantic
rules. Findings are pointers; they are located through the tree's origins, so a value that came
through `extends` is reported in the file that set it. Positions are computed only for files that
have findings, and nothing is kept between files except a small cache of parent configs.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from tvmc import sources
from tvmc.errors import (
    ConfigNotFoundError,
    Location,
    TvmcError,
    UsageError,
)
from tvmc.keys import old_json_hint
from tvmc.layering import Tree
from tvmc.provenance import node_at, origin_of
from tvmc.records import replace
from tvmc.sources.search import entry_is_dir
from tvmc.validate import parallel
from tvmc.validate.checks import check_document, completeness_findings, component_kind_findings
from tvmc.validate.diagnostics import Diagnostic, FileResult, Finding, rule_of
from tvmc.validate.resolve import Resolver
from tvmc.validate.rules import semantic_findings

SUFFIXES = (".toml", ".json")
Structural = Callable[[Mapping[str, Any]], list[Finding]]
Locate = Callable[[str], Location]


class Settings(NamedTuple):
    strict: bool = False
    engine: str = "fast"  # "fast" (compiled checks) or "jsonschema" (python-jsonschema, opt-in)
    rewrites: tuple[Any, ...] = ()  # tvmc.rewrites.Rewrite, applied on top of every file's resolution


def iter_paths(paths: Iterable[str], dirs: Container[str] | None = None) -> Iterator[str]:
    """Each argument; a directory becomes every *.toml/*.json below it (sorted, hidden ones skipped),
    produced lazily so that a huge tree starts reporting at once. `dirs`, when given, says which
    arguments are directories (the caller stat'ed them already: one stat per argument is enough)."""
    for given in paths:
        is_dir = (given in dirs) if dirs is not None else (given != "-" and os.path.isdir(given))
        if is_dir:
            yield from _walk(given)
        else:
            yield given


def _walk(top: str) -> Iterator[str]:
    """The *.toml/*.json regular files below `top`, sorted, hidden names skipped. A FIFO or a device
    with a config's name is passed over (reading it could hang); scandir's entry types tell them
    apart without a stat per file."""
    try:
        with os.scandir(top) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError:
        return
    subdirs: list[str] = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                subdirs.append(entry.path)
            elif entry.name.lower().endswith(SUFFIXES) and entry.is_file():
                yield entry.path
        except OSError:
            continue
    for subdir in subdirs:
        yield from _walk(subdir)


def directories_among(paths: Iterable[str]) -> tuple[set[str], list[str]]:
    """(the arguments that are directories, those that do not exist), in one pass.

    Files given by the thousand (a shell glob) mostly share a few directories: each such directory
    is listed once (os.scandir knows whether an entry is a directory without a stat) instead of
    stat'ing every argument. Only the entries asked about are looked at: this runs before the
    work is shared among processes, so every millisecond here is one the whole run waits."""
    dirs: set[str] = set()
    missing: list[str] = []
    by_parent: dict[str, list[tuple[str, str]]] = {}
    for path in paths:
        if path != "-":
            parent, _, name = path.rpartition("/")
            by_parent.setdefault(parent, []).append((path, name))
    for parent, given in by_parent.items():
        listing: dict[str, os.DirEntry[str]] = {}
        if len(given) >= _LIST_FROM:
            with contextlib.suppress(OSError, ValueError), os.scandir(parent or ".") as entries:
                listing = {entry.name: entry for entry in entries}
        for path, name in given:
            entry = listing.get(name)
            if entry is not None and not entry.is_symlink():
                if entry_is_dir(entry):
                    dirs.add(path)
                continue
            try:  # not listed (few siblings), a symlink (maybe broken), or a name like ".", "..", "x/"
                if stat.S_ISDIR(os.stat(path).st_mode):
                    dirs.add(path)
            except (OSError, ValueError):
                missing.append(path)
    return dirs, missing


_LIST_FROM = 8  # arguments in one directory from which listing it is cheaper than a stat each


rule_for = rule_of  # the rule id of a core error that ends a file's (or a resolution's) validation


def error_diagnostic(err: TvmcError, rule: str, name: str) -> Diagnostic:
    loc = err.location or Location(name)
    pointer = err.pointer or ""
    suggestion = err.suggestions[0] if err.suggestions else None
    return Diagnostic(rule, "error", pointer, err.message, loc.source, loc.line, loc.col, suggestion, err.hint)


def located(finding: Finding, loc: Location) -> Diagnostic:
    at = finding.location or loc
    return Diagnostic(
        finding.rule,
        finding.severity,
        finding.pointer,
        finding.message,
        at.source,
        at.line,
        at.col,
        finding.suggestion,
        finding.hint,
    )


def _with_old_json_hint(layer: sources.Layer, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """An old tvmc JSON config fails on its old spellings: its first error says how to convert it,
    as `--config` says it (the rules see only keys; the hint looks at the whole document)."""
    first = next((i for i, d in enumerate(diagnostics) if d.severity == "error"), None)
    if layer.format != "json" or first is None or diagnostics[first].hint or diagnostics[first].source != layer.source:
        return diagnostics
    hint = old_json_hint(layer.source, layer.data)
    if hint is not None:
        diagnostics[first] = replace(diagnostics[first], hint=hint)
    return diagnostics


def _tree_locators(tree_of: Callable[[], Tree], name: str) -> tuple[Locate, Callable[[str], Location | None]]:
    """Locators through a tree's origins; the tree is asked for only when something is located."""

    def locate(pointer: str) -> Location:
        origin = origin_of(tree_of().origins, pointer)
        return origin.location() if origin is not None else Location(name)

    def start(pointer: str) -> Location | None:
        origin = origin_of(tree_of().origins, pointer)
        return origin.string_start() if origin is not None else None

    return locate, start


_ABSENT: Any = object()


def _written_in(data: Any, pointer: str) -> bool:
    """Whether a (non-root) pointer names a value written in this document."""
    return bool(pointer) and node_at(data, pointer, _ABSENT) is not _ABSENT


def _own_first(
    layer: sources.Layer, locate: Locate, start: Callable[[str], Location | None]
) -> tuple[Locate, Callable[[str], Location | None]]:
    """Locators that answer from the file itself when it wrote the value: it is the top layer, so
    whatever it wrote is what the merged tree holds, and the origins tree (which costs more than
    validating the file) is built only for values that came from a parent."""

    def own_locate(pointer: str) -> Location:
        return layer.locate(pointer) if _written_in(layer.data, pointer) else locate(pointer)

    def own_start(pointer: str) -> Location | None:
        return layer.string_start(pointer) if _written_in(layer.data, pointer) else start(pointer)

    return own_locate, own_start


class Validator:
    """Validates inputs one at a time; keeps only a bounded cache between them."""

    def __init__(self, settings: Settings, dirs: Sequence[sources.SearchDir] | None = None) -> None:
        self.settings = settings
        self.dirs = sources.search_path() if dirs is None else dirs
        self.resolver = Resolver(self.dirs)
        self.structural: Structural = check_document
        if settings.engine == "jsonschema":
            from tvmc import deps

            deps.require("jsonschema", what="the jsonschema engine", location="--engine")
            from tvmc.validate.jsonschema_engine import schema_findings  # lazy: only this engine needs it

            self.structural = schema_findings

    # ---- inputs ----------------------------------------------------------------------------------

    def run(
        self,
        paths: Iterable[str],
        *,
        stdin: BinaryIO | None = None,
        stdin_name: str | None = None,
        jobs: int = 1,
        dirs: Container[str] | None = None,
    ) -> Iterator[FileResult]:
        """Every input's result, in order; with `jobs` > 1 many files are validated on that many
        cores (see `parallel`), the report being the same. `dirs`: see `iter_paths`."""
        found: Iterable[str] = iter_paths(paths, dirs)
        if jobs > 1:
            found = list(found)
            workers = 1 if "-" in found else parallel.workers_for(len(found), jobs)
            if workers > 1:
                yield from parallel.run(found, self.file, workers)
                return
        for path in found:
            yield self.stdin(stdin, stdin_name) if path == "-" else self.file(path)

    def paths(
        self, paths: Sequence[str], *, stdin: BinaryIO | None = None, stdin_name: str | None = None, jobs: int = 1
    ) -> Iterator[FileResult]:
        """`tvmc config validate PATH...` (`tvmc.api.validate_paths`): each input's result in order,
        a parent's error reported once (`once`), then a result for each directory that holds no
        config. The arguments are checked before the first result (a UsageError: '-' twice)."""
        if list(paths).count("-") > 1:
            raise UsageError("'-' (stdin) can be given once", "-")
        dirs, _missing = directories_among(paths)  # a missing input is reported in its place
        results = self.run(paths, stdin=stdin, stdin_name=stdin_name, jobs=jobs, dirs=dirs)
        return chain(once(results), _empty_directories(paths, dirs))

    def file(self, path: str) -> FileResult:
        # A relative path is shown as given (normalised), an absolute one relative to the cwd.
        name = os.path.normpath(path) if not os.path.isabs(path) else sources.loader.display_path(path)
        return self._guarded(name, lambda: self._load_and_check(name, lambda: sources.load_file(path, display=name)))

    def text(self, path: str, data: bytes) -> FileResult:
        """The file at `path` as `data` says it is, not as it is on disk (an editor's unsaved
        buffer): `path` names it in diagnostics, gives its format and anchors its relative `extends`."""
        name = sources.loader.display_path(path)
        fmt = sources.loader.format_for(path)
        absolute = os.path.abspath(path)
        return self._guarded(
            name,
            lambda: self._load_and_check(
                name, lambda: sources.load_bytes(data, source=name, format=fmt, path=absolute)
            ),
        )

    def stdin(self, stream: BinaryIO | None, name: str | None) -> FileResult:
        shown = name or "<stdin>"
        path = Path(os.path.abspath(name)) if name else None
        fmt = sources.loader.format_for(name) if name else None
        return self._guarded(
            shown,
            lambda: self._load_and_check(
                shown, lambda: sources.load_stdin(stream, source=shown, format=fmt, path=path)
            ),
        )

    def resolved(self, configs: Sequence[str], tree_of: Callable[[], Tree]) -> FileResult:
        """The config `--config`/flags (and the TVMC_* environment) resolve to, as `tree_of` builds
        it (`tvmc.api.resolve_tree`: load, layer, rewrite); it must be complete."""
        name = " ".join(f"--config {c}" for c in configs) or "<flags>"
        return self._guarded(name, lambda: self._resolved(name, tree_of), flags_decide=True)

    # ---- the work --------------------------------------------------------------------------------

    def _guarded(self, name: str, work: Callable[[], list[Diagnostic]], *, flags_decide: bool = False) -> FileResult:
        try:
            diagnostics = work()
        except UsageError as err:
            if flags_decide:  # resolving --config/flags: a flag that does not apply is a usage error
                raise
            diagnostics = [error_diagnostic(err, "rewrite", name)]  # per file: report it, go on
        except TvmcError as err:
            diagnostics = [error_diagnostic(err, rule_for(err), name)]
        except (RecursionError, MemoryError) as err:
            diagnostics = [Diagnostic("limit", "error", "", f"input too complex ({type(err).__name__})", name)]
        except Exception as err:  # a bug in a check must not hide the other files, nor print a traceback
            diagnostics = [Diagnostic("internal", "error", "", f"tvmc failed: {type(err).__name__}: {err}", name)]
        return FileResult(name, diagnostics)

    def _load_and_check(self, name: str, load: Callable[[], sources.Layer]) -> list[Diagnostic]:
        try:
            layer = load()
        except ConfigNotFoundError as err:  # the file itself: missing, a directory, unreadable
            return [error_diagnostic(err, "unreadable", name)]
        return _with_old_json_hint(layer, self.layer(layer))

    def layer(self, layer: sources.Layer) -> list[Diagnostic]:
        """Every diagnostic of one loaded file: its own document, its chain, and the resolved tree."""
        strict = self.settings.strict
        own = self.structural(layer.data)

        def own_semantics(partial: bool) -> list[Diagnostic]:
            findings = semantic_findings(
                layer.data,
                own,
                strict=strict,
                partial=partial,
                string_start=layer.string_start,
            )
            return [located(f, layer.locate(f.pointer)) for f in [*own, *findings]]

        if "extends" not in layer.data and not self.settings.rewrites:
            # The common case: the document is the resolved config; positions are computed only
            # when something was found.
            own = [*own, *component_kind_findings(layer.data)]
            return _ordered(layer.source, own_semantics(partial=False))
        chain = self.resolver.chain(layer)
        if chain.diagnostics:
            # Without its parents the file is only part of a config: check what it says itself.
            return _ordered(layer.source, [*own_semantics(partial=True), *chain.diagnostics])
        found = {_dedupe_key(d): d for d in (located(f, layer.locate(f.pointer)) for f in own)}
        rewrite_list = self.settings.rewrites
        tree = chain.tree(origins=bool(rewrite_list))  # flags record their origins as they apply
        if rewrite_list:
            from tvmc import rewrites  # lazy: only flag rewrites need the rewrite stage

            try:
                rewrites.apply_all(tree, rewrite_list)
            except TvmcError as err:
                found[("", 0, 0, "rewrite")] = error_diagnostic(err, "rewrite", layer.source)
                return _ordered(layer.source, list(found.values()))
        merged = [*self.structural(tree.data), *component_kind_findings(tree.data)]
        holder: list[Tree] = [tree] if rewrite_list else []

        def located_tree() -> Tree:  # built on first use: the same merge, now with origins
            if not holder:
                holder.append(chain.tree())
            return holder[0]

        locate, start = _tree_locators(located_tree, layer.source)
        if not rewrite_list:
            locate, start = _own_first(layer, locate, start)
        semantic = semantic_findings(tree.data, merged, strict=strict, string_start=start)
        # The merged tree holds the file's own values too: same place and rule → one diagnostic
        # (the merged one, which knows the kind chosen by a parent).
        found.update({_dedupe_key(d): d for d in (located(f, locate(f.pointer)) for f in [*merged, *semantic])})
        return _ordered(layer.source, [*found.values(), *_invalid_parents(layer, found.values())])

    def _resolved(self, name: str, tree_of: Callable[[], Tree]) -> list[Diagnostic]:
        tree = tree_of()
        structural = [*self.structural(tree.data), *completeness_findings(tree.data)]
        locate, start = _tree_locators(lambda: tree, name)
        semantic = semantic_findings(tree.data, structural, strict=self.settings.strict, string_start=start)
        diagnostics = [located(f, locate(f.pointer)) for f in [*structural, *semantic]]
        return _ordered(name, diagnostics, parent_warnings=True)  # every file here is the config


def _invalid_parents(layer: sources.Layer, diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The file's own error for errors located in its parents: it is invalid because they are, and
    a run reports each parent's error once (`once`), not once per file extending it."""
    parents = sorted(
        {
            d.source
            for d in diagnostics
            if d.source is not None and _elsewhere(d, layer.source) and d.severity == "error"
        }
    )
    if not parents:
        return []
    at = layer.locate("/extends")
    shown = " and ".join(parents)
    message = f"invalid through what it extends: errors located in {shown}"
    return [Diagnostic("extends-invalid", "error", "/extends", message, at.source, at.line, at.col)]


def _elsewhere(d: Diagnostic, name: str) -> bool:
    """Located at a line of another file than `name` (a parent), not at a flag or the file itself."""
    return d.source is not None and d.line is not None and d.source != name


def once(results: Iterable[FileResult]) -> Iterator[FileResult]:
    """The results of a run with each parent's error reported once, not once per file extending
    it: an error located in another file than the one validated (a parent, through `extends`) is
    left out when an earlier result reported it (that file's own, or another child's). The file
    stays invalid by its own `extends-invalid` error at its `extends`."""
    reported: set[tuple[str, int | None, int | None, str, str]] = set()
    for result in results:
        kept = []
        for d in result.diagnostics:
            key = (os.path.realpath(d.source) if d.source else "", d.line, d.col, d.rule, d.message)
            if d.source is not None and _elsewhere(d, result.name) and d.severity == "error" and key in reported:
                continue
            if d.severity == "error":
                reported.add(key)
            kept.append(d)
        yield result if len(kept) == len(result.diagnostics) else FileResult(result.name, kept)


def _empty_directories(paths: Sequence[str], dirs: Container[str]) -> Iterator[FileResult]:
    """A directory holding no config is an input that found nothing: an error, not silence."""
    for path in dict.fromkeys(p for p in paths if p in dirs):
        if next(iter_paths([path], dirs), None) is None:
            message = "no config found: the directory holds no *.toml or *.json file"
            yield FileResult(path, [Diagnostic("config-not-found", "error", "", message, path)])


def _dedupe_key(d: Diagnostic) -> tuple[str, int, int, str]:
    return (d.source or "", d.line or 0, d.col or 0, d.rule)


def _ordered(name: str, diagnostics: list[Diagnostic], *, parent_warnings: bool = False) -> list[Diagnostic]:
    """The input's own diagnostics first (by position), then those located elsewhere.

    For a file, warnings located in another file (a parent) are left to that file's own validation:
    a base extended by twenty configs would otherwise repeat them twenty times. Its errors stay, as
    they make this file invalid; so do warnings located at flags (no line)."""
    kept = [d for d in diagnostics if parent_warnings or d.severity == "error" or d.source == name or d.line is None]
    return sorted(kept, key=lambda d: (d.source != name, *d.sort_key()))
