"""The optional Python packages behind each tvmc feature, and the one command that installs them.

Every message about a missing package comes from here (`missing_error`), so each feature says the
same thing: which package, and `pip install ...` for it. Requirements are pyproject's (the test
`tests/core/test_deps.py` keeps the two equal). The command names a bare package when the newest
release satisfies tvmc (`pip install cloudpickle`) and the declared range when it may not
(`pip install 'apache-tvm-ffi>=0.1.14.post0,<0.1.15'`).

`known_bad` names installed version combinations that crash (apache-tvm-ffi >= 0.1.15 under
apache-tvm 0.27), from the installed metadata: nothing is imported. `tvmc doctor` reports all of
this; `compile` and `tune` ask before they start.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence

from tvmc.errors import BuildError
from tvmc.records import record


@record(frozen=True)
class Package:
    module: str  # what Python imports
    distribution: str  # what pip installs
    requirement: str  # the range tvmc declares (pyproject)
    extra: str | None  # the tvmc extra that declares it (None: a core dependency)
    why: str

    @property
    def pip_argument(self) -> str:
        """The package as `pip install` should get it: the bare name when only lower bounds are
        declared (the newest release satisfies them), else the whole requirement, shell-quoted;
        without its environment marker (the package is this platform's already)."""
        requirement = self.requirement.split(";")[0].strip()
        if re.search(r"==|<|!=|~=", requirement):
            return f"'{requirement}'"
        return self.distribution


# MetaSchedule's default (XGBoost) cost model. `xgboost-cpu` is the same module without the CUDA
# build and NCCL (a 5.6 MB wheel; xgboost is 132 MB and pulls nvidia-nccl-cu12); it has no macOS wheel,
# where `xgboost` is CPU-only.
# Not a feature's requirement: tuning without it searches with MetaSchedule's random cost model.
_XGBOOST = (
    Package(
        "xgboost", "xgboost", "xgboost>=3.2; platform_system == 'Darwin'", "tvm", "MetaSchedule's XGBoost cost model"
    )
    if sys.platform == "darwin"
    else Package(
        "xgboost",
        "xgboost-cpu",
        "xgboost-cpu>=3.2; platform_system != 'Darwin'",
        "tvm",
        "MetaSchedule's XGBoost cost model",
    )
)

PACKAGES: dict[str, Package] = {
    p.module: p
    for p in (
        Package("tvm", "apache-tvm", "apache-tvm==0.27.0.post1", "tvm", "TVM itself"),
        Package("tvm_ffi", "apache-tvm-ffi", "apache-tvm-ffi>=0.1.14.post0,<0.1.15", "tvm", "TVM's FFI"),
        Package("onnx", "onnx", "onnx>=1.15", "tvm", "reading ONNX models"),
        Package("tflite", "tflite", "tflite>=2.10", "tflite", "reading TFLite models"),
        Package("torch", "torch", "torch>=2.1", "torch", "reading PyTorch exported programs"),
        Package(
            "cloudpickle",
            "cloudpickle",
            "cloudpickle>=2.2",
            "tvm",
            "TVM's worker pools (MetaSchedule's builders and runners, the RPC tracker) pickle with it",
        ),
        Package("psutil", "psutil", "psutil>=5.9", "tvm", "MetaSchedule's search and TVM's RPC server use it"),
        Package("tornado", "tornado", "tornado>=6.1", "tvm", "TVM's RPC tracker and proxy run on it"),
        _XGBOOST,
        Package("jsonschema", "jsonschema", "jsonschema>=4.18", None, "the `--engine jsonschema` validator"),
        Package("tomli", "tomli", "tomli>=2.2.1,<2.4", "fast", "the compiled TOML parser"),
    )
}


@record(frozen=True)
class Feature:
    name: str
    summary: str
    modules: tuple[str, ...]  # keys of PACKAGES
    crashes_with_bad_ffi: bool = False  # needs tvm.ir.save_json (see known_bad)


FEATURES: dict[str, Feature] = {
    f.name: f
    for f in (
        Feature("compile-onnx", "tvmc compile MODEL.onnx", ("tvm", "tvm_ffi", "onnx")),
        Feature("compile-tflite", "tvmc compile MODEL.tflite", ("tvm", "tvm_ffi", "tflite")),
        Feature("compile-torch", "tvmc compile MODEL.pt2 (torch.export)", ("tvm", "tvm_ffi", "torch")),
        Feature("run", "tvmc run LIB, --check MODEL.onnx", ("tvm", "tvm_ffi", "onnx")),
        Feature("tune", "tvmc tune MODEL (MetaSchedule)", ("tvm", "tvm_ffi", "cloudpickle", "psutil"), True),
        # optional for tune itself: without it, tune searches with MetaSchedule's random cost model
        Feature("tune-xgboost", "tvmc tune's XGBoost cost model (else MetaSchedule's random one)", ("xgboost",)),
        Feature(
            "rpc",
            "TVM's RPC tracker and server (python -m tvm.exec.rpc_tracker / rpc_server)",
            ("tvm", "tvm_ffi", "cloudpickle", "psutil", "tornado"),
        ),
        Feature("jsonschema", "tvmc config validate --engine jsonschema", ("jsonschema",)),
        Feature("fast-toml", "reading TOML configs with the compiled tomli (the `fast` extra)", ("tomli",)),
    )
}

# The model formats `tvmc compile` imports with TVM >= 0.25 (tvmc.backend.model.FORMATS) → feature.
FORMAT_FEATURES = {"onnx": "compile-onnx", "tflite": "compile-tflite", "pytorch": "compile-torch"}


def install_command(packages: Iterable[Package], *, reinstall: bool = False) -> str:
    arguments = " ".join(dict.fromkeys(p.pip_argument for p in packages))
    return f"pip install {'--force-reinstall ' if reinstall else ''}{arguments}"


def is_importable(module: str) -> bool:
    """Whether `import MODULE` would find the package, without importing it (torch takes seconds).
    A module already imported counts as it is; one set to None in sys.modules is blocked."""
    import importlib.util

    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a meta-path finder that refuses, a broken package
        return False


def missing(modules: Iterable[str]) -> list[Package]:
    """The packages among `modules` (keys of PACKAGES) that cannot be imported here."""
    return [PACKAGES[m] for m in modules if not is_importable(m)]


class MissingPackageError(BuildError):
    """A feature lacks a package: the hint is the command that installs it, and nothing else helps
    (no --verbose: TVM has not run)."""


def missing_error(packages: Sequence[Package], what: str, location: str | None = None) -> MissingPackageError:
    """`WHAT needs the Python package 'X', which is not installed; pip install X`."""
    names = " and ".join(repr(p.distribution) for p in packages)
    noun = "package" if len(packages) == 1 else "packages"
    verb = "is" if len(packages) == 1 else "are"
    return MissingPackageError(
        f"{what} needs the Python {noun} {names}, which {verb} not installed",
        location,
        hint=install_command(packages),
    )


def require(feature: str, *, what: str | None = None, location: str | None = None) -> None:
    """Raise the one-line error naming the packages a feature lacks and the command that installs
    them; nothing when all are importable."""
    spec = FEATURES[feature]
    lacking = missing(spec.modules)
    if lacking:
        raise missing_error(lacking, what or spec.summary, location)


def package_of(module_name: str | None) -> Package | None:
    """The declared package a `ModuleNotFoundError.name` (`cloudpickle`, `tornado.ioloop`) belongs to."""
    if not module_name:
        return None
    return PACKAGES.get(module_name.split(".")[0])


# ---- known-bad versions ------------------------------------------------------------------------


@record(frozen=True)
class KnownBad:
    message: str
    fix: str
    features: tuple[str, ...]  # the features it breaks


def release(version: str) -> tuple[int, ...]:
    """The release numbers of a version: `0.1.14.post1` → (0, 1, 14); `0.1.15rc1` → (0, 1, 15)."""
    numbers = []
    for part in version.split("."):
        match = re.match(r"\d+", part)
        if match is None:
            break
        numbers.append(int(match.group()))
        if match.end() != len(part):
            break
    return tuple(numbers)


def installed_version(distribution: str) -> str | None:
    """The installed version of a distribution, from its metadata (no import); None if absent."""
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None
    except Exception:  # a broken metadata folder: as good as absent
        return None


BAD_FFI = (0, 1, 15)


def known_bad(versions: dict[str, str | None] | None = None) -> list[KnownBad]:
    """Installed combinations known to crash. `versions` (distribution → version) stands in for the
    installed metadata (tests, the doctor's probe)."""

    def version(name: str) -> str | None:
        return versions.get(name) if versions is not None else installed_version(name)

    tvm, ffi = version("apache-tvm"), version("apache-tvm-ffi")
    found = []
    if tvm is not None and ffi is not None and release(tvm)[:2] == (0, 27) and release(ffi) >= BAD_FFI:
        found.append(
            KnownBad(
                f"apache-tvm-ffi {ffi} crashes apache-tvm {tvm} in tvm.ir.save_json (SIGSEGV), which tuning needs",
                "pip install 'apache-tvm-ffi<0.1.15'",
                tuple(name for name, f in FEATURES.items() if f.crashes_with_bad_ffi),
            )
        )
    return found


def bad_for(feature: str) -> list[KnownBad]:
    return [bad for bad in known_bad() if feature in bad.features]


def refuse_known_bad(feature: str, location: str | None = None) -> None:
    """Raise for an installed combination that would crash `feature` (tune), naming the fix."""
    for bad in bad_for(feature):
        raise BuildError(bad.message, location, hint=bad.fix)


def warnings_for_known_bad() -> list[str]:
    """One line per installed combination known to crash some feature (compile warns with these)."""
    return [f"{bad.message}; {bad.fix}" for bad in known_bad()]
