"""The tuning database directory. No TVM here: MetaSchedule's JSON files are read and written as text.

    DB/                                  --database DIR, TVMC_TUNING_DB, or ~/.cache/tvmc/tuning
      <target fingerprint>/              one partition per target fingerprint (tvmc.tune.fingerprint)
        partition.json                   the canonical config it came from, its target key, task names
        database_workload.json           MetaSchedule's JSONDatabase files: TVM reads the partition
        database_tuning_record.json      directly, ms.database.JSONDatabase(work_dir=PARTITION)
        .run-<pid>/                      a tuning run in progress (or killed): its own JSONDatabase

A partition's files are only ever replaced whole (written to a temporary file, renamed), so a killed
process never leaves half a file in them. A tuning run appends to its own `.run-PID` directory;
when it ends, or when the next command finds it left by a killed run, its complete lines are
merged into the partition (`recover`): what was measured before a Ctrl-C or a SIGKILL is kept.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tvmc.errors import TvmcError, UsageError
from tvmc.fileio import process_alive, write_atomic

ENV = "TVMC_TUNING_DB"
WORKLOADS = "database_workload.json"
RECORDS = "database_tuning_record.json"
META = "partition.json"
RUN_PREFIX = ".run-"
FAILED = 1e9  # MetaSchedule records a failed measurement as 1e10 seconds


def default_root(env: Mapping[str, str] | None = None) -> Path:
    """TVMC_TUNING_DB, else the user cache directory's tvmc/tuning."""
    env = os.environ if env is None else env
    if env.get(ENV):
        return Path(env[ENV])
    cache = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".cache")
    return Path(cache) / "tvmc" / "tuning"


@dataclass
class Record:
    """One line of database_tuning_record.json, its workload given by key (not by line number)."""

    workload: str  # the workload's key: its structural hash and serialized module
    payload: list[Any]  # [trace, run_secs, target, args_info]

    @property
    def seconds(self) -> float | None:
        """Mean measured time; None for a failed or unmeasured candidate."""
        runs = self.payload[1] if len(self.payload) > 1 else None
        if not isinstance(runs, list) or not runs:
            return None
        values = [float(v) for v in runs if isinstance(v, int | float)]
        if not values or max(values) >= FAILED:
            return None
        return sum(values) / len(values)

    @property
    def target(self) -> str:
        return json.dumps(self.payload[2] if len(self.payload) > 2 else None, sort_keys=True)

    def line(self) -> str:
        return json.dumps(self.payload, separators=(",", ":"))


@dataclass
class Database:
    """A MetaSchedule JSON database in memory: workloads in file order, records referring to them."""

    workloads: list[list[str]] = field(default_factory=list)  # [shash, module] lines, in order
    records: list[Record] = field(default_factory=list)

    @staticmethod
    def key(workload: Sequence[str]) -> str:
        return "\0".join(workload)

    def shash(self, key: str) -> str:
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
        """Measured candidates per workload structural hash."""
        out: dict[str, int] = {}
        for record in self.records:
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


def _lines(path: Path) -> list[Any]:
    """The complete JSON lines of a file; a torn last line (a killed writer) and blank lines are skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as err:
        raise TvmcError(f"cannot read {path}: {err}", str(path)) from None
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def read(directory: Path) -> Database:
    """The JSON database in `directory` (missing files: empty)."""
    db = Database()
    for item in _lines(directory / WORKLOADS):
        if isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item):
            db.workloads.append([item[0], item[1]])
    keys = [Database.key(w) for w in db.workloads]
    for item in _lines(directory / RECORDS):
        if (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], int)
            and 0 <= item[0] < len(keys)
            and isinstance(item[1], list)
        ):
            db.records.append(Record(keys[item[0]], item[1]))
    return db


def write(directory: Path, db: Database) -> None:
    """Replace the JSON database in `directory`: workloads first, then records (both atomically).

    Workloads are only ever appended, so a kill between the two renames leaves old records that
    still point at the right workload lines."""
    directory.mkdir(parents=True, exist_ok=True)
    index = {Database.key(w): i for i, w in enumerate(db.workloads)}
    workloads = "".join(json.dumps(w) + "\n" for w in db.workloads)
    records = "".join(f"[{index[r.workload]},{r.line()}]\n" for r in db.records)
    write_atomic(directory / WORKLOADS, workloads, flag="tuning database")
    write_atomic(directory / RECORDS, records, flag="tuning database")


@dataclass
class Partition:
    root: Path
    fingerprint: str

    @property
    def path(self) -> Path:
        return self.root / self.fingerprint

    def meta(self) -> dict[str, Any]:
        path = self.path / META
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as err:
            raise TvmcError(f"cannot read {path}: {err}", str(path)) from None
        return data if isinstance(data, dict) else {}

    def write_meta(self, meta: Mapping[str, Any]) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        text = json.dumps(meta, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        write_atomic(self.path / META, text, flag="tuning database")

    def add_tasks(self, tasks: Mapping[str, str]) -> None:
        """Remember task names by workload hash (for `db list`/`show`)."""
        meta = self.meta()
        known = meta.setdefault("tasks", {})
        if all(known.get(k) == v for k, v in tasks.items()):
            return
        known.update(tasks)
        self.write_meta(meta)

    def database(self) -> Database:
        return read(self.path)

    def runs(self) -> list[Path]:
        if not self.path.is_dir():
            return []
        return sorted(p for p in self.path.iterdir() if p.name.startswith(RUN_PREFIX) and p.is_dir())


def recover(partition: Partition, *, include_own: bool = False) -> int:
    """Merge the records of finished or killed runs (`.run-PID`) into the partition; returns how many
    records were new. A run whose process still lives is left alone (unless it is ours and done)."""
    added = 0
    for run in partition.runs():
        try:
            pid = int(run.name[len(RUN_PREFIX) :])
        except ValueError:
            pid = -1
        if pid > 0 and process_alive(pid) and not (include_own and pid == os.getpid()):
            continue
        scratch = read(run)
        tasks = _task_names(run)
        if scratch.records or scratch.workloads:
            db = partition.database()
            new = db.add(scratch)
            if new or len(db.workloads) != len(read(partition.path).workloads):
                write(partition.path, db)
            added += new
        if tasks:
            partition.add_tasks(tasks)
        shutil.rmtree(run, ignore_errors=True)
    return added


TASKS = "tasks.json"


def _task_names(run: Path) -> dict[str, str]:
    try:
        data = json.loads((run / TASKS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def partitions(root: Path) -> list[Partition]:
    """Every partition in a database directory (a directory holding partition.json or MetaSchedule files)."""
    if not root.is_dir():
        return []
    out = []
    for path in sorted(root.iterdir()):
        if path.is_dir() and not path.name.startswith(".") and _is_partition(path):
            out.append(Partition(root, path.name))
    return out


def _is_partition(path: Path) -> bool:
    return any((path / name).is_file() for name in (META, WORKLOADS, RECORDS)) or any(
        p.name.startswith(RUN_PREFIX) for p in path.iterdir()
    )


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


@dataclass
class TaskSummary:
    name: str
    shash: str
    trials: int
    best_seconds: float | None


def summary(partition: Partition) -> list[TaskSummary]:
    """Tasks of a partition (named when a tune run recorded the name) with trials and best latency."""
    db = partition.database()
    names = partition.meta().get("tasks", {})
    trials = db.trials()
    best = db.best_seconds()
    out = []
    for workload in db.workloads:
        shash = workload[0]
        out.append(TaskSummary(str(names.get(shash, "?")), shash, trials.get(shash, 0), best.get(shash)))
    return out


def merge(sources: Iterable[Path], destination: Path) -> dict[str, int]:
    """Merge databases (directories of partitions) into `destination`: per partition, one record
    per workload and target, the fastest kept. Returns records written per fingerprint."""
    written: dict[str, int] = {}
    merged: dict[str, tuple[Database, dict[str, Any]]] = {}
    for source in sources:
        if not source.is_dir():
            raise UsageError(f"{source} is not a directory", "SRC")
        found = partitions(source)
        if not found:
            raise TvmcError(f"{source} holds no tuning partitions", "SRC")
        for part in found:
            recover(part)
            db, meta = merged.setdefault(part.fingerprint, (Database(), {}))
            db.add(part.database())
            other = part.meta()
            tasks = {**meta.get("tasks", {}), **other.get("tasks", {})}
            meta.update(other)
            meta["tasks"] = tasks
    for fingerprint, (db, meta) in merged.items():
        part = Partition(destination, fingerprint)
        recover(part)
        db.add(part.database())
        best = db.fastest()
        write(part.path, best)
        old = part.meta()
        tasks = {**old.get("tasks", {}), **meta.get("tasks", {})}
        part.write_meta({**old, **meta, "tasks": tasks})
        written[fingerprint] = len(best.records)
    return written


def export(partition: Partition, directory: Path) -> int:
    """Write the partition as a plain MetaSchedule database (the two JSON files) into `directory`."""
    recover(partition)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory} is not a directory", "-o")
    db = partition.database()
    write(directory, db)
    return len(db.records)


def remove(partition: Partition) -> None:
    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(partition.path)


def format_seconds(seconds: float | None) -> str:
    if seconds is None or math.isnan(seconds):
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.4g} us"
    return f"{seconds * 1e3:.4g} ms"
