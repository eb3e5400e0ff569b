"""The load stage: find configs (search path, names, paths, tags) and read TOML/JSON into
`Layer`s whose keys can be located as file:line:col.

    layer = find_config("aws/c5", search_path())
    layer.locate("/targets/0/mcpu")  # Location("configs/aws/c5.toml", 4, 1)
"""

from tvmc.sources.layer import Layer, make_pointer, split_pointer
from tvmc.sources.limits import MAX_DEPTH, MAX_FILE_BYTES, MAX_LIST_ENTRIES, MAX_STRING
from tvmc.sources.loader import load_bytes, load_file, load_stdin, read_limited, sniff_format
from tvmc.sources.search import (
    ENV_VAR,
    ConfigEntry,
    SearchDir,
    find_config,
    find_named,
    is_path_ref,
    list_configs,
    name_problem,
    search_path,
    shipped_config_dir,
    split_part,
    tag_layer,
    user_config_dir,
)

__all__ = [
    "ENV_VAR",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_LIST_ENTRIES",
    "MAX_STRING",
    "ConfigEntry",
    "Layer",
    "SearchDir",
    "find_config",
    "find_named",
    "is_path_ref",
    "list_configs",
    "load_bytes",
    "load_file",
    "load_stdin",
    "make_pointer",
    "name_problem",
    "read_limited",
    "search_path",
    "shipped_config_dir",
    "sniff_format",
    "split_part",
    "split_pointer",
    "tag_layer",
    "user_config_dir",
]
