"""The manifest inside every library tvmc builds (issue 27): what the library is, readable without TVM.

A manifest is one JSON document (sorted keys) framed so that it can be found by scanning the file:

    MAGIC (16 bytes) | length of JSON (8 bytes, little-endian) | SHA-256 of JSON (32 bytes) | JSON

In a `.so` the frame is the bytes of a C array (`tvmc_manifest`) compiled and linked into the library;
in a `.tar` it is the member `tvmc_manifest.c` holding that array (TVM compiles the member when it
links the tar, so the manifest is in the linked library too). The checksum tells a damaged manifest
from a missing one. Pure Python (json, hashlib, tarfile): `tvmc inspect` and `config show --from`
work where TVM is not installed.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import re
import tarfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tvmc.errors import TvmcError
from tvmc.readfile import input_file

MAGIC = b"\x00TVMC-MANIFEST\x01\x00"
FORMAT = "tvmc-manifest/1"
C_SYMBOL = "tvmc_manifest"
TAR_MEMBER = "tvmc_manifest.c"
_HEADER = len(MAGIC) + 8 + 32
MAX_JSON = 64 * 1024 * 1024  # a manifest is kilobytes; a larger length is a damaged frame
MAX_TAR_MEMBER = 4 * MAX_JSON  # the member is the frame written as C hex literals


class ManifestError(TvmcError):
    """A library whose manifest is there but cannot be read (damaged, or of a newer tvmc). The
    message starts with the library's path (`run` re-raises the message under its own source), so
    it has no location of its own: that printed the path twice."""


def encode(doc: dict[str, Any]) -> bytes:
    """The framed manifest: MAGIC, length, SHA-256, JSON (sorted keys, so equal documents are equal bytes)."""
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    return MAGIC + len(text).to_bytes(8, "little") + hashlib.sha256(text).digest() + text


def c_source(frame: bytes) -> str:
    """A C file defining the framed manifest as a byte array the linker keeps (`used`)."""
    rows = [", ".join(f"0x{b:02x}" for b in frame[i : i + 16]) for i in range(0, len(frame), 16)]
    body = ",\n  ".join(rows)
    return (
        "/* The tvmc manifest of this library (tvmc inspect LIBRARY reads it). */\n"
        f"__attribute__((used)) const unsigned char {C_SYMBOL}[{len(frame)}] = {{\n  {body}\n}};\n"
    )


def _decode_at(data: bytes | mmap.mmap, start: int, where: str) -> dict[str, Any]:
    head = data[start : start + _HEADER]
    if len(head) < _HEADER:
        raise ManifestError(f"{where}: the tvmc manifest is cut short (the file is truncated)")
    length = int.from_bytes(head[len(MAGIC) : len(MAGIC) + 8], "little")
    if length > MAX_JSON:
        raise ManifestError(f"{where}: the tvmc manifest is damaged (length {length})")
    text = bytes(data[start + _HEADER : start + _HEADER + length])
    if len(text) != length or hashlib.sha256(text).digest() != bytes(head[len(MAGIC) + 8 :]):
        raise ManifestError(f"{where}: the tvmc manifest is damaged (its checksum does not match)")
    try:
        doc = json.loads(text)
    except ValueError:
        raise ManifestError(f"{where}: the tvmc manifest is not JSON") from None
    except RecursionError:  # a checksummed frame is still another's file: `[[[...` is not trusted
        raise ManifestError(f"{where}: the tvmc manifest is nested too deeply") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else None
        raise ManifestError(f"{where}: unknown manifest format {found!r} (this tvmc reads {FORMAT})")
    return doc


def scan(data: bytes | mmap.mmap, where: str) -> dict[str, Any] | None:
    """The manifest framed somewhere in `data`, or None when there is none."""
    start = data.find(MAGIC)
    return None if start < 0 else _decode_at(data, start, where)


_HEX = re.compile(rb"0x([0-9a-f]{2})")


def _from_tar(path: Path) -> dict[str, Any] | None:
    import lzma  # here: only a tar needs it (tarfile opens .tar.xz with it; a damaged stream raises its error)

    try:
        with tarfile.open(path) as archive:
            member = next((m for m in archive.getmembers() if Path(m.name).name == TAR_MEMBER), None)
            if member is None or not member.isfile():
                return None
            if member.size > MAX_TAR_MEMBER:
                raise ManifestError(f"{path}: the tvmc manifest member is too large ({member.size} bytes)")
            handle = archive.extractfile(member)
            text = handle.read() if handle is not None else b""
    except (tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError) as err:  # damaged compression too
        reason = "; ".join(line.strip() for line in str(err).splitlines() if line.strip())  # tarfile: one per method
        raise ManifestError(f"{path}: cannot read the tar: {reason}") from None
    return scan(bytes(int(h, 16) for h in _HEX.findall(text)), str(path))


def read(path: str | Path, source: str = "LIBRARY") -> dict[str, Any] | None:
    """The manifest of a library tvmc built (.so, or .tar), None when it has none (built elsewhere).

    Raises ManifestError for a damaged manifest and TvmcError for a path that is not a regular file,
    located at `source` (what the user typed to name the library: an argument, `--from`)."""
    path = Path(path)
    input_file(path, source)
    try:
        with open(path, "rb") as handle:
            head = handle.read(512)
            if (len(head) >= 262 and head[257:262] == b"ustar") or head[:2] == b"\x1f\x8b":
                return _from_tar(path)
            if not head:
                return None
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return scan(data, str(path))
    except OSError as err:
        raise TvmcError(f"cannot read {path}: {err.strerror or err}", source) from None


_BINARY_HEADS = (b"\x7fELF", b"\x1f\x8b", b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"MZ")


def is_library(ref: str | Path) -> bool:
    """Whether `ref` names a built library (ELF, Mach-O, DLL, or a tar of objects), not a config file."""
    path = Path(ref)
    try:
        if not path.is_file():
            return False
        with open(path, "rb") as handle:
            head = handle.read(512)
    except OSError:
        return False
    return head.startswith(_BINARY_HEADS) or (len(head) >= 262 and head[257:262] == b"ustar")


def require(path: str | Path, source: str = "LIBRARY") -> dict[str, Any]:
    """`read`, or an error saying the library has no manifest."""
    doc = read(path, source)
    if doc is None:
        raise TvmcError(f"{path} has no tvmc manifest (tvmc did not build it, or an older tvmc did)", source)
    return doc


def input_signature(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The inputs as recorded: name, dtype, `shape` (the library's; a str is a dynamic dimension's name)."""
    inputs = doc.get("inputs")
    return [i for i in inputs if isinstance(i, dict)] if isinstance(inputs, list) else []


def _signature_problem(entry: Any) -> str | None:
    """What makes an input entry unusable for `run` (which generates and checks inputs from it)."""
    if not isinstance(entry, dict):
        return "is not a table"
    for key in ("name", "dtype"):
        if not isinstance(entry.get(key), str):
            return f"has no {key} string"
    shape = entry.get("shape")
    dims = shape if isinstance(shape, list) else []
    dims_ok = all((type(d) is int and 0 <= d < 2**63) or isinstance(d, str) for d in dims)
    if shape is not None and not (isinstance(shape, list) and dims_ok):
        return "has a shape that is not a list of sizes and dimension names"
    bounds = entry.get("index-range")
    if bounds is not None and not (
        isinstance(bounds, list) and len(bounds) == 2 and all(type(b) is int for b in bounds) and bounds[0] < bounds[1]
    ):
        return "has an index-range that is not two increasing integers"
    return None


def checked_signature(doc: dict[str, Any], where: str) -> list[dict[str, Any]]:
    """The inputs as `input_signature` gives them, each checked to be one `run` can generate and
    check values for: a manifest is another's file (a hand, or another tvmc, may have written
    fields of other types), so a malformed entry is a damaged manifest, not a traceback."""
    inputs = doc.get("inputs", [])
    if not isinstance(inputs, list):
        raise ManifestError(f"{where}: the tvmc manifest is damaged (its inputs are not a list)")
    for index, entry in enumerate(inputs):
        problem = _signature_problem(entry)
        if problem is not None:
            raise ManifestError(f"{where}: the tvmc manifest is damaged (its inputs[{index}] {problem})")
    return list(inputs)


def target_kind(doc: Mapping[str, Any], where: str) -> str | None:
    """The kind of the target the library was built for (`llvm`, `cuda`...), None when none is
    recorded. A target that is not a table, or a kind that is not a name (`target.kind = 5`), is a
    damaged manifest: `run` took it for a device ("holds 5 code, but this TVM has no 5 runtime")."""
    target = doc.get("target")
    if target is None:
        return None
    if not isinstance(target, dict):
        raise ManifestError(f"{where}: the tvmc manifest is damaged (its target is not a table)")
    kind = target.get("kind")
    if kind is not None and not (isinstance(kind, str) and kind.strip()):
        shown = json.dumps(kind, ensure_ascii=True)
        shown = shown if len(shown) <= 40 else shown[:39] + "…"
        raise ManifestError(f"{where}: the tvmc manifest is damaged (its target kind {shown} is not a name)")
    return kind


def output_names(doc: dict[str, Any]) -> list[str]:
    outputs = doc.get("outputs")
    return [str(o.get("name")) for o in outputs if isinstance(o, dict)] if isinstance(outputs, list) else []


def shape_text(dims: Any) -> str:
    """`[batch, 8]`: a shape as tvmc prints it (a dynamic dimension by its name)."""
    return "[" + ", ".join(str(d) for d in dims) + "]" if isinstance(dims, list) else "?"
