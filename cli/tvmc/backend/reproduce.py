"""`tvmc compile --reproduce LIBRARY MODEL` (issue 27): build a library again from its manifest and
say whether the result is byte-identical, or which recorded input differs.

A library's bytes are a function of what its manifest records: tvmc's, TVM's and LLVM's versions,
the model (SHA-256), the canonical config and where each value came from, the target it resolved
to, the tuning records applied (their SHA-256), the output format. The build makes nothing else
vary (tvmc.backend.runner: a tar written without times or owners; the build child's hash seed fixed;
the manifest holds no time nor temporary path), so the rebuild either equals the library or one of
those inputs differs, and the comparison of the two manifests names it.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tvmc import manifest
from tvmc.backend import compile as building
from tvmc.backend.model import FORMATS, model_spec
from tvmc.errors import TvmcError, UsageError
from tvmc.provenance import walk
from tvmc.records import field, record
from tvmc.text import one_line

if TYPE_CHECKING:
    from tvmc.backend.compile import Compiled, Resolution


@record
class Reproduction:
    """The verdict: the library, whether the rebuild equals it byte for byte, and otherwise one line
    for each input that differs (`differences`)."""

    library: Path
    size: int
    sha256: str
    identical: bool
    differences: list[str] = field(default_factory=list)
    rebuilt: Compiled | None = None
    written: Path | None = None  # the rebuilt library, when `-o` asked for it


def _get(doc: Mapping[str, Any], *keys: str) -> Any:
    value: Any = doc
    for key in keys:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _short(value: Any) -> str:
    return "none" if value is None else str(value)


def _config_pointers(left: Any, right: Any) -> list[str]:
    """The JSON pointers at which two configs differ (a value, or a key only one of them has)."""
    a, b = dict(walk(left)), dict(walk(right))
    leaves = {p for p in a.keys() | b.keys() if p and not isinstance(a.get(p, b.get(p)), dict | list)}
    return sorted(p for p in leaves if a.get(p, ...) != b.get(p, ...))


def compare(original: Mapping[str, Any], rebuilt: Mapping[str, Any], model: str) -> list[str]:
    """One line per recorded input in which the rebuild's manifest differs from the library's."""
    lines = []
    for key, name in (("tvmc", "tvmc"), ("tvm", "TVM"), ("llvm", "LLVM")):
        if original.get(key) != rebuilt.get(key):
            lines.append(
                f"{name} version: the library was built with {_short(original.get(key))}, "
                f"this rebuild with {_short(rebuilt.get(key))}"
            )
    theirs, ours = _get(original, "model", "sha256"), _get(rebuilt, "model", "sha256")
    if theirs != ours:
        lines.append(
            f"model: {model} has sha256 {_short(ours)}, the library was built from "
            f"{_short(_get(original, 'model', 'file'))} with sha256 {_short(theirs)}"
        )
    for key in ("format", "input-shapes"):
        if _get(original, "model", key) != _get(rebuilt, "model", key):
            lines.append(
                f"model {key}: the library's {_short(_get(original, 'model', key))}, "
                f"this rebuild's {_short(_get(rebuilt, 'model', key))}"
            )
    if original.get("fingerprint") != rebuilt.get("fingerprint") or original.get("config") != rebuilt.get("config"):
        where = _config_pointers(original.get("config"), rebuilt.get("config"))
        at = f" (at {', '.join(where[:6])}{' ...' if len(where) > 6 else ''})" if where else ""
        lines.append(
            f"config: fingerprint {_short(original.get('fingerprint'))[:16]} in the library, "
            f"{_short(rebuilt.get('fingerprint'))[:16]} in this rebuild{at}"
        )
    if original.get("target") != rebuilt.get("target"):
        lines.append(
            "target: the config resolves to another target here (mcpu 'native' is this machine's CPU): "
            f"{_target_text(original.get('target'))} in the library, {_target_text(rebuilt.get('target'))} here"
        )
    lines += _tuning(original.get("tuning"), rebuilt.get("tuning"))
    for key in ("output-format", "origins", "environment"):
        if original.get(key) != rebuilt.get(key):
            lines.append(f"manifest {key}: differs between the library and this rebuild")
    if not lines:  # every input the same: name what the build derived differently
        derived = sorted(k for k in original.keys() | rebuilt.keys() if original.get(k) != rebuilt.get(k))
        lines += [f"manifest {key}: differs although every recorded input is the same" for key in derived]
    return [one_line(line) for line in lines]  # the library's manifest is another's text: no forged lines


def _target_text(target: Any) -> str:
    if not isinstance(target, Mapping):
        return _short(target)
    return " ".join(f"{k}={target[k]}" for k in ("kind", "mtriple", "mcpu") if target.get(k)) or "?"


def _tuning(original: Any, rebuilt: Any) -> list[str]:
    left = original if isinstance(original, Mapping) else {}
    right = rebuilt if isinstance(rebuilt, Mapping) else {}
    lines = []
    if left.get("database") != right.get("database"):
        lines.append(
            f"tuning database: the library applied {_short(left.get('database'))}, "
            f"this rebuild {_short(right.get('database'))}"
        )
    used = ("kernels-from-records", "kernels", "records-sha256")
    if any(left.get(k) != right.get(k) for k in used):
        lines.append(
            f"tuning records: the library applied {_records(left)}, this rebuild {_records(right)}"
            + ("" if left.get("records-sha256") == right.get("records-sha256") else " (the records differ)")
        )
    return lines


def _records(tuning: Mapping[str, Any]) -> str:
    if not tuning.get("kernels-from-records"):
        return "none"
    digest = str(tuning.get("records-sha256") or "?")[:16]
    return f"{tuning['kernels-from-records']} of {tuning.get('kernels')} kernels' records (sha256 {digest})"


def _parts(data: bytes) -> dict[str, bytes]:
    """An ELF file's sections by name, or a tar's members by name; {} for anything else. Names what
    differs when every recorded input is the same (which tvmc's builds do not leave)."""
    import io
    import tarfile

    if data[:4] == b"\x7fELF" and data[4] in (1, 2) and data[5] in (1, 2):
        wide = data[4] == 2
        order: Literal["little", "big"] = "little" if data[5] == 1 else "big"

        def num(at: int, size: int) -> int:
            return int.from_bytes(data[at : at + size], order)

        word = 8 if wide else 4
        table = num(0x28 if wide else 0x20, word)
        entry, count, names = (num(o, 2) for o in ((0x3A, 0x3C, 0x3E) if wide else (0x2E, 0x30, 0x32)))
        headers = []
        for index in range(count):
            base = table + index * entry
            kind = num(base + 4, 4)
            offset = num(base + (0x18 if wide else 0x10), word)
            size = num(base + (0x20 if wide else 0x14), word)
            headers.append((num(base, 4), kind, offset, size))
        if not 0 <= names < len(headers):
            return {}
        strings = data[headers[names][2] : headers[names][2] + headers[names][3]]
        out = {}
        for name_at, kind, offset, size in headers:
            name = strings[name_at : strings.find(b"\0", name_at)].decode("ascii", "replace")
            out[name or "(null)"] = b"" if kind == 8 else data[offset : offset + size]  # 8: NOBITS
        return out
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
            return {
                m.name: handle.read() for m in archive.getmembers() if (handle := archive.extractfile(m)) is not None
            }
    except (tarfile.TarError, OSError, EOFError):
        return {}


def differing_parts(left: bytes, right: bytes) -> list[str]:
    a, b = _parts(left), _parts(right)
    return sorted(name for name in a.keys() | b.keys() if a.get(name) != b.get(name))


def _recorded_shapes(shapes: Any, library: Path) -> dict[str, tuple[int | None, ...]] | None:
    """The manifest's model.input-shapes ({name: [size or null, ...]}), checked: another's file (a
    size below 0 or beyond int64 reached TVM's importer and builder as a TypeError or a failed check)."""
    if not isinstance(shapes, dict):
        return None
    sizes = (d is None or (type(d) is int and 0 <= d < 2**63) for v in shapes.values() for d in v)
    if not all(isinstance(v, list) for v in shapes.values()) or not all(sizes):
        raise manifest.ManifestError(
            f"{library}: the tvmc manifest is damaged (its model.input-shapes are not lists of sizes)"
        )
    return {str(k): tuple(v) for k, v in shapes.items()}


_RECORDED = {"--input-shapes": "model.input-shapes", "--model-format": "model.format"}  # flags the manifest gives


def reproduce(
    resolved: Resolution,
    library: Path,
    model: str,
    *,
    output: str | None = None,
    database: Path | None = None,
    verbose: bool = False,
    on_stage: Callable[[str], None] = building._ignore,
    on_warning: Callable[[str], None] = building._ignore,
) -> Reproduction:
    """Rebuild `library` (its config `resolved`, from its manifest) from `model` and compare. The
    tuning records are the database the manifest names (`database`: the root they are in now); the
    input shapes and model format are the manifest's. `output` keeps the rebuilt library."""
    doc = manifest.require(library)
    original = library.read_bytes()
    recorded = _get(doc, "model")
    recorded = recorded if isinstance(recorded, Mapping) else {}  # another tvmc's manifest: not trusted
    recorded_format = recorded.get("format")
    if recorded_format is not None and recorded_format not in FORMATS:
        raise manifest.ManifestError(
            f"{library}: the tvmc manifest is damaged (its model.format {str(recorded_format)[:40]!r} is not a model "
            "format)"
        )
    spec = model_spec(
        model,
        str(recorded_format) if recorded_format else None,
        _recorded_shapes(recorded.get("input-shapes"), library),
    )
    applied = _get(doc, "tuning", "database")
    if database is None and applied:
        database = Path(str(applied)).parent  # the partition is ROOT/<target fingerprint>
    provenance: dict[str, Any] = {k: doc[k] for k in ("origins", "environment") if k in doc}
    with tempfile.TemporaryDirectory(prefix="tvmc-reproduce-") as tmp:
        target = output if output is not None else str(Path(tmp) / library.name)
        try:
            rebuilt = building.build(
                resolved,
                spec,
                target,
                verbose=verbose,
                on_stage=on_stage,
                on_warning=on_warning,
                tuning=bool(applied) or database is not None,
                database=database,
                implicit_database=False,
                provenance=provenance,
            )
        except TvmcError as err:  # the shapes and format are the manifest's: no flag of the user's to name
            flag = err.location.source if err.location is not None else None
            if flag not in _RECORDED:
                raise
            kind = TvmcError if isinstance(err, UsageError) else type(err)  # not the command line's: exit 1
            raise kind(err.message, f"{library} (its manifest's {_RECORDED[flag]})", hint=err.hint) from None
        data = rebuilt.path.read_bytes()
        ours = manifest.read(rebuilt.path)
    if ours is None:
        raise TvmcError("the rebuilt library has no manifest", "--reproduce")
    verdict = Reproduction(
        library=library,
        size=len(original),
        sha256=hashlib.sha256(original).hexdigest(),
        identical=data == original,
        rebuilt=rebuilt,
        written=rebuilt.path if output is not None else None,
    )
    if not verdict.identical:
        verdict.differences = compare(doc, ours, model)
        if not verdict.differences:
            parts = differing_parts(original, data)
            verdict.differences = [
                "code: every recorded input is the same, yet the bytes differ"
                + (one_line(f" (in {', '.join(parts[:8])})") if parts else "")  # section names: another's
            ]
    return verdict
