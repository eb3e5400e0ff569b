"""Values TVM fills in from the machine it runs on, behind one small interface.

Without `fill_from_machine` the canonicalizer asks `NO_MACHINE`, which knows nothing, so those
values stay out of the canonical target (it then describes the target, not this computer).
With it, `tvm_machine()` asks the installed TVM — the only place tvmc.targets imports TVM.
"""

from __future__ import annotations

import importlib
import json
from functools import cache

from tvmc.errors import TargetError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Feature keys TVM's Arm A-profile canonicalizer computes with LLVM (src/target/canonicalizer/llvm).
APROFILE_FEATURES = (
    "feature.is_aarch64",
    "feature.has_asimd",
    "feature.has_sve",
    "feature.has_dotprod",
    "feature.has_matmul_i8",
    "feature.has_fp16_simd",
    "feature.has_sme",
)


class Machine:
    """Knows nothing about the machine: every query answers None (value left out)."""

    def llvm_triple(self) -> str | None:
        return None

    def cuda_arch(self) -> str | None:
        return None

    def nvptx_mcpu(self) -> str | None:
        return None

    def rocm_mcpu(self) -> str | None:
        return None

    def rocm_extra_mattr(self) -> tuple[str, ...]:
        return ()

    def aprofile_features(self, attrs: dict[str, Any]) -> dict[str, Any] | None:
        return None

    def device_attrs(self, kind: str, device_id: int) -> dict[str, Any]:
        return {}


NO_MACHINE = Machine()


def _tvm_target_class() -> Any:
    # importlib keeps type checkers away from TVM's untyped package.
    return importlib.import_module("tvm.target").Target


def _plain(obj: Any) -> Any:
    """TVM FFI containers → plain JSON values (Targets inside composite devices included)."""
    if isinstance(obj, _tvm_target_class()):
        return _plain(obj.export())
    if isinstance(obj, (str, bool, int, float)) or obj is None:
        return obj
    if hasattr(obj, "items"):
        return {str(k): _plain(v) for k, v in obj.items()}
    return [_plain(v) for v in obj]


class TvmMachine(Machine):
    """Asks the installed TVM, once per distinct question."""

    def __init__(self) -> None:
        self._target = _tvm_target_class()

    def _export(self, config: dict[str, Any]) -> dict[str, Any]:
        try:
            exported: dict[str, Any] = _plain(self._target(config).export())
        except Exception as err:  # TVM raises ValueError/TVMError/InternalError
            raise TargetError(f"TVM could not build {json.dumps(config)}: {err}") from err
        return exported

    @cache  # noqa: B019 - one instance per process (tvm_machine is cached too)
    def llvm_triple(self) -> str | None:
        return self._export({"kind": "llvm"}).get("mtriple")

    @cache  # noqa: B019
    def cuda_arch(self) -> str | None:
        return self._export({"kind": "cuda"}).get("arch")

    @cache  # noqa: B019
    def nvptx_mcpu(self) -> str | None:
        return self._export({"kind": "nvptx"}).get("mcpu")

    @cache  # noqa: B019
    def rocm_mcpu(self) -> str | None:
        return self._export({"kind": "rocm"}).get("mcpu")

    @cache  # noqa: B019
    def rocm_extra_mattr(self) -> tuple[str, ...]:
        return tuple(self._export({"kind": "rocm", "mcpu": "gfx900"}).get("mattr", ()))

    def aprofile_features(self, attrs: dict[str, Any]) -> dict[str, Any] | None:
        # LLVM reads every llvm option (mtriple, mcpu, mattr, mfloat-abi, ...), so ask with all.
        config = {k: v for k, v in attrs.items() if not k.startswith("feature.") and k != "device"}
        return self._features(json.dumps(config, sort_keys=True))

    @cache  # noqa: B019
    def _features(self, config_json: str) -> dict[str, Any] | None:
        exported = self._export({"kind": "llvm", **json.loads(config_json)})
        return {k: exported[k] for k in APROFILE_FEATURES if k in exported} or None

    @cache  # noqa: B019
    def device_attrs(self, kind: str, device_id: int) -> dict[str, Any]:
        queried = self._export({"kind": kind, "from_device": device_id})
        bare = self._export({"kind": kind})
        return {k: v for k, v in queried.items() if k not in ("kind", "tag", "keys") and bare.get(k) != v}


@cache
def tvm_machine() -> Machine:
    """The TVM-backed machine; TargetError when TVM is not installed."""
    try:
        return TvmMachine()
    except ImportError as err:
        from tvmc import deps  # lazy: only this error needs it, and every command imports this module

        lacking = deps.missing(["tvm", "tvm_ffi"]) or [deps.package_of(err.name) or deps.PACKAGES["tvm"]]
        raise TargetError(
            "fill_from_machine needs apache-tvm: the values it fills (llvm mtriple, cuda arch, "
            "nvptx/rocm mcpu, Arm A-profile features) are detected by TVM on this machine",
            hint=f"{deps.install_command(lacking)}; or leave fill_from_machine off",
        ) from err
