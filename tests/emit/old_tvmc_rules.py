"""Old `tvmc compile` of one TVM release, restated from the registry's facts of that release.

What tvmc emits for old TVM is checked against this, not against tvmc's own parser: the argparse
parser of python/tvm/driver/tvmc/compiler.py (with target.py's and registry.py's generated flags,
transform.py's and workspace_pools.py's), then what `drive_compile` did with the values —
pass_config.py's `parse_configs`, target.py's `tokenize_target`/`parse_target`/`validate_targets`/
`_recombobulate_target`, the C++ target string parser (`Target(str)`: unknown attributes are
"Cannot recognize"), composite_target.py's codegen lookup, registry.py's executor/runtime
reconstruction — all at v0.18.0/v0.19.0. Kinds, options, codegens, pass configs, pass names and
choices come from `tvmc.registry.generation(version)`.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field
from typing import Any, NoReturn

from tvmc import registry
from tvmc.errors import TargetError
from tvmc.targets import legacy
from tvmc.targets import tables as T


class Refused(Exception):
    """Old tvmc would stop on this command line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise Refused(message)


# target.py: INTERNAL_TO_NATIVE_TYPE = {"runtime.String", "IntImm", "Array"}. Target kind options of
# 0.18/0.19 are runtime::Int/runtime::Bool, listed as "runtime.BoxInt"/"runtime.BoxBool" (include/tvm/
# runtime/container/boxed_primitive.h), so only their String and Array options got flags; a codegen's
# options node lists IntImm/Bool fields as "IntImm". registry.py (executor/runtime) maps BoxBool to bool.
_KIND_FLAG_TYPE = {"str": str, "Array<str>": str}
_TARGET_TYPE = {"str": str, "Array<str>": str, "int": int, "bool": int}
_REGISTRY_TYPE = {"str": str, "bool": bool, "int": int, "Array<str>": str}
_POOL_FLAGS = (
    "",
    "-targets",
    "-size-hint-bytes",
    "-clock-frequency-hz",
    "-read-bandwidth-bytes-per-cycle",
    "-write-bandwidth-bytes-per-cycle",
    "-read-latency-cycles",
    "-write-latency-cycles",
    "-target-burst-bytes",
)


def compile_parser(gen: registry.Generation, built: set[str]) -> argparse.ArgumentParser:
    """compiler.py's `add_compile_parser` for this release, in a TVM built with the codegens `built`
    (a codegen's flags exist only when its options config is registered, i.e. it was compiled in)."""
    p = _Parser(prog="tvmc compile", add_help=False)
    p.add_argument("--cross-compiler", default="")
    p.add_argument("--cross-compiler-options", default="")
    p.add_argument("--desired-layout", nargs="+")
    p.add_argument("--desired-layout-ops", nargs="+")
    p.add_argument("--mixed-precision", action="store_true")
    p.add_argument("--mixed-precision-ops", nargs="+")
    p.add_argument("--mixed-precision-calculation-type", choices=gen.mixed_precision_types)
    p.add_argument("--mixed-precision-acc-type", choices=gen.mixed_precision_types)
    p.add_argument("--dump-code", default="")
    p.add_argument("--dump-offloads", default="")
    p.add_argument("--model-format", choices=gen.frontends)
    p.add_argument("-o", "--output", default="module.tar")
    p.add_argument("-f", "--output-format", choices=gen.output_formats, default="so")
    p.add_argument("--pass-config", action="append")
    p.add_argument("--target")
    for kind in gen.tvm_kinds():
        for option, typ in gen.kinds[kind].options.items():
            if typ in _KIND_FLAG_TYPE:
                p.add_argument(f"--target-{kind}-{option}", type=_KIND_FLAG_TYPE[typ])
    for codegen, options in gen.codegens.items():
        for option, typ in options.items() if codegen in built else ():
            default = gen.flag_defaults[codegen].get(option)
            p.add_argument(f"--target-{codegen}-{option}", type=_TARGET_TYPE.get(typ, str), default=default)
    p.add_argument("--tuning-records", default="")
    for section, table in (("executor", gen.executors), ("runtime", gen.runtimes)):
        p.add_argument(f"--{section}", default="graph" if section == "executor" else "cpp")
        for name, options in table.items():
            for option, typ in options.items():
                p.add_argument(f"--{section}-{name}-{option}", type=_REGISTRY_TYPE[typ])
    p.add_argument("-v", "--verbose", action="count", default=0)
    p.add_argument("FILE")
    p.add_argument("-O", "--opt-level", default=3, type=int, choices=range(4))
    p.add_argument("--input-shapes")
    p.add_argument("--disabled-pass", type=_pass_list(gen), default="")
    p.add_argument("--module-name", default="default")
    p.add_argument("--print-pass-times", action="store_true")
    p.add_argument("--print-ir-before", default="")
    p.add_argument("--print-ir-after", default="")
    for suffix in _POOL_FLAGS:
        p.add_argument(f"--workspace-pools{suffix}")
    return p


def _pass_list(gen: registry.Generation) -> Any:
    """pass_list.py's `parse_pass_list_str`: every name must be a registered relay._transform.* pass."""

    def parse(text: str) -> list[str]:
        names = text.split(",")
        missing = [n.strip() for n in names if n.strip() and n.strip() not in gen.relay_passes]
        if missing:
            raise argparse.ArgumentTypeError(f"Following passes are not registered within tvm: {', '.join(missing)}")
        return names

    return parse


@dataclass
class Compiled:
    """What old tvmc would build with."""

    target: tuple[str, dict[str, Any]]
    host: tuple[str, dict[str, Any]] | None
    codegens: list[tuple[str, dict[str, str]]]
    executor: tuple[str, dict[str, Any]]
    runtime: tuple[str, dict[str, Any]]
    pass_config: dict[str, Any] = field(default_factory=dict)
    args: argparse.Namespace = field(default_factory=argparse.Namespace)


# target.py `tokenize_target`, verbatim.
_TOKEN = re.compile(
    r"(\-{0,2}[\w\-]+\=?"
    r"(?:[\w\+\-\.]+(?:,[\w\+\-\.])*"
    r"|[\'][\w\+\-,\s\.]+[\']"
    r"|[\"][\w\+\-,\s\.]+[\"])*"
    r"|,)"
)


def parse_target(text: str, gen: registry.Generation) -> list[dict[str, Any]]:
    """target.py `parse_target`."""
    groups: list[list[str]] = [[]]
    for token in _TOKEN.findall(text):
        if token == ",":
            groups.append([])
        else:
            groups[-1].append(token)
    out = []
    for group in groups:
        if not group:
            raise Refused(f"empty target in {text!r} (IndexError in parse_target)")
        name = group[0]
        opts: dict[str, Any] = {}
        for opt in group[1:]:
            if opt.startswith("--"):
                opts[opt[2:]] = True
                continue
            opt = opt[1:] if opt.startswith("-") else opt
            if "=" not in opt:
                raise Refused(f"Error when parsing '{opt}'")
            key, value = opt.split("=", 1)
            opts[key] = value[1:-1] if value[0] in ('"', "'") else value
        is_tvm = name in gen.kinds and name not in gen.codegens
        out.append({"name": name, "opts": opts, "is_tvm_target": is_tvm})
    return out


def _parse_tvm_target(text: str, gen: registry.Generation) -> tuple[str, dict[str, Any]]:
    """`tvm.target.Target(text)` of the release: its kinds, options and string grammar."""

    def begin(kind_name: str, loc: Any) -> legacy.TypeOf:
        kind = gen.kinds.get(kind_name)
        if kind is None:
            raise Refused(f'Target kind "{kind_name}" is not defined (TVM {gen.version})')

        def type_of(key: str, loc: Any) -> tuple[int, str]:
            if key not in kind.options:
                raise Refused(f"Cannot recognize '{key}' of target kind '{kind_name}' (TVM {gen.version})")
            typ = kind.options[key]
            return T.TYPE_CODES.get(typ, T.ANY), typ

        return type_of

    def nested(inner: str, loc: Any) -> Any:
        return _parse_tvm_target(inner, gen)

    try:
        kind, pairs = legacy.parse_pairs(text, None, begin, legacy.ValueContext(nested, []))
    except TargetError as err:
        raise Refused(err.message) from None
    return kind, dict(pairs)


def _recombobulate(target: dict[str, Any]) -> str:
    opts = " ".join(f"-{k}={v}" for k, v in target["opts"].items())
    return f"{target['name']} {opts}"


def _pass_config(items: list[str] | None, gen: registry.Generation) -> dict[str, Any]:
    """pass_config.py `parse_configs`."""
    out: dict[str, Any] = {}
    for item in items or []:
        parts = item.split("=")
        if len(parts) != 2:
            raise Refused(f"Invalid format for configuration '{item}', use <config>=<value>")
        name, value = parts[0].strip(), parts[1].strip()
        typ = gen.pass_configs.get(name)
        if typ is None:
            raise Refused(f"Configuration '{name}' is not defined in TVM")
        if typ in ("bool", "int"):
            parsed: Any = int(value) if value.isdigit() else {"false": False, "true": True}.get(value.lower())
            if parsed is None:
                raise Refused(f"Invalid value '{value}' for configuration '{name}'.")
        elif typ == "str":
            parsed = value
        elif typ.startswith("Array") and name == "tir.add_lower_pass":
            pairs = value.split(",")
            if len(pairs) % 2:
                raise Refused(f"The configuration of '{name}' must be of the form 'opt_level1,pass1,...'")
            parsed = []
            for i in range(0, len(pairs), 2):
                if not pairs[i].strip().lstrip("-").isdigit():
                    raise Refused(f"Only integer is allow for configuration '{name}'.")
                parsed.append((int(pairs[i]), pairs[i + 1].strip()))
            if name in out:
                parsed = [*out[name], *parsed]
        else:
            raise Refused(f"Configuration '{name}' uses a data type not supported by TVMC.")
        out[name] = parsed
    return out


def _component(args: argparse.Namespace, section: str, table: dict[str, dict[str, str]]) -> tuple[str, dict[str, Any]]:
    """registry.py `reconstruct_registry_entity`."""
    name = getattr(args, section)
    if name not in table:
        raise Refused(f'{section.title()} "{name}" is not defined')
    found: dict[str, dict[str, Any]] = {}
    for possible, options in table.items():
        found[possible] = {}
        for option in options:
            value = getattr(args, f"{section}_{possible}_{option.replace('-', '_')}")
            if value is not None:
                found[possible][option] = value
    for possible, options in found.items():
        if possible != name and options:
            raise Refused(f"Passed --{section}-{possible}-{next(iter(options))} but did not specify {possible}")
    return name, found[name]


def compile_command(argv: list[str], version: str) -> Compiled:
    """Run old `tvmc compile ARGV` (without `tvmc compile`) up to the build; Refused if it stops."""
    gen = registry.generation(version)
    built = set()  # the codegens the line's --target names: a TVM built with those
    for index, arg in enumerate(argv):
        text = arg.partition("=")[2] if arg.startswith("--target=") else argv[index + 1] if arg == "--target" else ""
        built |= {t["name"] for t in parse_target(text, gen) if t["name"] in gen.codegens} if text else set()
    args = compile_parser(gen, built).parse_args(argv)
    pass_config = _pass_config(args.pass_config, gen)
    if not args.target:
        raise Refused("no --target (old tvmc then used its default config, which tvmc never emits)")
    extra_options: dict[str, dict[str, Any]] = {}
    for kind in [*gen.tvm_kinds(), *built]:
        options = gen.codegens[kind] if kind in gen.codegens else gen.kinds[kind].options
        for option in options:
            value = getattr(args, f"target_{kind.replace('-', '_')}_{option.replace('-', '_')}", None)
            if value is not None:
                extra_options.setdefault(kind, {})[option] = value
    parsed = parse_target(args.target, gen)
    names = [t["name"] for t in parsed]
    if len(names) != len(set(names)):
        raise Refused("Duplicate target definitions are not allowed")
    if names[-1] not in gen.kinds:
        raise Refused("The last target needs to be a TVM target")
    tvm_targets = [t for t in parsed if t["is_tvm_target"]]
    if len(tvm_targets) > 2:
        raise Refused("Only two of the following targets can be used at a time")
    for kind in extra_options:
        if kind not in names:
            raise Refused(f"Passed --target-{kind}-{next(iter(extra_options[kind]))} but did not specify {kind} target")
    for target in parsed:
        target["opts"].update(extra_options.get(target["name"], {}))
    codegens = []
    for target in parsed:
        if not target["is_tvm_target"]:
            if target["name"] not in gen.codegens:
                raise Refused(f"Composite target {target['name']} is not defined in TVMC.")
            codegens.append((target["name"], target["opts"]))
    main = _parse_tvm_target(_recombobulate(tvm_targets[0]), gen)
    host = _parse_tvm_target(_recombobulate(tvm_targets[1]), gen) if len(tvm_targets) == 2 else None
    return Compiled(
        main,
        host,
        codegens,
        _component(args, "executor", gen.executors),
        _component(args, "runtime", gen.runtimes),
        pass_config,
        args,
    )
