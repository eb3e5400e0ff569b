"""`host/native`: the config of the machine tvmc runs on, detected on demand (`tvmc config detect`)
and cached per machine, so `--config host/native` builds code that runs here.

A `host/native.toml` on the search path wins (a user can pin one). The cache file is
`$XDG_CACHE_HOME/tvmc/native-KEY.toml` (default `~/.cache/tvmc`): KEY hashes the host name, the
architecture, the CPU model and the installed TVM's version, and `--origin` shows the file, so the
key is visible. Another machine, CPU or TVM gets a new detection.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping
from pathlib import Path

from tvmc.sources.layer import Layer
from tvmc.sources.loader import load_file

NATIVE = "host/native"
# What `config list` and the README's catalogue say about it: it has no file until first used.
DESCRIPTION = (
    "This machine, detected on first use (needs TVM): its CPU as LLVM names it and each GPU the TVM "
    "runtime can open, cached per machine. Code built for it runs here."
)


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    xdg = env.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "tvmc"
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".cache" / "tvmc"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            for line in info:
                if line.startswith(("model name", "Processor", "CPU part")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _tvm_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("apache-tvm")
    except metadata.PackageNotFoundError:
        return "none"


def machine_key() -> str:
    """What a detection depends on, hashed: cheap to compute, without importing TVM."""
    facts = "\n".join([platform.node(), platform.machine(), _cpu_model(), _tvm_version()])
    import hashlib  # only a host/native lookup needs it; `config list` and every lookup import this module

    return hashlib.sha256(facts.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def cache_path() -> Path:
    """The file `host/native` is read from (written on first use)."""
    return cache_dir() / f"native-{machine_key()}.toml"


def native_layer() -> Layer:
    """The detected config of this machine, from the cache or detected now (needs TVM)."""
    path = cache_path()
    if not path.is_file():  # lazy: only a cache miss detects and writes
        from tvmc.fileio import write_atomic
        from tvmc.sources.detect import detect, to_toml
        from tvmc.sources.installed import schema_directive

        text = to_toml(detect(), schema_directive())
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text, flag="host/native cache")
    return load_file(path).named(NATIVE)
