"""The tuning database directory. No TVM here: MetaSchedule's JSON files are read and written as text.

    DB/                                  --database DIR, TVMC_TUNING_DB, or ~/.cache/tvmc/tuning
      <target fingerprint>/              one partition per target fingerprint (tvmc.tune.fingerprint)
        partition.json                   the canonical config it came from, its target key, task names
        verdicts.json                    per model: the end-to-end ratio `tvmc tune` measured, and the
                                         records the tuned build applied (`Verdict`, `Applied`)
        database_workload.json           MetaSchedule's JSONDatabase files: TVM reads the partition
        database_tuning_record.json      directly, ms.database.JSONDatabase(work_dir=PARTITION)
        .lock                            flock(2): held by whoever reads-adds-writes the partition
        .run-<pid>-<random>/             a tuning run in progress (or killed): its own JSONDatabase,
          .lock                          and flock(2) held by the run (and its child) for its whole life

A partition's files are only ever replaced whole (written to a temporary file, renamed), so a killed
process never leaves half a file in them. Every read-add-write of a partition (recover, merge, task
names, the tune's own result) holds the partition's lock, so concurrent commands never lose each
other's records. A tuning run appends to its own `.run-*` directory; when it ends, or when the
next command finds it left by a killed run (its lock free: the PID in its name is not asked, a live
run in another PID namespace looks dead from here), its complete lines are merged into the
partition (`recover`): what was measured before a Ctrl-C or a SIGKILL is kept.

Nothing read is trusted: every workload and record line is checked against the structure TVM's
JSONDatabase expects (a bad one is skipped and named with its file and line), and a `.run-*`
directory or a merged file that another user owns, or that others may write, is not merged.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import fcntl
import hashlib
import json
import math
import os
import shutil
import stat
import struct
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from tvmc import records
from tvmc.errors import TvmcError, UsageError
from tvmc.fileio import process_alive, write_atomic
from tvmc.readfile import read_regular
from tvmc.records import field

ENV = "TVMC_TUNING_DB"
WORKLOADS = "database_workload.json"
RECORDS = "database_tuning_record.json"
META = "partition.json"
VERDICTS = "verdicts.json"
LOCK = ".lock"
RUN_PREFIX = ".run-"
FAILED = 1e9  # MetaSchedule records a failed measurement as 1e10 seconds
SMALL_FILE_BYTES = 64 << 20  # partition.json, verdicts.json, tasks.json: kilobytes in practice
SHOWN_PER_FILE = 5  # bad lines named one by one per file; the rest are counted

Warn = Callable[[str], None]


def default_root(env: Mapping[str, str] | None = None) -> Path:
    """TVMC_TUNING_DB, else the user cache directory's tvmc/tuning."""
    env = os.environ if env is None else env
    if env.get(ENV):
        return Path(env[ENV])
    cache = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".cache")
    return Path(cache) / "tvmc" / "tuning"


def implicit_root(env: Mapping[str, str] | None = None) -> Path:
    """`default_root`, for a command that uses the database: refused, with one line naming
    TVMC_TUNING_DB and the path once, when the variable names something that is not a directory
    (`TVMC_TUNING_DB=/dev/null` said the path twice and not where it came from)."""
    env = os.environ if env is None else env
    root = default_root(env)
    return database_root(root, f"env {ENV}") if env.get(ENV) else root


def database_root(root: Path, source: str) -> Path:
    """A database directory the user named (`--database`, TVMC_TUNING_DB): one that exists and is
    not a directory is refused in one line naming where it came from, alike in every command
    (`--database FILE` made `tune` fail on `FILE/…/.lock: Not a directory`, `compile` warn once per
    file it could not read, and `tune db` refuse it)."""
    if root.exists() and not root.is_dir():
        raise UsageError(f"{root} is not a directory (a tuning database is one)", source)
    return root


# ---- locks ----------------------------------------------------------------------------------------

_held: dict[str, int] = {}  # lock files this process holds (flock is per open file: never take one twice)


@contextlib.contextmanager
def locked(directory: Path, *, shared: bool = False) -> Iterator[None]:
    """Hold `directory/.lock` (flock): exclusive to read-add-write a partition, shared to read it.

    A reader of a database it cannot write (another user's, read-only) goes on without the lock:
    the files are only ever replaced whole, so it still reads complete files."""
    path = directory / LOCK
    key = os.path.abspath(path)
    if key in _held:  # nested in this process: the outer section already holds it
        _held[key] += 1
        try:
            yield
        finally:
            _held[key] -= 1
        return
    fd: int | None = None
    try:
        if not shared:
            make_dir(directory)
        # O_NOFOLLOW: a `.lock` another user made a symbolic link would have this user (root, say)
        # create the file it points at (/etc/nologin); a link there is an error, never followed
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as err:
        if not shared:
            raise TvmcError(f"cannot lock {path}: {err.strerror or err}", str(directory)) from None
        with contextlib.suppress(OSError):
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        _held[key] = 1
        yield
    finally:
        _held.pop(key, None)
        if fd is not None:
            os.close(fd)


def make_dir(directory: Path, mode: int = 0o755) -> None:
    """Create a database directory (and its parents) writable by its owner only, whatever the umask."""
    if directory.is_dir():
        return
    for parent in reversed([directory, *directory.parents]):
        if not parent.is_dir():
            with contextlib.suppress(FileExistsError):
                parent.mkdir(mode=mode)


# ---- trust ----------------------------------------------------------------------------------------


def untrusted(path: Path) -> str | None:
    """Why a file or directory may not be merged: a symbolic link, another user's, or writable by
    other users (anyone could have put records there). None when it is fine or missing."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as err:
        return f"cannot be checked ({err.strerror or err})"
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    if info.st_uid != os.getuid():
        return f"is owned by another user (uid {info.st_uid})"
    if info.st_mode & 0o022:
        return "is writable by other users"
    return None


def _untrusted_dir(directory: Path, names: Iterable[str]) -> str | None:
    for path in (directory, *(directory / n for n in names)):
        problem = untrusted(path)
        if problem is not None:
            return f"{path} {problem}"
    return None


# ---- validation -----------------------------------------------------------------------------------


def workload_problem(item: Any) -> str | None:
    """Why a database_workload.json line is not a workload as TVM's JSONDatabase reads it
    ([structural hash as a decimal string, base64 of a length-prefixed JSON module]); None if fine."""
    if not (isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)):
        return "not a workload [structural hash, module]"
    shash, module = item
    if not (shash.isascii() and shash.isdigit()):
        return "its structural hash is not a decimal number"
    try:
        raw = base64.b64decode(module, validate=True)
    except (binascii.Error, ValueError):
        return "its module is not base64"
    if len(raw) < 9 or struct.unpack("<Q", raw[:8])[0] != len(raw) - 8:
        return "its module is not a serialized TVM module"
    try:
        graph = json.loads(raw[8:])
    except ValueError:
        return "its module is not a serialized TVM module (not JSON)"
    except RecursionError:  # `[[[...`: another's line, not a traceback for the whole database
        return "its module is nested too deeply"
    nodes = graph.get("nodes") if isinstance(graph, dict) else None
    root = graph.get("root_index") if isinstance(graph, dict) else None
    if not (
        isinstance(nodes, list)
        and type(root) is int
        and 0 <= root < len(nodes)
        and all(isinstance(n, dict) and isinstance(n.get("type"), str) for n in nodes)
    ):
        return "its module is not a serialized TVM module (no node graph)"
    if nodes[root]["type"] != "ir.IRModule":
        return f"its module is a {nodes[root]['type']}, not an ir.IRModule"
    return None


def _instruction(item: Any) -> bool:
    return (
        isinstance(item, list)
        and len(item) == 4
        and isinstance(item[0], str)
        and all(isinstance(x, list) for x in item[1:])
    )


def _decision(item: Any, count: int) -> bool:
    return isinstance(item, list) and len(item) == 2 and type(item[0]) is int and 0 <= item[0] < count


def _seconds(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value) and value > 0


def record_problem(item: Any, workloads: Sequence[Any]) -> str | None:
    """Why a database_tuning_record.json line is not a record as TVM's JSONDatabase reads it
    ([workload line, [trace, run_secs, target, args_info]]); None if fine."""
    if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], list)):
        return "not a record [workload, [trace, run_secs, target, args_info]]"
    index, body = item
    if type(index) is not int or not 0 <= index < len(workloads):
        return f"its workload index {json.dumps(index)[:20]} names no workload line"
    if workloads[index] is None:
        return f"its workload (line {index + 1} of {WORKLOADS}) is bad"
    if len(body) != 4:
        return "not [trace, run_secs, target, args_info]"
    trace, run_secs, target, args_info = body
    if not (
        isinstance(trace, list)
        and len(trace) == 2
        and isinstance(trace[0], list)
        and isinstance(trace[1], list)
        and all(_instruction(i) for i in trace[0])
        and all(_decision(d, len(trace[0])) for d in trace[1])
    ):
        return "its trace is not [instructions, decisions]"
    if not (isinstance(run_secs, list) and run_secs and all(_seconds(s) for s in run_secs)):
        return "its run_secs is not a list of finite positive seconds"
    if not (isinstance(target, dict) and isinstance(target.get("kind"), str)):
        return "its target is not a target (no kind)"
    if not (isinstance(args_info, list) and all(isinstance(a, list) for a in args_info)):
        return "its args_info is not a list of arguments"
    return None


class _Counted:
    """A Warn that also counts what it passed on."""

    def __init__(self, warn: Warn) -> None:
        self.warn, self.count = warn, 0

    def __call__(self, message: str) -> None:
        self.count += 1
        self.warn(message)


class _Report:
    """Bad lines of one file, named (the first few) and counted."""

    def __init__(self, path: Path, warn: Warn) -> None:
        self.path, self.warn, self.count = path, warn, 0

    def bad(self, number: int, why: str) -> None:
        self.count += 1
        if self.count <= SHOWN_PER_FILE:
            self.warn(f"{self.path}:{number}: {why}: skipped")

    def close(self) -> None:
        if self.count > SHOWN_PER_FILE:
            self.warn(f"{self.path}: {self.count - SHOWN_PER_FILE} more bad lines skipped")


def _small_json(path: Path) -> Any:
    """A small JSON file of the database (partition.json, verdicts.json, tasks.json), read as configs
    are (`readfile.read_regular`): anything but a regular file is an OSError, not a hang (a FIFO
    there, another user's doing, blocked `tune db list`), as is a file larger than 64 MiB."""
    return json.loads(read_regular(path, SMALL_FILE_BYTES))


def _json_lines(path: Path, report: _Report) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line, streamed; a line that is not JSON is reported
    (None is yielded for it, so line positions stay as TVM counts them), except a torn last line
    (what a killed writer leaves), which is skipped quietly."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    except OSError as err:
        report.warn(f"cannot read {path}: {err.strerror or err}: its records are not used")
        return
    if not stat.S_ISREG(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        report.warn(f"{path} is {kind}: its records are not used")
        return
    try:
        source = path.open("rb")
    except OSError as err:
        report.warn(f"cannot read {path}: {err.strerror or err}: its records are not used")
        return
    with source:
        number = 0
        for raw in source:
            number += 1
            text = raw.strip()
            if not text:
                continue
            try:
                value = json.loads(text)
            except ValueError:  # also UnicodeDecodeError
                if not raw.endswith(b"\n"):
                    return  # the torn last line of a killed writer
                report.bad(number, "not a JSON line")
                yield number, None
                continue
            except RecursionError:  # `[[[...`: one bad line, named, not the whole command's error
                report.bad(number, "nested too deeply")
                yield number, None
                continue
            yield number, value


def _workload_lines(directory: Path, warn: Warn, *, modules: bool = True) -> list[list[str] | None]:
    """The workload lines in TVM's order, None for a bad one (records index lines by position).
    Without `modules`, only the structural hash is kept (a module is tens of kilobytes)."""
    path = directory / WORKLOADS
    report = _Report(path, warn)
    out: list[list[str] | None] = []
    for number, item in _json_lines(path, report):
        problem = "not a JSON line" if item is None else workload_problem(item)
        if problem is not None:
            if item is not None:
                report.bad(number, problem)
            out.append(None)
        else:
            out.append([item[0], item[1] if modules else ""])
    report.close()
    return out


def _record_lines(directory: Path, workloads: Sequence[Any], warn: Warn) -> Iterator[tuple[int, list[Any]]]:
    """(workload line, payload) of each valid record, streamed."""
    path = directory / RECORDS
    report = _Report(path, warn)
    for number, item in _json_lines(path, report):
        if item is None:
            continue
        problem = record_problem(item, workloads)
        if problem is not None:
            report.bad(number, problem)
            continue
        yield item[0], item[1]
    report.close()


@records.record
class Record:
    """One line of database_tuning_record.json, its workload given by key (not by line number)."""

    workload: str  # the workload's key: its structural hash and serialized module
    payload: list[Any]  # [trace, run_secs, target, args_info]

    @property
    def seconds(self) -> float | None:
        """Mean measured time; None for a failed or unmeasured candidate."""
        return _mean(self.payload[1] if len(self.payload) > 1 else None)

    @property
    def target(self) -> str:
        return json.dumps(self.payload[2] if len(self.payload) > 2 else None, sort_keys=True)

    @property
    def is_baseline(self) -> bool:
        """The untuned kernel a tuning run measures first (`worker.measure_baselines`): the default
        schedule, whose trace is the one instruction that gets the block. Kept so that compile applies
        a tuned kernel only where it is faster; never a tuning trial."""
        trace = self.payload[0] if self.payload else None
        instructions = trace[0] if isinstance(trace, list) and trace else None
        return (
            isinstance(instructions, list)
            and len(instructions) == 1
            and isinstance(instructions[0], list)
            and bool(instructions[0])
            and instructions[0][0] == "GetSBlock"
        )

    def line(self) -> str:
        return json.dumps(self.payload, separators=(",", ":"))


def _mean(runs: Any) -> float | None:
    if not isinstance(runs, list) or not runs:
        return None
    values = [float(v) for v in runs if type(v) in (int, float)]
    if not values or any(not math.isfinite(v) or v <= 0 or v >= FAILED for v in values):
        return None
    return sum(values) / len(values)


@records.record
class Database:
    """A MetaSchedule JSON database in memory: workloads in file order, records referring to them."""

    workloads: list[list[str]] = field(default_factory=list)  # [shash, module] lines, in order
    records: list[Record] = field(default_factory=list)

    @staticmethod
    def key(workload: Sequence[str]) -> str:
        return "\0".join(workload)

    def shash(self, key: str) -> str:
        return self.shash_of(key)

    @staticmethod
    def shash_of(key: str) -> str:
        return key.split("\0", 1)[0]

    def add(self, other: Database) -> int:
        """Add other's workloads and the records this one lacks (equal lines once); returns how many."""
        known = {self.key(w) for w in self.workloads}
        for workload in other.workloads:
            if self.key(workload) not in known:
                self.workloads.append(workload)
                known.add(self.key(workload))
        seen = {(r.workload, r.line()) for r in self.records}
        added = 0
        for record in other.records:
            if (record.workload, record.line()) not in seen:
                self.records.append(record)
                seen.add((record.workload, record.line()))
                added += 1
        return added

    def fastest(self) -> Database:
        """One record per workload and target: the fastest measured (failed ones only if nothing ran)."""
        best: dict[tuple[str, str], Record] = {}
        for record in self.records:
            slot = (record.workload, record.target)
            current = best.get(slot)
            if current is None or _faster(record, current):
                best[slot] = record
        return Database(list(self.workloads), list(best.values()))

    def trials(self) -> dict[str, int]:
        """Measured candidates per workload structural hash (failed measurements included; the
        untuned baseline is no trial)."""
        out: dict[str, int] = {}
        for record in self.records:
            if not record.is_baseline:
                out[self.shash(record.workload)] = out.get(self.shash(record.workload), 0) + 1
        return out

    def measured(self) -> dict[str, int]:
        """Successful measurements per workload structural hash: what counts as done. A failed
        one (MetaSchedule's 1e10 s: a build or run error, a timeout, a device not there) is not,
        nor the untuned baseline."""
        out: dict[str, int] = {}
        for record in self.records:
            if record.seconds is not None and not record.is_baseline:
                out[self.shash(record.workload)] = out.get(self.shash(record.workload), 0) + 1
        return out

    def best_seconds(self) -> dict[str, float | None]:
        out: dict[str, float | None] = {}
        for record in self.records:
            name = self.shash(record.workload)
            seconds = record.seconds
            old = out.get(name)
            out[name] = seconds if old is None or (seconds is not None and seconds < old) else old
        return out


def _faster(a: Record, b: Record) -> bool:
    sa, sb = a.seconds, b.seconds
    if sa is None:
        return False
    return sb is None or sa < sb


def read(directory: Path, warn: Warn) -> Database:
    """The JSON database in `directory` (missing files: empty); bad lines are skipped and named."""
    lines = _workload_lines(directory, warn)
    db = Database(workloads=[w for w in lines if w is not None])
    keys = [None if w is None else Database.key(w) for w in lines]
    for index, payload in _record_lines(directory, lines, warn):
        key = keys[index]
        if key is not None:
            db.records.append(Record(key, payload))
    return db


def problems(directory: Path) -> list[str]:
    """What `read` would skip in `directory` (empty: TVM can read the files as they are)."""
    found: list[str] = []
    read(directory, found.append)
    return found


def write(directory: Path, db: Database) -> None:
    """Replace the JSON database in `directory`: workloads first, then records (both atomically).

    Workloads are only ever appended, so a kill between the two renames leaves old records that
    still point at the right workload lines."""
    make_dir(directory)
    for name in (WORKLOADS, RECORDS):  # `db` was read from them: one this user cannot read held more
        problem = _unreadable_file(directory / name)
        if problem is not None:
            raise TvmcError(
                f"{problem}: not replaced (the records in it would be lost)",
                str(directory / name),
                hint=UNREADABLE_HINT,
            )
    index = {Database.key(w): i for i, w in enumerate(db.workloads)}
    workloads = "".join(json.dumps(w) + "\n" for w in db.workloads)
    records = "".join(f"[{index[r.workload]},{r.line()}]\n" for r in db.records)
    for name, text in ((WORKLOADS, workloads), (RECORDS, records)):
        write_atomic(directory / name, text, flag="tuning database")
        os.chmod(directory / name, 0o644)  # never writable by others, whatever the umask


UNREADABLE_HINT = "make it readable (another user's file, in a database shared by a group?), or move it away"


def _unreadable_file(path: Path) -> str | None:
    """Why an existing file cannot be read (EACCES: another user's file mode 0600 in a directory this
    user may write; EIO), or None when it can, or is missing. Reading it found no records, so
    replacing it with what was read would lose the ones it holds."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO opens at once
    except FileNotFoundError:
        return None
    except OSError as err:
        return f"cannot be read ({err.strerror or err})"
    os.close(fd)
    return None


@records.record
class Partition:
    root: Path
    fingerprint: str

    @property
    def path(self) -> Path:
        return self.root / self.fingerprint

    def meta(self) -> dict[str, Any]:
        """partition.json, checked: a broken one is a one-line error naming it."""
        path = self.path / META
        try:
            data = _small_json(path)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, RecursionError) as err:  # RecursionError: `[[[...`, another's file
            reason = _unreadable(err)
            raise TvmcError(f"cannot be read: {reason}", str(path), hint=META_HINT) from None
        problem = _meta_problem(data)
        if problem is not None:  # the path is the error's location: printed once, before the problem
            raise TvmcError(problem, str(path), hint=META_HINT)
        return dict(data)

    def write_meta(self, meta: Mapping[str, Any]) -> None:
        with locked(self.path):
            text = json.dumps(meta, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
            write_atomic(self.path / META, text, flag="tuning database")
            os.chmod(self.path / META, 0o644)

    def add_tasks(self, tasks: Mapping[str, str]) -> None:
        """Remember task names by workload hash (for `db list`/`show`)."""
        with locked(self.path):
            meta = self.meta()
            known = meta.setdefault("tasks", {})
            if all(known.get(k) == v for k, v in tasks.items()):
                return
            known.update(tasks)
            self.write_meta(meta)

    def database(self, warn: Warn) -> Database:
        with locked(self.path, shared=True):
            return read(self.path, warn)

    def runs(self) -> list[Path]:
        try:
            return sorted(p for p in self.path.iterdir() if p.name.startswith(RUN_PREFIX) and p.is_dir())
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as err:
            raise TvmcError(f"cannot read {self.path}: {err.strerror or err}", str(self.path)) from None


META_HINT = "fix or delete it (the records beside it are kept)"


def _unreadable(err: BaseException) -> str:
    """Why a small JSON file of the database cannot be read, in a few words."""
    if isinstance(err, RecursionError):
        return "nested too deeply"
    return getattr(err, "strerror", None) or str(err)


def _meta_problem(data: Any) -> str | None:
    if not isinstance(data, dict):
        return "not a JSON object"
    tasks = data.get("tasks", {})
    if not isinstance(tasks, dict) or not all(isinstance(v, str) for v in tasks.values()):
        return "'tasks' is not an object of task names"
    for key in ("key", "config"):
        if key in data and not isinstance(data[key], dict):
            return f"{key!r} is not an object"
    for key in ("description", "fingerprint"):
        if data.get(key) is not None and not isinstance(data[key], str):
            return f"{key!r} is not a string"
    sources = data.get("sources", [])
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        return "'sources' is not a list of config names and paths"
    return None


# ---- end-to-end verdicts ---------------------------------------------------------------------------

# Below this (untuned time / tuned time) compile leaves a model's records out. The ratio is the median
# of 5 interleaved rounds of both libraries (tvmc.tune.compare); on a shared machine a µs-scale model
# moves a few percent between runs, so within 5% of even is a tie: the records stay (they won each
# kernel against its untuned one), and only a clear loss (mlp.onnx: 0.90) builds untuned.
LOST_BELOW = 0.95


@records.record(frozen=True)
class Applied:
    """The records a tuned build of one model applies, as a verdict knows them: per workload of the
    model (its structural hash), the record MetaSchedule picks (the fastest; a baseline too), their
    count and the SHA-256 of their lines. A verdict decides only while the partition still gives
    these records: a `db merge`, a killed run merged or a tune without a new end-to-end measurement
    that changes one makes it stale."""

    workloads: tuple[str, ...]  # the model's tasks; empty: every workload of the partition
    records: int
    sha256: str


def fastest_per_workload(records: Iterable[Record], best: dict[str, Record] | None = None) -> dict[str, Record]:
    """The record MetaSchedule applies per workload key (its top-1: the least mean run_secs, the
    first of equals), over `records` in file order, added to `best`."""
    best = {} if best is None else best
    for record in records:
        current = best.get(record.workload)
        if current is None or _faster(record, current):
            best[record.workload] = record
    return best


def applied(db: Database | Mapping[str, Record], workloads: Iterable[str]) -> Applied:
    """What `db` applies for these workloads (all of them when none are given); `db` may be the
    `fastest_per_workload` of a database already (one pass over a huge one serves every verdict)."""
    wanted = tuple(sorted(set(workloads)))
    fastest = fastest_per_workload(db.records) if isinstance(db, Database) else db
    best = {k: r for k, r in fastest.items() if not wanted or Database.shash_of(k) in wanted}
    digest = hashlib.sha256()
    for key in sorted(best, key=lambda k: (Database.shash_of(k), k)):
        digest.update(f"{Database.shash_of(key)}\n{best[key].line()}\n".encode())
    return Applied(wanted, len(best), digest.hexdigest())


@records.record(frozen=True)
class Verdict:
    """What `tvmc tune` measured for one model (`model_id`) on its built libraries, and the records
    the tuned one applied (None: a verdict of a tvmc before the records were kept, never current)."""

    untuned_seconds: float
    tuned_seconds: float
    model: str = ""  # the model's file name, for the user
    records: Applied | None = None

    @property
    def ratio(self) -> float:
        """How many times faster the tuned library ran (below 1: slower)."""
        return self.untuned_seconds / self.tuned_seconds

    @property
    def lost(self) -> bool:
        return self.ratio < LOST_BELOW

    def current(self, db: Database | Mapping[str, Record]) -> bool:
        """Whether `db` (or its `fastest_per_workload`) still applies the records this verdict measured."""
        return self.records is not None and applied(db, self.records.workloads) == self.records

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "untuned-seconds": self.untuned_seconds,
            "tuned-seconds": self.tuned_seconds,
            "model": self.model,
        }
        if self.records is not None:
            out["records"] = self.records.records
            out["records-sha256"] = self.records.sha256
            out["workloads"] = list(self.records.workloads)
        return out


def model_id(path: str | os.PathLike[str], shapes: Mapping[str, Sequence[int | None]] | None) -> str | None:
    """A model as a verdict knows it: SHA-256 of its bytes and of the input shapes it was built
    for (not its path: a copy elsewhere is the same model). None when the file cannot be read."""
    from tvmc.backend.record import file_digest  # the manifest's model hash, computed alike

    try:
        model, _size = file_digest(Path(path))
    except OSError:
        return None
    given = {str(k): [None if d is None else int(d) for d in v] for k, v in (shapes or {}).items()}
    text = json.dumps(given, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{model}\n{text}".encode()).hexdigest()


def _verdict_problem(item: Any) -> str | None:
    if not isinstance(item, dict):
        return "not an object"
    for key in ("untuned-seconds", "tuned-seconds"):
        value = item.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
            return f"{key!r} is not a finite positive number of seconds"
    if not isinstance(item.get("model", ""), str):
        return "'model' is not a string"
    if any(k in item for k in ("records", "records-sha256", "workloads")):
        count, digest, workloads = item.get("records"), item.get("records-sha256"), item.get("workloads", [])
        if type(count) is not int or count < 0:
            return "'records' is not a count of records"
        if not (isinstance(digest, str) and _is_hex_digest(digest)):
            return "'records-sha256' is not a SHA-256"
        if not (isinstance(workloads, list) and all(isinstance(w, str) and w.isdigit() for w in workloads)):
            return "'workloads' is not a list of structural hashes"
    return None


def _applied_of(item: Mapping[str, Any]) -> Applied | None:
    if "records-sha256" not in item:
        return None
    return Applied(tuple(sorted(set(item.get("workloads", [])))), int(item["records"]), str(item["records-sha256"]))


def _is_hex_digest(key: str) -> bool:
    return len(key) == 64 and all(c in "0123456789abcdef" for c in key)


def read_verdicts(directory: Path, warn: Warn) -> dict[str, Verdict]:
    """verdicts.json of a partition, checked like records: a broken file, or a bad entry, is skipped
    with a warning naming the file (and the entry); missing: none."""
    path = directory / VERDICTS
    try:
        data = _small_json(path)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError) as err:
        reason = _unreadable(err)
        warn(f"{path}: cannot be read ({reason}): skipped (tvmc tune measures it again)")
        return {}
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict):
        warn(f"{path}: not an object of models: skipped (tvmc tune measures it again)")
        return {}
    out: dict[str, Verdict] = {}
    for key, item in models.items():
        problem = "its key is not a SHA-256" if not _is_hex_digest(key) else _verdict_problem(item)
        if problem is not None:
            warn(f"{path}: model {key[:16]!r}: {problem}: skipped")
            continue
        out[key] = Verdict(
            float(item["untuned-seconds"]), float(item["tuned-seconds"]), str(item.get("model", "")), _applied_of(item)
        )
    return out


def write_verdict(partition: Partition, key: str, verdict: Verdict, warn: Warn) -> None:
    """Store (replace) the verdict of one model, under the partition's lock, the file replaced whole.
    A verdicts.json this user cannot read is an error naming it, and stays as it is."""
    with locked(partition.path):
        _refuse_unreadable_verdicts(partition.path)
        known = read_verdicts(partition.path, warn)
        known[key] = verdict
        _write_verdicts(partition.path, known)


def _refuse_unreadable_verdicts(directory: Path) -> None:
    """An error naming verdicts.json when it is there but this user cannot read it (another user's
    file of mode 0600 in a database a group shares): read, it gave no verdict, so replacing (or
    removing) it with what was read would lose every verdict in it."""
    path = directory / VERDICTS
    problem = _unreadable_file(path)
    if problem is not None:
        raise TvmcError(f"{problem}: not replaced (the verdicts in it would be lost)", str(path), hint=UNREADABLE_HINT)


def _write_verdicts(directory: Path, known: Mapping[str, Verdict]) -> None:
    """verdicts.json replaced whole (removed when no verdict is left); the caller holds the lock,
    and has refused one this user cannot read before reading it (`_refuse_unreadable_verdicts`)."""
    path = directory / VERDICTS
    if not known:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    doc = {"models": {k: v.to_dict() for k, v in sorted(known.items())}}
    write_atomic(path, json.dumps(doc, indent=2) + "\n", flag="tuning database", mode=0o644)


def model_verdict(
    partition: Partition, model: str | os.PathLike[str], shapes: Mapping[str, Sequence[int | None]] | None, warn: Warn
) -> tuple[str, Verdict] | None:
    """The partition's verdict of this model (the model's key, as `model_id`, and the verdict);
    None when it has none. The model is hashed only when the partition has verdicts (most have
    none, and a model is megabytes)."""
    known = read_verdicts(partition.path, warn)
    if not known:
        return None
    key = model_id(model, shapes)
    verdict = known.get(key) if key is not None else None
    return None if key is None or verdict is None else (key, verdict)


def stale_verdict(
    partition: Partition, model: str | os.PathLike[str], shapes: Mapping[str, Sequence[int | None]] | None, warn: Warn
) -> bool:
    """Whether the model has a verdict that the partition's records no longer match (a tune whose
    tasks are all done measures the model again then)."""
    found = model_verdict(partition, model, shapes, warn)
    return found is not None and not found[1].current(partition.database(warn))


def forget_verdicts(partition: Partition, prefix: str | None, warn: Warn) -> dict[str, Verdict]:
    """Remove the verdicts whose model key starts with `prefix` (all of the partition's without one);
    returns those removed. A prefix that names none is an error naming the partition."""
    if prefix is not None and (not prefix or any(c not in "0123456789abcdef" for c in prefix.lower())):
        raise UsageError(f"{prefix!r} is not a verdict's key (hexadecimal, as tvmc tune db show lists it)", "KEY")
    with locked(partition.path):
        _refuse_unreadable_verdicts(partition.path)
        known = read_verdicts(partition.path, warn)
        gone = {k: v for k, v in known.items() if prefix is None or k.startswith(prefix.lower())}
        if prefix is not None and not gone:
            raise TvmcError(
                f"no verdict {prefix} in {partition.path}",
                "KEY",
                hint=f"list them with: tvmc tune db show {partition.fingerprint[:16]}",
            )
        if prefix is not None and len(gone) > 1:
            names = ", ".join(k[:16] for k in sorted(gone))
            raise UsageError(f"{prefix} names {len(gone)} verdicts ({names}): give more digits", "KEY")
        if gone or (partition.path / VERDICTS).exists():
            _write_verdicts(partition.path, {k: v for k, v in known.items() if k not in gone})
    return gone


# ---- runs -----------------------------------------------------------------------------------------

_own_runs: dict[str, int] = {}  # run directories this process holds → the descriptor of their lock


def start_run(partition: Partition) -> tuple[Path, int]:
    """A new run directory of this process in the partition, and the descriptor of its lock (held
    until `end_run`; give it to the run's child too, so that the lock lives as long as either).

    The lock is taken before the directory gets its `.run-` name, so `recover` never sees a run
    without its lock held; a unique name, as PIDs of other namespaces can be equal."""
    make_dir(partition.path)
    try:
        staging = Path(tempfile.mkdtemp(prefix=".new-run-", dir=partition.path))  # 0700
        fd = os.open(staging / LOCK, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as err:
        raise TvmcError(f"cannot start a run in {partition.path}: {err.strerror or err}", str(partition.path)) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        run = partition.path / f"{RUN_PREFIX}{os.getpid()}-{os.urandom(4).hex()}"
        os.rename(staging, run)
    except OSError as err:
        os.close(fd)
        shutil.rmtree(staging, ignore_errors=True)
        raise TvmcError(f"cannot start a run in {partition.path}: {err.strerror or err}", str(partition.path)) from None
    _own_runs[os.path.abspath(run)] = fd
    return run, fd


def end_run(run: Path) -> None:
    """Let go of this process's lock on `run` (merged by then, or left for the next command)."""
    fd = _own_runs.pop(os.path.abspath(run), None)
    if fd is not None:
        os.close(fd)


def _run_alive(run: Path) -> bool:
    """Whether a run's writer lives: its lock is held. A run without a lock file (of a tvmc before
    the lock), or whose lock this user cannot open (another user's run), is judged by the PID in
    its name; when it cannot tell, it says yes: the run is left alone."""
    try:
        fd = os.open(run / LOCK, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        digits = run.name[len(RUN_PREFIX) :].split("-", 1)[0]
        return digits.isdigit() and process_alive(int(digits))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def recover(partition: Partition, warn: Warn, *, finished: Path | None = None) -> int:
    """Merge the records of killed runs (`.run-*` whose lock nobody holds) into the partition;
    returns how many records were new. `finished` is this process's own run, ended: merged though
    its lock is ours; this process's other runs are left alone, as are live runs of others. A run
    another user could have written is not merged (named in a warning) and left in place."""
    if not partition.runs():
        return 0
    added = 0
    own = None if finished is None else os.path.abspath(finished)
    with locked(partition.path):
        for run in partition.runs():  # again under the lock: another command may have merged them
            key = os.path.abspath(run)
            if key in _own_runs:
                if key != own:
                    continue
            elif _run_alive(run):
                continue
            problem = _untrusted_dir(run, (WORKLOADS, RECORDS, TASKS))
            if problem is not None:
                warn(f"{problem}: its records are not merged into {partition.path}")
                continue
            scratch = read(run, warn)
            tasks = _task_names(run)
            if scratch.records or scratch.workloads:
                bad = _Counted(warn)
                db = read(partition.path, bad)
                before = len(db.workloads)
                new = db.add(scratch)
                if new or len(db.workloads) != before or bad.count:  # bad lines are dropped when it is rewritten
                    write(partition.path, db)
                added += new
            if tasks:
                partition.add_tasks(tasks)
            shutil.rmtree(run, ignore_errors=True)
    return added


TASKS = "tasks.json"


def _task_names(run: Path) -> dict[str, str]:
    try:
        data = _small_json(run / TASKS)
    except (OSError, ValueError, RecursionError):  # RecursionError: nested thousands deep; names are labels
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def partitions(root: Path) -> list[Partition]:
    """Every partition in a database directory (a directory holding partition.json or MetaSchedule files)."""
    if root.exists() and not root.is_dir():
        raise UsageError("not a directory (a tuning database is one)", str(root))
    if not root.is_dir():
        return []
    out = []
    try:
        entries = sorted(root.iterdir())
    except OSError as err:
        raise TvmcError(f"cannot read {root}: {err.strerror or err}", str(root)) from None
    for path in entries:
        if path.is_dir() and not path.name.startswith(".") and _is_partition(path):
            out.append(Partition(root, path.name))
    return out


def _is_partition(path: Path) -> bool:
    try:
        return any((path / name).exists() for name in (META, WORKLOADS, RECORDS)) or any(
            p.name.startswith(RUN_PREFIX) for p in path.iterdir()
        )
    except OSError:
        return True  # listed, so that reading it says what is wrong


def find(root: Path, prefix: str) -> Partition:
    """The partition whose fingerprint starts with `prefix` (a unique prefix is enough)."""
    if not prefix or any(c not in "0123456789abcdef" for c in prefix.lower()):
        raise UsageError(f"{prefix!r} is not a fingerprint (hexadecimal)", "FINGERPRINT")
    matches = [p for p in partitions(root) if p.fingerprint.startswith(prefix.lower())]
    if not matches:
        raise TvmcError(f"no partition {prefix} in {root}", "FINGERPRINT", hint="list them with: tvmc tune db list")
    if len(matches) > 1:
        names = ", ".join(p.fingerprint[:16] for p in matches)
        raise UsageError(f"{prefix} names {len(matches)} partitions ({names}): give more digits", "FINGERPRINT")
    return matches[0]


@records.record
class TaskSummary:
    name: str
    shash: str
    trials: int
    best_seconds: float | None


def summary(partition: Partition, warn: Warn, fastest: dict[str, Record] | None = None) -> list[TaskSummary]:
    """Tasks of a partition (named when a tune run recorded the name) with trials and best latency.
    Streamed: only counts are kept, never the traces or the modules. With `fastest`, the same pass
    fills it with the partition's `fastest_per_workload` (what verdicts compare with): a huge
    database is read once."""
    names = partition.meta().get("tasks", {})
    with locked(partition.path, shared=True):
        lines = _workload_lines(partition.path, warn, modules=fastest is not None)
        keys = [None if w is None else Database.key(w) for w in lines]
        trials: dict[int, int] = {}
        best: dict[int, float] = {}
        for index, payload in _record_lines(partition.path, lines, warn):
            trials[index] = trials.get(index, 0) + 1
            seconds = _mean(payload[1])
            if seconds is not None and seconds < best.get(index, math.inf):
                best[index] = seconds
            key = keys[index]
            if fastest is not None and key is not None:
                fastest_per_workload((Record(key, payload),), fastest)
    out: list[TaskSummary] = []
    seen: dict[str, int] = {}
    for index, workload in enumerate(lines):
        if workload is None:
            continue
        shash = workload[0]
        if shash in seen:  # the same kernel twice (TVM keeps both lines): one row
            row = out[seen[shash]]
            row.trials += trials.get(index, 0)
            if index in best and (row.best_seconds is None or best[index] < row.best_seconds):
                row.best_seconds = best[index]
            continue
        seen[shash] = len(out)
        out.append(TaskSummary(str(names.get(shash, "?")), shash, trials.get(index, 0), best.get(index)))
    return out


def merge(
    sources: Iterable[Path], destination: Path, warn: Warn, verdicts: dict[str, tuple[int, int]] | None = None
) -> dict[str, int]:
    """Merge databases (directories of partitions) into `destination`: per partition, the
    sources' fastest record per workload and target is added; the destination's own records are
    all kept (never lost to a merge). Each destination partition is locked for its read-add-write.
    A source partition another user owns or could write is not merged (warned). Returns the
    records each destination partition holds afterwards, per fingerprint.

    Verdicts (the sources' and the destination's, the destination's first for a model both have)
    are kept where the merged partition still applies the records they measured, and dropped
    where it does not (the merge brought faster records: tune measures them again). `verdicts`,
    when given, gets (kept, dropped) per fingerprint that had any."""
    written: dict[str, int] = {}
    merged: dict[str, tuple[Database, dict[str, Any]]] = {}
    judged: dict[str, dict[str, Verdict]] = {}
    for source in sources:
        if not source.is_dir():
            raise UsageError(f"{source} is not a directory", "SRC")
        found = partitions(source)
        if not found:
            raise TvmcError(f"{source} holds no tuning partitions", "SRC")
        for part in found:
            problem = _untrusted_dir(part.path, (WORKLOADS, RECORDS, META, VERDICTS))
            if problem is not None:
                warn(f"{problem}: not merged (copy it to a directory of your own to merge it)")
                continue
            recover(part, warn)
            db, meta = merged.setdefault(part.fingerprint, (Database(), {}))
            with locked(part.path, shared=True):
                db.add(read(part.path, warn))
                other = part.meta()
                for key, verdict in read_verdicts(part.path, warn).items():
                    judged.setdefault(part.fingerprint, {}).setdefault(key, verdict)
            tasks = {**meta.get("tasks", {}), **other.get("tasks", {})}
            meta.update(other)
            meta["tasks"] = tasks
    for fingerprint, (db, meta) in merged.items():
        part = Partition(destination, fingerprint)
        recover(part, warn)
        with locked(part.path):
            kept = read(part.path, warn)
            kept.add(db.fastest())
            write(part.path, kept)
            old = part.meta()
            tasks = {**old.get("tasks", {}), **meta.get("tasks", {})}
            part.write_meta({**old, **meta, "tasks": tasks})
            problem = _unreadable_file(part.path / VERDICTS)
            if problem is not None:  # the records are merged; the verdicts it holds must not be lost
                warn(f"{part.path / VERDICTS}: {problem}: left as it is, no verdict merged into it; {UNREADABLE_HINT}")
                written[fingerprint] = len(kept.records)
                continue
            own, theirs = read_verdicts(part.path, warn), judged.get(fingerprint, {})
            if own or theirs:
                current: dict[str, Verdict] = {}
                for key in {*own, *theirs}:
                    fresh = [v for v in (own.get(key), theirs.get(key)) if v is not None and v.current(kept)]
                    if fresh:
                        current[key] = fresh[0]
                _write_verdicts(part.path, current)
                if verdicts is not None:
                    verdicts[fingerprint] = (len(current), len({*own, *theirs}) - len(current))
        written[fingerprint] = len(kept.records)
    return written


def export(partition: Partition, directory: Path, warn: Warn) -> int:
    """Write the partition as a plain MetaSchedule database (the two JSON files) into `directory`.

    Not into the partition itself, or a folder inside it (a `.run-*` one is merged as a killed run),
    nor into another tuning partition: export replaces the files there, which would rewrite a
    partition without its lock (losing what another command adds meanwhile) or lose its records."""
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory} is not a directory", "-o")
    own, target = partition.path.resolve(), directory.resolve()  # a symbolic link or `..` is the same folder
    if target == own or own in target.parents:
        where = "the partition's own folder" if target == own else f"inside the partition's folder {own}"
        raise UsageError(f"{directory} is {where}: export writes a copy elsewhere", "-o")
    if (target / META).exists():
        raise UsageError(
            f"{directory} is a tuning partition (it holds {META}): export would replace its records",
            "-o",
            hint="merge into a database with: tvmc tune db merge",
        )
    recover(partition, warn)
    db = partition.database(warn)
    write(directory, db)
    return len(db.records)


def clean_copy(partition: Partition, directory: Path, warn: Warn) -> int:
    """The partition's valid records, written to `directory` for TVM to read (TVM's JSONDatabase
    fails on the first bad line, naming neither the file nor the line); returns how many."""
    db = partition.database(warn)
    write(directory, db)
    return len(db.records)


def remove(partition: Partition) -> None:
    with locked(partition.path), contextlib.suppress(FileNotFoundError):
        shutil.rmtree(partition.path)


def format_seconds(seconds: float | None) -> str:
    if seconds is None or math.isnan(seconds):
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.4g} us"
    return f"{seconds * 1e3:.4g} ms"
