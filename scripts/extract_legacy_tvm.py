#!/usr/bin/env python3
"""Extract the registry facts of one old TVM release from its source tree (no build needed).

    python scripts/extract_legacy_tvm.py GIT_DIR TAG [-o scripts/registry_sources/tvm_TAG.json]

GIT_DIR is a clone of apache/tvm (bare is fine); TAG a release tag such as v0.19.0. The output is
data only (names, types, defaults), each fact naming the file it was read from:

- `kinds`: `TVM_REGISTER_TARGET_KIND` in src/ (target_kind.cc and the contrib target.cc files),
  with the options every kind gets from the macro in include/tvm/target/target_kind.h;
- `pass_configs`: `TVM_REGISTER_PASS_CONFIG_OPTION` names and value types;
- `pass_config_fields`: per object type of those configs (`UnrollLoopConfig`), the
  `TVM_ATTR_FIELD`s of its attrs node (`UnrollLoopConfigNode`): types and `.set_default`s;
- `codegens`: old tvmc's `REGISTERED_CODEGEN` (python/tvm/driver/tvmc/composite_target.py) and
  the fields of each codegen's PassContext options node (the `--target-<codegen>-<field>` flags);
- `relay_passes`: the `relay._transform.<Name>` globals, which old tvmc's `--disabled-pass`
  accepted (python/tvm/driver/tvmc/pass_list.py);
- `executors`/`runtimes`: `TVM_REGISTER_EXECUTOR`/`TVM_REGISTER_RUNTIME` and their options;
- `tvmc`: the choices of old `tvmc compile` (output formats, frontends);
- `tags`: src/target/tag.cc's tag configs (its macros expanded; of build conditions such as
  `#if TVM_LLVM_VERSION >= 190`, the first branch).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from legacy_tags import tag_configs  # scripts/legacy_tags.py

# DLPack's device numbers (3rdparty/dlpack, a submodule: not in the tree) and TVM's extension
# numbers (include/tvm/runtime/c_runtime_api.h, `TVMDeviceExtType`, static_asserted there).
DEVICES = {
    "kDLCPU": 1,
    "kDLCUDA": 2,
    "kDLCUDAHost": 3,
    "kDLOpenCL": 4,
    "kDLVulkan": 7,
    "kDLMetal": 8,
    "kDLVPI": 9,
    "kDLROCM": 10,
    "kDLExtDev": 12,
    "kDLOneAPI": 14,
    "kDLWebGPU": 15,
    "kDLHexagon": 16,
    "kDLAOCL": 32,
    "kDLSDAccel": 33,
    "kOpenGL": 34,
    "kDLMicroDev": 35,
}
TYPES = {
    "String": "str",
    "runtime::String": "str",
    "Integer": "int",
    "runtime::Int": "int",
    "IntImm": "int",
    "Bool": "bool",
    "runtime::Bool": "bool",
    "bool": "bool",
    "int": "int",
    "int64_t": "int",
    "size_t": "int",
    "double": "float",
    "Array<String>": "Array<str>",
    "Array<Integer>": "Array<int>",
    "Array<runtime::Int>": "Array<int>",
    "Target": "target.Target",
    "Array<Target>": "Array<target.Target>",
}


def git_show(git_dir: Path, tag: str, path: str) -> str:
    return subprocess.run(
        ["git", "-C", str(git_dir), "show", f"refs/tags/{tag}:{path}"], check=True, capture_output=True, text=True
    ).stdout


def git_grep(git_dir: Path, tag: str, pattern: str, *paths: str) -> list[str]:
    """Paths of the files under `paths` at `tag` that contain `pattern` (fixed string)."""
    out = subprocess.run(
        ["git", "-C", str(git_dir), "grep", "-l", "-F", pattern, f"refs/tags/{tag}", "--", *paths],
        capture_output=True,
        text=True,
    ).stdout
    return sorted(line.split(":", 1)[1] for line in out.splitlines())


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def default_value(expr: str) -> Any:
    """The C++ default expressions these registries use → JSON values."""
    expr = re.sub(r"\s+", " ", expr.strip())
    if re.fullmatch(r"-?\d+", expr):
        return int(expr)
    if m := re.fullmatch(r"(?:size_t|int64_t)\((\d+)\) << (\d+)", expr):
        return int(m.group(1)) << int(m.group(2))
    if m := re.fullmatch(r"(?:runtime::)?(?:Int|Integer|IntImm)\((?:DataType::Int\(\d+\), )?(.*)\)", expr):
        inner = m.group(1).replace(" ", "")
        return 1 << int(inner[3:]) if inner.startswith("1<<") else int(inner)
    if m := re.fullmatch(r"(?:runtime::)?Bool\((true|false)\)|(true|false)", expr):
        return (m.group(1) or m.group(2)) == "true"
    if m := re.fullmatch(r'(?:String\()?"(.*)"\)?', expr):
        return m.group(1)
    if m := re.fullmatch(r"Array<(?:runtime::Int|Integer)>(?:\{(.*)\}|\(\))", expr):
        return [default_value(x) for x in re.findall(r"(?:runtime::)?Int(?:eger)?\([^)]*\)", m.group(1) or "")]
    if m := re.fullmatch(r"Array<(?:runtime::Int|Integer)>\(\{([-\d, ]*)\}\)", expr):
        return [int(x) for x in m.group(1).split(",") if x.strip()]
    raise ValueError(f"unknown default expression {expr!r}")


_OPTION = re.compile(
    r'\.add_attr_option<(?P<type>[\w:<>]+)>\(\s*"(?P<name>[^"]+)"\s*(?:,\s*(?P<default>.*?))?\)\s*(?=\.|$)', re.S
)


def chain_options(chain: str) -> tuple[dict[str, str], dict[str, Any]]:
    options: dict[str, str] = {}
    defaults: dict[str, Any] = {}
    for m in _OPTION.finditer(chain):
        options[m.group("name")] = TYPES[m.group("type")]
        if m.group("default"):
            defaults[m.group("name")] = default_value(m.group("default"))
    return options, defaults


def kinds(git_dir: Path, tag: str) -> dict[str, Any]:
    header = strip_comments(git_show(git_dir, tag, "include/tvm/target/target_kind.h"))
    macro = header[header.index("#define TVM_REGISTER_TARGET_KIND") :].split("\n\n", 1)[0].replace("\\\n", "")
    common, _ = chain_options(macro)
    out: dict[str, Any] = {}
    for path in git_grep(git_dir, tag, "TVM_REGISTER_TARGET_KIND(", "src"):
        text = strip_comments(git_show(git_dir, tag, path))
        for m in re.finditer(r'TVM_REGISTER_TARGET_KIND\("([^"]+)",\s*(\w+)\)([^;]*);', text):
            options, defaults = chain_options(m.group(3))
            keys = re.search(r"set_default_keys\(\{([^}]*)\}\)", m.group(3))
            out[m.group(1)] = {
                "source": path,
                "device_type": DEVICES[m.group(2)],
                "default_keys": re.findall(r'"([^"]+)"', keys.group(1)) if keys else [],
                "options": {**common, **options},
                "defaults": defaults,
            }
    return dict(sorted(out.items()))


def _constants(git_dir: Path, tag: str) -> dict[str, str]:
    """`constexpr const char* kName = "value";` of src/ and include/, for names used as keys."""
    table: dict[str, str] = {}
    out = subprocess.run(
        ["git", "-C", str(git_dir), "grep", "-h", "-A1", "-E", r"constexpr const char\* k\w+ =", f"refs/tags/{tag}"],
        capture_output=True,
        text=True,
    ).stdout
    for m in re.finditer(r'constexpr const char\* (k\w+) =\s*"([^"]+)"', out):
        table.setdefault(m.group(1), m.group(2))
    return table


def _enum_values(text: str) -> dict[str, int]:
    """`enum class E : int { kA = (1 << 0), ... }` of a file → {"E::kA": 1, ...}: the flags some
    attrs defaults combine (hoist_expression.cc's `static_cast<int>(HoistedConditionals::kX) | ...`)."""
    table: dict[str, int] = {}
    for m in re.finditer(r"enum class (\w+)\s*(?::\s*\w+)?\s*\{([^}]*)\}", text):
        for item in re.finditer(r"(\w+)\s*=\s*\(?\s*(\d+)\s*(?:<<\s*(\d+))?\s*\)?", m.group(2)):
            value = int(item.group(2)) << int(item.group(3) or 0)
            table[f"{m.group(1)}::{item.group(1)}"] = value
    return table


def _default(expr: str, enums: dict[str, int]) -> Any:
    """default_value, and an `|` of `static_cast<int>(Enum::kFlag)` (evaluated with `enums`)."""
    flags = re.findall(r"static_cast<int>\((\w+::\w+)\)", expr)
    if flags and re.fullmatch(r"\s*static_cast<int>\(\w+::\w+\)(?:\s*\|\s*static_cast<int>\(\w+::\w+\))*\s*", expr):
        value = 0
        for flag in flags:
            value |= enums[flag]
        return value
    return default_value(expr)


def attrs_fields(text: str, node: str) -> dict[str, Any]:
    """The declared fields of an AttrsNode struct, in TVM_ATTR_FIELD order: their types and the
    defaults of `.set_default(...)`."""
    enums = _enum_values(text)
    body = text[text.index(f"struct {node}") :]
    body = body[: body.index("TVM_DECLARE_ATTRS")]
    declared = {m.group(2): m.group(1) for m in re.finditer(r"^\s*([\w:<>]+)\s+(\w+)(?:\s*=[^;]*)?;", body, re.M)}
    block = text[text.index("TVM_DECLARE_ATTRS", text.index(f"struct {node}")) :]
    block = block[: block.index("\n};")]
    names = re.findall(r"TVM_ATTR_FIELD\((\w+)\)", block)
    defaults = {}
    for segment in block.split("TVM_ATTR_FIELD(")[1:]:  # descriptions may hold ';' and ')'
        name, _, rest = segment.partition(")")
        at = rest.rfind(".set_default(")
        if at >= 0:
            expr = rest[at + len(".set_default(") :]
            defaults[name] = _default(expr[: expr.index(");")], enums)
    return {"options": {name: TYPES.get(declared[name], declared[name]) for name in names}, "defaults": defaults}


def pass_configs(
    git_dir: Path, tag: str
) -> tuple[dict[str, str], dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """PassContext config names → types; per codegen options config (`relay.ext.*`), its fields;
    and per object type of any config (`tir.UnrollLoop`: UnrollLoopConfig), its attrs node's fields
    (what PassContext's legalization, `CreateObject` of the node from the table, accepts)."""
    constants = _constants(git_dir, tag)
    configs: dict[str, str] = {}
    structs: dict[str, dict[str, Any]] = {}
    objects: dict[str, dict[str, Any]] = {}
    for path in git_grep(git_dir, tag, "TVM_REGISTER_PASS_CONFIG_OPTION(", "src"):
        text = strip_comments(git_show(git_dir, tag, path))
        for m in re.finditer(r"TVM_REGISTER_PASS_CONFIG_OPTION\(\s*(\"[^\"]+\"|\w+),\s*([\w:<>, ]+?)\);", text):
            name = m.group(1).strip('"') if m.group(1).startswith('"') else constants[m.group(1)]
            typ = re.sub(r"\s+", "", m.group(2))
            configs[name] = TYPES.get(typ, typ)
            node = f"{typ}Node"
            if name.startswith("relay.ext.") and f"struct {node}" in text:
                structs[name] = attrs_fields(text, node)
            elif name.startswith("relay.ext."):
                for header in git_grep(git_dir, tag, f"struct {node}", "src"):
                    structs[name] = attrs_fields(strip_comments(git_show(git_dir, tag, header)), node)
            if typ in TYPES or typ.startswith("Array<"):
                continue  # a plain value, not an attrs node
            # The node is declared in the registering file, else in the one file of src/ that does.
            where = [path] if f"struct {node}" in text else git_grep(git_dir, tag, f"struct {node}", "src")
            if len(where) != 1:
                raise SystemExit(f"{tag}: {name}'s {node} is declared in {len(where)} files: {where}")
            source = text if where[0] == path else strip_comments(git_show(git_dir, tag, where[0]))
            fields = attrs_fields(source, node)
            if objects.setdefault(typ, {"source": where[0], **fields}) != {"source": where[0], **fields}:
                raise SystemExit(f"{tag}: two different {node} structs")
    return dict(sorted(configs.items())), structs, dict(sorted(objects.items()))


def codegens(git_dir: Path, tag: str, structs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    path = "python/tvm/driver/tvmc/composite_target.py"
    tree = ast.parse(git_show(git_dir, tag, path))
    imported = {
        alias.asname or alias.name: f"{node.module}.{alias.name}"
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    table = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "REGISTERED_CODEGEN"
    )
    assert isinstance(table, ast.Dict)
    out: dict[str, Any] = {}
    for key, value in zip(table.keys, table.values, strict=True):
        assert isinstance(key, ast.Constant) and isinstance(value, ast.Dict)
        entry = {
            k.value: v.value
            for k, v in zip(value.keys, value.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)
        }
        config_key = entry.get("config_key")
        pipeline = ast.unparse(value.values[[getattr(k, "value", None) for k in value.keys].index("pass_pipeline")])
        out[key.value] = {
            "source": path,
            "config_key": config_key,
            "pass_default": bool(entry.get("pass_default")),
            "default_target": entry.get("default_target"),
            "pass_pipeline": imported.get(pipeline, pipeline),  # the partition function, dotted
            "options": structs[config_key]["options"] if config_key in structs else {},
            "defaults": structs[config_key]["defaults"] if config_key in structs else {},
        }
    return out


def relay_passes(git_dir: Path, tag: str) -> list[str]:
    names: set[str] = set()
    for path in git_grep(git_dir, tag, 'TVM_REGISTER_GLOBAL("relay._transform.', "src"):
        names.update(re.findall(r'TVM_REGISTER_GLOBAL\("relay\._transform\.(\w+)"\)', git_show(git_dir, tag, path)))
    return sorted(names)


def components(git_dir: Path, tag: str, what: str) -> dict[str, Any]:
    path = f"src/relay/backend/{what}.cc"
    text = strip_comments(git_show(git_dir, tag, path))
    constants = _constants(git_dir, tag)
    out: dict[str, Any] = {}
    for m in re.finditer(rf"TVM_REGISTER_{what.upper()}\((\"[^\"]+\"|\w+)\)([^;]*);", text):
        name = m.group(1).strip('"') if m.group(1).startswith('"') else constants[m.group(1)]
        options, defaults = chain_options(m.group(2))
        out[name] = {"source": path, "options": options, "defaults": defaults}
    return out


def tvmc_choices(git_dir: Path, tag: str) -> dict[str, Any]:
    path = "python/tvm/driver/tvmc/compiler.py"
    text = git_show(git_dir, tag, path)
    formats = re.search(r'"--output-format",\s*choices=(\[[^\]]*\])', text)
    assert formats is not None
    frontends = git_show(git_dir, tag, "python/tvm/driver/tvmc/frontends.py")
    transform = git_show(git_dir, tag, "python/tvm/driver/tvmc/transform.py")
    precision = re.search(r'"--mixed-precision-calculation-type",\s*choices=(\[[^\]]*\])', transform)
    assert precision is not None
    return {
        "source": f"{path}, python/tvm/driver/tvmc/frontends.py, python/tvm/driver/tvmc/transform.py",
        "output_formats": ast.literal_eval(formats.group(1)),
        "frontends": re.findall(r'def name\(\):\s*return "(\w+)"', frontends),
        "mixed_precision_types": ast.literal_eval(precision.group(1)),
    }


def extract(git_dir: Path, tag: str) -> dict[str, Any]:
    configs, structs, objects = pass_configs(git_dir, tag)
    commit = subprocess.run(
        ["git", "-C", str(git_dir), "rev-list", "-n1", f"refs/tags/{tag}"], check=True, capture_output=True, text=True
    ).stdout.strip()
    return {
        "_meta": {
            "extracted_by": "scripts/extract_legacy_tvm.py",
            "repository": "https://github.com/apache/tvm",
            "tag": tag,
            "commit": commit,
            "notes": "contrib kinds, codegens, pass configs and Relay passes exist only in a TVM built with "
            "the matching USE_* CMake option; old tvmc generated --target-<name>-<option> flags from "
            "what the running build registered",
        },
        "kinds": kinds(git_dir, tag),
        "pass_configs": configs,
        "pass_config_fields": objects,
        "codegens": codegens(git_dir, tag, structs),
        "relay_passes": relay_passes(git_dir, tag),
        "executors": components(git_dir, tag, "executor"),
        "runtimes": components(git_dir, tag, "runtime"),
        "tvmc": tvmc_choices(git_dir, tag),
        "tags": tag_configs(strip_comments(git_show(git_dir, tag, "src/target/tag.cc"))),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir", type=Path)
    parser.add_argument("tag")
    parser.add_argument("-o", "--output", type=Path)
    args = parser.parse_args(argv)
    text = json.dumps(extract(args.git_dir, args.tag), indent=1, ensure_ascii=False) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
