"""tvmc: layered TVM compilation configs — load, layer, rewrite, validate, canonicalize, emit.

The public Python API lives in `tvmc.api`; this module stays import-light because every CLI
invocation (and every shell-completion keystroke) imports it.
"""

import sys

__version__ = "0.1.0"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping, MutableMapping


# Annotations are text: `from __future__ import annotations` would import a module here, before
# tvmc.cli.entry's Ctrl-C handler is in force.
def lazy_exports(
    package: str,
    table: "Mapping[str, str]",
    namespace: "MutableMapping[str, object]",
    modules: "Collection[str]" = (),
) -> "Callable[[str], object]":
    """The module `__getattr__` of a package that exports names defined in its submodules
    without importing them: `table` (the package's `_SUBMODULE`) maps each name to the submodule
    defining it, imported when the name is first used and then kept in `namespace` (the package's
    globals); a name in `modules` is a submodule, given itself. Start-up loads only what a command
    uses (scripts/bench_startup.py); tests/core/test_import_layers.py follows `_SUBMODULE`."""

    def import_module(module: str) -> object:
        # Not importlib.import_module: importing importlib (and the warnings module it imports)
        # costs an installed `tvmc config show` about a twentieth of its start-up.
        __import__(module)
        return sys.modules[module]

    def __getattr__(name: str) -> object:
        if name in modules:
            return import_module(f"{package}.{name}")
        submodule = table.get(name)
        if submodule is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{submodule}"), name)
        namespace[name] = value  # later uses find it here
        return value

    return __getattr__
