"""`--emit tvmc`: the equivalent old `tvmc compile` command line (TVM 0.18 or 0.19), shell-quoted.

Old tvmc put everything in `--target`: BYOC codegens first (in partitioning order), then the
TVM target, then the host as a second TVM target (`compile` has no `--target-host`). Its
target tokenizer silently dropped characters outside `[\\w+-.,]` (quoted runs may also hold
spaces, which it then un-quotes), so such strings are refused here rather than emitted broken.
"""

from __future__ import annotations

import re
from typing import Any

from tvmc import registry
from tvmc.backend.model import ModelSpec
from tvmc.emit.legacy import RELAY_HINT, Byoc, Inexpressible, LegacyPlan
from tvmc.emit.quoting import sh
from tvmc.shapes import legacy_format
from tvmc.shapes import legacy_problem as shapes_problem

# Old tvmc's --target tokens (python/tvm/driver/tvmc/target.py), restated.
_TOKEN = re.compile(r"-{0,2}[\w\-]+=?(?:[\w+\-.]+(?:,[\w+\-.])*|'[\w+\-,\s.]+'|\"[\w+\-,\s.]+\")*|,")
_TAG = re.compile(r" -tag=(\S+)")
NARGS = ("desired-layout", "desired-layout-ops", "mixed-precision-ops")  # nargs='+' options
VALUE_OPTIONS = ("module-name", "tuning-records", "mixed-precision-calculation-type", "mixed-precision-acc-type")


def refuse(what: str, why: str) -> Inexpressible:
    return Inexpressible(f"{what}: old tvmc cannot take this: {why}", None, hint=RELAY_HINT)


def tokenizer_problem(text: str) -> str | None:
    """Why old tvmc's --target tokenizer would mangle `text` (dropped characters, un-quoted spaces)."""
    covered = [False] * len(text)
    for match in _TOKEN.finditer(text):
        if re.search(r"'[^']*\s[^']*'|\"[^\"]*\s[^\"]*\"", match.group()):
            return f"the quoted value in {match.group()!r} has a space, which old tvmc un-quotes"
        covered[match.start() : match.end()] = [True] * (match.end() - match.start())
    # Plain spaces separate tokens; anything else the tokens do not cover is dropped.
    dropped = sorted({c for c, ok in zip(text, covered, strict=True) if not ok and c != " "})
    return f"it would silently drop {''.join(dropped)!r}" if dropped else None


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"  # registry options are Bool/Integer: old tvmc takes ints
    return str(value)


def target_value(plan: LegacyPlan, notes: list[str]) -> str:
    if plan.host and plan.host.split(" ")[0] == plan.target.split(" ")[0]:
        raise refuse(
            f"host {plan.host!r}",
            "the host goes in --target as a second TVM target, and two targets of one kind are refused as duplicates",
        )
    byoc = [b.name if codegen_flags(plan, b) else b.legacy for b in plan.byoc]
    parts = byoc + [plan.target] + ([plan.host] if plan.host else [])
    out = []
    for part in parts:
        tag = _TAG.search(part)
        if tag and tokenizer_problem(tag.group(1)):
            # With a kind, a tag is only a label; it changes nothing in the build.
            notes.append(f"the tag label {tag.group(1)!r} is left out: old tvmc's --target cannot pass it")
            part = part.replace(tag.group(0), "", 1)
        problem = tokenizer_problem(part)
        if problem:
            raise refuse(f"target {part!r}", problem)
        out.append(part)
    return ", ".join(out)


def codegen_flags(plan: LegacyPlan, byoc: Byoc) -> list[str]:
    """A codegen whose --target-<codegen>-<option> flags have defaults (mrvl): target.py merged the
    flags over the options written in --target, so its options go in flags, not in --target."""
    if not registry.generation(plan.version).flag_defaults.get(byoc.name):
        return []
    return [f"--target-{byoc.name}-{option}={_scalar(value)}" for option, value in byoc.options.items()]


def component_flags(plan: LegacyPlan, section: str, notes: list[str]) -> list[str]:
    table = plan.executor if section == "executor" else plan.runtime
    if table is None:
        return []
    flags = [f"--{section}={table['kind']}"]
    for option, value in plan.non_default_options(section).items():
        flag = f"--{section}-{table['kind']}-{option}"
        if value is False:
            # python/tvm/driver/tvmc/registry.py (v0.18/v0.19) types runtime.BoxBool options as
            # argparse `type=bool`, and bool("0") is True: no command line can say false.
            raise refuse(
                f"{section}.{option} = false",
                f"the tvmc of TVM {plan.version} reads {flag}=0 (or =false) as true",
            )
        flags.append(f"{flag}={_scalar(value)}")
    return flags


def pass_config_flags(plan: LegacyPlan) -> list[str]:
    flags = []
    for name, value in plan.pass_config.items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, int) and value >= 0:
            text = str(value)
        elif isinstance(value, str) and "=" not in value and value == value.strip() and value:
            text = value
        elif name == "tir.add_lower_pass" and _lower_passes(value):
            text = ",".join(f"{level},{func}" for level, func in value)  # pass_config.py's pair list
        else:
            raise refuse(
                f"pass-config.{name} = {value!r}",
                "old tvmc takes non-negative integers, booleans and strings without '=' or surrounding spaces",
            )
        flags.append(f"--pass-config={name}={text}")
    return flags


def _lower_passes(value: Any) -> bool:
    """Whether old tvmc's `tir.add_lower_pass=LEVEL,PASS,...` can say this list of (level, pass) pairs."""
    return isinstance(value, list) and all(
        isinstance(pair, list)
        and len(pair) == 2
        and isinstance(pair[0], int)
        and not isinstance(pair[0], bool)
        and pair[0] >= 0
        and isinstance(pair[1], str)
        and re.fullmatch(r"[\w.]+", pair[1]) is not None
        for pair in value
    )


def build_flags(plan: LegacyPlan) -> list[str]:
    build = plan.build
    flags: list[str] = []
    fmt = build.get("output-format", "so")
    if fmt == "tar":
        choices = " or ".join(registry.generation(plan.version).output_formats)
        raise refuse("build.output-format = 'tar'", f"its --output-format is {choices}")
    if "output-format" in build:
        flags.append(f"--output-format={fmt}")
    for key in VALUE_OPTIONS:
        if key in build:
            flags.append(f"--{key}={build[key]}")
    if "cross-compiler" in build:
        flags.append(f"--cross-compiler={build['cross-compiler']}")
    options = build.get("cross-compiler-options", [])
    if options:
        if "cross-compiler" not in build:
            raise refuse("build.cross-compiler-options", "it ignores them without --cross-compiler")
        if any(not o or re.search(r"\s", o) for o in options):
            raise refuse("build.cross-compiler-options", "it splits them on spaces, without quoting")
        flags.append(f"--cross-compiler-options={' '.join(options)}")
    for key in NARGS:
        if key in build:
            values = [str(v) for v in build[key]]
            if not values or any(v.startswith("-") for v in values):
                raise refuse(f"build.{key}", "values starting with '-' read as options")
            flags += [f"--{key}", *values]
    if build.get("mixed-precision"):
        flags.append("--mixed-precision")
    if build.get("dump-code"):
        flags.append(f"--dump-code={','.join(build['dump-code'])}")
    return flags


def model_flags(model: ModelSpec) -> list[str]:
    flags = [f"--model-format={model.format}"]
    if model.shapes is not None:
        problem = shapes_problem(model.shapes)
        if problem:
            raise refuse("--input-shapes", problem)
        flags.append(f"--input-shapes={legacy_format(model.shapes)}")
    return flags


def tvmc_argv(plan: LegacyPlan, output: str | None = None) -> tuple[list[str], list[str]]:
    """The argv of old `tvmc compile` for this plan, and notes about what was adapted."""
    notes = list(plan.notes)
    argv = ["tvmc", "compile", f"--target={target_value(plan, notes)}"]
    argv += [flag for byoc in plan.byoc for flag in codegen_flags(plan, byoc)]
    argv += component_flags(plan, "executor", notes) + component_flags(plan, "runtime", notes)
    argv += pass_config_flags(plan)
    if plan.disabled_pass:  # Relay's pass names (validate.legacy): no commas, no spaces
        argv.append(f"--disabled-pass={','.join(plan.disabled_pass)}")
    argv.append(f"--opt-level={plan.opt_level}")
    argv += build_flags(plan) + model_flags(plan.model)
    argv.append(f"--output={output or plan.model.default_output('tar')}")
    path = plan.model.path
    argv.append(f"./{path}" if path.startswith("-") else path)
    for arg in argv:
        if "\0" in arg:  # a config file can hold one; no command line can
            raise Inexpressible(
                f"{arg.split('=')[0]}: a NUL character cannot be passed on a command line", None, hint=RELAY_HINT
            )
    return argv, notes


def render(plan: LegacyPlan, output: str | None = None) -> tuple[str, list[str]]:
    argv, notes = tvmc_argv(plan, output)
    return sh(argv) + "\n", notes
