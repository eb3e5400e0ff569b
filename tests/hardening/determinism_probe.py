"""Print the SHA-256 of every canonical output tvmc makes, as JSON: run under several hash seeds
and Python versions by test_determinism.py, the digests must be equal.

    PYTHONPATH=cli python tests/hardening/determinism_probe.py

Needs only tvmc's own dependencies (no pytest, no hypothesis), so any interpreter that can run
tvmc can run it. Outputs are compared byte for byte; stderr (warnings) too.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODEL = str(ROOT / "models" / "mlp.onnx")
CONFIGS = ["aws/c5", "nvidia/jetson-nano", "boards/corstone-300", "qcom/hexagon-v68", "arm/rasp4b64:cpu"]
TARGETS = [
    "llvm -mcpu=cascadelake -mattr=+avx512f,+fma",
    "nvidia/nvidia-a100",
    "cuda -arch=sm_80 -host=llvm",
    '{"kind": "opencl", "device": "mali", "host": {"kind": "llvm", "mtriple": "aarch64-linux-gnu"}}',
    "c -mcpu=cortex-m55 -keys=arm_cpu,cpu",
    "nvidia/jetson-nano -max_num_threads=512",
]


def commands() -> list[list[str]]:
    out: list[list[str]] = []
    for config in CONFIGS:
        base = ["config", "show", "--config", config]
        out += [
            base,
            [*base, "--format", "json"],
            [*base, "--origin"],
            [*base, "--format", "json", "--origin"],
            [*base, "--hash"],
        ]
    rewrites = [
        "--target-llvm-mcpu=znver3",
        "--set",
        "targets[kind=llvm].mattr+=+avx2",
        "--pass-config",
        "tirx.disable_vectorize=true",
        "--set",
        'pass-config."tirx.UnrollLoop".z=1',
        "--set",
        'pass-config."tirx.UnrollLoop".a="x"',
    ]
    out.append(["config", "show", "--config", "aws/c5", *rewrites, "--format", "json", "--origin"])
    for fmt in ("json", "legacy"):
        out.append(["target", "canonicalize", "--format", fmt, "--", *TARGETS])
    out.append(["config", "schema"])
    for emit in ("python", "plan", "tvmc", "relay"):
        config = "aws/c5" if emit in ("python", "plan") else "boards/corstone-300"
        out.append(["compile", MODEL, "--config", config, "--emit", emit, "--input-shapes", "x:[1,16]"])
    return out


def main() -> None:
    os.environ.update(TYPER_USE_RICH="0", NO_COLOR="1", COLUMNS="120")
    from tvmc.cli.app import app
    from typer.testing import CliRunner

    runner = CliRunner()
    digests = {}
    os.chdir(ROOT)  # file names in origins are shown relative to the working directory
    for argv in commands():
        result = runner.invoke(app, argv)
        text = f"{result.exit_code}\n{result.stdout}\n{result.stderr}".encode("utf-8", "backslashreplace")
        digests[" ".join(argv)] = hashlib.sha256(text).hexdigest()
    json.dump({"python": sys.version.split()[0], "digests": digests}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
