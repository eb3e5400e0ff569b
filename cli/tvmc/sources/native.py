"""`host/native`: the config of the machine tvmc runs on, detected on demand (`tvmc config detect`)
and cached per CPU, so `--config host/native` builds code that runs here.

A `host/native.toml` on the search path wins (a user can pin one). The cache file is
`$XDG_CACHE_HOME/tvmc/native-KEY.toml` (default `~/.cache/tvmc`): KEY hashes what TVM's LLVM
reports for this machine (its triple, its CPU name and that CPU's features), the number of cores
and the installed TVM's version — not the host name or the CPU's marketing name (a Zen 3 and a
Zen 5 "AMD EPYC" are two CPUs to LLVM). `--origin` shows the file, so the key is visible.

Asking LLVM means importing TVM (about a second), so its answer is remembered in
`cpu-FP.json` beside the cache, FP hashing what the kernel says identifies the CPU (on Linux the
`/proc/cpuinfo` fields LLVM's own detection reads: vendor, family, model, stepping and flags, or
implementer, part, variant, revision and features) and the TVM version: the same CPU and TVM get
the same answer from LLVM. Without that answer (TVM missing, nothing remembered) the key is one no
detection writes, so no cache detected on another CPU is ever reused.

The cache is a cache: a file that is not this user's, or that others could write, is ignored and
detected again (its `cross-compiler` must not run); of the rest only the keys detection writes
are read (`description`, `targets`, `host`), and a corrupt file is detected again with a note
naming it.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

from tvmc.sources import NATIVE as NATIVE

# The errors, the loader (a TOML parser) and `platform` are imported where they are used.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from tvmc.sources.layer import Layer

# What `config list` and the README's catalogue say about it: it has no file until first used.
DESCRIPTION = (
    "This machine, detected on first use (needs TVM): its CPU as LLVM names it and each GPU the TVM "
    "runtime can open, cached per machine. Code built for it runs here."
)
# The top-level keys `tvmc.sources.detect` writes: nothing else in a cache file is read.
DETECTED_KEYS = ("description", "targets", "host")
# What the kernel says identifies the CPU (/proc/cpuinfo): x86, AArch64/ARM, RISC-V, POWER, s390x.
_CPU_FIELDS = frozenset(
    {
        "vendor_id",
        "cpu family",
        "model",
        "stepping",
        "flags",
        "CPU implementer",
        "CPU architecture",
        "CPU variant",
        "CPU part",
        "CPU revision",
        "Features",
        "isa",
        "uarch",
        "mvendorid",
        "marchid",
        "mimpid",
        "cpu",
        "revision",
        "machine",
        "features",
    }
)
CPUINFO = "/proc/cpuinfo"
_CACHE_MODE = 0o644  # readable, writable by its owner only: anything else is not trusted


def _stderr_note(message: str) -> None:
    sys.stderr.write(f"tvmc: note: {message}\n")


# Where notes about an ignored cache file go (one line each); a library user may redirect them.
on_note: Callable[[str], None] = _stderr_note


class Identity(NamedTuple):
    """This machine's CPU as TVM's LLVM reports it."""

    triple: str
    cpu: str
    features: tuple[str, ...]


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    xdg = env.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "tvmc"
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".cache" / "tvmc"


def cpu_fingerprint() -> str | None:
    """What the kernel says identifies this CPU (the fields LLVM's detection reads), or None where
    it says nothing precise (no /proc/cpuinfo): then only LLVM can tell."""
    try:
        with open(CPUINFO, encoding="utf-8", errors="replace") as info:
            lines = info.read(1 << 22).splitlines()
    except OSError:
        return None
    seen: dict[str, None] = {}  # every distinct value, in order (big.LITTLE CPUs have several)
    for line in lines:
        key, sep, value = line.partition(":")
        if sep and key.strip() in _CPU_FIELDS:
            seen[f"{key.strip()}={' '.join(sorted(value.split()))}"] = None
    if not seen:
        return None
    import platform

    return "\n".join([platform.machine(), str(os.cpu_count()), *seen])


def _tvm_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("apache-tvm")
    except metadata.PackageNotFoundError:
        return "none"


def _digest(*facts: str) -> str:
    import hashlib  # only a host/native lookup needs it; `config list` and every lookup import this module

    return hashlib.sha256("\n".join(facts).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def ask_llvm() -> Identity:
    """This CPU as TVM's LLVM names it, with the features of that name (imports TVM; raises the
    missing-package error without it)."""
    from tvmc.sources.detect import _tvm, plain_triple

    tvm, codegen = _tvm()
    raw_triple = str(codegen.llvm_get_system_triple())
    cpu = str(codegen.llvm_get_system_cpu())
    try:
        spec = {"kind": "llvm", "mtriple": raw_triple, "mcpu": cpu}
        features = tuple(sorted(str(f) for f in codegen.llvm_get_cpu_features(tvm.target.Target(spec))))
    except Exception:  # a CPU name this LLVM cannot expand: the name alone keys it
        features = ()
    return Identity(plain_triple(raw_triple), cpu, features)


def _memo_path(env: Mapping[str, str] | None, fingerprint: str, version: str) -> Path:
    return cache_dir(env) / f"cpu-{_digest(fingerprint, version)}.json"


def _trusted_bytes(path: Path, limit: int = 1 << 20) -> tuple[bytes | None, str | None]:
    """(content, None) of a regular file this user owns and only this user can write; (None, why)
    otherwise; (None, None) when there is no such file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None, None
    except OSError as err:
        return None, f"cannot be read ({err.strerror or err})"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, "is not a regular file"
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            return None, f"belongs to another user (uid {info.st_uid})"
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return None, f"is writable by others (mode {stat.S_IMODE(info.st_mode):o})"
        if info.st_size > limit:
            return None, f"is too large ({info.st_size} bytes)"
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks), None
    except OSError as err:
        return None, f"cannot be read ({err.strerror or err})"
    finally:
        os.close(fd)


def _read_memo(path: Path, fingerprint: str, version: str) -> Identity | None:
    data, _why = _trusted_bytes(path)
    if data is None:
        return None
    import json  # lazy: the lookups that never reach host/native do not pay for it

    try:
        doc = json.loads(data)
        features = doc["features"]
        if doc["fingerprint"] != fingerprint or doc["tvm"] != version or not isinstance(features, list):
            return None
        found = Identity(str(doc["triple"]), str(doc["cpu"]), tuple(str(f) for f in features))
    except (ValueError, KeyError, TypeError):
        return None  # unreadable: LLVM is asked again and it is rewritten
    return found if found.cpu and found.triple else None


def identity(env: Mapping[str, str] | None = None, *, ask: bool = True) -> Identity | None:
    """What LLVM reports for this CPU: remembered (`cpu-FP.json`), else asked (imports TVM) and
    remembered; None without TVM, or with `ask=False` when nothing is remembered."""
    fingerprint, version = cpu_fingerprint(), _tvm_version()
    memo = _memo_path(env, fingerprint, version) if fingerprint is not None else None
    if memo is not None:
        known = _read_memo(memo, fingerprint or "", version)
        if known is not None:
            return known
    if not ask:
        return None
    try:
        found = ask_llvm()
    except Exception:  # TVM is missing or broken (it raises anything): nothing to key by
        return None
    if memo is not None:
        import json

        from tvmc.errors import TvmcError
        from tvmc.fileio import write_atomic

        record = {"fingerprint": fingerprint, "tvm": version, **found._asdict(), "features": list(found.features)}
        try:
            memo.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(memo, json.dumps(record, indent=1) + "\n", flag="host/native cache", mode=_CACHE_MODE)
        except (OSError, TvmcError):
            pass  # a read-only cache: LLVM is asked each time, nothing else changes
    return found


def machine_key(env: Mapping[str, str] | None = None, *, ask: bool = True) -> str:
    """The cache key: what LLVM reports for this CPU (see `identity`), the cores and TVM's version."""
    return _key(identity(env, ask=ask))


def _key(found: Identity | None) -> str:
    if found is None:
        import platform

        # No one writes a cache under this key (detecting needs TVM): nothing detected elsewhere is read.
        return _digest("unidentified", platform.machine(), cpu_fingerprint() or "", _tvm_version())
    return _digest(found.triple, found.cpu, ",".join(found.features), str(os.cpu_count()), _tvm_version())


def cache_path(env: Mapping[str, str] | None = None, *, ask: bool = True) -> Path:
    """The file `host/native` is read from (written on first use). `ask=False` never imports TVM
    (`config list`, `doctor`): before the first detection it names a file no detection writes."""
    return cache_dir(env) / f"native-{machine_key(env, ask=ask)}.toml"


def _cached_layer(path: Path, cpu: str | None) -> Layer | None:
    """The cache file's detected keys, or None (with a note when a file is there but not used)."""
    from tvmc.errors import TvmcError
    from tvmc.sources.layer import Layer
    from tvmc.sources.loader import display_path, load_bytes

    data, why = _trusted_bytes(path)
    if data is None:
        if why is not None:
            on_note(f"ignoring the host/native cache {path}: it {why}; detecting this machine again")
        return None
    try:
        layer = load_bytes(data, source=display_path(path), format="toml", path=path)
    except TvmcError as err:
        on_note(f"the host/native cache {path} is corrupt ({err.message}); detecting this machine again")
        return None
    kept = {k: v for k, v in layer.data.items() if k in DETECTED_KEYS}
    targets = kept.get("targets")
    mcpus = [t.get("mcpu") for t in targets or () if isinstance(t, dict) and t.get("kind") == "llvm"]
    if not isinstance(targets, list) or not mcpus or (cpu is not None and cpu not in mcpus):
        if not isinstance(targets, list):
            detail = "its targets are not a list of targets"
        elif not mcpus:
            detail = "it has no llvm target with an mcpu"
        else:
            detail = f"it was detected on another CPU ({mcpus[0]!r}, not {cpu!r})"
        on_note(f"ignoring the host/native cache {path}: {detail}; detecting this machine again")
        return None
    return Layer(layer.source, layer.file, kept, layer.format, text=layer.text)


def native_layer() -> Layer:
    """The detected config of this machine, from the cache or detected now (needs TVM)."""
    found = identity()
    path = cache_dir() / f"native-{_key(found)}.toml"
    layer = _cached_layer(path, found.cpu if found is not None else None)
    if layer is None:  # lazy: only a cache miss detects and writes
        from tvmc.errors import TvmcError
        from tvmc.fileio import write_atomic
        from tvmc.sources.detect import detect, to_toml
        from tvmc.sources.installed import schema_directive
        from tvmc.sources.layer import Layer
        from tvmc.sources.loader import display_path, load_bytes

        text = to_toml(detect(), schema_directive())
        try:  # the cache only saves the next detection: a place it cannot go (HOME read-only) is a note
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, text, flag="host/native cache", mode=_CACHE_MODE)
        except OSError as err:
            on_note(f"cannot write the host/native cache {path} ({err.strerror or err}); detecting again next time")
        except TvmcError as err:
            on_note(f"cannot write the host/native cache ({err.one_line()}); detecting again next time")
        written = load_bytes(text.encode("utf-8"), source=display_path(path), format="toml", path=path)
        layer = Layer(written.source, written.file, written.data, written.format, text=written.text)
    return layer.named(NATIVE)
