"""The import layers of `tvmc`: a stage never imports a later one, and no import cycle exists.

Every import counts: at module level, inside a function (a lazy import hides a cycle, it does not
remove it), under `if TYPE_CHECKING:` (a type from a later stage is knowledge of it; these are left
out of the cycle check only, as they never run), a name of a package that exports it lazily
(`from tvmc.targets import parse_target`, `targets.parse_target`: the submodule its `_SUBMODULE`
table names) and `importlib.import_module` of a tvmc module. Importing `a.b.c` also runs the
packages `a.b` and `a` (those the importer is not inside of already).

The layers, lowest first (README "Code layout" has the same table). A module may import its own
layer and those below, never one above:

| level | layer           | modules                                                                       |
|-------|-----------------|-------------------------------------------------------------------------------|
| 0     | foundation      | `tvmc`, records, pointers, errors, text, values, versions, fileio, readfile,  |
|       |                 | provenance, datafiles, registry, shapes, frozen, deps, manifest               |
| 1     | vocabulary      | keys                                                                          |
| 2     | load            | sources                                                                       |
| 3     | target language | targets                                                                       |
| 4     | layer           | layering                                                                      |
| 5     | rewrite         | rewrites, flag_docs                                                           |
| 6     | validate        | validate                                                                      |
| 7     | canonicalize    | config                                                                        |
| 8     | emit/build      | emit, backend, tune                                                           |
| 9     | tools           | explain, migrate, doctor                                                      |
| 10    | api             | api, diff                                                                     |
| 11    | editor          | lsp                                                                           |
| 12    | cli             | cli, `__main__`                                                               |

Why there: the foundation knows no config or stage (errors, JSON pointers and origins, typed
values, TVM's registered facts). The vocabulary (what a config may say: keys, types, defaults,
pass-config names, the rules on `build`) and the target language (parsing a target, its normal
form, kinds, target systems) are read by every stage from layering on, so they sit below them;
the target language reads config text with the load stage's limits, so it sits above it. Then the
pipeline in its order: load → layer → rewrite → validate → canonicalize → emit/build. `config get`,
`explain` and `migrate` are tools the API calls; the API runs the pipeline as one call; the
language server answers an editor with the API and the rule engine; the CLI is on top.

The only dynamic import of a tvmc module is the CLI's lazy command group (`tvmc.cli.app` loads
`tvmc.cli.*_cmd`), inside the top layer.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import pytest
from testkit import cli_env

ROOT = Path(__file__).resolve().parents[2] / "cli"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "foundation",
        (
            "tvmc",
            "tvmc.records",
            "tvmc.pointers",
            "tvmc.errors",
            "tvmc.text",
            "tvmc.values",
            "tvmc.versions",
            "tvmc.fileio",
            "tvmc.readfile",
            "tvmc.datafiles",
            "tvmc.provenance",
            "tvmc.registry",
            "tvmc.shapes",
            "tvmc.frozen",
            "tvmc.deps",
            "tvmc.manifest",
        ),
    ),
    ("vocabulary", ("tvmc.keys",)),
    ("load", ("tvmc.sources",)),
    ("target language", ("tvmc.targets",)),
    ("layer", ("tvmc.layering",)),
    ("rewrite", ("tvmc.rewrites", "tvmc.flag_docs")),
    ("validate", ("tvmc.validate",)),
    ("canonicalize", ("tvmc.config",)),
    ("emit/build", ("tvmc.emit", "tvmc.backend", "tvmc.tune")),
    ("tools", ("tvmc.explain", "tvmc.migrate", "tvmc.doctor")),
    ("api", ("tvmc.api", "tvmc.diff")),
    ("editor", ("tvmc.lsp",)),
    ("cli", ("tvmc.cli", "tvmc.__main__")),
)


class Import(NamedTuple):
    importer: str
    imported: str
    line: int
    lazy: bool  # inside a function
    typing_only: bool  # under `if TYPE_CHECKING:`

    def __str__(self) -> str:
        how = " (type only)" if self.typing_only else " (in a function)" if self.lazy else ""
        return f"{self.importer} imports {self.imported} at line {self.line}{how}"


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the `tvmc` package under `root`: dotted name → file."""
    found = {}
    for path in sorted((root / "tvmc").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def is_package(name: str, files: Mapping[str, Path]) -> bool:
    return files[name].name == "__init__.py"


def lazy_exports(tree: ast.Module) -> dict[str, str]:
    """A package's `_SUBMODULE` table (name → submodule its `__getattr__` imports), or {}."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_SUBMODULE" for t in node.targets):
            table = ast.literal_eval(node.value)
            assert isinstance(table, dict)
            return {str(k): str(v) for k, v in table.items()}
    return {}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST, lazy: bool, typing_only: bool) -> Iterator[tuple[ast.AST, bool, bool]]:
    """Every node below `node`, with whether it runs inside a function and only for type checkers."""
    for child in ast.iter_child_nodes(node):
        child_lazy = lazy or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        yield child, child_lazy, typing_only
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            branches = [(sub, True) for sub in child.body] + [(sub, typing_only) for sub in child.orelse]
            for sub, sub_typing_only in branches:
                # A function written directly in either branch runs its imports when called.
                sub_lazy = child_lazy or isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                yield sub, sub_lazy, sub_typing_only
                yield from _walk(sub, sub_lazy, sub_typing_only)
        else:
            yield from _walk(child, child_lazy, typing_only)


def _dynamic_targets(call: ast.Call, files: Mapping[str, Path]) -> list[str]:
    """The tvmc modules an `importlib.import_module(...)` call can import: a constant name, or an
    f-string matched against every module (`f"tvmc.cli.{name}_cmd"`)."""
    func = call.func
    named = isinstance(func, ast.Attribute) and func.attr == "import_module"
    named = named or (isinstance(func, ast.Name) and func.id == "import_module")
    if not named or not call.args:
        return []
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return [arg.value] if arg.value in files else []
    if isinstance(arg, ast.JoinedStr):
        import re

        pattern = "".join(re.escape(str(part.value)) if isinstance(part, ast.Constant) else ".+" for part in arg.values)
        if not pattern.startswith("tvmc"):
            return []  # f"{__name__}.{submodule}": a lazy export, counted where the name is used
        return [name for name in files if re.fullmatch(pattern, name)]
    return []


def imports_of(name: str, files: Mapping[str, Path], exports: Mapping[str, dict[str, str]]) -> list[Import]:
    """Every import of a tvmc module by module `name`."""
    tree = ast.parse(files[name].read_text(encoding="utf-8"), str(files[name]))
    package = name if is_package(name, files) else name.rpartition(".")[0]
    found: list[Import] = []
    bound: dict[str, str] = {}  # local name → the package module it is bound to

    def add(imported: str, node: ast.AST, lazy: bool, typing_only: bool) -> None:
        found.append(Import(name, imported, getattr(node, "lineno", 0), lazy, typing_only))

    nodes = list(_walk(tree, False, False))
    for node, lazy, typing_only in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "tvmc":
                    add(alias.name, node, lazy, typing_only)
                    if alias.asname:
                        bound[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*base_parts, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            if base.split(".")[0] != "tvmc":
                continue
            assert base in files, f"{name}:{node.lineno} imports {base}, which does not exist"
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in files:
                    add(full, node, lazy, typing_only)
                    bound[alias.asname or alias.name] = full
                elif alias.name in exports.get(base, {}):
                    add(f"{base}.{exports[base][alias.name]}", node, lazy, typing_only)
                else:
                    add(base, node, lazy, typing_only)
        elif isinstance(node, ast.Call):
            for target in _dynamic_targets(node, files):
                add(target, node, True, typing_only)
    for node, _lazy, typing_only in nodes:  # `sources.Layer`: the submodule the package exports it from
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound:
            table = exports.get(bound[node.value.id], {})
            if node.attr in table:
                add(f"{bound[node.value.id]}.{table[node.attr]}", node, True, typing_only)
    return found


@functools.cache  # the sources do not change during a run, and parsing them all takes ~0.5 s
def all_imports() -> tuple[Import, ...]:
    files = modules()
    exports = {name: lazy_exports(ast.parse(path.read_text(encoding="utf-8"))) for name, path in files.items()}
    return tuple(imp for name in files for imp in imports_of(name, files, exports))


def layer_of(name: str) -> int | None:
    """The level of a module: the layer listing it or the package it is in (the longest match)."""
    best: tuple[int, int] | None = None
    for level, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            inside = name == prefix or (prefix != "tvmc" and name.startswith(prefix + "."))
            if inside and (best is None or len(prefix) > best[1]):
                best = (level, len(prefix))
    return None if best is None else best[0]


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def runtime_graph(imports: Sequence[Import]) -> dict[str, dict[str, Import]]:
    """Module → the modules its imports run (the imported module and the packages around it that
    the importer is not inside of), each with the import that runs it. Type-only imports never run."""
    graph: dict[str, dict[str, Import]] = {}
    for imp in imports:
        if imp.typing_only:
            continue
        inside = {imp.importer, *_ancestors(imp.importer)}
        edges = graph.setdefault(imp.importer, {})
        for target in [imp.imported, *_ancestors(imp.imported)]:
            if target not in inside:
                edges.setdefault(target, imp)
    return graph


def find_cycle(graph: Mapping[str, Mapping[str, Import]]) -> list[Import] | None:
    """One cycle of `graph` as the imports that close it, or None (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if state.get(start):
            continue
        path: list[tuple[str, Iterator[tuple[str, Import]]]] = [(start, iter(sorted(graph[start].items())))]
        via: list[Import] = []
        state[start] = 1
        while path:
            node, children = path[-1]
            step = next(children, None)
            if step is None:
                state[node] = 2
                path.pop()
                if via:
                    via.pop()
                continue
            child, imp = step
            if state.get(child) == 1:
                names = [n for n, _ in path]
                return [*via[names.index(child) :], imp]
            if not state.get(child):
                state[child] = 1
                via.append(imp)
                path.append((child, iter(sorted(graph.get(child, {}).items()))))
    return None


def test_every_module_has_a_layer() -> None:
    unplaced = [name for name in modules() if layer_of(name) is None]
    assert not unplaced, f"place these modules in a layer of LAYERS (and the table above): {unplaced}"


def test_no_module_imports_a_later_stage() -> None:
    upward = [
        f"{imp} ({LAYERS[layer_of(imp.importer) or 0][0]} → {LAYERS[layer_of(imp.imported) or 0][0]})"
        for imp in all_imports()
        if (layer_of(imp.imported) or 0) > (layer_of(imp.importer) or 0)
    ]
    upward = list(dict.fromkeys(upward))  # one line per import statement, not per name
    assert not upward, "imports of a later layer:\n" + "\n".join(upward)


def cycles(graph: Mapping[str, Mapping[str, Import]]) -> list[list[Import]]:
    """One cycle through each strongly connected group of modules of `graph` (every group that
    has one), so that a failure names every cycle at once."""

    reachable = {name: _closure(name, graph) for name in graph}
    found: list[list[Import]] = []
    done: set[str] = set()
    for name in sorted(graph):
        group = {m for m in reachable[name] if m in reachable and name in reachable[m]}
        if name in done or len(group) < 2:
            continue
        done |= group
        cycle = find_cycle({m: {c: imp for c, imp in graph[m].items() if c in group} for m in group})
        assert cycle is not None
        found.append(cycle)
    return found


def test_no_import_cycle() -> None:
    found = cycles(runtime_graph(all_imports()))
    assert not found, "import cycles:\n" + "\n\n".join("\n".join(str(imp) for imp in cycle) for cycle in found)


def test_every_module_imports_on_its_own() -> None:
    """Each module imported first, in a fresh set of tvmc modules: an order-dependent import (a
    cycle that works only from one side) fails here. One process, without TVM-heavy imports."""
    code = (
        "import importlib, sys\n"
        "failed = []\n"
        "for name in sys.argv[1:]:\n"
        "    for loaded in [m for m in sys.modules if m == 'tvmc' or m.startswith('tvmc.')]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as err:\n"
        "        failed.append(f'{name}: {type(err).__name__}: {err}')\n"
        "print('\\n'.join(failed))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, *(name for name in modules() if name != "tvmc.__main__")],  # that one runs tvmc
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


# ---- the checks above find what they are meant to find --------------------------------------


def _package(tmp_path: Path, sources: Mapping[str, str]) -> Path:
    for name, text in sources.items():
        path = tmp_path / (name.replace(".", "/") + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def _imports(root: Path) -> list[Import]:
    files = modules(root)
    exports = {name: lazy_exports(ast.parse(path.read_text(encoding="utf-8"))) for name, path in files.items()}
    return [imp for name in files for imp in imports_of(name, files, exports)]


def test_a_cycle_hidden_in_a_function_is_found(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "tvmc.__init__": "",
            "tvmc.sources.__init__": "",
            "tvmc.sources.layer": "def index():\n    from tvmc.sources.positions import scan\n    return scan\n",
            "tvmc.sources.positions": "from tvmc.sources import limits\n",
            "tvmc.sources.limits": "from tvmc.sources.layer import index\n",
        },
    )
    graph = runtime_graph(_imports(root))
    cycle = find_cycle(graph)
    assert cycle is not None and cycles(graph) == [cycle]
    assert [(imp.importer, imp.imported) for imp in cycle] == [
        ("tvmc.sources.layer", "tvmc.sources.positions"),
        ("tvmc.sources.positions", "tvmc.sources.limits"),
        ("tvmc.sources.limits", "tvmc.sources.layer"),
    ]
    assert cycle[0].lazy and "(in a function)" in str(cycle[0])


def test_lazy_exports_and_parent_packages_are_followed(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "tvmc.__init__": "",
            "tvmc.targets.__init__": '_SUBMODULE = {"parse_target": "parse"}\n',
            "tvmc.targets.parse": "from tvmc import layering\n",
            "tvmc.layering.__init__": "from tvmc.layering import tree\n",
            "tvmc.layering.tree": "def f():\n    from tvmc import targets\n    return targets.parse_target\n",
            "tvmc.api": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tvmc.cli import app\n",
            "tvmc.cli.__init__": "",
            "tvmc.cli.app": "import importlib\nimportlib.import_module(f'tvmc.cli.{1}_cmd')\n",
            "tvmc.cli.show_cmd": "",
        },
    )
    imports = _imports(root)
    pairs = {(imp.importer, imp.imported) for imp in imports}
    assert ("tvmc.layering.tree", "tvmc.targets.parse") in pairs  # targets.parse_target
    assert ("tvmc.cli.app", "tvmc.cli.show_cmd") in pairs
    assert [imp.typing_only for imp in imports if imp.importer == "tvmc.api"] == [True]
    cycle = find_cycle(runtime_graph(imports))  # parse → layering (its __init__) → tree → parse
    assert cycle is not None and {imp.importer for imp in cycle} == {
        "tvmc.targets.parse",
        "tvmc.layering",
        "tvmc.layering.tree",
    }
    assert "tvmc.cli.app" not in runtime_graph(imports).get("tvmc.api", {})  # type-only: never runs


def test_an_upward_import_is_found() -> None:
    assert layer_of("tvmc.sources.layer") == layer_of("tvmc.sources") == 2
    assert layer_of("tvmc") == 0 and layer_of("tvmc.cli.app") == len(LAYERS) - 1
    assert (layer_of("tvmc.layering.tree") or 0) < (layer_of("tvmc.config") or 0)
    assert (layer_of("tvmc.validate.runner") or 0) < (layer_of("tvmc.api") or 0)


@pytest.mark.parametrize("name", ["tvmc.nowhere", "tvmcx"])
def test_unknown_modules_have_no_layer(name: str) -> None:
    assert layer_of(name) is None


# ---- every lazy import of a tvmc module saves something ------------------------------------
# Function-level imports of tvmc's own modules are there to save start-up time, so each must
# save something: a module the importer already imports at module level, or one every command
# loads anyway (imported at module level, directly or not, by both `tvmc.api` and
# `tvmc.validate.runner`, the entry points of `config show` and `config validate`), is imported at
# the top of the module instead. The CLI's command modules are left out: they are loaded lazily by
# design.


def _closure(start: str, graph: Mapping[str, Mapping[str, object]]) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for child in graph.get(todo.pop(), {}):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def always_loaded() -> set[str]:
    """The package `tvmc` and the tvmc modules both `tvmc.api` and `tvmc.validate.runner` import at
    module level, directly or not (lazy and type-only imports left out)."""
    graph = runtime_graph([imp for imp in all_imports() if not imp.lazy])
    return {"tvmc"} | (_closure("tvmc.api", graph) & _closure("tvmc.validate.runner", graph))


def _function_imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements inside the functions of a module, each once."""
    seen: set[int] = set()
    for func in ast.walk(tree):
        if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(func):
                if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in seen:
                    seen.add(id(node))
                    yield node


def _targets(node: ast.Import | ast.ImportFrom, package: str, files: Mapping[str, Path]) -> list[str]:
    """The tvmc modules an import statement names (`from tvmc.a import b`: `tvmc.a.b` when that is
    a module, else `tvmc.a`)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name.split(".")[0] == "tvmc"]
    if node.level:
        parts = package.split(".")
        base = ".".join([*parts[: len(parts) - node.level + 1], *([node.module] if node.module else [])])
    else:
        base = node.module or ""
    if base.split(".")[0] != "tvmc":
        return []
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base for alias in node.names]


def needless_lazy_imports(
    files: Mapping[str, Path],
    eager: Mapping[str, set[str]],
    always: set[str],
    light: Mapping[str, set[str]] | None = None,
) -> list[str]:
    """`module:line imports X` for each function-level import of a tvmc module X that the module
    imports at module level already, or that is in `always` and not in `light[module]` (modules a
    light path, one that runs without `tvmc.api` and the rule engine, loads without X)."""
    found = []
    for name, path in files.items():
        if name == "tvmc.cli" or name.startswith("tvmc.cli."):
            continue
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _function_imports(ast.parse(path.read_text(encoding="utf-8"))):
            for target in _targets(node, package, files):
                if target in eager.get(name, set()):
                    found.append(f"{name}:{node.lineno} imports {target}, imported at module level already")
                elif target in always and target not in (light or {}).get(name, set()):
                    found.append(f"{name}:{node.lineno} imports {target}, which every command loads")
    return found


def _eager() -> dict[str, set[str]]:
    """Module → the tvmc modules it imports at module level (type-only imports left out)."""
    eager: dict[str, set[str]] = {}
    for imp in all_imports():
        if not imp.lazy and not imp.typing_only:
            eager.setdefault(imp.importer, set()).add(imp.imported)
    return eager


def test_always_loaded_is_the_foundation_and_the_early_stages() -> None:
    always = always_loaded()
    assert {"tvmc", "tvmc.errors", "tvmc.values", "tvmc.provenance", "tvmc.registry", "tvmc.targets"} <= always
    assert not {"tvmc.api", "tvmc.validate.runner", "tvmc.emit", "tvmc.backend", "tvmc.explain"} & always


# A TAB in a --config value (tvmc.cli.fast) lists the search path with these modules and nothing
# else of tvmc's: what they import lazily is not loaded by every command.
TAB_PATH = ("tvmc.cli.fast", "tvmc.cli.config_names", "tvmc.sources.search", "tvmc.sources.native")


def light_paths() -> dict[str, set[str]]:
    """Module of a light path → the always-loaded modules it may import lazily (those the path
    does not load at module level)."""
    graph = runtime_graph([imp for imp in all_imports() if not imp.lazy])
    loaded = set().union(*(_closure(root, graph) for root in TAB_PATH))
    lazily = always_loaded() - loaded  # once: each call parses every module again
    return {name: set(lazily) for name in loaded}


def test_every_lazy_import_of_a_tvmc_module_saves_something() -> None:
    found = needless_lazy_imports(modules(), _eager(), always_loaded(), light_paths())
    assert not found, "import these at the top of the module:\n" + "\n".join(found)


def test_a_needless_lazy_import_is_found(tmp_path: Path) -> None:
    for name, text in {
        "tvmc.__init__": "",
        "tvmc.a": "from tvmc import errors\n\ndef f():\n    from tvmc.errors import E\n    from tvmc import b\n",
        "tvmc.errors": "",
        "tvmc.b": "def g():\n    from tvmc import errors, c\n",
        "tvmc.c": "",
        "tvmc.cli.__init__": "",
        "tvmc.cli.x_cmd": "def h():\n    from tvmc import errors\n",
    }.items():
        path = tmp_path / (name.replace(".", "/") + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    files = modules(tmp_path)
    assert needless_lazy_imports(files, {"tvmc.a": {"tvmc.errors"}}, {"tvmc.errors"}) == [
        "tvmc.a:4 imports tvmc.errors, imported at module level already",
        "tvmc.b:2 imports tvmc.errors, which every command loads",
    ]
    # a module a light path loads without tvmc.errors may import it lazily; another may not
    light = {"tvmc.b": {"tvmc.errors"}, "tvmc.a": {"tvmc.errors"}}
    assert needless_lazy_imports(files, {"tvmc.a": {"tvmc.errors"}}, {"tvmc.errors"}, light) == [
        "tvmc.a:4 imports tvmc.errors, imported at module level already",
    ]


def test_the_tab_path_loads_no_errors_and_no_loader() -> None:
    """The light path's modules import the errors (typing, the records), the loader (a TOML
    parser) and the registry only in the functions that use them."""
    assert {"tvmc.sources.search", "tvmc.sources.native"} <= set(light_paths())
    assert not {"tvmc.errors", "tvmc.sources.loader", "tvmc.registry"} & set(light_paths())
