"""The target fingerprint: the part of a config's canonical form that changes the generated kernels.

Tuning records are only valid for the code they were measured with. Two configs share records when,
and only when, they agree on everything that reaches a tuned PrimFunc or the code generated for it:

    targets          every target with its (effective) host and all its attributes (kind, mcpu, mattr,
                     num-cores, keys, ...) and tvmc's `compiler` (BYOC partitions change what is left)
    opt-level        the PassContext's optimisation level
    pass-config      PassContext configs (tirx.* lowering options change the code)
    disabled-pass    passes left out
    build            desired-layout, desired-layout-ops (ConvertLayout) and mixed-precision,
                     mixed-precision-acc-type, mixed-precision-calculation-type (ToMixedPrecision);
                     pipeline and fast-math, always (defaults written out)
    kernels          the version of tvmc's fused pipeline (`KERNELS_VERSION`): records of kernels
                     fused by an older one never meet it half-way ("3 of 12 kernels")

Not part of it: description, tvm-version (a constraint on TVM, not code), executor and runtime (the
VM's exec-mode and system-lib change how kernels are called, not the kernels), and the build keys
that only package the result (output-format, cross-compiler, cross-compiler-options, dump-code,
module-name, tuning-records). Equal meaning gives an equal canonical form, so an equal fingerprint.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tvmc.config import CompilationConfig
from tvmc.keys import BUILD_DEFAULTS

CODE_BUILD_KEYS = (
    "desired-layout",
    "desired-layout-ops",
    "mixed-precision",
    "mixed-precision-acc-type",
    "mixed-precision-calculation-type",
)
# Build keys in the fingerprint with their defaults written out (a new partition for every config
# since their introduction, with KERNELS_VERSION).
PIPELINE_KEYS = ("pipeline", "fast-math")
# 2: FoldBatchnormToConv2D, DecomposeOpsForInference and CanonicalizeBindings before fusion, and the
# default schedule's measurement kept as a record (tvmc.tune.worker).
KERNELS_VERSION = 2


def target_key(config: CompilationConfig) -> dict[str, Any]:
    """The code-changing part of the canonical form (hosts nested into every target)."""
    data = config.to_dict()
    targets = [t if "host" in t else {**t, "host": data["host"]} for t in data["targets"]]
    build = {k: v for k, v in data.get("build", {}).items() if k in CODE_BUILD_KEYS}
    build.update({k: data.get("build", {}).get(k, BUILD_DEFAULTS[k]) for k in PIPELINE_KEYS})
    return {
        "kernels": KERNELS_VERSION,
        "targets": targets,
        "opt-level": config.opt_level,
        "pass-config": data.get("pass-config", {}),
        "disabled-pass": data.get("disabled-pass", []),
        "build": build,
    }


def target_fingerprint(config: CompilationConfig) -> str:
    """SHA-256 of `target_key` as compact sorted JSON: the name of the config's database partition."""
    text = json.dumps(target_key(config), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
