"""The fingerprint (`tvmc config show --hash`): spellings of one meaning hash alike, any change of
meaning hashes differently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from tvmc import api, registry
from typer.testing import CliRunner

A100 = registry.tag_config("nvidia/nvidia-a100")
assert A100 is not None
A100_LEGACY = "cuda " + " ".join(
    f"-{k}={','.join(v) if isinstance(v, list) else v}" for k, v in A100.items() if k != "kind"
)

# One meaning, many spellings: a CUDA A100 with an x86_64 host, opt-level 2, one pass config.
SPELLINGS = {
    "table.toml": """
host = { kind = "llvm", mtriple = "x86_64-linux-gnu" }
opt-level = 2
[[targets]]
kind = "cuda"
arch = "sm_80"
keys = ["cuda", "gpu"]
max_shared_memory_per_block = 49152
max_threads_per_block = 1024
thread_warp_size = 32
registers_per_block = 65536
l2_cache_size_bytes = 41943040
[pass-config]
"tirx.disable_vectorize" = true
""",
    "reordered.toml": """
opt-level = 2
[pass-config]
"tirx.disable_vectorize" = true
[host]
mtriple = "x86_64-linux-gnu"
kind = "llvm"
[[targets]]
l2_cache_size_bytes = 41943040
keys = ["cuda", "gpu"]
registers_per_block = 65536
thread_warp_size = 32
max_threads_per_block = 1024
max_shared_memory_per_block = 49152
arch = "sm_80"
kind = "cuda"
""",
    "tag.toml": """
description = "the description is not part of the meaning"
targets = ["nvidia/nvidia-a100"]
host = "llvm -mtriple=x86_64-linux-gnu"
opt-level = 2
pass-config = { "tir.disable_vectorize" = true }  # TVM <= 0.24's name of the same config
""",
    "legacy.toml": f"""
targets = ["{A100_LEGACY} -host='llvm -mtriple=x86_64-linux-gnu'"]
opt-level = 2
pass-config.tirx.disable_vectorize = true  # a dotted name, as TOML nests it
""",
    "host-on-target.json": json.dumps(
        {
            "pass-config": {"tirx.disable_vectorize": True},
            "opt-level": 2,
            "targets": [{**A100, "host": {"kind": "llvm", "mtriple": "x86_64-linux-gnu"}}],
        }
    ),
    "extends.toml": """
extends = ["tag.toml"]
description = "layered"
""",
}


@pytest.fixture
def spellings(tmp_path: Path) -> dict[str, Path]:
    paths = {}
    for name, text in SPELLINGS.items():
        paths[name] = tmp_path / name
        paths[name].write_text(text, encoding="utf-8")
    return paths


def test_spellings_of_one_meaning_hash_alike(spellings: dict[str, Path]) -> None:
    hashes = {name: api.resolve([str(path)]).fingerprint() for name, path in spellings.items()}
    assert len(set(hashes.values())) == 1, hashes
    # ... and so do flags: the same config from the command line alone.
    flags = api.resolve(
        [],
        [
            ("--target", "nvidia/nvidia-a100"),
            ("--target-host", "llvm -mtriple=x86_64-linux-gnu"),
            ("-O", "2"),
            ("--pass-config", "tirx.disable_vectorize=on"),
        ],
    )
    assert flags.fingerprint() == hashes["table.toml"]


def test_the_fingerprint_is_sha256_of_the_canonical_meaning(spellings: dict[str, Path]) -> None:
    import hashlib

    resolved = api.resolve([str(spellings["tag.toml"])])
    meaning = {k: v for k, v in resolved.to_dict().items() if k != "description"}
    # A target without its own host is built with the config's host: hashed with it.
    meaning["targets"] = [t if "host" in t else {**t, "host": meaning["host"]} for t in meaning["targets"]]
    text = json.dumps(meaning, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert resolved.fingerprint() == hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize(
    "change",
    [
        [("--target-cuda-arch", "sm_86")],
        [("--target-cuda-l2_cache_size_bytes", "1")],
        [("--set", 'targets[0].keys=["cuda"]')],
        [("--target-host", "llvm -mtriple=aarch64-linux-gnu")],
        [("--target", "cuda -arch=sm_80")],
        [("--target", "nvidia/nvidia-a100"), ("--target", "opencl")],
        [("-O", "3")],
        [("--pass-config", "tirx.disable_vectorize=false")],
        [("--pass-config", "tirx.noalias=true")],
        [("--set", 'disabled-pass=["FoldConstant"]')],
        [("--executor", "vm")],
        [("--runtime", "cpp"), ("--runtime-cpp-system-lib", "true")],
        [("--set", "build.cross-compiler=gcc")],
        [("--set", 'tvm-version=">=0.25"')],
    ],
    ids=lambda change: " ".join(f"{f} {v}" for f, v in change),
)
def test_every_change_of_meaning_changes_the_hash(spellings: dict[str, Path], change: list[tuple[str, str]]) -> None:
    base = api.resolve([str(spellings["table.toml"])])
    changed = api.resolve([str(spellings["table.toml"])], change)
    assert changed.fingerprint() != base.fingerprint()


def test_show_hash_prints_the_fingerprint(app: typer.Typer, spellings: dict[str, Path]) -> None:
    runner = CliRunner()
    outputs = {runner.invoke(app, ["config", "show", "--config", str(p), "--hash"]).stdout for p in spellings.values()}
    (line,) = outputs
    assert line == api.resolve([str(spellings["tag.toml"])]).fingerprint() + "\n"


def test_a_tag_name_and_a_tag_table_differ_as_in_tvm() -> None:
    # TVM keeps the tag of `{"tag": X}` as the target's label (tag field X); a bare X gives tag "".
    bare = api.resolve([], [("--target", "nvidia/nvidia-a100")])
    labelled = api.resolve([], [("--target", '{"tag": "nvidia/nvidia-a100"}')])
    assert labelled.config.targets[0]["tag"] == "nvidia/nvidia-a100" and bare.config.targets[0]["tag"] == ""
    assert labelled.fingerprint() != bare.fingerprint()


@pytest.mark.parametrize(
    ("target", "host"),
    [
        ("llvm -mtriple=x86_64-linux-gnu", "llvm -mtriple=x86_64-linux-gnu"),
        ("cuda -arch=sm_80", "llvm"),
    ],
)
def test_the_default_host_written_out_hashes_alike(target: str, host: str) -> None:
    implicit = api.resolve([], [("--target", target)])
    explicit = api.resolve([], [("--target", target), ("--target-host", host)])
    assert implicit.config.host == explicit.config.host
    assert implicit.fingerprint() == explicit.fingerprint()
