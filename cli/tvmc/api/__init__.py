"""The Python API: the same pipeline the CLI runs, returning the config with its origins.

    >>> from tvmc.api import resolve
    >>> r = resolve(["aws/c5"], [("--target-llvm-mcpu", "cascadelake")])
    >>> r.config.targets[0]["mcpu"], str(r.origin("/targets/0/mcpu"))
    ('cascadelake', '--target-llvm-mcpu=cascadelake')

Arguments are checked on entry: `configs` is a list of names or paths (one str is one config,
never its characters; a `pathlib.Path` is a path), rewrites a list of `(flag, value)` pairs of
strings (the value as typed on a command line: `("-O", "2")`) or `Rewrite` objects; anything else
is a `TypeError` saying what was expected.

Stages: load (`sources`) → layer (`layering`) → rewrite (`rewrites`) → validate (`validate`) →
canonicalize (`config`); emitters and builds consume the `Resolved` result (README, "Code
layout"). `compile` and `run` are `tvmc compile` and `tvmc run` (the CLI calls them).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence

from tvmc import layering, lazy_exports, rewrites, sources
from tvmc import targets as tg
from tvmc.config import CompilationConfig, ConfigError, canonicalize_config
from tvmc.errors import ConfigNotFoundError, Location, TvmcError, UsageError
from tvmc.keys import old_json_hint, pass_config_aliases
from tvmc.layering import Tree
from tvmc.layering.tree import canonical_entry
from tvmc.pointers import join, split
from tvmc.provenance import Origin, Origins, node_at, origin_of, printable, walk
from tvmc.records import field, record
from tvmc.validate.diagnostics import Finding
from tvmc.validate.rules import config_findings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO

    from tvmc.explain import Explanation

    # Types only: the rewrite stage's modules load when a rewrite is given (scripts/bench_startup.py).
    RewriteLike = rewrites.Rewrite | tuple[str, str]

# The public API: what the CLI calls and what users import. Everything else here is a helper of
# these (its name may change); tests/core/test_api_public.py holds this list to what exists.
__all__ = [
    "EMIT_FORMS",
    "ENGINES",
    "Emitted",
    "Inputs",
    "Participation",
    "PruneVerdict",
    "Resolved",
    "build",
    "canonical_origins",
    "check",
    "compile",
    "doctor",
    "emit",
    "explain",
    "from_library",
    "inputs",
    "participation",
    "prune_verdicts",
    "reproduce",
    "require_inputs",
    "resolve",
    "resolve_inputs",
    "resolve_tree",
    "run",
    "shipped_cross_compilers",
    "source_pointer",
    "tune",
    "validate",
    "validate_config",
    "validate_paths",
]

ConfigRef = str | tuple[str, Location | None]


@record(slots=True, frozen=True)
class Resolved:
    """A resolved config: the canonical model, the origin of each canonical value, and notes."""

    config: CompilationConfig
    origins: Mapping[str, Origin]
    notes: tuple[str, ...]
    tree: Tree  # the merged, rewritten tree before canonicalization
    participation: Participation = field(
        default_factory=lambda: Participation(False)
    )  # which user/env inputs took part
    findings: tuple[Finding, ...] = ()  # the rule engine's warnings on the config (its errors raise)

    def to_dict(self) -> dict[str, Any]:
        return self.config.to_dict()

    def origin(self, pointer: str) -> Origin:
        """The origin of the value at a JSON pointer such as `/targets/0/mcpu`."""
        if not isinstance(pointer, str):
            raise TypeError(
                f"pointer: expected a JSON pointer str such as '/targets/0/mcpu', got {_type_name(pointer)}"
            )
        return origin_of(self.origins, pointer) or Origin.default()

    def fingerprint(self) -> str:
        return self.config.fingerprint()


def _type_name(value: object) -> str:
    return type(value).__name__


def _refs(configs: object) -> list[tuple[str, Location | None]]:
    """The config references, checked: a str (or path) alone is one config."""
    if isinstance(configs, str | os.PathLike):
        configs = [configs]
    elif not isinstance(configs, Sequence):
        raise TypeError(f"configs: expected a list of config names or paths, got {_type_name(configs)}")
    out: list[tuple[str, Location | None]] = []
    for index, ref in enumerate(configs):
        if isinstance(ref, os.PathLike):
            ref = _path_ref(ref)
        if isinstance(ref, str):
            out.append((ref, Location(f"--config {printable(ref)}")))
        elif (
            isinstance(ref, tuple)
            and len(ref) == 2
            and isinstance(ref[0], str)
            and (ref[1] is None or isinstance(ref[1], Location))
        ):
            out.append(ref)
        else:
            raise TypeError(
                f"configs[{index}]: expected a config name or path (str), got {_type_name(ref)} {printable(repr(ref))}"
            )
    return out


def _path_ref(path: os.PathLike[Any]) -> str:
    """A `Path` names a file, never a config on the search path: `Path("x")` is `./x`."""
    text: object = os.fspath(path)
    if not isinstance(text, str):
        raise TypeError(f"configs: expected a str path, got bytes {text!r}")
    return text if sources.is_path_ref(text) else os.path.join(".", text)


def _rewrites(items: object) -> list[rewrites.Rewrite]:
    """The rewrites, checked: all (flag, value) pairs of str, or all `Rewrite` objects."""
    if isinstance(items, str | bytes) or not isinstance(items, Sequence):
        raise TypeError(
            f"rewrites: expected a list of (flag, value) pairs or Rewrite objects, got {_type_name(items)}"
            + (f" {printable(repr(items))}" if isinstance(items, str) else "")
        )
    pairs: list[tuple[str, str]] = []
    objects: list[rewrites.Rewrite] = []
    for index, item in enumerate(items):
        if isinstance(item, rewrites.Rewrite):
            objects.append(item)
            continue
        if not (isinstance(item, tuple | list) and len(item) == 2):
            raise TypeError(
                f"rewrites[{index}]: expected a (flag, value) pair or a Rewrite, got {_type_name(item)} "
                f"{printable(repr(item))}"
            )
        flag, value = item
        if not isinstance(flag, str):
            raise TypeError(f"rewrites[{index}]: the flag must be a str such as '-O', got {_type_name(flag)}")
        if not isinstance(value, str):
            raise TypeError(
                f"rewrites[{index}]: the value of {flag} must be a str, as typed on a command line "
                f"({flag!r}, {str(value)!r}), got {_type_name(value)}"
            )
        pairs.append((flag, value))
    if pairs and objects:
        raise TypeError("rewrites: pass either Rewrite objects or (flag, value) pairs, not both")
    return rewrites.argv_rewrites(pairs) if pairs else objects


def _environment(env: object) -> Mapping[str, str]:
    if env is None:
        return os.environ
    if not isinstance(env, Mapping):
        raise TypeError(f"env: expected a mapping of str to str (like os.environ), got {_type_name(env)}")
    for key, value in env.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError(f"env: expected str keys and values, got {key!r}: {_type_name(value)}")
    return env


def _search(search: object, env: Mapping[str, str], isolated: bool = False) -> Sequence[sources.SearchDir]:
    if search is None:
        return sources.search_path(env, isolated=isolated)
    if isinstance(search, str) or not isinstance(search, Sequence):
        raise TypeError(f"search: expected a list of tvmc.sources.SearchDir, got {_type_name(search)}")
    for index, entry in enumerate(search):
        if not isinstance(entry, sources.SearchDir):
            raise TypeError(
                f"search[{index}]: expected a tvmc.sources.SearchDir(path, origin), got {_type_name(entry)}"
            )
    return search


@record(slots=True, frozen=True)
class Inputs:
    """Checked arguments of one resolution: references, rewrites, the environment it sees (no
    `TVMC_*` variable when isolated), the search path, and the config `-` names."""

    refs: list[tuple[str, Location | None]]
    edits: list[rewrites.Rewrite]
    env: Mapping[str, str]
    dirs: Sequence[sources.SearchDir]
    stdin: sources.Layer | None
    isolated: bool


def inputs(
    configs: object, rewrite_list: object, env: object, search: object, stdin: object, isolated: object
) -> Inputs:
    """Check the API's arguments (a `TypeError` saying what was expected) and apply isolation:
    `isolated=True` or `TVMC_ISOLATED=1` drops every `TVMC_*` variable and the user directory."""
    refs, edits = _refs(configs), _rewrites(rewrite_list)
    checked_env = _environment(env)
    if not isinstance(isolated, bool):
        raise TypeError(f"isolated: expected a bool, got {_type_name(isolated)}")
    isolated = isolated or sources.is_isolated(checked_env)
    dirs = _search(search, checked_env, isolated)
    if isolated:
        checked_env = sources.isolated_env(checked_env)
    return Inputs(refs, edits, checked_env, dirs, _stdin_layer(refs, stdin), isolated)


@record(slots=True, frozen=True)
class Participation:
    """The user and environment inputs that took part in a resolution (`config show --origin`)."""

    isolated: bool
    variables: tuple[tuple[str, str], ...] = ()  # the TVMC_* variables read, and their values
    user_configs: tuple[str, ...] = ()  # files loaded from the user directory or TVMC_CONFIG_PATH

    def to_dict(self) -> dict[str, Any]:
        return {"isolated": self.isolated, "variables": dict(self.variables), "user-configs": list(self.user_configs)}

    def summary(self) -> str:
        """One line: what took part, or that nothing did."""
        if self.isolated:
            return "isolated: the user config directory and every TVMC_* variable were ignored"
        parts = []
        if self.variables:
            parts.append("environment: " + ", ".join(f"{k}={printable(v)}" for k, v in self.variables))
        if self.user_configs:
            parts.append("user configs: " + ", ".join(printable(p) for p in self.user_configs))
        return "; ".join(parts) if parts else "no user config and no TVMC_* variable took part"


def participation(given: Inputs, tree: Tree) -> Participation:
    """Which TVMC_* variables were read and which user (or TVMC_CONFIG_PATH) files were loaded."""
    given = require_inputs(given)
    if not isinstance(tree, Tree):
        raise TypeError(f"tree: expected a tvmc.layering.Tree, got {_type_name(tree)}")
    if given.isolated:
        return Participation(True)
    names = [*([] if given.refs else [layering.BASE_ENV]), sources.ENV_VAR, *rewrites.ENV_FLAGS]
    variables = tuple((name, given.env[name]) for name in names if given.env.get(name, "").strip())
    own = [d.text for d in given.dirs if d.origin != "shipped"]
    user = tuple(dict.fromkeys(p for p in tree.inputs if any(sources.is_within(p, d) for d in own)))
    return Participation(False, variables, user)


def _stdin_layer(refs: Sequence[tuple[str, Location | None]], stdin: object) -> sources.Layer | None:
    """The config `-` names, read once from `stdin` (a binary stream; default the process's
    standard input; a `Layer` already read is used as is); None when no reference is `-`."""
    count = sum(1 for ref, _ in refs if ref == layering.STDIN_REF)
    if count == 0:
        return None
    if count > 1:
        raise UsageError("'-' (stdin) can be given once", "--config -")
    if isinstance(stdin, sources.Layer):
        return stdin
    if stdin is None:
        if sys.stdin is None:
            raise ConfigNotFoundError("cannot read standard input: it is closed", "<stdin>")
        stream: Any = getattr(sys.stdin, "buffer", sys.stdin)
    elif callable(getattr(stdin, "read", None)):
        stream = stdin
    else:
        raise TypeError(f"stdin: expected a binary stream (such as sys.stdin.buffer), got {_type_name(stdin)}")
    read: object = sources.read_limited(stream)
    data = read.encode("utf-8") if isinstance(read, str) else read  # a text stream
    if not isinstance(data, bytes):
        raise TypeError(f"stdin: expected a binary stream, its read() gave {_type_name(data)}")
    if not data.strip():
        raise ConfigNotFoundError("standard input is empty (--config - reads a TOML or JSON config)", "<stdin>")
    return sources.load_bytes(data, source=STDIN_SOURCE)


STDIN_SOURCE = "<stdin>"


def resolve_tree(
    configs: Sequence[ConfigRef] | str = (),
    rewrite_list: Sequence[RewriteLike] = (),
    *,
    env: Mapping[str, str] | None = None,
    search: Sequence[sources.SearchDir] | None = None,
    stdin: BinaryIO | sources.Layer | None = None,
    isolated: bool = False,
) -> Tree:
    """Load, layer and rewrite: the merged tree with origins, before canonicalization. The config
    `-` is read from `stdin` (default: the process's standard input), TOML or JSON (sniffed)."""
    return build(inputs(configs, rewrite_list, env, search, stdin, isolated))


def require_inputs(given: object) -> Inputs:
    """`given`, when it is checked inputs (a TypeError otherwise)."""
    if not isinstance(given, Inputs):
        raise TypeError(f"expected the tvmc.api.Inputs that tvmc.api.inputs(...) returns, got {_type_name(given)}")
    return given


def build(given: Inputs) -> Tree:
    """`resolve_tree` for checked inputs."""
    given = require_inputs(given)
    tree = layering.build_tree(given.refs, given.dirs, given.env, given.stdin)
    rewrites.apply_all(tree, rewrites.env_rewrites(given.env))
    rewrites.apply_all(tree, given.edits)
    return tree


def resolve(
    configs: Sequence[ConfigRef] | str = (),
    rewrite_list: Sequence[RewriteLike] = (),
    *,
    env: Mapping[str, str] | None = None,
    search: Sequence[sources.SearchDir] | None = None,
    stdin: BinaryIO | sources.Layer | None = None,
    isolated: bool = False,
) -> Resolved:
    """The whole pipeline: configs (names or paths, `-` for stdin) and rewrites → a canonical
    CompilationConfig. `isolated` (or `TVMC_ISOLATED=1` in `env`) ignores the user config
    directory and every `TVMC_*` variable."""
    return resolve_inputs(inputs(configs, rewrite_list, env, search, stdin, isolated))


def resolve_inputs(given: Inputs) -> Resolved:
    """`resolve` for checked inputs."""
    given = require_inputs(given)
    tree = build(given)
    reader = tree.reader  # each target read once: by layering, the rule engine and canonicalization
    try:
        warnings = check(tree, reader)
        config, notes = canonicalize_config(tree.data, tree.origins, reader)
    except TvmcError as err:
        _hint_old_json(err, tree)
        raise
    all_notes = tuple(dict.fromkeys([*tree.notes, *notes]))
    origins = _Deferred(lambda: canonical_origins(config.to_dict(), tree))
    return Resolved(config, origins, all_notes, tree, participation(given, tree), tuple(warnings))


class _Deferred(Mapping[str, Origin]):
    """The origins of a resolved config, worked out when first read: printing a config without
    `--origin` never reads them (a tenth of `config show`'s work). Read-only, equal to the dict it
    stands for, and pickled as that dict."""

    __slots__ = ("_compute", "_origins")

    def __init__(self, compute: Callable[[], dict[str, Origin]]) -> None:
        self._compute: Callable[[], dict[str, Origin]] | None = compute
        self._origins: dict[str, Origin] | None = None

    def _worked_out(self) -> dict[str, Origin]:
        if self._origins is None:
            assert self._compute is not None
            self._origins, self._compute = self._compute(), None
        return self._origins

    def __getitem__(self, pointer: str) -> Origin:
        return self._worked_out()[pointer]

    def __contains__(self, pointer: object) -> bool:
        return pointer in self._worked_out()

    def get(self, pointer: str, default: Any = None) -> Any:
        return self._worked_out().get(pointer, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._worked_out())

    def __len__(self) -> int:
        return len(self._worked_out())

    def __eq__(self, other: object) -> bool:
        return self._worked_out() == (other._worked_out() if isinstance(other, _Deferred) else other)

    __hash__ = None  # type: ignore[assignment]  # a mapping, as dict

    def __repr__(self) -> str:
        return repr(self._worked_out())

    def __reduce__(self) -> tuple[type[dict[str, Origin]], tuple[dict[str, Origin]]]:
        return dict, (self._worked_out(),)


def check(tree: Tree, reader: tg.TargetReader | None = None) -> list[Finding]:
    """Validation is the one rule engine: the first error `config validate` would report for this
    tree is the error of every command (then canonicalization only normalizes). Returns the
    engine's warnings, for the commands that report them (`compile`: a tag's unknown CPU)."""

    def string_start(pointer: str) -> Location | None:
        # Asked only for an error in a target string: `config validate` locates it the same way.
        origin = origin_of(tree.origins, pointer)
        return origin.string_start() if origin is not None else None

    findings = config_findings(tree.data, reader=reader, string_start=string_start)
    for finding in findings:
        if finding.severity != "error":
            continue
        origin = origin_of(tree.origins, finding.pointer)
        where = finding.location or (origin.location() if origin is not None else None)
        raise ConfigError(
            finding.message,
            where,
            suggestions=(finding.suggestion,) if finding.suggestion else (),
            hint=finding.hint,
            rule=finding.rule,
            pointer=finding.pointer or None,
        )
    return findings


def _hint_old_json(err: TvmcError, tree: Tree) -> None:
    """An old tvmc JSON config given to --config fails on its old spellings: say how to convert it
    (`config validate` says it from the loaded document: `validate.runner`)."""
    import json

    for path in tree.inputs if err.hint is None else ():
        if not path.endswith(".json"):
            continue
        try:
            with open(path, encoding="utf-8") as file:
                hint = old_json_hint(sources.loader.display_path(os.fspath(path)), json.load(file))
        except (OSError, ValueError, RecursionError):
            continue
        if hint is not None:
            err.hint = hint
            err.args = (err.one_line(),)
            return


def _source_pointer(tree: Tree, pointer: str, mirror: int | None = None) -> str | None:
    """Where in the tree a canonical value was written, if it was written at all."""
    tokens = split(pointer)
    # Targets' hosts that came from the config-level host are found under /host.
    if len(tokens) >= 3 and tokens[0] == "targets" and tokens[2] == "host":
        entry = node_at(tree.data, f"/targets/{tokens[1]}")
        if not (isinstance(entry, dict) and "host" in entry):
            return _source_pointer(tree, "/host" + "".join(join("", t) for t in tokens[3:]), mirror)
    written_passes = tree.data.get("disabled-pass")
    if len(tokens) == 2 and tokens[0] == "disabled-pass" and tokens[1].isdigit() and isinstance(written_passes, list):
        # A sorted set in the canonical form: its Nth name is where that name was first written.
        names = sorted({name for name in written_passes if isinstance(name, str)})
        if int(tokens[1]) < len(names):
            found = f"/disabled-pass/{written_passes.index(names[int(tokens[1])])}"
            return found if found in tree.origins else None
    if pointer in tree.origins:
        return pointer
    if len(tokens) >= 2 and tokens[0] == "pass-config" and type(tree.data.get("pass-config")) is dict:
        # Written in another spelling (`tir.X` for `tirx.X`) or as a nested table; a field of an
        # object-typed config (`tirx.UnrollLoop`'s `auto_max_step`) is inside the entry written.
        written = pass_config_aliases(tree.data["pass-config"], tokens[1])
        inner = written[-1] + "".join(join("", t) for t in tokens[2:]) if written else None
        return inner if inner in tree.origins else None
    if tokens and tokens[0] == "host" and "/host" not in tree.origins and mirror is not None:
        # No host was written: the effective host is a CPU target itself (TVM's rule).
        return _source_pointer(tree, f"/targets/{mirror}" + "".join(join("", t) for t in tokens[1:]))
    return None


def _mirror(canonical: Mapping[str, Any]) -> int | None:
    """The index of the target the canonical host is a copy of, if any."""
    host = canonical.get("host")
    return next((i for i, t in enumerate(canonical.get("targets", [])) if t == host), None)  # targets carry no host


def source_pointer(resolved: Resolved, pointer: str) -> str | None:
    """Where in the merged tree the canonical value at `pointer` was written, if it was: the
    config's `host` for a target's host, the CPU target for a host no layer wrote."""
    if not isinstance(resolved, Resolved) or not isinstance(pointer, str):
        raise TypeError("source_pointer: expected a Resolved and a JSON pointer str")
    return _source_pointer(resolved.tree, pointer, _mirror(resolved.to_dict()))


def explain(
    configs: Sequence[ConfigRef] | str,
    rewrite_list: Sequence[RewriteLike] = (),
    path: str = "",
    *,
    env: Mapping[str, str] | None = None,
    search: Sequence[sources.SearchDir] | None = None,
    stdin: BinaryIO | sources.Layer | None = None,
    isolated: bool = False,
) -> Explanation:
    """Every layer and rewrite that set the value at `path` (`targets[0].mcpu`), in order, the
    winner last, and the final canonical value (`tvmc config explain`)."""
    from tvmc import explain as explaining  # lazy: only `config explain` needs it

    if not isinstance(path, str) or not path:
        raise TypeError(f"path: expected a non-empty str such as 'targets[0].mcpu', got {path!r}")
    given = inputs(configs, rewrite_list, env, search, stdin, isolated)

    def layers() -> list[layering.Node]:
        return layering.command_line_nodes(given.refs, given.dirs, given.env, given.stdin)

    def resolution() -> explaining.Resolution:
        resolved = resolve_inputs(given)
        return explaining.Resolution(resolved.to_dict(), resolved.origins, lambda p: source_pointer(resolved, p))

    replay = explaining.Replay(layers, [*rewrites.env_rewrites(given.env), *given.edits])
    return explaining.history(path, replay, resolution)


def _host_carrier(tree: Tree, host: Any) -> int | None:
    """The index of the written target whose own host (inside a tag) is the canonical host."""
    entries = tree.data.get("targets")
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        own = canonical_entry(entry, tree.reader)
        if own is not None and own.get("host") == host:
            return index
    return None


def canonical_origins(canonical: dict[str, Any], tree: Tree) -> Origins:
    """Map every canonical node to the origin of the input that produced it.

    A value written in a file or flag keeps that origin; a value that a tag or a legacy string
    expanded to is attributed to the tag/string; anything else (declared defaults, derived keys,
    the default host) is a default.
    """
    if not isinstance(canonical, dict):
        raise TypeError(f"canonical: expected the canonical config as a dict, got {_type_name(canonical)}")
    if not isinstance(tree, Tree):
        raise TypeError(f"tree: expected a tvmc.layering.Tree, got {_type_name(tree)}")
    out: Origins = {}
    mirror = _mirror(canonical)
    host = canonical.get("host")
    # A host no layer wrote that is a target's own host (inside a tag): it comes from that target.
    carriers: list[int | None] = []  # found on first use: parsing the written targets again costs

    def carrier() -> int | None:
        if not carriers:
            carriers.append(_host_carrier(tree, host) if host is not None and "/host" not in tree.origins else None)
        return carriers[0]

    def origin_of_node(pointer: str) -> Origin:
        found = _source_pointer(tree, pointer, mirror)
        if found is not None:
            return tree.origins[found]
        ancestor = pointer
        while ancestor:
            ancestor = ancestor.rsplit("/", 1)[0]
            src = _source_pointer(tree, ancestor, mirror) if ancestor else None
            if src is None:
                continue
            node = node_at(tree.data, src)
            if isinstance(node, str):  # a tag or legacy string expanded into this value
                return tree.origins[src]
            if isinstance(node, dict) and "tag" in node and "kind" not in node:
                return tree.origins.get(join(src, "tag"), tree.origins[src])
            break
        if pointer.startswith("/host") and mirror is None and (index := carrier()) is not None:
            # Where that target wrote its host: its `host` key (a table or a string), else its tag.
            return origin_of_node(f"/targets/{index}{pointer}")
        owner = "/".join(pointer.split("/")[:3]) if pointer.startswith("/targets/") else "/host"
        kind = node_at(canonical, owner + "/kind") if pointer.startswith(("/targets/", "/host/")) else None
        return Origin.default(f"target kind {kind}" if isinstance(kind, str) else "tvmc")

    for pointer, _ in walk(canonical):
        out[pointer] = origin_of_node(pointer)
    return out


# ---- the commands beyond resolving (validate, compile, emit, tune, run, ...): tvmc.api.commands ---
# Loaded on first use: `config show` (and every resolution) needs only the pipeline above, and the
# commands' orchestration is as large again (start-up: scripts/bench_startup.py). Name → the
# submodule that defines it.
_SUBMODULE = {
    "ENGINES": "commands",
    "validate_paths": "commands",
    "validate_config": "commands",
    "validate": "commands",
    "from_library": "commands",
    "compile": "commands",
    "EMIT_FORMS": "commands",
    "Emitted": "commands",
    "emit": "commands",
    "reproduce": "commands",
    "tune": "commands",
    "run": "commands",
    "shipped_cross_compilers": "commands",
    "doctor": "commands",
    "PruneVerdict": "commands",
    "prune_verdicts": "commands",
}

if TYPE_CHECKING:
    from tvmc.api.commands import (
        EMIT_FORMS,
        ENGINES,
        Emitted,
        PruneVerdict,
        compile,
        doctor,
        emit,
        from_library,
        prune_verdicts,
        reproduce,
        run,
        shipped_cross_compilers,
        tune,
        validate,
        validate_config,
        validate_paths,
    )
else:
    __getattr__ = lazy_exports(__name__, _SUBMODULE, globals())
