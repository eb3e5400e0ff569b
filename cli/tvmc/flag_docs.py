"""What the generated `--target-<kind>-<attr>` flags mean: one description per target option, the
help text of each flag, and the per-kind listing `tvmc target show KIND` prints.

TVM 0.27 registers a type for each target option but no description (`TargetKind.options_from_name`
has only types), so the descriptions below are tvmc's, written from the TVM sources that read each
option (src/target/target_kind.cc, src/target/llvm/, src/runtime/vulkan/, and for the legacy
kinds python/tvm/relay/op/contrib/ and python/tvm/driver/tvmc/composite_target.py at v0.19.0).
Executor and runtime options carry the registry's own description.
"""

from __future__ import annotations

import json
import textwrap
from functools import cache
from typing import TYPE_CHECKING, Any, Final

from tvmc import registry
from tvmc.records import record

if TYPE_CHECKING:
    from tvmc.rewrites.flags import FlagSpec

# Options every kind has (registry.COMMON_OPTIONS), and options several kinds share a meaning for.
_GENERIC: Final[dict[str, str]] = {
    "keys": "Keys that select TVM's schedules and strategies (e.g. cpu, arm_cpu); replaces the kind's default keys.",
    "tag": "The name of the tag the target was made from; informational.",
    "device": "The device family, which selects schedules (e.g. arm_cpu, mali, adreno).",
    "model": "The device or SoC model (e.g. a GPU name); informational for most code generators.",
    "libs": "External libraries operators may be offloaded to (e.g. cublas, cudnn, mkl).",
    "from_device": "Read the device attributes from the runtime device with this id when the target is made.",
    "target_device_type": "The DLPack device type to build for, instead of the kind's (e.g. 2 for cuda).",
    "mattr": "Target features to enable or disable (e.g. +avx2,+fma or +neon), as llc -mattr takes them.",
    "mcpu": "The CPU (or GPU architecture) to generate code for, as llc -mcpu names it (e.g. cortex-a72).",
    "mtriple": "The LLVM target triple (e.g. aarch64-linux-gnu); the default is the build machine's.",
    "num-cores": "The number of cores of the device, for parallel loops and tuning.",
    "max_num_threads": "The maximum number of threads in a block that schedules generate.",
    "max_threads_per_block": "The maximum number of threads the device runs in one block.",
    "max_shared_memory_per_block": "Shared (local) memory available to one block, in bytes.",
    "thread_warp_size": "The number of threads in a warp (wavefront, subgroup) of the device.",
    "max_function_args": "The maximum number of arguments a kernel can take.",
    "variant": "The NPU variant to compile for.",
}

# Options whose meaning is particular to one kind: (kind, option) → description.
_BY_KIND: Final[dict[tuple[str, str], str]] = {
    ("llvm", "mfloat-abi"): "The floating-point ABI on ARM: soft, softfp or hard.",
    ("llvm", "mabi"): "The LLVM target ABI (e.g. lp64d on RISC-V).",
    ("llvm", "fast-math"): "Enable every fast-math flag below; floating-point results may change.",
    ("llvm", "fast-math-nnan"): "Let LLVM assume that no argument or result is NaN (nnan).",
    ("llvm", "fast-math-ninf"): "Let LLVM assume that no argument or result is infinite (ninf).",
    ("llvm", "fast-math-nsz"): "Let LLVM ignore the sign of zero (nsz).",
    ("llvm", "fast-math-arcp"): "Let LLVM multiply by a reciprocal instead of dividing (arcp).",
    ("llvm", "fast-math-contract"): "Let LLVM contract operations, e.g. into fused multiply-adds (contract).",
    ("llvm", "fast-math-reassoc"): "Let LLVM reassociate floating-point operations (reassoc).",
    ("llvm", "opt-level"): "LLVM's optimisation level (0-3) for the generated code.",
    ("llvm", "cl-opt"): "LLVM command-line options, each NAME:TYPE=VALUE (e.g. -unroll-threshold:uint=100).",
    ("llvm", "jit"): "The JIT engine for running code in the process: orcjit or mcjit.",
    ("llvm", "vector-width"): "The vector register width in bits that vectorised code assumes (e.g. 256).",
    ("c", "mcpu"): "The CPU the generated C code is for (e.g. cortex-m55); selects schedules.",
    ("c", "march"): "The architecture the generated C code is for (e.g. armv8.1-m.main).",
    ("c", "workspace-byte-alignment"): "The byte alignment of workspace buffers in the generated C code.",
    ("c", "constants-byte-alignment"): "The byte alignment of constant buffers in the generated C code.",
    ("composite", "devices"): "The targets the composite target is made of.",
    ("cuda", "mcpu"): "The GPU architecture for the code generator (e.g. sm_80).",
    ("cuda", "arch"): "The CUDA architecture (compute capability), e.g. sm_80; the GPU's when unset.",
    ("cuda", "registers_per_block"): "The 32-bit registers available to one block.",
    ("cuda", "l2_cache_size_bytes"): "The size of the L2 cache in bytes, for tuning.",
    ("hexagon", "mattr"): "Hexagon features (e.g. +hvxv68,+hvx-length128b).",
    ("hexagon", "mcpu"): "The Hexagon version to generate code for (e.g. hexagonv68).",
    ("hexagon", "mtriple"): "The LLVM target triple (hexagon).",
    ("hexagon", "llvm-options"): "Extra LLVM command-line options for the Hexagon code generator.",
    ("hexagon", "vtcm-capacity"): "The capacity of VTCM (tightly coupled memory) in bytes.",
    ("nvptx", "mcpu"): "The CUDA architecture to generate PTX for (e.g. sm_80).",
    ("nvptx", "mtriple"): "The LLVM target triple (nvptx64-nvidia-cuda).",
    ("rocm", "mcpu"): "The AMD GPU architecture (e.g. gfx90a); the GPU's when unset.",
    ("rocm", "mtriple"): "The LLVM target triple (amdgcn-amd-amdhsa).",
    ("rocm", "mattr"): "AMDGPU features to enable or disable (e.g. -xnack).",
    ("opencl", "texture_spatial_limit"): "The largest width or height of an image (texture).",
    ("opencl", "texture_depth_limit"): "The largest number of layers of an image array.",
    ("opencl", "image_base_address_alignment"): "The byte alignment of an image's base address in a buffer.",
    ("trn", "partition_size"): "The number of partitions of the on-chip memories.",
    ("trn", "max_sbuf_size_per_partition"): "The state buffer (SBUF) bytes per partition.",
    ("trn", "max_psum_size_per_partition"): "The partial-sum buffer (PSUM) bytes per partition.",
    ("vulkan", "mattr"): "Vulkan features as +name (e.g. +float16,+int8), the older spelling of supports_*.",
    ("vulkan", "supports_float16"): "The device supports 16-bit floats in shaders.",
    ("vulkan", "supports_float32"): "The device supports 32-bit floats in shaders.",
    ("vulkan", "supports_float64"): "The device supports 64-bit floats in shaders.",
    ("vulkan", "supports_int8"): "The device supports 8-bit integers in shaders.",
    ("vulkan", "supports_int16"): "The device supports 16-bit integers in shaders.",
    ("vulkan", "supports_int32"): "The device supports 32-bit integers in shaders.",
    ("vulkan", "supports_int64"): "The device supports 64-bit integers in shaders.",
    ("vulkan", "supports_8bit_buffer"): "Storage buffers may hold 8-bit values.",
    ("vulkan", "supports_16bit_buffer"): "Storage buffers may hold 16-bit values.",
    ("vulkan", "supports_storage_buffer_storage_class"): "The device has SPV_KHR_storage_buffer_storage_class.",
    ("vulkan", "supports_push_descriptor"): "The device has VK_KHR_push_descriptor.",
    ("vulkan", "supports_dedicated_allocation"): "The device has VK_KHR_dedicated_allocation.",
    ("vulkan", "supports_integer_dot_product"): "The device has integer dot-product instructions.",
    ("vulkan", "supports_cooperative_matrix"): "The device has cooperative-matrix (tensor core) instructions.",
    ("vulkan", "supported_subgroup_operations"): "The subgroup operations the device supports, as a bit mask.",
    ("vulkan", "max_block_size_x"): "The largest workgroup size in x.",
    ("vulkan", "max_block_size_y"): "The largest workgroup size in y.",
    ("vulkan", "max_block_size_z"): "The largest workgroup size in z.",
    ("vulkan", "max_push_constants_size"): "The largest size of push constants, in bytes.",
    ("vulkan", "max_uniform_buffer_range"): "The largest uniform buffer, in bytes.",
    ("vulkan", "max_storage_buffer_range"): "The largest storage buffer, in bytes.",
    ("vulkan", "max_per_stage_descriptor_storage_buffer"): "The most storage buffers one shader stage can use.",
    ("vulkan", "device_type"): "The Vulkan device type (e.g. discrete, integrated); informational.",
    ("vulkan", "device_name"): "The Vulkan device name; informational.",
    ("vulkan", "driver_name"): "The Vulkan driver name; informational.",
    ("vulkan", "driver_version"): "The Vulkan driver version; informational.",
    ("vulkan", "vulkan_api_version"): "The Vulkan API version of the device, encoded as VK_MAKE_VERSION does.",
    ("vulkan", "max_spirv_version"): "The newest SPIR-V version the device accepts (e.g. 0x10500 for 1.5).",
    ("webgpu", "supports_subgroups"): "The device supports subgroup operations.",
    # Legacy kinds and tvmc BYOC codegens (TVM <= 0.19).
    ("ccompiler", "header"): "Code put at the top of the generated C source.",
    ("cmsis-nn", "mcpu"): "The Cortex-M CPU (e.g. cortex-m55).",
    ("cmsis-nn", "mattr"): "Arm features to enable or disable (e.g. +nomve).",
    ("cmsis-nn", "debug_last_error"): "Report the last CMSIS-NN error, for debugging.",
    ("mrvl", "mcpu"): "The Marvell CPU (e.g. cn10ka).",
    ("mrvl", "mattr"): "Marvell compiler features.",
    ("mrvl", "num_tiles"): "The number of tiles to use.",
    ("cutlass", "sm"): "The CUDA compute capability as a number (e.g. 80).",
    ("cutlass", "use_3xtf32"): "Emulate float32 matrix products with three TF32 ones on tensor cores.",
    ("cutlass", "split_k_slices"): "The split-K slice counts to profile.",
    ("cutlass", "profile_all_alignments"): "Profile kernels of every alignment, not only the largest.",
    ("cutlass", "find_first_valid"): "Take the first kernel that works instead of profiling them all.",
    ("cutlass", "use_multiprocessing"): "Compile the kernels to profile in parallel.",
    ("cutlass", "threads"): "Threads for compiling kernels (-1: one per core).",
    ("cutlass", "use_fast_math"): "Compile the kernels with fast math.",
    ("cutlass", "tmp_dir"): "The directory for CUTLASS's temporary files.",
    ("tensorrt", "tensorrt_version"): "The TensorRT version [major, minor, patch] to build for.",
    ("tensorrt", "use_implicit_batch"): "Use TensorRT's implicit batch mode.",
    ("tensorrt", "remove_no_mac_subgraphs"): "Leave subgraphs without multiply-accumulate operations to TVM.",
    ("tensorrt", "max_workspace_size"): "The workspace TensorRT may use, in bytes.",
    ("tensorrt", "use_fp16"): "Allow float16 kernels.",
    ("tensorrt", "use_uint8"): "Allow 8-bit integer kernels.",
    ("ethos-u", "accelerator_config"): "The Ethos-U configuration (e.g. ethos-u55-256).",
    ("ethos-u", "enable_cascader"): "Schedule with the cascader, which plans for the SRAM available.",
    ("ethos-u", "enable_striping"): "Let the cascader split operators into stripes.",
    ("ethos-u", "disable_copying_constants"): "Leave constants where they are instead of copying them to SRAM.",
    ("ethos-n", "sram_size"): "The SRAM size of the NPU.",
    ("ethos-n", "tops"): "The performance variant, in TOPS.",
    ("ethos-n", "ple_ratio"): "The PLE ratio of the NPU.",
    ("ethos-n", "dump_ram"): "Dump the NPU's RAM, for debugging.",
    ("ethos-n", "initial_sram_dump"): "Dump the initial SRAM contents, for debugging.",
    ("ethos-n", "enable_intermediate_compression"): "Compress intermediate tensors.",
    ("ethos-n", "disable_winograd"): "Do not use Winograd convolution.",
    ("ethos-n", "debug_dir"): "The directory for debug output.",
    ("ethos-n", "inline_non_compute_intensive_partitions"): "Run partitions without heavy compute on the CPU.",
    ("ethos-n", "experimental_compiler"): "Use the experimental support library compiler.",
    ("vitis-ai", "dpu"): "The DPU to compile for (e.g. DPUCADF8H).",
    ("vitis-ai", "export_runtime_module"): "The file to export the Vitis AI runtime module to.",
    ("vitis-ai", "load_runtime_module"): "The file to load a Vitis AI runtime module from.",
    ("vitis-ai", "build_dir"): "The Vitis AI build directory.",
    ("vitis-ai", "work_dir"): "The Vitis AI work directory.",
}


def option_description(kind: str, option: str) -> str | None:
    """What a target option means, or None when tvmc has no description for it."""
    found = _BY_KIND.get((kind, option)) or _GENERIC.get(option)
    if found is not None:
        return found
    if kind == "ethos-n" and option.startswith("strategy"):
        return f"Allow the NPU's scheduling strategy {option.removeprefix('strategy')}."
    if kind == "ethos-n" and option.startswith("block_config_"):
        return f"Allow blocks of {option.removeprefix('block_config_')}."
    if kind == "ethos-u" and option.startswith("dev_"):
        return "A developer option of the Ethos-U cascader, for tuning and debugging it."
    return None


@record(slots=True, frozen=True)
class FlagInfo:
    """One `--target-KIND-ATTR` flag as `tvmc target show KIND` lists it."""

    flag: str
    aliases: tuple[str, ...]
    option: str
    type: str
    default: Any  # None: no declared default
    description: str | None
    common: bool  # an option every kind has (keys, tag, device, ...)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"flag": self.flag, "option": self.option, "type": self.type}
        if self.aliases:
            out["aliases"] = list(self.aliases)
        if self.default is not None:
            out["default"] = self.default
        if self.description is not None:
            out["description"] = self.description
        return out


def _specs() -> dict[str, FlagSpec]:
    # lazy: `tvmc target list/canonicalize` load this module and never need the rewrite stage
    from tvmc.rewrites.flags import generated_flags

    return generated_flags()


def kind_flags(kind: str) -> list[FlagInfo]:
    """The `--target-KIND-ATTR` flags of a kind, in the registry's option order (empty for an unknown kind)."""
    found = registry.kind(kind)
    if found is None:
        return []
    out = []
    for spec in _specs().values():
        if spec.section != "target" or spec.owner != kind:
            continue
        out.append(
            FlagInfo(
                spec.name,
                spec.aliases,
                spec.option,
                spec.type,
                found.defaults.get(spec.option),
                option_description(kind, spec.option),
                spec.option in registry.COMMON_OPTIONS,
            )
        )
    return out


def _default_text(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, str) else repr(value)


def flag_help(spec: FlagSpec) -> str:
    """The help of a generated flag: what it sets, its type and default, and for a legacy kind the
    last TVM that had it. Shown by shell completion (zsh, fish) next to the flag."""
    if spec.section == "target":
        kind = registry.kind(spec.owner)
        about = option_description(spec.owner, spec.option) or f"Set option {spec.option!r} of {spec.owner} targets."
        facts = [spec.type]
        if kind is not None and spec.option in kind.defaults:
            facts.append(f"default {_default_text(kind.defaults[spec.option])}")
        if kind is not None and kind.legacy:
            facts.append(f"legacy, TVM <= {kind.last_version}")
        return f"{about} ({'; '.join(facts)})"
    component = registry.components(spec.section).get(spec.owner)
    option = component.options.get(spec.option) if component is not None else None
    if option is None:
        return f"Set option {spec.option!r} of the {spec.owner} {spec.section}."
    return f"{option.description} ({option.type}; default {_default_text(option.default)})"


def component_flags() -> list[tuple[str, str]]:
    """The `--executor-NAME-OPT` and `--runtime-NAME-OPT` flags as (flag, help), registry order."""
    return [(spec.name, flag_help(spec)) for spec in _specs().values() if spec.section != "target"]


def kind_flags_text(kind: str, width: int = 79) -> str:
    """The flag listing of `tvmc target show KIND` (text): each flag of the kind's own options with
    its type, default and description; the options every kind has come last, on one line."""
    flags = kind_flags(kind)
    found = registry.kind(kind)
    lines = [f"  flags (each sets its option on every {kind} target of the config):"]
    own = [f for f in flags if not f.common]
    for info in own:
        facts = [info.type]
        if info.option != info.flag.removeprefix(f"--target-{_flag_kind(kind)}-"):
            facts.insert(0, f"option {info.option}")  # also spelt as it is: --target-cuda-max_num_threads
        if info.default is not None:
            facts.append(f"default {_default_text(info.default)}")
        lines.append(f"    {info.flag} VALUE  ({', '.join(facts)})")
        if info.description:
            lines += textwrap.wrap(
                info.description, width, initial_indent=" " * 8, subsequent_indent=" " * 8, break_on_hyphens=False
            )
    if not own:
        lines.append("    (none of its own)")
    common = [f.flag.removeprefix(f"--target-{_flag_kind(kind)}-") for f in flags if f.common]
    notes = []
    if common:
        notes.append(f"and, as for every kind: --target-{_flag_kind(kind)}-{{{','.join(common)}}}")
    aliased = next((f for f in (*own, *flags) if f.aliases), None)
    if aliased is not None:
        notes.append(f"(a flag may also spell the option as the kind does: {aliased.aliases[0]})")
    for note in notes:
        lines += textwrap.wrap(note, width, initial_indent=" " * 4, subsequent_indent=" " * 6, break_on_hyphens=False)
    if found is not None and found.open_options:
        lines.append("    (other options are accepted and kept as given: use --set)")
    return "".join(line + "\n" for line in lines)


def _flag_kind(kind: str) -> str:
    return kind.replace("_", "-")


@cache
def _internal_prefixes() -> tuple[str, ...]:
    from tvmc.rewrites.flags import flag_name  # lazy: see _specs

    return tuple(p for k in sorted(registry.INTERNAL_KINDS) for p in (f"--target-{k}-", flag_name("target", k) + "-"))


def flag_is_internal(name: str) -> bool:
    """Whether a flag (or alias) sets an option of a TVM-internal kind: accepted, never offered."""
    return name.startswith(_internal_prefixes())
