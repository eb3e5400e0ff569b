"""What a config may say, read by every stage: each top-level key and build option with its type
and documentation, the defaults, the executor/runtime components, the pass-configs of a
`pass-config` table, and the rules on `build` that validation reports and the build plan refuses.

`tvmc.config` turns a validated tree into a `CompilationConfig` (the canonicalize stage, a later
one); these facts sit below every stage so that layering, rewrites and validation need not import it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from tvmc import registry
from tvmc.pointers import join
from tvmc.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@record(slots=True, frozen=True)
class KeySpec:
    """One config key: its type (TVM spelling, or `targets`/`target`/`table`) and documentation."""

    type: str
    description: str
    enum: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None


TOP_LEVEL: dict[str, KeySpec] = {
    "description": KeySpec("str", "What this config is for (shown by `tvmc config list`)."),
    "extends": KeySpec(
        "Array<str>",
        "Configs this one is layered on: names on the search path or paths "
        "relative to this file, applied left to right before this file.",
    ),
    "tvm-version": KeySpec("str", "The TVM generation this config is written for, e.g. '>=0.25' or '<=0.19'."),
    "targets": KeySpec("targets", "The targets: tag names, tables (TVM JSON form) or legacy target strings."),
    "host": KeySpec("target", "The target host; applies to every target without its own host."),
    "executor": KeySpec(
        "table", "The executor: kind = graph | aot | vm, and its options; or only its name (executor = 'vm')."
    ),
    "runtime": KeySpec("table", "The runtime: kind = cpp | crt, and its options; or only its name (runtime = 'cpp')."),
    "pass-config": KeySpec("table", "PassContext config: name → value."),
    "disabled-pass": KeySpec("Array<str>", "Passes to disable in the PassContext."),
    "opt-level": KeySpec("int", "PassContext optimisation level.", minimum=0, maximum=3),
    "build": KeySpec("table", "How the build is run and packaged (output format, cross compiler, ...)."),
}

BUILD_OPTIONS: dict[str, KeySpec] = {
    "output-format": KeySpec(
        "str",
        "Package format: 'so' (shared library), 'tar', or 'mlf' (Model Library Format, legacy TVM).",
        enum=("so", "tar", "mlf"),
    ),
    "module-name": KeySpec("str", "Name of the generated module."),
    "cross-compiler": KeySpec("str", "Compiler used to link the library, e.g. 'aarch64-linux-gnu-gcc'."),
    "cross-compiler-options": KeySpec("Array<str>", "Extra arguments for the cross compiler."),
    "tuning-records": KeySpec("str", "Tuning records to apply (relative to the config file)."),
    "desired-layout": KeySpec("Array<str>", "Layouts to convert to, e.g. ['NHWC'] or ['NHWC:HWIO']."),
    "desired-layout-ops": KeySpec("Array<str>", "Operators whose layout is converted."),
    "mixed-precision": KeySpec("bool", "Convert the model to mixed precision."),
    "mixed-precision-ops": KeySpec("Array<str>", "Operators converted to mixed precision."),
    "mixed-precision-calculation-type": KeySpec("str", "Calculation type.", enum=("float16", "float32")),
    "mixed-precision-acc-type": KeySpec("str", "Accumulation type.", enum=("float16", "float32")),
    "dump-code": KeySpec(
        "Array<str>", "Intermediate code to write next to the output.", enum=("asm", "ll", "tir", "relax")
    ),
    "pipeline": KeySpec(
        "str",
        "The relax pipeline (TVM >= 0.25): 'fused' (default: TVM's pipeline for the target kind, with "
        "constant folding and operator fusion; tuning records apply) or 'relax-build' (relax.build's own "
        "default, unfused on CPU; no tuning records).",
        enum=("fused", "relax-build"),
    ),
    "fast-math": KeySpec(
        "bool", "Replace exp, erf, tanh and softmax by fast approximations (relax FastMathTransform, TVM >= 0.25)."
    ),
}

INTERNAL_DEFAULTS: dict[str, Any] = {"opt-level": 3}

# What a build does for a `build` key the config does not write. Canonical configs drop a key
# written with its default, so writing a default changes neither `show` nor the fingerprint.
BUILD_DEFAULTS: dict[str, Any] = {
    "output-format": "so",
    "mixed-precision": False,
    "mixed-precision-calculation-type": "float16",
    "mixed-precision-acc-type": "float16",
    "cross-compiler-options": [],
    "dump-code": [],
    "desired-layout-ops": ["nn.conv2d"],  # TVM >= 0.25's; see LEGACY_LAYOUT_OPS and `default_layout_ops`
    "pipeline": "fused",
    "fast-math": False,
}
# The operators old tvmc (TVM <= 0.19) converted when `--desired-layout-ops` was not given.
LEGACY_LAYOUT_OPS = ("nn.conv2d", "nn.conv2d_transpose", "qnn.conv2d")


def default_layout_ops(generation: str | None) -> list[str] | None:
    """The operators a layout conversion converts by default for a config's TVM generation; None
    when the config admits both (each has another default, so no list is the default)."""
    if generation == "modern":
        return list(BUILD_DEFAULTS["desired-layout-ops"])
    return list(LEGACY_LAYOUT_OPS) if generation == "legacy" else None


# The kernel layout ConvertLayout gives conv2d for a data layout written alone ("NHWC" = "NHWC:HWIO").
DEFAULT_KERNEL_LAYOUT = {"NHWC": "HWIO", "NCHW": "OIHW"}


@record(slots=True, frozen=True)
class BuildProblem:
    pointer: str
    message: str
    legacy_only: bool  # the option exists, but only TVM <= 0.19 builds with it

    @property
    def rule(self) -> str:
        """The rule id the rule engine and the build plan both report it with."""
        return "legacy-option" if self.legacy_only else "invalid-value"


def modern_build_problems(build: Mapping[str, Any]) -> list[BuildProblem]:
    """What the build of TVM >= 0.25 (relax) cannot do with a canonical `build` table: the one list
    that the build plan refuses and validation reports for configs written for TVM >= 0.25."""
    out: list[BuildProblem] = []
    if "module-name" in build:
        out.append(BuildProblem("/build/module-name", "relax.build has no module name", True))
    fmt = build.get("output-format", BUILD_DEFAULTS["output-format"])
    if fmt == "mlf":
        out.append(BuildProblem("/build/output-format", "Model Library Format exists only in TVM <= 0.18", True))
    if fmt == "tar" and ("cross-compiler" in build or build.get("cross-compiler-options")):
        key = "cross-compiler" if "cross-compiler" in build else "cross-compiler-options"
        out.append(BuildProblem(f"/build/{key}", "a tar of object files is not linked", False))
    if build.get("mixed-precision", False):
        if "mixed-precision-ops" in build:
            out.append(
                BuildProblem(
                    "/build/mixed-precision-ops", "relax's ToMixedPrecision chooses the operators itself", False
                )
            )
        if build.get("mixed-precision-calculation-type", "float16") != "float16":
            out.append(
                BuildProblem(
                    "/build/mixed-precision-calculation-type",
                    "relax's ToMixedPrecision computes in float16 only",
                    False,
                )
            )
    layouts = build.get("desired-layout")
    if isinstance(layouts, list):
        ops = build.get("desired-layout-ops", BUILD_DEFAULTS["desired-layout-ops"])
        if len(layouts) not in (1, len(ops)):
            message = f"{len(layouts)} layouts for {len(ops)} operators (give one, or one per operator)"
            out.append(BuildProblem("/build/desired-layout", message, False))
        else:
            for index, op in enumerate(ops):
                kernel = str(layouts[0] if len(layouts) == 1 else layouts[index]).partition(":")[2]
                if kernel in ("", "default"):
                    message = (
                        f"give the kernel layout for relax.{op} as DATA:KERNEL (relax's ConvertLayout has no default)"
                    )
                    out.append(BuildProblem("/build/desired-layout", message, False))
                    break
    return out


def canonical_build(build: Mapping[str, Any], generation: str | None) -> dict[str, Any]:
    """One spelling per meaning: operator names without `relax.`, conv2d's kernel layout written
    out, defaults dropped (`desired-layout-ops` only when it is the default of the config's TVM
    generation, `default_layout_ops`), and options without effect dropped."""
    out = dict(build)
    if isinstance(out.get("desired-layout-ops"), list):
        out["desired-layout-ops"] = [str(op).removeprefix("relax.") for op in out["desired-layout-ops"]]
    ops = out.get("desired-layout-ops", BUILD_DEFAULTS["desired-layout-ops"])
    layouts = out.get("desired-layout")
    if isinstance(layouts, list) and len(layouts) in (1, len(ops)):
        written = []
        for index, layout in enumerate(layouts):
            data, _, kernel = str(layout).partition(":")
            applies = ops if len(layouts) == 1 else [ops[index]]
            if kernel in ("", "default") and data in DEFAULT_KERNEL_LAYOUT and all(op == "nn.conv2d" for op in applies):
                layout = f"{data}:{DEFAULT_KERNEL_LAYOUT[data]}"
            written.append(layout)
        out["desired-layout"] = written
    for key in inert_build_options(out):
        del out[key]
    if "desired-layout-ops" in out and out["desired-layout-ops"] == default_layout_ops(generation):
        del out["desired-layout-ops"]
    return {
        k: v for k, v in out.items() if k == "desired-layout-ops" or k not in BUILD_DEFAULTS or BUILD_DEFAULTS[k] != v
    }


def inert_build_options(build: Mapping[str, Any]) -> list[str]:
    """The `build` options that have no effect in what else the table says (in every TVM, old
    tvmc's flags included): the operators of a layout conversion without `desired-layout`, and
    the `mixed-precision-*` settings without `mixed-precision = true`. The canonical form drops
    them (equal meaning, one form), with a note."""
    out = ["desired-layout-ops"] if "desired-layout-ops" in build and "desired-layout" not in build else []
    if build.get("mixed-precision") is not True:
        out += [k for k in build if k.startswith("mixed-precision-")]
    return out


COMPONENTS = ("executor", "runtime")
# Entries in one `extends` list: enforced by `layering`, stated by validation's schema and checks
# (here, not in `layering`, which would load `sources` into `tvmc config schema`).
MAX_EXTENDS_FANOUT = 32
# Legacy TVM's executor/runtime when a target string gave only their options (TVM 0.9
# python/tvm/relay/build_module.py, `_reconstruct_from_deprecated_options`).
LEGACY_DEFAULT_KIND = {"executor": "graph", "runtime": "cpp"}
# The kinds a build uses when a config names none (vm for TVM >= 0.25, graph for <= 0.19; cpp):
# setting one of their options implies the kind, as it would be used anyway.
IMPLIED_KINDS = {"executor": ("vm", "graph"), "runtime": ("cpp",)}


def component_table(value: Any) -> Any:
    """`executor = "aot"` is shorthand for `executor = { kind = "aot" }`; anything else is as given."""
    return {"kind": value} if isinstance(value, str) else value


def with_lifted(section: str, settings: Mapping[str, Any], current: Any) -> dict[str, Any]:
    """The executor/runtime table once a legacy target string's options are lifted into it: what
    the config says itself wins; with no kind anywhere, legacy TVM's default kind."""
    table = component_table(current)
    return {"kind": LEGACY_DEFAULT_KIND[section], **settings, **(table if isinstance(table, dict) else {})}


@record(slots=True, frozen=True)
class PassConfigEntry:
    pointer: str  # where it is written, e.g. /pass-config/tirx.disable_vectorize
    name: str  # as written (a nested table's keys joined with dots)
    canonical: str  # the spelling of the config's TVM generation
    type: str | None  # TVM's type of it; None: that generation registers no such config
    value: Any


def pass_config_entries(
    table: Mapping[str, Any], generation: str | None, pointer: str = "/pass-config", prefix: str = ""
) -> Iterator[PassConfigEntry]:
    """The pass configs of a `pass-config` table. A nested table is a dotted name (TOML reads
    `pass-config.tirx.disable_vectorize = true` that way) unless its own name is a config."""
    for key, value in table.items():
        name = prefix + key
        canonical, type_ = registry.pass_config_spec(name, generation)
        if type_ is None and type(value) is dict and value:
            yield from pass_config_entries(value, generation, join(pointer, key), name + ".")
        else:
            yield PassConfigEntry(join(pointer, key), name, canonical, type_, value)


def pass_config_identity(name: str) -> str:
    """The one config a pass-config name means, whatever its spelling: `tir.X`, `tirx.X` and
    `s_tir.X` name one config (TVM 0.24 renamed it), so a layer or flag writing one spelling
    replaces another spelling written below it (later wins, as for every other key)."""
    modern = registry.modern_pass_config(name)
    if modern != name or name in registry.pass_configs():
        return modern
    for prefix in ("tirx.", "s_tir."):
        if name.startswith(prefix):
            return registry.modern_pass_config(f"tir.{name[len(prefix) :]}")
    return name


def pass_config_aliases(table: Mapping[str, Any], name: str, pointer: str = "/pass-config") -> list[str]:
    """The pointers of the entries of a `pass-config` table (written at `pointer`) that are the
    config `name` names, in any spelling (a nested table's keys joined with dots)."""
    identity = pass_config_identity(name)
    return [e.pointer for e in pass_config_entries(table, None, pointer) if pass_config_identity(e.name) == identity]


# ---- old tvmc's JSON configs ----------------------------------------------------------------
# Spellings only old tvmc's JSON configs use: `--config OLD.json` and `config validate OLD.json` say
# how to convert such a file (`tvmc config migrate`) beside its first error.
_OLD_TVMC_ONLY_KEYS = frozenset(
    {"pass_config", "opt_level", "disabled_pass", "output_format", "model_format", "input_shapes", "tuning_records"}
    | {"output-format", "model-format", "input-shapes", "tuning-records", "cross-compiler", "cross_compiler"}
    | {"cross-compiler-options", "cross_compiler_options", "module-name", "module_name", "desired-layout"}
)


def old_config_signs(data: object) -> list[str]:
    """Why a JSON document looks like an old tvmc config rather than a tvmc one (empty: it does not)."""
    if not isinstance(data, dict):
        return []
    signs = [f"the key {k!r}" for k in data if k in _OLD_TVMC_ONLY_KEYS]
    for section in ("executor", "runtime"):
        if isinstance(data.get(section), str):
            signs.append(f"{section} given as a string")
    targets = data.get("targets")
    for index, target in enumerate(targets if isinstance(targets, list) else []):
        if isinstance(target, dict) and "from_device" in target:
            signs.append(f"targets[{index}].from_device")
        elif isinstance(target, dict) and any(isinstance(v, str) and v.isdigit() for k, v in target.items()):
            signs.append(f"a number written as a string in targets[{index}]")
    passes = data.get("pass-config", data.get("pass_config"))
    if isinstance(passes, dict) and any(
        isinstance(v, str) and v.lower() in ("0", "1", "true", "false") for v in passes.values()
    ):
        signs.append("pass-config values written as strings")
    return signs


def old_json_hint(path: str, data: object) -> str | None:
    """How to convert the JSON document `data` read from `path` when it looks like an old tvmc config."""
    signs = old_config_signs(data)
    if not signs:
        return None
    return f"{path} looks like an old tvmc JSON config ({', '.join(signs[:3])}): convert it: tvmc config migrate {path}"
