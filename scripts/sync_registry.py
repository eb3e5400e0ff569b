#!/usr/bin/env python3
"""Regenerate tvmc's target registry from an installed apache-tvm plus the legacy facts.

    python scripts/sync_registry.py [--legacy-data scripts/registry_sources] [--check]

Writes `cli/tvmc/registry/data/kinds.json`, `tags.json`, `generations.json` and `llvm.json` (the
CPU and feature names the LLVM inside TVM knows, per architecture). These files are the single source
for flags, schema, validation and canonicalization; they are checked in so that tvmc runs without
TVM. `--check` exits 1 when regenerating would change them (tests/registry uses the same code).

Modern facts (kinds, options, defaults, keys, device types, 287 tags, pass configs) come from
the installed TVM. Legacy facts (kinds and options TVM dropped, renamed tags/options, Relay
executors and runtimes, tvmc's BYOC codegens) come from the research data in
`scripts/registry_sources/tvm_kinds_legacy.json` (see the README there for its provenance) and
the tables below, each citing the TVM sources it comes from.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "cli" / "tvmc" / "registry" / "data"
DEFAULT_LEGACY_DATA = ROOT / "scripts" / "registry_sources"

# Keys that a kind's canonicalizer fills in (deterministically or from the machine); they are
# not declared defaults even though a bare `Target({"kind": k}).export()` shows them.
CANONICALIZER_OUTPUTS = {
    "llvm": {"mtriple"},
    "c": set(),
    "cuda": {"arch"},
    "nvptx": {"mcpu", "mtriple"},
    "rocm": {"mcpu", "mtriple"},
    "test": set(),
}

# From the target_kind.cc files of each apache/tvm release tag: the last TVM release that still registered each
# dropped kind.
LEGACY_KIND_LAST_VERSION = {
    "stackvm": "0.19",
    "sdaccel": "0.19",
    "aocl": "0.19",
    "aocl_sw_emu": "0.19",
    "hybrid": "0.21",
    "cmsis-nn": "0.18",
    "ethos-u": "0.18",
    "ccompiler": "0.19",
    "cublas": "0.19",
    "cudnn": "0.19",
    "cutlass": "0.19",
    "tensorrt": "0.19",
    "example_target_hook": "0.19",
}

# python/tvm/driver/tvmc/composite_target.py (v0.18.0/v0.19.0): tvmc's own BYOC codegens that were never
# target kinds (or only in some builds). Options are the PassContext option fields named there; the lists are
# not complete, so unknown options of these codegens are reported as warnings, not errors.
TVMC_CODEGENS: dict[str, dict[str, Any]] = {
    "compute-library": {"options": {}, "last_version": "0.19", "device_type": 1},
    "ethos-n": {"options": {"variant": "str"}, "last_version": "0.18", "device_type": 1},
    "ethos-n78": {"options": {"variant": "str"}, "last_version": "0.10", "device_type": 1, "renamed_to": "ethos-n"},
    "bnns": {"options": {}, "last_version": "0.19", "device_type": 1},
    "vitis-ai": {
        "options": {"dpu": "str", "export_runtime_module": "str", "load_runtime_module": "str"},
        "last_version": "0.19",
        "device_type": 1,
    },
    "clml": {"options": {}, "last_version": "0.19", "device_type": 4},
    "mrvl": {"options": {}, "last_version": "0.19", "device_type": 1},
}
# ethos-u's codegen options (tvmc --target-ethos-u-*) on top of its (option-less) target kind.
EXTRA_LEGACY_OPTIONS = {
    "ethos-u": {"accelerator_config": "str", "enable_cascader": "bool", "enable_striping": "bool"},
}

# src/relay/backend/executor.cc and runtime.cc (Relay Executor/Runtime registries, v0.9+), plus the modern Relax
# VM's execution modes (tvm.relax.build exec_mode). "generations" says which TVM can build it.
EXECUTORS = {
    "graph": {
        "description": "Relay graph executor (TVM <= 0.19).",
        "generations": ["legacy"],
        "options": {
            "link-params": {
                "type": "bool",
                "default": False,
                "description": "Link parameters into the generated library.",
            }
        },
    },
    "aot": {
        "description": "Relay ahead-of-time executor (TVM <= 0.19), for microcontrollers.",
        "generations": ["legacy"],
        "options": {
            "link-params": {
                "type": "bool",
                "default": True,
                "description": "Link parameters into the generated library.",
            },
            "unpacked-api": {
                "type": "bool",
                "default": False,
                "description": "Call operators with unpacked C arguments.",
            },
            "interface-api": {
                "type": "str",
                "default": "packed",
                "enum": ["packed", "c"],
                "description": "Entry point API: 'packed' or 'c' (needs unpacked-api).",
            },
            "workspace-byte-alignment": {
                "type": "int",
                "default": 16,
                "minimum": 1,  # TVM rounds buffer sizes up to a multiple of it: 0 divides by zero
                "description": "Byte alignment of workspace buffers.",
            },
            "constant-byte-alignment": {
                "type": "int",
                "default": 16,
                "minimum": 1,  # TVM rounds buffer sizes up to a multiple of it: 0 divides by zero
                "description": "Byte alignment of constant buffers.",
            },
        },
    },
    "vm": {
        "description": "Relax virtual machine (TVM >= 0.25; tvm.compile's executable).",
        "generations": ["modern"],
        "options": {
            "exec-mode": {
                "type": "str",
                "default": "bytecode",
                "enum": ["bytecode", "compiled"],
                "description": "Relax VM execution mode: interpreted bytecode or compiled.",
            }
        },
    },
}
RUNTIMES = {
    "cpp": {
        "description": "C++ runtime (TVM's default).",
        "generations": ["legacy", "modern"],
        "options": {
            "system-lib": {
                "type": "bool",
                "default": False,
                "description": "Build a system library that registers itself at start-up.",
            }
        },
    },
    "crt": {
        "description": "Standalone C runtime for microcontrollers (TVM <= 0.19).",
        "generations": ["legacy"],
        "options": {
            "system-lib": {
                "type": "bool",
                "default": False,
                "description": "Build a system library that registers itself at start-up.",
            }
        },
    },
}

# Collage-style `compiler` specialisations (TVM 0.27 src/target/target_kind.cc, `compiler` attribute): the BYOC
# name, the device types it can refine, and TVM 0.27's relax partition function where one exists.
COMPILERS = {
    "cublas": {"device_types": [2], "partition": "tvm.relax.backend.cuda.cublas.partition_for_cublas"},
    "cudnn": {"device_types": [2], "partition": "tvm.relax.backend.cuda.cudnn.partition_for_cudnn"},
    "cutlass": {"device_types": [2], "partition": "tvm.relax.backend.cuda.cutlass.partition_for_cutlass"},
    "tensorrt": {"device_types": [2], "partition": "tvm.relax.backend.contrib.tensorrt.partition_for_tensorrt"},
    "hipblas": {"device_types": [10], "partition": "tvm.relax.backend.rocm.hipblas.partition_for_hipblas"},
    "coreml": {"device_types": [8], "partition": "tvm.relax.backend.metal.coreml.partition_for_coreml"},
    "nnapi": {"device_types": [1], "partition": "tvm.relax.backend.contrib.nnapi.partition_for_nnapi"},
    "cmsis-nn": {"device_types": [1], "partition": None},
    "ethos-u": {"device_types": [1], "partition": None},
    "ethos-n": {"device_types": [1], "partition": None},
    "compute-library": {"device_types": [1], "partition": None},
    "bnns": {"device_types": [1], "partition": None},
    "vitis-ai": {"device_types": [1], "partition": None},
    "ccompiler": {"device_types": [1], "partition": None},
    "clml": {"device_types": [4], "partition": None},
    "mrvl": {"device_types": [1], "partition": None},
}

# Tags renamed between the legacy and the modern registry (python/tvm/target/tag.py at v0.19.0 and TVM 0.27's tag
# registry).
RENAMED_TAGS = {"nvidia/gtx1080ti": "nvidia/geforce-gtx-1080-ti"}
# Options renamed between versions (src/target/target_kind.cc at v0.8.0 against later tags).
RENAMED_OPTIONS = {"cuda": {"shared_memory_per_block": "max_shared_memory_per_block"}}
# Legacy-only target options that became executor/runtime settings (TVM 0.9 python/tvm/relay/build_module.py,
# `_reconstruct_from_deprecated_options`).
LIFTED_OPTIONS = {
    "system-lib": "runtime.system-lib",
    "runtime": "runtime.kind",
    "executor": "executor.kind",
    "link-params": "executor.link-params",
    "unpacked-api": "executor.unpacked-api",
    "interface-api": "executor.interface-api",
}

_LEGACY_TYPES = {
    "Integer": "int",
    "Bool": "bool",
    "String": "str",
    "Array<String>": "Array<str>",
    "Array<Integer>": "Array<int>",
    "Target": "target.Target",
    "Array<Target>": "Array<target.Target>",
}


def _legacy_default(expr: str) -> Any:
    """Evaluate the small C++ default expressions found in the legacy registry."""
    if m := re.fullmatch(r"Integer\((.*)\)", expr):
        inner = m.group(1).replace(" ", "")
        if inner == "1<<30":
            return 1 << 30
        return int(inner)
    if m := re.fullmatch(r"Bool\((true|false)\)", expr):
        return m.group(1) == "true"
    if m := re.fullmatch(r'String\("(.*)"\)', expr):
        return m.group(1)
    if m := re.fullmatch(r"Array<Integer>\(\{?([^}]*)\}?\)", expr):
        return [int(x) for x in m.group(1).split(",") if x.strip()]
    raise ValueError(f"unknown legacy default expression {expr!r}")


def _plain(value: Any) -> Any:
    """TVM FFI containers → plain JSON values."""
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if hasattr(value, "items"):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple) or hasattr(value, "__len__"):
        return [_plain(v) for v in value]
    return str(value)


def modern_facts() -> dict[str, Any]:
    os.environ.setdefault("TVM_LOG_DEBUG", "0")
    import tvm
    from tvm.target import Target, TargetKind

    kinds: dict[str, Any] = {}
    for name in sorted(Target.list_kinds()):
        options = {str(k): str(v) for k, v in TargetKind.options_from_name(name).items()}
        bare = _plain(Target({"kind": name}).export())
        skip = {"kind", "tag", "keys"} | CANONICALIZER_OUTPUTS.get(name, set())
        defaults = {k: v for k, v in bare.items() if k not in skip and not k.startswith("feature.")}
        probe = Target({"kind": name})
        kinds[name] = {
            "options": options,
            "defaults": dict(sorted(defaults.items())),
            "default_keys": list(probe.kind.default_keys),
            "device_type": int(probe.kind.default_device_type),
        }
    pass_configs = {str(k): str(_plain(v).get("type", "")) for k, v in tvm.transform.PassContext.list_configs().items()}
    return {
        "tvm_version": tvm.__version__,
        "kinds": kinds,
        "pass_configs": dict(sorted(pass_configs.items())),
        "pass_config_fields": pass_config_fields(set(pass_configs.values())),
    }


def pass_config_fields(types: set[str]) -> dict[str, dict[str, str]]:
    """The fields of each object-typed PassContext config (`tirx.UnrollLoop` is an UnrollLoopConfig
    of `auto_max_step: int`, ...), from TVM's FFI reflection: what such a table may hold."""
    from tvm_ffi import core

    out: dict[str, dict[str, str]] = {}
    for type_key in sorted(types):
        if "." not in type_key or type_key.startswith(("ffi.", "ir.")):
            continue  # a plain type (bool, int, str), an array, or a boxed integer
        info = core._lookup_or_register_type_info_from_type_key(type_key)
        fields = {}
        for field in info.fields:
            schema = json.loads((getattr(field, "metadata", None) or {}).get("type_schema", "{}"))
            fields[str(field.name)] = str(schema.get("type", ""))
        out[type_key] = fields
    return out


def modern_tags() -> dict[str, Any]:
    """Recover every tag's registered config by re-running TVM's tag modules with a recorder."""
    import tvm
    import tvm.target
    import tvm.target.tag_registry.registry as registry

    recorded: dict[str, Any] = {}

    def record(name: str, config: dict[str, Any], override: bool = False) -> None:
        recorded[name] = _plain(config)

    originals = (registry.register_tag, tvm.target.register_tag)
    registry.register_tag = record
    tvm.target.register_tag = record
    try:
        base = Path(tvm.__file__).parent
        for path in sorted(base.rglob("*.py")):
            if path.name == "registry.py" or "register_tag(" not in path.read_text(encoding="utf-8"):
                continue
            module = ".".join(path.relative_to(base.parent).with_suffix("").parts)
            spec = importlib.util.spec_from_file_location(module, path)
            assert spec and spec.loader
            spec.loader.exec_module(importlib.util.module_from_spec(spec))
    finally:
        registry.register_tag, tvm.target.register_tag = originals
    listed = set(tvm.target.list_tags())
    if set(recorded) != listed:
        raise SystemExit(f"tag recovery mismatch: {sorted(set(recorded) ^ listed)[:10]}")
    return dict(sorted(recorded.items()))


def legacy_facts(legacy_dir: Path, modern_kinds: dict[str, Any], codegens: dict[str, dict[str, str]]) -> dict[str, Any]:
    data = json.loads((legacy_dir / "tvm_kinds_legacy.json").read_text(encoding="utf-8"))
    common = data["_meta"]["common_attrs_every_kind"]
    kinds: dict[str, Any] = {}
    dropped_options: dict[str, Any] = {}
    for version in sorted(data["versions"], key=lambda v: [int(x) for x in v.lstrip("v").split(".")]):
        for name, entry in data["versions"][version].items():
            options = {a: _LEGACY_TYPES[t] for a, t in common.items()}
            defaults: dict[str, Any] = {}
            for attr, spec in entry["kind_specific_attrs"].items():
                options[attr] = _LEGACY_TYPES[spec["type"]]
                if "default" in spec:
                    defaults[attr] = _legacy_default(spec["default"])
            short = version.lstrip("v").rsplit(".", 1)[0]
            if name in modern_kinds:
                known = modern_kinds[name]["options"]
                for attr, typ in options.items():
                    if attr not in known:
                        slot = dropped_options.setdefault(name, {}).setdefault(
                            attr, {"type": typ, "versions": [], "lifts_to": LIFTED_OPTIONS.get(attr)}
                        )
                        slot["versions"].append(short)
                continue
            slot = kinds.setdefault(name, {"versions": [], "byoc": False})
            slot["versions"].append(short)
            slot.update(
                options={**options, **EXTRA_LEGACY_OPTIONS.get(name, {})}
                | {k: t for k, t in codegens.get(name, {}).items() if k not in options},
                defaults=defaults,
                default_keys=entry.get("default_keys") or [],
                device_type=int(entry["device_type"]),
                byoc=bool(entry.get("is_external_codegen") or entry.get("has_RelayToTIR_hook")),
                last_version=LEGACY_KIND_LAST_VERSION.get(name, short),
            )
    for name, codegen in TVMC_CODEGENS.items():
        kinds.setdefault(
            name,
            {
                "versions": [],
                "byoc": True,
                "options": {
                    **{a: _LEGACY_TYPES[t] for a, t in common.items()},
                    **codegen["options"],
                    **codegens.get(name, {}),
                },
                "defaults": {},
                "default_keys": [],
                "device_type": codegen["device_type"],
                "last_version": codegen["last_version"],
                "open_options": True,
                **({"renamed_to": codegen["renamed_to"]} if "renamed_to" in codegen else {}),
            },
        )
    return {
        "kinds": dict(sorted(kinds.items())),
        "options": {k: dict(sorted(v.items())) for k, v in sorted(dropped_options.items())},
        "renamed_tags": RENAMED_TAGS,
        "renamed_options": RENAMED_OPTIONS,
    }


CODEGEN_FACTS = ("config_key", "pass_default", "default_target", "pass_pipeline", "options", "defaults")
GENERATIONS = ("v0.18.0", "v0.19.0")  # the old TVM releases --emit tvmc/relay write for


def generation_facts(legacy_dir: Path) -> dict[str, Any]:
    """Per old release, what its old tvmc and Relay accepted (see registry_sources/README.md)."""
    out: dict[str, Any] = {}
    for tag in GENERATIONS:
        data = json.loads((legacy_dir / f"tvm_{tag}.json").read_text(encoding="utf-8"))
        out[tag.lstrip("v").rsplit(".", 1)[0]] = {
            "tag": tag,
            "commit": data["_meta"]["commit"],
            "kinds": {
                name: {k: entry[k] for k in ("options", "defaults", "default_keys", "device_type")}
                for name, entry in data["kinds"].items()
            },
            "codegens": {name: {k: entry[k] for k in CODEGEN_FACTS} for name, entry in data["codegens"].items()},
            "pass_configs": data["pass_configs"],
            # object type (`UnrollLoopConfig`) → its attrs node's fields → type
            "pass_config_fields": {t: dict(e["options"]) for t, e in data["pass_config_fields"].items()},
            "relay_passes": data["relay_passes"],
            "executors": {n: {k: e[k] for k in ("options", "defaults")} for n, e in data["executors"].items()},
            "runtimes": {n: {k: e[k] for k in ("options", "defaults")} for n, e in data["runtimes"].items()},
            "output_formats": data["tvmc"]["output_formats"],
            "frontends": data["tvmc"]["frontends"],
            "mixed_precision_types": data["tvmc"]["mixed_precision_types"],
            "tags": data["tags"],
        }
    return out


def codegen_options(generations: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Every option any generation's old tvmc took for each of its codegens (union, in order)."""
    out: dict[str, dict[str, str]] = {}
    for facts in generations.values():
        for name, codegen in facts["codegens"].items():
            out.setdefault(name, {}).update(codegen["options"])
    return out


# One triple per LLVM target whose names tvmc checks: llvm's mcpu/mattr (the triple's
# architecture), cuda's arch and nvptx's mcpu (nvptx64), rocm's mcpu (amdgcn), hexagon's mcpu/mattr.
LLVM_TRIPLES = {
    "x86": "x86_64-linux-gnu",  # i386 and x86_64: one LLVM target, the same names
    "aarch64": "aarch64-linux-gnu",
    "arm": "armv7a-linux-gnueabihf",  # arm* and thumb*
    "riscv": "riscv64-linux-gnu",  # riscv32 and riscv64 list the same names
    "nvptx": "nvptx64-nvidia-cuda",
    "amdgcn": "amdgcn-amd-amdhsa",
    "hexagon": "hexagon-unknown-elf",
}
# LLVM prints its CPU and feature lists (to stderr, once per process) when a subtarget is created
# with the feature "+help": the lists `llc -mattr=help` shows, from the LLVM inside TVM.
_LLVM_PROBE = """
import sys, tvm
from tvm.target import codegen
target = tvm.target.Target({"kind": "llvm", "mtriple": sys.argv[1], "mattr": ["+help"]})
codegen.llvm_get_cpu_features(target)
print(codegen.llvm_version_major())
"""


def _llvm_names(text: str, heading: str) -> list[str]:
    """The names listed under an LLVM help heading (`  name  - description` lines)."""
    lines = text.splitlines()
    start = lines.index(heading) + 1
    names = []
    for line in lines[start:]:
        if line.startswith("Available ") or line.startswith("Use +feature"):
            break
        match = re.match(r"  (\S+)\s+- ", line)
        if match:
            names.append(match[1])
    return sorted(set(names))


def llvm_facts() -> dict[str, Any]:
    """LLVM's CPU and feature names per architecture, asked of the LLVM inside the installed TVM."""
    import subprocess
    from concurrent.futures import ThreadPoolExecutor

    def probe(triple: str) -> tuple[str, str]:
        done = subprocess.run(
            [sys.executable, "-c", _LLVM_PROBE, triple], capture_output=True, text=True, check=True, timeout=300
        )
        return done.stdout.strip(), done.stderr

    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = dict(zip(LLVM_TRIPLES, pool.map(probe, LLVM_TRIPLES.values()), strict=True))
    arches = {}
    for arch, (_, text) in answers.items():
        arches[arch] = {
            "triple": LLVM_TRIPLES[arch],
            "cpus": _llvm_names(text, "Available CPUs for this target:"),
            "features": _llvm_names(text, "Available features for this target:"),
        }
    versions = {version for version, _ in answers.values()}
    if len(versions) != 1:
        raise SystemExit(f"LLVM probes disagree on the LLVM version: {sorted(versions)}")
    return {"llvm_version": int(versions.pop()), "arches": arches}


def build(legacy_dir: Path) -> dict[str, str]:
    modern = modern_facts()
    generations = generation_facts(legacy_dir)
    # `registry.pass_config_fields` answers for both from one name space: old TVM's type names (C++ class
    # names, `UnrollLoopConfig`) and TVM 0.27's type keys (`tirx.transform.UnrollLoopConfig`) must not meet.
    clash = set(modern["pass_config_fields"]).intersection(*(g["pass_config_fields"] for g in generations.values()))
    if clash:
        raise SystemExit(f"old and modern pass config types share names: {sorted(clash)}")
    registry = {
        "generated_by": "scripts/sync_registry.py",
        "tvm_version": modern["tvm_version"],
        "kinds": modern["kinds"],
        "pass_configs": modern["pass_configs"],
        "pass_config_fields": modern["pass_config_fields"],
        "legacy": legacy_facts(legacy_dir, modern["kinds"], codegen_options(generations)),
        "executors": EXECUTORS,
        "runtimes": RUNTIMES,
        "compilers": COMPILERS,
    }
    tags = {"generated_by": "scripts/sync_registry.py", "tvm_version": modern["tvm_version"], "tags": modern_tags()}
    dump = lambda obj: json.dumps(obj, indent=1, sort_keys=False, ensure_ascii=False) + "\n"  # noqa: E731
    gens = {"generated_by": "scripts/sync_registry.py", "generations": generations}
    llvm = {"generated_by": "scripts/sync_registry.py", "tvm_version": modern["tvm_version"], **llvm_facts()}
    compact = json.dumps(llvm, indent=None, separators=(",", ":"), ensure_ascii=False)
    return {
        "kinds.json": dump(registry),
        "tags.json": dump(tags),
        "generations.json": dump(gens),
        "llvm.json": compact.replace('],"', '],\n"') + "\n",  # one line per list: small diffs
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--legacy-data", type=Path, default=DEFAULT_LEGACY_DATA)
    parser.add_argument("--check", action="store_true", help="exit 1 if the checked-in files are stale")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args(argv)
    files = build(args.legacy_data)
    stale = [
        n
        for n, text in files.items()
        if not (args.out / n).exists() or (args.out / n).read_text(encoding="utf-8") != text
    ]
    if args.check:
        for name in stale:
            print(f"stale: {args.out / name} (run scripts/sync_registry.py)")
        return 1 if stale else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        tmp = args.out / (name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(args.out / name)
        print(f"wrote {args.out / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
