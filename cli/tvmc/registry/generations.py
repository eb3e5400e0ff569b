"""The per-release registries of old TVM (`data/generations.json`): what TVM 0.18 and 0.19 and their
old tvmc accepted, for `--emit tvmc`/`--emit relay` and `config migrate`. Read through
`tvmc.registry.generation(version)`; loaded on first use only.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from tvmc.records import record
from tvmc.registry import Kind
from tvmc.registry import _kind as make_kind
from tvmc.registry import _load as load_data


@record(slots=True, frozen=True)
class Generation:
    """What one old TVM release (and its old tvmc) accepted: `data/generations.json`, extracted from
    apache/tvm at that tag by scripts/extract_legacy_tvm.py (provenance in scripts/registry_sources)."""

    version: str
    kinds: dict[str, Kind]  # every target kind the release registers (contrib ones included)
    codegens: dict[str, dict[str, str]]  # old tvmc's REGISTERED_CODEGEN: name → its option flags
    pipelines: dict[str, tuple[str, str | None]]  # codegen → (partition function, options config key)
    # codegen → the defaults old tvmc gave its --target-<codegen>-<option> flags (`pass_default`: mrvl);
    # target.py merged them over the options written in --target
    flag_defaults: dict[str, dict[str, Any]]
    pass_configs: dict[str, str]
    # object type of a pass config (`UnrollLoopConfig`) → its attrs node's fields → type
    pass_config_fields: dict[str, dict[str, str]]
    relay_passes: frozenset[str]  # what --disabled-pass accepted (relay._transform.*)
    executors: dict[str, dict[str, str]]  # name → option → type
    runtimes: dict[str, dict[str, str]]
    output_formats: tuple[str, ...]  # tvmc compile --output-format choices
    frontends: tuple[str, ...]  # --model-format choices
    mixed_precision_types: tuple[str, ...]  # --mixed-precision-{calculation,acc}-type choices
    tags: dict[str, dict[str, Any]]  # src/target/tag.cc: each tag's registered config

    def tvm_kinds(self) -> list[str]:
        """The kinds old tvmc took as TVM targets (its codegens are not, even when registered)."""
        return [name for name in self.kinds if name not in self.codegens]


@cache
def _generations() -> dict[str, Any]:
    data: dict[str, Any] = load_data("generations.json")["generations"]
    return data


def versions() -> tuple[str, ...]:
    return tuple(_generations())


@cache
def load(version: str) -> Generation:
    entry = _generations()[version]
    return Generation(
        version,
        kinds={name: make_kind(name, e, legacy=True) for name, e in entry["kinds"].items()},
        codegens={name: dict(e["options"]) for name, e in entry["codegens"].items()},
        pipelines={name: (e["pass_pipeline"], e["config_key"]) for name, e in entry["codegens"].items()},
        flag_defaults={
            # target.py `_generate_codegen_args`: only non-empty String/IntImm defaults became flag defaults
            name: {k: v for k, v in e["defaults"].items() if e["pass_default"] and v != "" and not isinstance(v, bool)}
            for name, e in entry["codegens"].items()
        },
        pass_configs=dict(entry["pass_configs"]),
        pass_config_fields={t: dict(fields) for t, fields in entry["pass_config_fields"].items()},
        relay_passes=frozenset(entry["relay_passes"]),
        executors={name: dict(e["options"]) for name, e in entry["executors"].items()},
        runtimes={name: dict(e["options"]) for name, e in entry["runtimes"].items()},
        output_formats=tuple(entry["output_formats"]),
        frontends=tuple(entry["frontends"]),
        mixed_precision_types=tuple(entry["mixed_precision_types"]),
        tags=entry["tags"],
    )
