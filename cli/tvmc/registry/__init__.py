"""Typed access to the generated target registry (the only place that knows TVM's names).

The data lives in `data/kinds.json` (kinds, options, defaults, pass configs, legacy facts,
executors, runtimes, BYOC compilers) and `data/tags.json` (the registered config of every
tag), both written by `scripts/sync_registry.py` from an installed TVM. Files are read on
first use; `tags.json` only when a tag is actually looked up.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from tvmc import datafiles, versions
from tvmc.records import field, record
from tvmc.registry import codes as C
from tvmc.values import plain_copy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

    from tvmc.registry.generations import Generation as Generation

# Option types, as TVM 0.27 spells them (TargetKind.options_from_name).
STR = "str"
INT = "int"
BOOL = "bool"
STR_ARRAY = "Array<str>"
INT_ARRAY = "Array<int>"
TARGET = "target.Target"
TARGET_ARRAY = "Array<target.Target>"

CPU_DEVICE = 1
DEVICE_NAMES = {
    1: "cpu",
    2: "cuda",
    3: "cuda_host",
    4: "opencl",
    7: "vulkan",
    8: "metal",
    10: "rocm",
    12: "ext_dev",
    14: "oneapi",
    15: "webgpu",
    16: "hexagon",
    18: "trn",
    32: "aocl",
    33: "sdaccel",
}


# An option's code (`Kind.codes`): its role, else its type's code (`tvmc.registry.codes`).
TYPE_CODES = {
    STR: C.STR,
    INT: C.INT,
    BOOL: C.BOOL,
    STR_ARRAY: C.STR_ARRAY,
    INT_ARRAY: C.INT_ARRAY,
    TARGET: C.TARGET,
    TARGET_ARRAY: C.TARGET_ARRAY,
}
ROLE_CODES = {"kind": C.KIND, "keys": C.KEYS, "tag": C.TAG, "host": C.HOST, "from_device": C.FROM_DEVICE}


@record(slots=True, frozen=True)
class Kind:
    """A target kind, the one description that canonicalization, validation, the schema and the
    emitters share: its options in declaration order, declared defaults, keys, device type, the
    options only legacy TVM had; and, derived once when the registry builds it, what the
    canonicalizer's hot loop needs (option codes, declaration order) and every key a config may
    write (`accepted`)."""

    name: str
    options: dict[str, str]  # declared options → TVM type, in declaration order (TVM validates in it)
    defaults: dict[str, Any]
    default_keys: tuple[str, ...]
    device_type: int
    legacy: bool = False  # only TVM <= 0.21 had it
    byoc: bool = False  # a BYOC codegen (legacy) rather than a code generator of TVM itself
    last_version: str | None = None  # the last TVM release that had it (legacy kinds)
    open_options: bool = False  # our list of its options is incomplete: unknown ones only warn
    renamed_to: str | None = None
    # Options only legacy TVM had (system-lib, link-params, ...), none of them declared.
    legacy_options: dict[str, LegacyOption] = field(default_factory=dict)
    # Derived (not arguments):
    order: tuple[str, ...] = field(init=False, repr=False, compare=False)  # the declared options
    codes: dict[str, int] = field(init=False, repr=False, compare=False)  # option → type/role code
    # Every key a config may write → its TVM type: `kind` (legacy kinds do not declare it), the
    # declared options, `compiler`, then the legacy-only options.
    accepted: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        codes = {"kind": C.KIND}  # a config may say `kind` where the kind does not declare it
        for opt, typ in self.options.items():
            codes[opt] = ROLE_CODES.get(opt, TYPE_CODES.get(typ, C.ANY))
        accepted = {"kind": STR, **self.options, "compiler": STR}
        accepted.update({k: v.type for k, v in self.legacy_options.items() if k not in accepted})
        object.__setattr__(self, "order", tuple(self.options))
        object.__setattr__(self, "codes", codes)
        object.__setattr__(self, "accepted", accepted)

    @property
    def kind_options(self) -> dict[str, str]:
        """Options specific to this kind (without the ones every kind has)."""
        return {k: v for k, v in self.options.items() if k not in COMMON_OPTIONS}


COMMON_OPTIONS = ("kind", "keys", "tag", "device", "model", "libs", "host", "from_device", "target_device_type")


@record(slots=True, frozen=True)
class RegistryOption:
    """An executor or runtime option."""

    name: str
    type: str
    default: Any
    description: str
    enum: tuple[str, ...] = ()
    minimum: int | None = None  # the least value an int option takes (a byte alignment: 1)


@record(slots=True, frozen=True)
class Component:
    """An executor or a runtime: its name, options, and the TVM generations that can build it."""

    name: str
    description: str
    generations: tuple[str, ...]
    options: dict[str, RegistryOption] = field(default_factory=dict)


@record(slots=True, frozen=True)
class Compiler:
    """A BYOC `compiler` specialisation and the device types it can refine."""

    name: str
    device_types: tuple[int, ...]
    partition: str | None  # dotted path of TVM 0.27's relax partition function, if any


@record(slots=True, frozen=True)
class LegacyOption:
    """A target option that only legacy TVM had, and the config setting it became."""

    kind: str
    name: str
    type: str
    versions: tuple[str, ...]
    lifts_to: str | None


_load = datafiles.load  # the one reader of the data files (shell completion reads tags.json through it too)


@cache
def _data() -> dict[str, Any]:
    data: dict[str, Any] = _load("kinds.json")
    return data


def _tags() -> dict[str, Any]:
    return datafiles.tags()


def tvm_version() -> str:
    """The TVM release the registry was generated from."""
    return str(_data()["tvm_version"])


def _kind(name: str, entry: dict[str, Any], *, legacy: bool) -> Kind:
    legacy_only = _data()["legacy"]["options"].get(name, {})
    return Kind(
        name=name,
        options=dict(entry["options"]),
        defaults=dict(entry["defaults"]),
        default_keys=tuple(entry["default_keys"]),
        device_type=int(entry["device_type"]),
        legacy=legacy,
        byoc=bool(entry.get("byoc")),
        last_version=entry.get("last_version"),
        open_options=bool(entry.get("open_options")),
        renamed_to=entry.get("renamed_to"),
        legacy_options={
            opt: LegacyOption(name, opt, e["type"], tuple(e["versions"]), e.get("lifts_to"))
            for opt, e in legacy_only.items()
            if opt not in entry["options"]
        },
    )


class Kinds(Mapping[str, "Kind"]):
    """Kind name → `Kind`, each built by `build` when first looked up: a command reads the few
    kinds its config names, not the registry's ~35 (building them all was a tenth of `config
    show`'s work). Read-only; iterates over `names` in their order."""

    __slots__ = ("_build", "_built", "_names")

    def __init__(self, names: Iterable[str], build: Callable[[str], Kind]) -> None:
        self._names = dict.fromkeys(names)
        self._build = build
        self._built: dict[str, Kind] = {}

    def __getitem__(self, name: str) -> Kind:
        built = self._built.get(name)
        if built is None:
            if name not in self._names:
                raise KeyError(name)
            built = self._built[name] = self._build(name)
        return built

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"Kinds({list(self._names)})"


@cache
def kinds() -> Kinds:
    """Every target kind TVM 0.27 registers."""
    entries = _data()["kinds"]
    return Kinds(entries, lambda name: _kind(name, entries[name], legacy=False))


@cache
def legacy_kinds() -> Kinds:
    """Kinds (and tvmc BYOC codegens) that only legacy TVM had."""
    entries = _data()["legacy"]["kinds"]
    return Kinds(entries, lambda name: _kind(name, entries[name], legacy=True))


# Kinds TVM registers only to test itself: `test` (src/target/target_kind.cc) and the Relay BYOC
# example `example_target_hook` (TVM <= 0.19). They stay valid input, but no help, listing or
# completion offers them.
INTERNAL_KINDS = frozenset({"test", "example_target_hook"})


def public_kinds() -> list[str]:
    """The kinds a user is shown: modern kinds in registry order, then legacy ones sorted; no internal ones."""
    return [name for name in (*kinds(), *sorted(legacy_kinds())) if name not in INTERNAL_KINDS]


@cache
def all_kinds() -> Kinds:
    """Every kind a config may name, sorted by name: a modern kind wins over a legacy kind of the
    same name (the one place that decides it)."""
    modern, legacy = kinds(), legacy_kinds()
    # The kinds are theirs: each built once, when first looked up here or there.
    return Kinds(sorted({*modern, *legacy}), lambda name: modern[name] if name in modern else legacy[name])


def kind(name: str) -> Kind | None:
    """A kind by name (modern before legacy, see `all_kinds`), else None."""
    return all_kinds().get(name)


def renamed_tags() -> dict[str, str]:
    return dict(_data()["legacy"]["renamed_tags"])


def renamed_tag(name: str) -> str | None:
    """The new name of a tag legacy TVM had under `name`, or None (one lookup: `renamed_tags` copies the table)."""
    new = _data()["legacy"]["renamed_tags"].get(name)
    return str(new) if new is not None else None


def renamed_options() -> dict[str, dict[str, str]]:
    return {k: dict(v) for k, v in _data()["legacy"]["renamed_options"].items()}


def tag_names() -> list[str]:
    """All 287 tag names, sorted."""
    return list(_tags())


def tag_config(name: str) -> dict[str, Any] | None:
    """The registered config of a tag (a fresh copy), or None if there is no such tag."""
    config = _tags().get(name)
    return plain_copy(config) if config is not None else None


def is_tag(name: str) -> bool:
    return name in _tags()


@cache
def pass_configs() -> dict[str, str]:
    """PassContext config names → type (`bool`, `int`, `str`, or a structured config type)."""
    return dict(_data()["pass_configs"])


def pass_config_fields(type_name: str) -> dict[str, str] | None:
    """The fields (name → type) of an object-typed PassContext config: of TVM 0.27's type keys
    (`tirx.transform.UnrollLoopConfig`) as TVM registers them, of the old releases' types (C++ class
    names: `UnrollLoopConfig` of 0.19's `tir.UnrollLoop`) as `legacy_pass_config_fields` gives them;
    None for any other type. The two name spaces never meet (scripts/sync_registry.py checks)."""
    fields: dict[str, dict[str, str]] = _data().get("pass_config_fields", {})
    found = fields.get(type_name)
    if found is None and "." not in type_name:  # an old release's class name; never a plain type
        found = legacy_pass_config_fields().get(type_name)
    return dict(found) if found is not None else None


@cache
def legacy_pass_config_fields() -> dict[str, dict[str, str]]:
    """Per object type of the old releases' pass configs, the fields of its attrs node in any release
    tvmc writes for (their union: not stricter than one of them). Their int and bool fields are
    `IntImm`: old TVM's attrs set either from a Python int or bool (`TVMArgValue`'s `operator int64_t`
    and `operator bool` take both; its own UnrollLoopConfig defaults the int `explicit_unroll` to true)."""
    out: dict[str, dict[str, str]] = {}
    for version in generation_versions():
        for type_name, fields in generation(version).pass_config_fields.items():
            slot = out.setdefault(type_name, {})
            slot.update({name: "IntImm" if t in ("int", "bool") else t for name, t in fields.items()})
    return out


def modern_pass_config(name: str) -> str:
    """The name TVM >= 0.25 gives a pass config: `tir.X` became `tirx.X` or `s_tir.X` (TVM 0.24) unless
    TVM still registers `tir.X`; other names are unchanged. One rule for the build plan and `config migrate`."""
    known = pass_configs()
    if name.startswith("tir.") and name not in known:
        for prefix in ("tirx.", "s_tir."):  # TVM 0.24 split `tir.*` between these two
            twin = f"{prefix}{name[len('tir.') :]}"
            if twin in known:
                return twin
    return name


@cache
def legacy_pass_configs() -> dict[str, str]:
    """The PassContext configs of the old releases tvmc writes for (newest's type wins)."""
    out: dict[str, str] = {}
    for version in generation_versions():
        out.update(generation(version).pass_configs)
    return out


def pass_configs_of(generation: str | None) -> dict[str, str]:
    """The pass configs a config of a generation may name ("modern", "legacy", None: either)."""
    if generation == "legacy":
        return legacy_pass_configs()
    return pass_configs() if generation == "modern" else {**legacy_pass_configs(), **pass_configs()}


def pass_config_spec(name: str, generation: str | None) -> tuple[str, str | None]:
    """A pass config's canonical name for a config's TVM generation ("modern", "legacy", or None
    for both), and its TVM type (None: unknown there). TVM >= 0.25 spells `tir.X` as
    `tirx.X`/`s_tir.X`, the old releases `tirx.X` as `tir.X`; both spellings are accepted, and
    this is the one place that decides which is canonical. For both generations a name that only
    old TVM registers keeps its old spelling (the build for TVM >= 0.25 refuses it)."""
    if generation != "legacy":
        canonical = modern_pass_config(name)
        type_ = pass_configs().get(canonical)
        if type_ is not None or generation == "modern":
            return canonical, type_
    known = legacy_pass_configs()
    for prefix in ("tirx.", "s_tir."):
        if name.startswith(prefix) and name not in known and f"tir.{name[len(prefix) :]}" in known:
            name = f"tir.{name[len(prefix) :]}"
    type_ = known.get(name)
    # Old TVM registered its bool configs as IntImm and took any integer (old tvmc passed `=10` on).
    return name, "IntImm" if type_ == "bool" else type_


def _components(section: str) -> dict[str, Component]:
    return {
        name: Component(
            name=name,
            description=entry["description"],
            generations=tuple(entry["generations"]),
            options={
                opt: RegistryOption(
                    opt,
                    o["type"],
                    o.get("default"),
                    o.get("description", ""),
                    tuple(o.get("enum", ())),
                    o.get("minimum"),
                )
                for opt, o in entry["options"].items()
            },
        )
        for name, entry in _data()[section].items()
    }


@cache
def executors() -> dict[str, Component]:
    return _components("executors")


@cache
def runtimes() -> dict[str, Component]:
    return _components("runtimes")


def components(section: str) -> dict[str, Component]:
    """`executors()` or `runtimes()`, by the config section's name ("executor" or "runtime")."""
    return executors() if section == "executor" else runtimes()


@cache
def compilers() -> dict[str, Compiler]:
    return {
        name: Compiler(name, tuple(e["device_types"]), e.get("partition")) for name, e in _data()["compilers"].items()
    }


def generation_versions() -> tuple[str, ...]:
    """The old TVM releases tvmc writes for (`--emit tvmc`/`relay`), oldest first."""
    from tvmc.registry.generations import versions  # lazy: `config show` never reads old releases

    return versions()


def supports(spec: object) -> bool:
    """Whether a `tvm-version` admits a TVM release tvmc supports: TVM >= 0.25 (what it builds) or an
    old release `--emit tvmc`/`relay` write for (`generation_versions`). No specifier (or a malformed
    one, which validation reports) admits them all."""
    if versions.admits(spec, versions.MODERN_SINCE):
        return True
    return any(versions.admits_series(spec, release) for release in generation_versions())


def supported_releases() -> str:
    """The releases `supports` admits, as users read them."""
    return f"TVM {' or '.join(generation_versions())} (--emit tvmc, --emit relay), or TVM >= 0.25"


def generation(version: str) -> Generation:
    """The facts of one old release, e.g. `generation("0.19")`; KeyError if tvmc has none for it."""
    from tvmc.registry.generations import load  # lazy: `config show` never reads old releases

    return load(version)


@record(slots=True, frozen=True)
class LlvmNames:
    """The CPU and feature names one LLVM target knows (`llc -mattr=help` of the LLVM in TVM)."""

    target: str  # the LLVM target: x86, aarch64, arm, riscv, nvptx, amdgcn, hexagon
    cpus: frozenset[str]
    features: frozenset[str]


@cache
def _llvm() -> dict[str, Any]:
    data: dict[str, Any] = _load("llvm.json")
    return data


def llvm_version() -> int:
    """The major version of the LLVM inside the TVM the registry was generated from."""
    return int(_llvm()["llvm_version"])


@cache
def llvm_names(target: str) -> LlvmNames | None:
    """What LLVM target `target` (see `llvm_target`) knows; None for a target tvmc has no data for."""
    entry = _llvm()["arches"].get(target)
    if entry is None:
        return None
    return LlvmNames(target, frozenset(entry["cpus"]), frozenset(entry["features"]))


def llvm_target(triple: str) -> str | None:
    """The LLVM target of a triple's architecture, as LLVM's Triple parses it (None: no data)."""
    arch = triple.split("-", 1)[0].lower()
    if arch in ("x86_64", "amd64", "x86_64h") or (len(arch) == 4 and arch[0] == "i" and arch[2:] == "86"):
        return "x86"
    if arch.startswith(("aarch64", "arm64")):
        return "aarch64"
    if arch.startswith(("arm", "thumb", "xscale")):
        return "arm"
    if arch in ("riscv32", "riscv64"):
        return "riscv"
    if arch in ("nvptx", "nvptx64"):
        return "nvptx"
    if arch in ("amdgcn", "hexagon"):
        return arch
    return None
