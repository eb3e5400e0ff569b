"""`tvmc run LIBRARY`: run what `tvmc compile` built with the Relax VM (TVM >= 0.25), the old
`tvmc run` for the VM: inputs from an npz file or generated from the library's manifest (issue 27),
outputs named as the model names them, saved or summarised, timing with TVM's `time_evaluator`, and
`--check` against the ONNX reference evaluator.

The parent process reads the manifest (pure Python), checks the inputs against it and compares the
outputs; loading and running the library happen in a child process (`isolated.call`), so that a
damaged library (SIGBUS, SIGSEGV) is one line. TVM has no type hints: its objects are `Any`.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import stat
import time
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from tvmc import deps, manifest
from tvmc.backend import preflight
from tvmc.backend import remote as rpc
from tvmc.backend.runner import BUILD_INFO_MARK, require_tvm, short
from tvmc.errors import BuildError, LimitError, TvmcError, UsageError
from tvmc.readfile import input_file
from tvmc.records import field, record

Fill = Literal["random", "zeros", "ones"]

MAX_MODEL_BYTES = 2 * 1024**3  # ONNX's own limit for one protobuf file
MAX_NPZ_BYTES = 16 * 1024**3
MAX_TENSOR_BYTES = 2 * 1024**3  # one input or output array
MAX_INPUT_BYTES = 4 * 1024**3  # all inputs together
MAX_BUILD_INFO = 1024**2  # an older tvmc's target JSON in a library: a few hundred bytes
# dtype → (rtol, atol) of --check: a float's tolerance follows its precision; integers are exact.
TOLERANCES: dict[str, tuple[float, float]] = {
    "float64": (1e-7, 1e-7),
    "float32": (1e-4, 1e-4),
    "float16": (5e-3, 5e-3),  # 2^-10 per ulp: a few ulps of rounding apart
    "bfloat16": (4e-2, 4e-2),  # 2^-7 per ulp
}
_KINDS = {"f": "float", "i": "int", "u": "uint", "b": "bool"}


@record
class Timing:
    mean_ms: float
    median_ms: float
    std_ms: float
    min_ms: float
    max_ms: float
    repeat: int
    number: int


@record
class Check:
    output: str
    max_abs: float
    max_rel: float
    ok: bool
    rtol: float = 0.0
    atol: float = 0.0
    dtype: str = ""


@record
class OpProfile:
    """One function the VM called (a kernel, or a VM builtin): calls and time over the profiled runs."""

    name: str
    calls: int
    total_us: float
    shapes: str  # the argument shapes of its first call

    @property
    def mean_us(self) -> float:
        return self.total_us / self.calls if self.calls else 0.0


@record
class RunResult:
    inputs: dict[str, Any]
    outputs: dict[str, Any]  # name (the model's) → numpy array
    timing: Timing | None = None
    checks: list[Check] = field(default_factory=list)
    profile: list[OpProfile] | None = None  # slowest first
    notes: list[str] = field(default_factory=list)  # warnings about the run (no manifest, --force, model hash)


def _np() -> Any:
    return importlib.import_module("numpy")


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def regular_file(path: Path, flag: str, limit: int, what: str = "file") -> Path:
    """`path` when it is a regular file of at most `limit` bytes: never a FIFO (reading it hangs) or a
    device (`/dev/zero` never ends)."""
    info = input_file(path, flag)  # exit 1, in the words of every command's input file
    if info.st_size > limit:
        raise LimitError(f"{path} is {_size(info.st_size)}: larger than the {_size(limit)} a {what} may be", flag)
    return path


def writable_file(path: Path, flag: str, inputs: Sequence[Path | None] = ()) -> Path:
    """`path` when tvmc may write a file there: absent, or a regular file (never a FIFO or device)
    that is none of `inputs` (`run lib.so --outputs lib.so` replaced the library with its outputs),
    in a directory that exists. Checked before the run, which may take long, not after it."""
    try:
        info = path.stat()
    except FileNotFoundError:
        if not path.absolute().parent.is_dir():  # exit 1, as every command's -o (tvmc.fileio)
            raise TvmcError(f"cannot write {path}: directory {path.absolute().parent} does not exist", flag) from None
        return path
    except OSError as err:
        raise TvmcError(f"cannot write {path}: {err.strerror or err}", flag) from None
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(f"{path} is not a regular file: tvmc writes only regular files", flag)
    for item in inputs:
        with contextlib.suppress(OSError):
            if item is not None and os.path.samefile(item, path):  # a hard link or symlink to it too
                raise UsageError(f"refusing to overwrite the input file {item}", flag)
    return path


def _dtype_problem(dtype: Any) -> str | None:
    """Why an array of `dtype` cannot be a tensor here (complex, strings, objects), or None."""
    if dtype.kind not in _KINDS or dtype.hasobject:
        return f"dtype {dtype} is not a tensor type TVM runs (bool, int, uint or float)"
    return None


def load_inputs(path: Path) -> dict[str, Any]:
    """Arrays by name from an .npz file, each checked (dtype, size) before it is read."""
    np = _np()
    flag = "--inputs"
    regular_file(path, flag, MAX_NPZ_BYTES, ".npz file")
    with open(path, "rb") as handle:
        magic = handle.read(6)
    if magic == b"\x93NUMPY":
        raise UsageError(
            f"{path} is an .npy file (one unnamed array), not an .npz: save the inputs by name with "
            "numpy.savez(PATH, NAME=array)",
            flag,
        )
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as err:
        raise UsageError(f"cannot read inputs from {path}: not an .npz file ({err})", flag) from None
    out: dict[str, Any] = {}
    total = 0
    with archive:
        for member in archive.infolist():
            name = member.filename.removesuffix(".npy")
            try:
                with archive.open(member) as handle:
                    version = np.lib.format.read_magic(handle)
                    read_header = (
                        np.lib.format.read_array_header_1_0
                        if version == (1, 0)
                        else np.lib.format.read_array_header_2_0
                    )
                    header = read_header(handle)  # the shape and dtype: no array read yet
                    shape, dtype = tuple(header[0]), np.dtype(header[2])
                    problem = _dtype_problem(dtype)
                    if problem is not None:
                        raise UsageError(f"{path}: input {name!r}: {problem}", flag)
                    nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
                    total += nbytes
                    if nbytes > MAX_TENSOR_BYTES or total > MAX_INPUT_BYTES:
                        raise UsageError(f"{path}: input {name!r} {shape} {dtype} is {_size(nbytes)}: too large", flag)
                with archive.open(member) as handle:
                    out[name] = np.lib.format.read_array(handle, allow_pickle=False)
            # zipfile raises RuntimeError for an encrypted member, NotImplementedError for a compression
            # method it lacks (deflate64...): another's archive, told as one line like any damage
            except (OSError, ValueError, zipfile.BadZipFile, EOFError, RuntimeError, NotImplementedError) as err:
                raise UsageError(f"cannot read input {name!r} from {path}: {err}", flag) from None
    return out


@record
class Tensor:
    """A model input or output: dims are ints, or the name of a dynamic dimension ("?" unnamed)."""

    name: str
    dims: tuple[int | str, ...]
    dtype: str


def model_tensors(model: Path, flag: str = "MODEL") -> tuple[list[Tensor], list[Tensor]]:
    """(inputs, outputs) of an ONNX model's graph; weights (initializers) are not inputs."""
    try:
        onnx = importlib.import_module("onnx")
    except ImportError:
        raise deps.missing_error([deps.PACKAGES["onnx"]], "reading ONNX models", flag) from None
    proto = _onnx_model(onnx, model, flag)

    def tensor(value: Any) -> Tensor:
        shape = value.type.tensor_type.shape.dim
        dims = tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in shape)
        dtype = str(onnx.helper.tensor_dtype_to_np_dtype(value.type.tensor_type.elem_type))
        return Tensor(value.name, dims, dtype)

    initializers = {i.name for i in proto.graph.initializer}
    inputs = [tensor(v) for v in proto.graph.input if v.name not in initializers]
    return inputs, [tensor(v) for v in proto.graph.output]


def _onnx_model(onnx: Any, model: Path, flag: str) -> Any:
    """The ModelProto of an ONNX file, or one line naming it: protobuf reads an empty or foreign
    file as an empty model, whose graph has no output (`--check EMPTY` said the model had 0 outputs)."""
    regular_file(model, flag, MAX_MODEL_BYTES, "model")
    try:
        proto = onnx.load(str(model))
    except Exception as err:  # onnx raises many kinds for a bad file
        raise BuildError(f"cannot read the ONNX model {model}: {short(err)}", flag) from None
    if proto.ir_version == 0 or not proto.HasField("graph"):
        raise BuildError(f"{model} is not an ONNX model (it holds no ONNX graph)", flag)
    return proto


def _dims_text(dims: Sequence[Any]) -> str:
    return "[" + ", ".join(str(d) for d in dims) + "]"


def _generate(name: str, shape: tuple[int, ...], dtype: str, fill: Fill, rng: Any, entry: Mapping[str, Any]) -> Any:
    np = _np()
    try:
        kind = np.dtype(dtype)
    except (TypeError, ValueError):  # numpy raises either for a dtype it cannot read
        raise UsageError(
            f"input {name!r}: cannot generate {dtype} values (numpy has no {dtype}); give --inputs", "--fill"
        ) from None
    problem = _dtype_problem(kind)
    if problem is not None:
        raise UsageError(f"input {name!r}: {problem}", "--fill")
    indexes = entry.get("index-range")
    if entry.get("indexes") and not indexes and fill != "zeros":
        raise UsageError(
            f"input {name!r} indexes a tensor whose size the library does not record: give its values with "
            "--inputs (or --fill zeros)",
            "--fill",
        )
    if fill == "zeros":
        return np.zeros(shape, kind)
    if fill == "ones":
        return np.ones(shape, kind)
    if kind.kind == "f":
        return rng.standard_normal(shape).astype(kind)
    if kind.kind == "b":
        return rng.integers(0, 2, shape).astype(kind)
    low, high = (int(indexes[0]), int(indexes[1])) if indexes else (0, 10)  # an index stays in its tensor
    high = min(high, int(np.iinfo(kind).max) + 1)
    return rng.integers(low, high, shape).astype(kind)


def _fixed_shape(
    name: str, dims: Sequence[Any], batch: int, given: Mapping[str, Sequence[int | None]] | None
) -> tuple[int, ...]:
    """The shape to generate for an input whose library shape is `dims` (a str: a dynamic dimension):
    `--input-shapes` for this input, else --batch for each dynamic dimension."""
    wanted = (given or {}).get(name)
    if wanted is None:
        return tuple(d if isinstance(d, int) else batch for d in dims)
    if any(d is None for d in wanted):
        raise UsageError(f"input {name!r}: give every dimension a size (no ? or -1) to run", "--input-shapes")
    fixed = tuple(int(d) for d in wanted if d is not None)
    if len(fixed) != len(dims) or any(isinstance(d, int) and d != w for d, w in zip(dims, fixed, strict=False)):
        raise UsageError(
            f"input {name!r}: the library takes shape {_dims_text(dims)}, not {_dims_text(fixed)}", "--input-shapes"
        )
    return fixed


def generate_inputs(
    signature: Sequence[Mapping[str, Any]],
    fill: Fill,
    batch: int,
    seed: int = 0,
    shapes: Mapping[str, Sequence[int | None]] | None = None,
) -> dict[str, Any]:
    """Inputs for a signature (each: name, shape with str for a dynamic dimension, dtype; an integer
    input that indexes a tensor has its `index-range`), checked for size before anything is allocated."""
    np = _np()
    rng = np.random.default_rng(seed)
    unknown = sorted(set(shapes or {}) - {str(e["name"]) for e in signature})
    if unknown:
        names = ", ".join(str(e["name"]) for e in signature)
        raise UsageError(f"no input named {unknown[0]!r}; the library's inputs: {names}", "--input-shapes")
    planned = []
    total = 0
    for entry in signature:
        name, dtype = str(entry["name"]), str(entry["dtype"])
        dims = entry.get("shape")
        if not isinstance(dims, list):
            raise UsageError(f"input {name!r}: the library does not record its shape; give --inputs", "--fill")
        shape = _fixed_shape(name, dims, batch, shapes)
        try:
            itemsize = np.dtype(dtype).itemsize
        except (TypeError, ValueError):
            itemsize = 2
        nbytes = int(np.prod(shape, dtype=object)) * itemsize
        total += nbytes
        if nbytes > MAX_TENSOR_BYTES or total > MAX_INPUT_BYTES:
            raise UsageError(
                f"input {name!r} of shape {_dims_text(shape)} {dtype} would take {_size(nbytes)}: more than tvmc "
                f"generates (at most {_size(MAX_TENSOR_BYTES)} per input)",
                "--batch" if shapes is None or name not in shapes else "--input-shapes",
            )
        planned.append((name, shape, dtype, entry))
    return {name: _generate(name, shape, dtype, fill, rng, entry) for name, shape, dtype, entry in planned}


def _array(name: str, value: Any) -> Any:
    """An input given as a value (`tvmc.api.run(inputs=...)`) as an array: a ragged nest of lists
    (numpy's ValueError) or an object it cannot hold is the caller's input error, not a traceback."""
    try:
        return _np().asarray(value)
    except (ValueError, TypeError) as err:
        raise UsageError(f"input {name!r} is not an array: {err}", "--inputs") from None


def check_inputs(signature: Sequence[Mapping[str, Any]], given: Mapping[str, Any]) -> dict[str, Any]:
    """The inputs in the library's order, each named exactly as the library names it and of the
    shape and dtype it was built for (a dynamic dimension: any size, the same wherever it recurs)."""
    names = [str(e["name"]) for e in signature]
    listing = ", ".join(f"{e['name']} {_dims_text(e.get('shape') or [])} {e.get('dtype')}" for e in signature)
    unknown = [n for n in given if n not in names]
    missing = [n for n in names if n not in given]
    if unknown or missing:
        what = f"no input named {unknown[0]!r}" if unknown else f"input {missing[0]!r} is missing"
        raise UsageError(f"{what}; the library's inputs: {listing}", "--inputs")
    sizes: dict[str, int] = {}
    out = {}
    for entry in signature:
        name = str(entry["name"])
        value = _array(name, given[name])
        problem = _dtype_problem(value.dtype)
        if problem is not None:
            raise UsageError(f"input {name!r}: {problem}", "--inputs")
        dtype = str(entry.get("dtype"))
        if str(value.dtype) != dtype:
            raise UsageError(f"input {name!r} is {value.dtype}; the library takes {dtype}", "--inputs")
        dims = entry.get("shape")
        if isinstance(dims, list):
            fits = len(dims) == value.ndim
            for want, got in zip(dims, value.shape, strict=False):
                if isinstance(want, int):
                    fits = fits and want == got
                else:
                    fits = fits and sizes.setdefault(str(want), int(got)) == got
            if not fits:
                raise UsageError(
                    f"input {name!r} has shape {_dims_text(value.shape)}; the library takes {_dims_text(dims)}",
                    "--inputs",
                )
        out[name] = value
    return out


# ELF e_machine values of the architectures TVM builds for, as platform.machine() names them.
_ELF_MACHINES = {62: "x86_64", 3: "i386", 183: "aarch64", 40: "arm", 243: "riscv64", 164: "hexagon", 8: "mips"}
_SAME_MACHINE = {"amd64": "x86_64", "arm64": "aarch64", "i686": "i386", "armv7l": "arm", "armv8l": "arm"}


def refuse_foreign(library: Path) -> None:
    """A library that cannot load on this machine is refused before loading, with the reason (the
    loader's own message for another CPU's ELF file is "cannot open shared object file")."""
    import platform

    with open(library, "rb") as file:
        head = file.read(20)
    if not head.startswith(b"\x7fELF"):
        return  # a tar of objects (TVM links it), Mach-O, DLL: the manifest or the loader says what it is
    machine = int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")
    arch = _ELF_MACHINES.get(machine)
    here = platform.machine().lower()
    here = _SAME_MACHINE.get(here, here)
    if arch is not None and arch != here:
        raise BuildError(
            f"{library} is a library for {arch}; this machine is {here}: run it on that machine",
            "LIBRARY",
        )


def refuse_here(library: Path, doc: Mapping[str, Any] | None, force: bool) -> list[str]:
    """Will the library run here? Decided from its manifest (or the target an older tvmc recorded):
    its architecture, the CPU features its code needs against this CPU's (the check `compile`
    warns with), the device. A BuildError names what is missing; with `force`, a note instead."""
    notes: list[str] = []

    def refuse(message: str, hint: str | None = None) -> None:
        if not force:
            raise BuildError(
                message, "LIBRARY", hint=(hint + "; or --force to try anyway") if hint else "--force tries anyway"
            )
        notes.append(f"--force: {message}")

    # A damaged manifest (a target kind that is not a name) is named first, before any check asks
    # TVM about this machine.
    device = _device_of(doc, library) if doc is not None else None
    try:
        refuse_foreign(library)
    except BuildError as err:
        refuse(err.message)
    target = doc.get("target") if doc is not None else (build_info(library) or {}).get("target")
    features = doc.get("cpu-features") if doc is not None else None
    if isinstance(features, dict):
        listed = features.get("features")
        arch, needed = features.get("arch"), [str(f) for f in listed] if isinstance(listed, list) else []
        here = preflight.host_arch()
        if isinstance(arch, str) and arch != here:
            refuse(f"{library} holds {arch} code; this machine is {here}: run it on that machine")
        else:
            lacking = sorted(set(needed) - preflight.host_isa())
            if lacking:
                shown = ", ".join(lacking[:6]) + (f" and {len(lacking) - 6} more" if len(lacking) > 6 else "")
                refuse(
                    f"{library} holds code that needs {shown}; this machine lacks them: it would die with "
                    "Illegal instruction",
                    "build it for this machine: tvmc compile MODEL --config host/native",
                )
    elif isinstance(target, dict):
        found = preflight.missing_isa(target)
        if found:
            what, lacking = found[0]
            shown = ", ".join(lacking[:6]) + (f" and {len(lacking) - 6} more" if len(lacking) > 6 else "")
            refuse(
                f"{library} was built for {what}, which needs {shown}; this machine lacks them: it would die "
                "with Illegal instruction",
                "build it for this machine: tvmc compile MODEL --config host/native",
            )
    if device is not None:
        kind = device
    else:  # the target an older tvmc recorded: a kind that is not a name is left to the loader to name
        legacy = target.get("kind") if isinstance(target, dict) else None
        kind = legacy if isinstance(legacy, str) and legacy not in ("", "llvm", "c") else "cpu"
    if kind != "cpu" and not preflight.runtime_enabled(require_tvm(), kind):
        refuse(
            f"{library} holds {kind} code, but this TVM has no {kind} runtime to load it",
            f"run it where TVM is built with {kind} (the pip wheel has only the CPU runtime)",
        )
    return notes


def build_info(library: Path) -> dict[str, Any] | None:
    """The target an older tvmc recorded in the library (before manifests), or None. The file is
    mapped, not read (an 8 GiB library took 8 GiB of memory and a minute), and what follows the
    mark is another's bytes: a NUL-terminated JSON object of at most MAX_BUILD_INFO bytes, or none."""
    import json
    import mmap

    mark = BUILD_INFO_MARK.encode()
    try:
        with open(library, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            start = data.find(mark)
            if start < 0:
                return None
            begin = start + len(mark)
            end = data.find(b"\0", begin, begin + MAX_BUILD_INFO)
            if end < 0:
                return None
            text = data[begin:end]
    except (OSError, ValueError):  # ValueError: an empty file cannot be mapped
        return None
    try:
        info = json.loads(text)
    except (ValueError, RecursionError):  # `[[[...` nested thousands deep: not a target either
        return None
    return info if isinstance(info, dict) else None


def _load_error(library: Path, err: BaseException) -> BuildError:
    match = re.search(r"created using \{(\w+)\} but a loader of that name is not registered", str(err))
    if match:
        return BuildError(
            f"{library} holds {match[1]} code, but this TVM has no {match[1]} runtime to load it",
            "LIBRARY",
            hint=f"run it where TVM is built with {match[1]} (the pip wheel has only the CPU runtime)",
        )
    return BuildError(f"cannot load {library}: {short(err)}", "LIBRARY")


def _remote_vm(
    tvm: Any, library: Path, device: str, remote: tuple[str, int, str], timeout: float
) -> tuple[Any, Any, Any]:
    """The library on a device of TVM's RPC tracker (HOST, PORT, KEY): uploaded, loaded, run there."""
    host, port, key = remote
    where = f"--rpc-tracker {host}:{port}"
    session = rpc.session(tvm, remote, timeout)
    try:
        session.upload(str(library))
        lib = session.load_module(library.name)
        dev = session.device(device, 0)
        return tvm, dev, tvm.relax.VirtualMachine(lib, dev)
    except Exception as err:
        raise BuildError(f"cannot load {library} on the {key!r} device: {short(err)}", where) from None


def _vm(
    library: Path, device: str, remote: tuple[str, int, str] | None, force: bool, rpc_timeout: float
) -> tuple[Any, Any, Any, list[str]]:
    tvm = require_tvm("running a library", alternative=None)
    if remote is not None:  # another machine's library: not checked against this one
        return (*_remote_vm(tvm, library, device, remote, rpc_timeout), [])
    notes = refuse_here(library, manifest.read(library), force)
    try:
        dev = tvm.device(device, 0)
        present = bool(dev.exist)
    except Exception:
        present = False
    if not present and not force:
        raise BuildError(f"no {device} device here (or this TVM has no {device} runtime)", "--device")
    try:
        lib = tvm.runtime.load_module(str(_linkable(library)))
        return tvm, dev, tvm.relax.VirtualMachine(lib, dev), notes
    except Exception as err:  # TVM raises its own error types
        raise _load_error(library, err) from None


def _linkable(library: Path) -> Path:
    """The library to load: a tar of objects (build.output-format = tar) is copied into a private
    folder first, where TVM links it (it writes the linked .so and a folder next to the file it loads)."""
    import shutil
    import tarfile
    import tempfile

    if not tarfile.is_tarfile(library):
        return library
    folder = Path(tempfile.mkdtemp(prefix="tvmc-run-"))  # the child's: removed when it exits
    import atexit

    atexit.register(shutil.rmtree, folder, True)
    copy = folder / "lib.tar"
    shutil.copyfile(library, copy)
    return copy


def _ordered(vm: Any, inputs: Mapping[str, Any]) -> list[Any]:
    """The inputs in the order of main's parameters, matched by name, exactly."""
    arity = int(vm._get_function_arity("main"))
    names = [str(vm._get_function_param_name("main", i)) for i in range(arity)]
    if set(names) != set(inputs):
        extra = sorted(set(inputs) - set(names))
        what = f"no input named {extra[0]!r}" if extra else f"input {sorted(set(names) - set(inputs))[0]!r} is missing"
        raise UsageError(f"{what}; the library's inputs: {', '.join(names)}", "--inputs")
    return [inputs[n] for n in names]


def _outputs(result: Any) -> list[Any]:
    if hasattr(result, "numpy"):
        return [result.numpy()]
    return [item for part in result for item in _outputs(part)]  # a tuple (possibly nested)


def run(
    library: Path,
    inputs: Mapping[str, Any],
    *,
    device: str = "cpu",
    time_it: bool = False,
    repeat: int = 3,
    number: int = 10,
    profile: bool = False,
    on_stage: Callable[[str], None] = lambda _stage: None,
    remote: tuple[str, int, str] | None = None,  # an RPC tracker's host, port and device key
    force: bool = False,
    rpc_timeout: float = rpc.DEFAULT_TIMEOUT,  # seconds for the tracker to give a device
) -> RunResult:
    """Load and run the library in this process (the child of `run_library`): outputs in order
    (`output_N`; `run_library` names them), timing measured here with TVM's time_evaluator."""
    on_stage("load")
    tvm, dev, vm, notes = _vm(library, device, remote, force, rpc_timeout)
    args = [tvm.runtime.tensor(a, dev) for a in _ordered(vm, inputs)]
    on_stage("run")
    try:
        if remote is not None:  # a remote tuple is one RPC object: the VM hands out its fields
            vm.set_input("main", *args)
            vm.invoke_stateful("main")
            values = _outputs(vm.get_outputs("main"))
        else:
            values = _outputs(vm["main"](*args))
        timing = None
        ops = None
        if profile:
            on_stage("profile")
            ops = _profile(vm, dev, args, repeat)
        if time_it:
            on_stage("time")
            measured = vm.time_evaluator("main", dev, number=number, repeat=repeat)(*args)
            ms = [r * 1000 for r in measured.results]
            np = _np()
            timing = Timing(
                float(np.mean(ms)), float(np.median(ms)), float(np.std(ms)), min(ms), max(ms), repeat, number
            )
    except Exception as err:
        raise BuildError(f"running {library} failed: {short(err)}", "run") from None
    return RunResult({}, {f"output_{i}": v for i, v in enumerate(values)}, timing, profile=ops, notes=notes)


def _profile(vm: Any, dev: Any, args: list[Any], runs: int) -> list[OpProfile]:
    """Per function the VM calls (kernels and VM builtins): calls and time, over `runs` runs of main,
    measured with the VM's instrument hook (before/after each call; the device synchronised)."""
    started: dict[str, int] = {}
    seen: dict[str, OpProfile] = {}

    def instrument(_func: Any, symbol: str, before: bool, _ret: Any, *call_args: Any) -> int:
        now = time.perf_counter_ns()
        if before:
            started[symbol] = now
            return 0
        dev.sync()
        elapsed = (time.perf_counter_ns() - started.pop(symbol, now)) / 1000
        entry = seen.get(symbol)
        if entry is None:
            shapes = " ".join(str(tuple(a.shape)).replace(" ", "") for a in call_args if hasattr(a, "shape"))
            seen[symbol] = OpProfile(str(symbol), 1, elapsed, shapes)
        else:
            entry.calls += 1
            entry.total_us += elapsed
        return 0

    vm.set_instrument(instrument)
    try:
        for _ in range(runs):
            vm["main"](*args)
    finally:
        vm.set_instrument(None)
    return sorted(seen.values(), key=lambda op: -op.total_us)


def _device_of(doc: Mapping[str, Any] | None, library: Path) -> str:
    """The device a library runs on by default: its target's kind (llvm: the CPU). A kind that is
    not a name is a damaged manifest (`manifest.target_kind`), not a device."""
    kind = manifest.target_kind(doc, str(library)) if doc is not None else None
    return "cpu" if kind in (None, "llvm", "c") else kind


def run_library(
    library: Path,
    inputs: Path | Mapping[str, Any] | None,
    *,
    check: Path | None = None,
    device: str | None = None,
    fill: Fill = "random",
    batch: int = 1,
    input_shapes: Mapping[str, Sequence[int | None]] | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    time_it: bool = False,
    repeat: int = 3,
    number: int = 10,
    profile: bool = False,
    on_stage: Callable[[str], None] = lambda _stage: None,
    remote: tuple[str, int, str] | None = None,
    force: bool = False,
    verbose: bool = False,
    rpc_timeout: float = rpc.DEFAULT_TIMEOUT,
) -> RunResult:
    """`tvmc run` (and `tvmc.api.run`): inputs from an npz file, a mapping, or generated from the
    library's manifest (the check model's signature for a library without one); checked against
    the manifest; run in a child process; outputs named as the model names them; checked against
    the ONNX reference with a tolerance per dtype (`rtol`/`atol` override it for floats)."""
    from tvmc.backend import isolated

    if fill not in ("random", "zeros", "ones"):
        raise UsageError(f"unknown fill {fill!r} (random, zeros or ones)", "--fill")
    input_file(library, "LIBRARY")
    if batch < 1 or batch > 2**40:
        raise UsageError(f"--batch {batch}: give a size from 1", "--batch")
    try:
        doc = manifest.read(library)
    except manifest.ManifestError as err:
        if not force:
            raise BuildError(err.message, "LIBRARY", hint="rebuild it; --force runs it anyway") from None
        doc = None
    notes = (
        []
        if doc is not None
        else [
            f"{library} has no tvmc manifest (built elsewhere, or by an older tvmc): its inputs and whether it runs "
            "here are not checked"
        ]
    )
    if check is not None:
        regular_file(check, "--check", MAX_MODEL_BYTES, "model")
    if profile and remote is not None:
        raise UsageError(
            "--profile times each call with the VM's instrument hook, a callback into this process: it cannot "
            "run over RPC (--print-time can)",
            "--profile",
        )
    if remote is not None:  # before any work, in this process: the tracker answers and knows the key
        rpc.check_device(remote, rpc.check_timeout(rpc_timeout))
    signature = manifest.checked_signature(doc, str(library)) if doc is not None else None
    if isinstance(inputs, Path):
        given = load_inputs(inputs)
    elif inputs is not None:
        given = dict(inputs)
    elif signature is not None:
        given = generate_inputs(signature, fill, batch, shapes=input_shapes)
    elif check is not None:
        given = generate_inputs(_model_entries(check), fill, batch, shapes=input_shapes)
    else:
        raise UsageError(
            "the library has no tvmc manifest to generate inputs from: give --inputs NPZ, or --check MODEL",
            "tvmc run",
        )
    if signature is not None:
        given = check_inputs(signature, given)
    else:
        for name, value in given.items():
            problem = _dtype_problem(_array(name, value).dtype)
            if problem is not None:
                raise UsageError(f"input {name!r}: {problem}", "--inputs")
    chosen = device or _device_of(doc, library)

    def crashed(name: str, stage: str) -> BuildError:
        return BuildError(
            f"{library} crashed the process ({name}) in the {stage} stage: the library is damaged (truncated?) "
            "or not a TVM library for this machine",
            "LIBRARY",
            hint=isolated.VERBOSE_HINT,
        )

    def failed(last: str, stage: str) -> BuildError:
        return BuildError(f"running {library} failed in the {stage} stage: {last}", "LIBRARY")

    arguments = {
        "library": library,
        "inputs": given,
        "device": chosen,
        "time_it": time_it,
        "repeat": repeat,
        "number": number,
        "profile": profile,
        "remote": remote,
        "force": force,
        "rpc_timeout": rpc_timeout,
    }
    try:
        result: RunResult = isolated.call(
            ("run", arguments), on_stage=on_stage, verbose=verbose, crashed=crashed, failed=failed
        )
    except TvmcError as err:
        if inputs is not None or err.location is None or err.location.source != "--inputs" or signature is None:
            raise
        # inputs made from the manifest that the library's main does not take: not --inputs, not given
        raise manifest.ManifestError(
            f"{library}: the tvmc manifest does not match the library (inputs made from it: {err.message})"
        ) from None
    result.inputs = given
    result.notes[:0] = notes
    names = manifest.output_names(doc) if doc is not None else []
    if len(names) == len(result.outputs) and len(set(names)) == len(names):
        result.outputs = dict(zip(names, result.outputs.values(), strict=True))
    if check is not None:
        on_stage("check")
        result.notes.extend(model_hash_notes(doc, check))
        check_outputs(result, check, rtol=rtol, atol=atol)
    return result


def _model_entries(model: Path) -> list[dict[str, Any]]:
    inputs, _ = model_tensors(model, "--check")
    return [{"name": t.name, "shape": list(t.dims), "dtype": t.dtype} for t in inputs]


def model_hash_notes(doc: Mapping[str, Any] | None, model: Path) -> list[str]:
    """A warning when the check model is not the model the library was built from (its SHA-256)."""
    recorded = doc.get("model") if doc is not None else None
    if not isinstance(recorded, dict) or not recorded.get("sha256"):
        return []
    from tvmc.backend.record import file_digest

    digest, _ = file_digest(model)
    if digest == recorded["sha256"]:
        return []
    return [
        f"--check {model} is not the model {recorded.get('file')} the library was built from (SHA-256 "
        f"{digest[:12]}…, the library records {str(recorded['sha256'])[:12]}…)"
    ]


def tolerance(dtype: str, rtol: float | None, atol: float | None) -> tuple[float, float]:
    """(rtol, atol) for comparing outputs of `dtype`: exact for integers and bools; for floats the
    dtype's default unless given."""
    if not dtype.startswith(("float", "bfloat")):
        return 0.0, 0.0
    default = TOLERANCES.get(dtype, TOLERANCES["float32"])
    return (default[0] if rtol is None else rtol), (default[1] if atol is None else atol)


def check_outputs(
    result: RunResult, model: Path, *, rtol: float | None = None, atol: float | None = None
) -> list[Check]:
    """Compare each output with the ONNX reference evaluator on the same inputs: NaN equals NaN,
    integers exactly, floats within their dtype's tolerance."""
    np = _np()
    try:
        onnx = importlib.import_module("onnx")
        reference = importlib.import_module("onnx.reference")
    except ModuleNotFoundError as err:
        package = deps.package_of(err.name) or deps.PACKAGES["onnx"]
        raise deps.missing_error([package], "checking against ONNX's reference evaluator", "--check") from None
    proto = _onnx_model(onnx, model, "--check")
    try:
        expected = reference.ReferenceEvaluator(proto).run(None, result.inputs)
    except Exception as err:  # the reference evaluator raises many kinds (unsupported op, bad input)
        raise BuildError(f"the ONNX reference evaluator failed on {model}: {short(err)}", "--check") from None
    if len(expected) != len(result.outputs):
        raise BuildError(f"the library has {len(result.outputs)} outputs, the model {len(expected)}", "--check")
    checks = []
    for (name, got), want, info in zip(result.outputs.items(), expected, proto.graph.output, strict=True):
        dtype = str(got.dtype)
        got, want = np.asarray(got, dtype="float64"), np.asarray(want, dtype="float64")
        if got.shape != want.shape:
            raise BuildError(f"output {info.name}: shape {got.shape}, the model gives {want.shape}", "--check")
        r, a = tolerance(dtype, rtol, atol)
        both_nan = np.isnan(got) & np.isnan(want)
        with np.errstate(invalid="ignore"):
            diff = np.where(both_nan | (got == want), 0.0, np.abs(got - want))
        diff = np.nan_to_num(diff, nan=np.inf)
        max_abs = float(diff.max()) if diff.size else 0.0
        max_rel = float((diff / np.maximum(np.abs(np.nan_to_num(want)), 1e-12)).max()) if diff.size else 0.0
        ok = bool(np.allclose(got, want, rtol=r, atol=a, equal_nan=True))
        checks.append(Check(info.name or name, max_abs, max_rel, ok, r, a, dtype))
    result.checks = checks
    return checks
