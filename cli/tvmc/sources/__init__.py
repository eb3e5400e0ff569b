"""The load stage: find configs (search path, names, paths, tags) and read TOML/JSON into
`Layer`s whose keys can be located as file:line:col.

    layer = find_config("aws/c5", search_path())
    layer.locate("/targets/0/mcpu")  # Location("configs/aws/c5.toml", 4, 1)
"""

from __future__ import annotations

from tvmc import lazy_exports

# The name of the config detected on first use (`sources.native`): here, for the search path and
# shell completion, which must not load that module.
NATIVE = "host/native"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tvmc.sources.installed import schema_directive, shipped_config_dir, shipped_schema_file
    from tvmc.sources.layer import Layer, make_pointer, split_pointer
    from tvmc.sources.limits import MAX_DEPTH, MAX_FILE_BYTES, MAX_LIST_ENTRIES, MAX_STRING
    from tvmc.sources.loader import (
        load_bytes,
        load_file,
        load_stdin,
        read_limited,
        read_regular_file,
        sniff_format,
    )
    from tvmc.sources.search import (
        ENV_VAR,
        ISOLATED_VAR,
        ConfigEntry,
        SearchDir,
        find_config,
        find_named,
        is_isolated,
        is_path_ref,
        is_within,
        isolated_env,
        lexical_path,
        list_configs,
        name_problem,
        search_path,
        split_part,
        tag_layer,
        user_config_dir,
    )

__all__ = [
    "ENV_VAR",
    "ISOLATED_VAR",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_LIST_ENTRIES",
    "MAX_STRING",
    "NATIVE",
    "ConfigEntry",
    "Layer",
    "SearchDir",
    "find_config",
    "find_named",
    "is_isolated",
    "is_path_ref",
    "is_within",
    "isolated_env",
    "lexical_path",
    "list_configs",
    "load_bytes",
    "load_file",
    "load_stdin",
    "make_pointer",
    "name_problem",
    "read_limited",
    "read_regular_file",
    "schema_directive",
    "search_path",
    "shipped_config_dir",
    "shipped_schema_file",
    "sniff_format",
    "split_part",
    "split_pointer",
    "tag_layer",
    "user_config_dir",
]

# Name → the submodule that defines it, imported when the name is first used: importing one
# submodule (`tvmc.targets.parse` needs only `limits`) runs this file, and must not pull in the
# loader, tomli and the search path.
_SUBMODULE = {
    "Layer": "layer",
    "make_pointer": "layer",
    "split_pointer": "layer",
    "MAX_DEPTH": "limits",
    "MAX_FILE_BYTES": "limits",
    "MAX_LIST_ENTRIES": "limits",
    "MAX_STRING": "limits",
    "load_bytes": "loader",
    "load_file": "loader",
    "load_stdin": "loader",
    "read_limited": "loader",
    "read_regular_file": "loader",
    "sniff_format": "loader",
    "ENV_VAR": "search",
    "ISOLATED_VAR": "search",
    "is_isolated": "search",
    "isolated_env": "search",
    "ConfigEntry": "search",
    "SearchDir": "search",
    "find_config": "search",
    "find_named": "search",
    "is_path_ref": "search",
    "is_within": "search",
    "lexical_path": "search",
    "list_configs": "search",
    "name_problem": "search",
    "schema_directive": "installed",
    "search_path": "search",
    "shipped_config_dir": "installed",
    "shipped_schema_file": "installed",
    "split_part": "search",
    "tag_layer": "search",
    "user_config_dir": "search",
}

_MODULES = frozenset({*_SUBMODULE.values(), "detect", "json_positions", "native", "toml_positions"})

if not TYPE_CHECKING:  # mypy sees the imports above instead, and still rejects names not exported
    # A name in _MODULES: `sources.loader.display_path`, a submodule nothing imported yet.
    __getattr__ = lazy_exports(__name__, _SUBMODULE, globals(), _MODULES)
