"""What `tvmc lsp` answers, without the protocol: the open documents, their diagnostics (from the
one rule engine, on the text in the editor), completion, hover and definitions.

Positions here are 0-based lines and characters (code points); `tvmc.lsp.server` speaks LSP.
The editor's unsaved text wins over the disk: a file that extends an open file is validated
against the open file's text (`_OverlayResolver`), and re-validated when that text changes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from tvmc import api, flag_docs, keys, registry, sources
from tvmc.errors import TvmcError
from tvmc.layering import find
from tvmc.lsp.context import Cursor, cursor_at, siblings_of
from tvmc.lsp.context import Path as KeyPath
from tvmc.pointers import display_path, make_pointer
from tvmc.provenance import node_at, walk
from tvmc.records import field, record
from tvmc.validate.diagnostics import Diagnostic
from tvmc.validate.resolve import Resolver
from tvmc.validate.runner import Settings, Validator

_TOKEN_END = re.compile(r"[A-Za-z0-9_.+\-/:^]*")


@record(slots=True, frozen=True)
class Problem:
    """A diagnostic placed in one open document."""

    line: int
    character: int
    end_line: int
    end_character: int
    severity: str  # "error" | "warning"
    rule: str
    message: str
    suggestion: str | None = None
    # Where it really is when that is another file (a parent): path, 0-based line and character.
    elsewhere: tuple[str, int, int] | None = None


@record(slots=True, frozen=True)
class Item:
    """A completion: the text shown, what it inserts, and what it is."""

    label: str
    kind: str  # "key" | "value" | "file"
    detail: str = ""
    documentation: str = ""
    insert: str | None = None


@record(slots=True, frozen=True)
class Place:
    path: str
    line: int
    character: int


@record(slots=True)
class _Document:
    path: str
    text: str
    fmt: str
    chain: set[str] = field(default_factory=set)  # the files its last validation read (parents)


class _OverlayResolver(Resolver):
    """A resolver that reads a parent the editor has open from the editor's text."""

    def __init__(self, dirs: Sequence[sources.SearchDir], workspace: Workspace) -> None:
        super().__init__(dirs)
        self.workspace = workspace
        self.read: set[str] = set()
        self._parsed: dict[str, tuple[str, sources.Layer]] = {}
        self._stamps: dict[str, int] = {}  # a parent's modification time when it was read

    def load(self, ref: str, relative_to: str | None) -> sources.Layer:
        layer = super().load(ref, relative_to)
        if layer.file is None:
            return layer
        path = os.path.abspath(layer.file)
        if self._changed_on_disk(path):  # saved by another program: the cached copy is stale
            self._cache.clear()
            layer = super().load(ref, relative_to)
        self.read.add(path)
        doc = self.workspace.documents.get(path)
        if doc is None:
            return layer
        cached = self._parsed.get(path)
        if cached is None or cached[0] != doc.text:
            fresh = sources.load_bytes(doc.text.encode(), source=layer.source, format=doc.fmt, path=path)
            cached = (doc.text, fresh)
            self._parsed[path] = cached
        return cached[1].named(layer.name) if layer.name else cached[1]

    def _changed_on_disk(self, path: str) -> bool:
        try:
            stamp = os.stat(path).st_mtime_ns
        except OSError:
            stamp = -1
        before = self._stamps.get(path)
        self._stamps[path] = stamp
        return before is not None and before != stamp

    def forget(self) -> None:
        """Files changed on disk: read parents anew."""
        self._cache.clear()
        self._parsed.clear()


def format_of(path: str, text: str) -> str:
    return sources.loader.format_for(path) or sources.sniff_format(text)


class Workspace:
    """The documents open in the editor and what tvmc says about them."""

    def __init__(self, dirs: Sequence[sources.SearchDir] | None = None) -> None:
        self.dirs = list(sources.search_path() if dirs is None else dirs)
        self.documents: dict[str, _Document] = {}
        self.validator = Validator(Settings(), self.dirs)
        self.resolver = _OverlayResolver(self.dirs, self)
        self.validator.resolver = self.resolver

    # ---- documents -------------------------------------------------------------------------------

    def open(self, path: str, text: str) -> None:
        path = os.path.abspath(path)
        self.documents[path] = _Document(path, text, format_of(path, text))

    def close(self, path: str) -> None:
        self.documents.pop(os.path.abspath(path), None)

    def saved(self) -> None:
        self.resolver.forget()

    def dependents(self, path: str) -> list[str]:
        """The open documents whose last validation read `path` (they extend it)."""
        path = os.path.abspath(path)
        return [p for p, doc in self.documents.items() if p != path and path in doc.chain]

    # ---- diagnostics -----------------------------------------------------------------------------

    def is_config(self, path: str) -> bool:
        """Whether an open file is a tvmc config: it names tvmc's schema, sits in a directory of the
        search path, or says `targets`, `extends` or `tvm-version`. An editor starts the server for
        every TOML/JSON file; the others (pyproject.toml, package.json) are left alone."""
        doc = self.documents[os.path.abspath(path)]
        if _SCHEMA_NAME in doc.text or _CONFIG_KEYS.search(doc.text):
            return True
        return any(_is_within(doc.path, str(d.path)) for d in self.dirs)

    def diagnose(self, path: str) -> list[Problem]:
        path = os.path.abspath(path)
        doc = self.documents[path]
        if not self.is_config(path):
            return []
        self.resolver.read = set()
        result = self.validator.text(path, doc.text.encode())
        doc.chain = self.resolver.read
        name = sources.loader.display_path(path)
        # An editor shows a parent's own errors at this file's `extends` (`_place`): the line saying
        # that this file is invalid through them (`extends-invalid`) would repeat them.
        inherited = any(d.source not in (name, None) and d.line is not None for d in result.diagnostics)
        shown = [d for d in result.diagnostics if not (inherited and d.rule == "extends-invalid")]
        return [self._place(doc, name, d) for d in shown]

    def _place(self, doc: _Document, name: str, d: Diagnostic) -> Problem:
        lines = doc.text.split("\n")
        if d.source == name or d.source is None or not _is_file(d.source):
            line = max((d.line or 1) - 1, 0)
            char = max((d.col or 1) - 1, 0)
            line = min(line, len(lines) - 1)
            if d.rule not in _KEY_RULES:
                char = _value_start(lines[line], char)
            start, end = _token(lines[line], char)
            fix = d.suggestion
            written = lines[line][start:end]
            if fix is not None and written[:1] in ("+", "-") and fix[:1] not in ("+", "-"):
                fix = written[0] + fix  # an mattr feature keeps its sign
            return Problem(line, start, line, end, d.severity, d.rule, d.full_message, fix)
        # Found in another file (a parent it extends): shown at this file's `extends`.
        line = next((n for n, text in enumerate(lines) if re.match(r'\s*"?extends"?\s*[=:]', text)), 0)
        elsewhere = (os.path.abspath(d.source), max((d.line or 1) - 1, 0), max((d.col or 1) - 1, 0))
        message = f"{d.where()}: {d.full_message}"
        return Problem(line, 0, line, len(lines[line]), d.severity, d.rule, message, None, elsewhere)

    # ---- completion ------------------------------------------------------------------------------

    def complete(self, path: str, line: int, character: int) -> list[Item]:
        doc = self.documents[os.path.abspath(path)]
        if not self.is_config(path):
            return []
        cursor = cursor_at(doc.text, line, character, doc.fmt)
        own = siblings_of(doc.text, cursor, doc.fmt)
        if cursor.at == "key":
            return self._keys(cursor, own, doc.fmt)
        return self._values(cursor, own, doc)

    def _keys(self, cursor: Cursor, own: dict[str, str], fmt: str) -> list[Item]:
        where = cursor.container
        found: list[Item] = []
        if where == ():
            found = [Item(k, "key", spec.type, spec.description) for k, spec in keys.TOP_LEVEL.items()]
        elif where == ("build",):
            found = [Item(k, "key", spec.type, spec.description) for k, spec in keys.BUILD_OPTIONS.items()]
        elif where in (("executor",), ("runtime",)):
            found = [Item("kind", "key", "str", f"The {where[0]}: {', '.join(registry.components(where[0]))}.")]
            component = registry.components(where[0]).get(own.get("kind", ""))
            if component is not None:
                found += [Item(o.name, "key", o.type, o.description) for o in component.options.values()]
        elif where == ("pass-config",):
            # Both generations' spellings are accepted (tir.X for legacy TVM, tirx.X since 0.25).
            modern, legacy = registry.pass_configs(), registry.legacy_pass_configs()
            quote = fmt == "toml" and not cursor.in_string
            for name, typ in sorted({**legacy, **modern}.items()):
                which = "TVM >= 0.25" if name in modern else "legacy TVM (<= 0.19)"
                found.append(Item(name, "key", typ, f"PassContext config of {which}", f'"{name}"' if quote else None))
        elif _is_target(where):
            kind = registry.all_kinds().get(own.get("kind", ""))
            found = [Item("kind", "key", "str", "The target kind."), Item("tag", "key", "str", "A TVM target tag.")]
            if kind is not None:
                found += [
                    Item(o, "key", t, flag_docs.option_description(kind.name, o) or "")
                    for o, t in kind.accepted.items()
                    if o not in ("kind", "tag")
                ]
        return _matching(found, cursor.prefix)

    def _values(self, cursor: Cursor, own: dict[str, str], doc: _Document) -> list[Item]:
        where, key = cursor.container, cursor.key
        names: Iterable[str] = ()
        detail = ""
        if where == () and key == "extends":
            return _matching(self._config_names(cursor.prefix, doc), cursor.prefix)
        if where == () and key in ("targets", "host") and (cursor.element is not None or key == "host"):
            names, detail = [*registry.tag_names(), *registry.public_kinds()], "tag or kind"
        elif where == () and key == "tvm-version":
            names, detail = [">=0.25", *(f"=={v}" for v in registry.generation_versions())], "TVM release"
        elif where == () and key == "executor":
            names, detail = registry.executors(), "executor"
        elif where == () and key == "runtime":
            names, detail = registry.runtimes(), "runtime"
        elif where == ("build",) and key in keys.BUILD_OPTIONS:
            names, detail = keys.BUILD_OPTIONS[key].enum, key
        elif where in (("executor",), ("runtime",)):
            if key == "kind":
                names, detail = registry.components(where[0]), where[0]
            else:
                component = registry.components(where[0]).get(own.get("kind", ""))
                option = component.options.get(key or "") if component is not None else None
                if option is not None:
                    names, detail = option.enum or (("true", "false") if option.type == "bool" else ()), option.type
        elif _is_target(where):
            names, detail = self._target_values(key, cursor, own)
        return _matching([Item(n, "value", detail) for n in names], cursor.prefix)

    def _target_values(self, key: str | None, cursor: Cursor, own: dict[str, str]) -> tuple[Iterable[str], str]:
        kind = own.get("kind", "")
        if key == "kind":
            return registry.public_kinds(), "target kind"
        if key == "tag":
            return registry.tag_names(), "TVM target tag"
        if key == "compiler":
            return registry.compilers(), "BYOC codegen"
        llvm = _llvm_names(kind, own.get("mtriple"))
        if llvm is None:
            return (), ""
        if key == "mcpu" or (key == "arch" and kind == "cuda"):
            return sorted(llvm.cpus), f"{llvm.target} CPU" if key == "mcpu" else "CUDA arch"
        if key == "mattr" and cursor.element is not None:
            sign = cursor.prefix[:1] if cursor.prefix[:1] in "+-" and cursor.prefix else "+"
            return [sign + f for f in sorted(llvm.features)], f"{llvm.target} feature"
        return (), ""

    def _config_names(self, prefix: str, doc: _Document) -> list[Item]:
        name, _, _part = prefix.partition(":")
        if ":" in prefix:
            return [Item(f"{name}:{p}", "value", "part") for p in self._parts(name, doc)]
        found: dict[str, Item] = {}
        for entry in sources.list_configs(self.dirs):
            if entry.shadowed or os.path.abspath(entry.path) == doc.path:
                continue
            found.setdefault(entry.name, Item(entry.name, "file", str(entry.path), entry.description or ""))
        return list(found.values())

    def _parts(self, name: str, doc: _Document) -> list[str]:
        """The parts a config `NAME:PART` can select: its targets' kinds, keys and tags."""
        try:
            layer = find(self.dirs)(name, str(Path(doc.path).parent))
        except TvmcError:
            return []
        parts: list[str] = []
        for entry in layer.data.get("targets") or []:
            if isinstance(entry, str):
                parts += [entry, entry.split()[0]]
            elif isinstance(entry, dict):
                parts += [str(entry[k]) for k in ("kind", "tag") if isinstance(entry.get(k), str)]
                parts += [k for k in entry.get("keys") or [] if isinstance(k, str)]
        return list(dict.fromkeys(parts))

    # ---- hover -----------------------------------------------------------------------------------

    def hover(self, path: str, line: int, character: int) -> str | None:
        doc = self.documents[os.path.abspath(path)]
        if not self.is_config(path):
            return None
        cursor = cursor_at(doc.text, line, character, doc.fmt, whole_word=True)
        at = cursor.pointer_path
        if cursor.container == () and cursor.key == "extends" and cursor.at == "value":
            return self._extends_hover(doc, cursor.prefix)
        if not at:
            return None
        own = siblings_of(doc.text, cursor, doc.fmt)
        option = at[-2] if isinstance(at[-1], int) and len(at) > 1 else at[-1]
        container = at[:-2] if isinstance(at[-1], int) and len(at) > 1 else at[:-1]
        sections = [self._spec(container, str(option), own)]
        sections.append(self._resolution(doc, at))
        text = "\n\n".join(s for s in sections if s)
        return text or None

    def _extends_hover(self, doc: _Document, ref: str) -> str | None:
        """What an `extends` entry names: the file (or tag) and its description."""
        if not ref:
            return None
        try:
            layer = self.resolver.load(ref, str(Path(doc.path).parent))
        except TvmcError as err:
            return f"`{ref}`: {err.one_line()}"
        where = layer.file or layer.source
        description = layer.data.get("description")
        text = f"`{ref}` → {where}"
        return text + (f"\n\n{description}" if isinstance(description, str) else "")

    def _spec(self, container: KeyPath, option: str, own: dict[str, str]) -> str:
        """The option's type, default and description."""
        typ, default, description, what = None, None, None, ""
        if container == () and option in keys.TOP_LEVEL:
            spec = keys.TOP_LEVEL[option]
            typ, description, default = spec.type, spec.description, keys.INTERNAL_DEFAULTS.get(option)
        elif container == ("build",) and option in keys.BUILD_OPTIONS:
            spec = keys.BUILD_OPTIONS[option]
            typ, description, default, what = spec.type, spec.description, keys.BUILD_DEFAULTS.get(option), "build"
        elif container in (("executor",), ("runtime",)):
            component = registry.components(str(container[0])).get(own.get("kind", ""))
            found = component.options.get(option) if component is not None else None
            if found is not None:
                typ, default, description = found.type, found.default, found.description
                what = f"{container[0]} {component.name}" if component is not None else ""
        elif container == ("pass-config",):
            canonical, typ = registry.pass_config_spec(option, None)
            description = f"PassContext config (TVM >= 0.25 calls it {canonical})" if canonical != option else None
            what = "pass-config"
        elif _is_target(container):
            kind = registry.all_kinds().get(own.get("kind", ""))
            if kind is not None and option in kind.accepted:
                typ, default = kind.accepted[option], kind.defaults.get(option)
                description = flag_docs.option_description(kind.name, option)
                what = f"target kind {kind.name}"
        if typ is None:
            return ""
        head = f"**{option}**: `{typ}`" + (f" ({what})" if what else "")
        lines = [head]
        if description:
            lines.append(description)
        if default is not None:
            lines.append(f"Default: `{_shown(default)}`")
        return "\n\n".join(lines)

    def _resolution(self, doc: _Document, at: KeyPath) -> str:
        """The value as the config resolves, and every layer that set it (`tvmc config explain`)."""
        try:
            layer = sources.load_bytes(
                doc.text.encode(), source=sources.loader.display_path(doc.path), format=doc.fmt, path=doc.path
            )
            result = api.explain(["-"], path=display_path(make_pointer(at)), stdin=layer, search=self.dirs)
        except (TvmcError, TypeError, ValueError):
            return ""
        lines: list[str] = []
        if result.final is not None:
            lines.append(f"Resolves to `{_shown(result.final.value)}` — from {result.final.origin}")
        elif result.error is not None:
            lines.append(f"Does not resolve: {result.error.one_line()}")
        for step in result.steps:
            value = f"= `{_shown(step.value)}`" if step.action == "set" else "unset"
            lines.append(f"- {step.where}: {display_path(step.pointer)} {value}")
        lines += [f"- {note}" for note in result.notes]
        # The buffer is given to the resolution as `--config -`; the editor knows it as this file.
        return "\n".join(lines).replace(" (via --config -)", "").replace("(via --config -, ", "(via ")

    # ---- definition ------------------------------------------------------------------------------

    def definition(self, path: str, line: int, character: int) -> list[Place]:
        doc = self.documents[os.path.abspath(path)]
        if not self.is_config(path):
            return []
        cursor = cursor_at(doc.text, line, character, doc.fmt, whole_word=True)
        if cursor.container == () and cursor.key == "extends" and cursor.at == "value":
            return self._extended(doc, cursor.prefix)
        at = cursor.pointer_path
        if not at:
            return []
        try:
            layer = sources.load_bytes(
                doc.text.encode(), source=sources.loader.display_path(doc.path), format=doc.fmt, path=doc.path
            )
            tree = self.resolver.chain(layer).tree()
        except TvmcError:
            return []
        pointer = make_pointer(at)
        origins = tree.origins
        places: dict[tuple[str, int, int], Place] = {}
        node = node_at(tree.data, pointer)
        pointers = [p for p, _ in walk(node, pointer)] if node is not None else [pointer]
        for p in pointers:
            origin = origins.get(p)
            if origin is None or origin.kind != "file" or origin.layer is None:
                continue
            file = getattr(origin.layer, "file", None)
            if file is None or os.path.abspath(file) == doc.path:
                continue
            where = origin.location()
            key = (os.path.abspath(file), max((where.line or 1) - 1, 0), max((where.col or 1) - 1, 0))
            places.setdefault(key, Place(*key))
        return list(places.values())

    def _extended(self, doc: _Document, ref: str) -> list[Place]:
        try:
            layer = self.resolver.load(ref, str(Path(doc.path).parent))
        except TvmcError:
            return []
        return [Place(os.path.abspath(layer.file), 0, 0)] if layer.file else []


_SCHEMA_NAME = "compilation-config.schema.json"
_CONFIG_KEYS = re.compile(
    r'^\s*(?:\[\[?\s*targets\b|(?:targets|extends|tvm-version)\s*=)|"(?:targets|extends|tvm-version)"\s*:', re.M
)


def _is_within(path: str, directory: str) -> bool:
    try:
        return os.path.commonpath([path, os.path.abspath(directory)]) == os.path.abspath(directory)
    except ValueError:
        return False


def _is_target(where: KeyPath) -> bool:
    """Whether a path names a target table: targets[N], host, their hosts, a composite's devices."""
    if where == ("host",):
        return True
    if len(where) >= 2 and where[0] == "targets" and isinstance(where[1], int):
        rest = where[2:]
        while rest:
            if rest[:1] == ("host",):
                rest = rest[1:]
            elif len(rest) >= 2 and rest[0] == "devices" and isinstance(rest[1], int):
                rest = rest[2:]
            else:
                return False
        return True
    return where[:1] == ("host",) and all(p == "host" for p in where)


def _llvm_names(kind: str, triple: str | None) -> registry.LlvmNames | None:
    if kind == "llvm":
        target = registry.llvm_target(triple) if triple else None
        if target is not None:
            return registry.llvm_names(target)
        union = [n for n in (registry.llvm_names(t) for t in ("x86", "aarch64", "arm", "riscv")) if n]
        return registry.LlvmNames(
            "cpu", frozenset().union(*(n.cpus for n in union)), frozenset().union(*(n.features for n in union))
        )
    return registry.llvm_names(
        {"cuda": "nvptx", "nvptx": "nvptx", "rocm": "amdgcn", "hexagon": "hexagon"}.get(kind, "")
    )


def _matching(items: Iterable[Item], prefix: str) -> list[Item]:
    return [item for item in items if item.label.startswith(prefix)]


# Rules about a key itself; the others are about the value written for it, which they underline.
_KEY_RULES = frozenset(
    {"unknown-key", "unknown-option", "wrong-kind-option", "unknown-pass-config", "legacy-option", "missing-key"}
)
_KEY_THEN_VALUE = re.compile(r"""(?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_.\-]+)\s*[=:]\s*""")


def _value_start(line: str, char: int) -> int:
    """Where the value begins when `char` is at the key it is written for (`mcpu = "x"`)."""
    match = _KEY_THEN_VALUE.match(line, char)
    return match.end() if match and match.end() < len(line) else char


def _token(line: str, char: int) -> tuple[int, int]:
    """The range of the key or value starting at `char`: inside its quotes for a string."""
    if char >= len(line):
        return max(len(line) - 1, 0), len(line)
    if line[char] in "\"'":
        close = line.find(line[char], char + 1)
        return char + 1, close if close != -1 else len(line)
    match = _TOKEN_END.match(line, char)
    end = match.end() if match else char
    return char, max(end, char + 1)


def _is_file(source: str) -> bool:
    return os.path.isfile(source)


def _shown(value: Any) -> str:
    from tvmc.emit import canonical  # lazy: only hover shows values

    return canonical.toml_value(value)
