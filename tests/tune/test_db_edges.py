"""The tuning database's files as another's hostile input, found by the edges fault campaign: a line
nested thousands deep (json's RecursionError) is one bad line, named, not the whole command's
unattributed error; a broken partition.json names its path once; text from the files (a
description, a task name, a verdict's model, a source path) never forges an output line or reaches
the terminal as an escape sequence."""

from __future__ import annotations

import base64
import errno
import json
import os
import struct
from pathlib import Path
from typing import Any

import pytest
import typer
from test_store import record, workload, write_db
from tvmc.tune import store
from typer.testing import CliRunner

FP = "cd" * 32
DEEP = "[" * 100_000 + "]" * 100_000  # json.loads recurses once per level: a RecursionError


def db(root: Path) -> Path:
    """A partition of two workloads with one record each."""
    write_db(root / FP, [workload(0), workload(1)], [(0, record(1e-5)), (1, record(2e-5))])
    return root / FP


def tvmc(app: typer.Typer, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    assert "Traceback" not in result.output and not isinstance(result.exception, RecursionError), result.output
    return result.exit_code, result.output


def test_a_deeply_nested_line_is_one_bad_line_named_with_its_file(app: typer.Typer, tmp_path: Path) -> None:
    part = db(tmp_path)
    with (part / store.RECORDS).open("a") as records:
        records.write(DEEP + "\n")
    deep_module = base64.b64encode(struct.pack("<Q", len(DEEP)) + DEEP.encode()).decode()
    with (part / store.WORKLOADS).open("a") as workloads:
        workloads.write(DEEP + "\n" + json.dumps(["1009", deep_module]) + "\n")
    said: list[str] = []
    kept = store.read(part, said.append)
    assert len(kept.records) == 2  # the good ones: one bad line does not lose the file
    assert said == [
        f"{part / store.WORKLOADS}:3: nested too deeply: skipped",
        f"{part / store.WORKLOADS}:4: its module is nested too deeply: skipped",
        f"{part / store.RECORDS}:3: nested too deeply: skipped",
    ]
    for args in (["list"], ["show", FP[:8]], ["export", FP[:8], "-o", str(tmp_path / "out")]):
        code, output = tvmc(app, "tune", "db", *args, "--database", str(tmp_path))
        assert code == 0, output  # was 1: 'tvmc: error: input is nested too deeply', naming no file
        assert f"{part / store.RECORDS}:3: nested too deeply: skipped" in output
    code, output = tvmc(app, "tune", "db", "merge", str(tmp_path), "-o", str(tmp_path / "merged"))
    assert code == 0, output
    assert len(store.read(tmp_path / "merged" / FP, said.append).records) == 2


def test_deeply_nested_partition_and_verdict_files_are_named(app: typer.Typer, tmp_path: Path) -> None:
    part = db(tmp_path)
    (part / store.VERDICTS).write_text(DEEP)
    said: list[str] = []
    assert store.read_verdicts(part, said.append) == {}
    assert said == [
        f"{part / store.VERDICTS}: cannot be read (nested too deeply): skipped (tvmc tune measures it again)"
    ]
    (part / store.META).write_text(DEEP)
    code, output = tvmc(app, "tune", "db", "show", FP[:8], "--database", str(tmp_path))
    assert code == 1
    assert f"{part / store.META}: cannot be read: nested too deeply; fix or delete it" in output


def test_a_broken_partition_json_names_its_path_once(app: typer.Typer, tmp_path: Path) -> None:
    part = db(tmp_path)
    (part / store.META).write_text("[]")
    for args in (["list"], ["show", FP[:8]]):
        code, output = tvmc(app, "tune", "db", *args, "--database", str(tmp_path))
        assert code == 1
        assert f"{part / store.META}: not a JSON object; fix or delete it" in output
        assert output.count(str(part / store.META)) == 1, output  # was 'PATH: PATH: not a JSON object'


def test_text_from_the_database_files_is_shown_on_one_printable_line(app: typer.Typer, tmp_path: Path) -> None:
    part = db(tmp_path)
    forged = "x\n::error file=evil.py::PWNED\x1b[2J"
    meta = {"description": forged, "tasks": {"1000": forged}, "sources": [f"/gone/{forged}.toml"]}
    (part / store.META).write_text(json.dumps(meta))
    store.write_verdict(store.Partition(tmp_path, FP), "ef" * 32, store.Verdict(1e-6, 2e-6, forged), print)
    outputs = [
        tvmc(app, "tune", "db", *args, "--database", str(tmp_path))
        for args in (["list"], ["show", FP[:8]], ["prune", "--dry-run", "--isolated"])
    ]
    for code, output in outputs:
        assert code == 0, output
        assert "\x1b" not in output and not any(line.startswith("::error") for line in output.splitlines())
    shown = "x\\n::error file=evil.py::PWNED\\x1b[2J"
    assert shown in outputs[0][1]  # the description
    assert outputs[1][1].count(shown) == 3  # the description, the task name, the verdict's model
    assert f"/gone/{shown}.toml" in outputs[2][1]  # the source it was tuned with, in prune's reason


def lock_out(monkeypatch: pytest.MonkeyPatch, locked_out: Path) -> None:
    """Opening `locked_out` fails with EACCES, as another user's file of mode 0600 does (simulated:
    root, which runs some suites, reads any file)."""
    real_open, real_path_open = os.open, Path.open

    def no_access(path: str | os.PathLike[str], flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(path) == locked_out:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    def no_path_access(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == locked_out:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_path_open(self, *args, **kwargs)

    monkeypatch.setattr(store.os, "open", no_access)
    monkeypatch.setattr(Path, "open", no_path_access)


def test_a_records_file_this_user_cannot_read_is_never_replaced(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a database a group shares, another user's records file of mode 0600 cannot be read: its
    records were 'not used' (a warning), and merge, or recovering a killed run, then replaced the
    file with what it had read, losing every record in it. Now the file is left as it is, named.
    (EACCES is simulated: root, which runs some suites, reads any file.)"""
    dst = db(tmp_path / "dst")
    src = tmp_path / "src"
    write_db(src / FP, [workload(2)], [(0, record(3e-5))])
    theirs = (dst / store.RECORDS).read_bytes()
    lock_out(monkeypatch, dst / store.RECORDS)
    code, output = tvmc(app, "tune", "db", "merge", str(src), "-o", str(tmp_path / "dst"))
    assert code == 1
    assert (
        f"{dst / store.RECORDS}: cannot be read (Permission denied): not replaced (the records in it would be lost)"
        in output
    )
    monkeypatch.undo()
    assert (dst / store.RECORDS).read_bytes() == theirs


def test_a_verdicts_file_this_user_cannot_read_is_never_replaced(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """verdicts.json of another user, mode 0600, in a database a group shares: reading it gave no
    verdict (a warning), and storing a tune's verdict, forget-verdict or a merge then replaced (or
    removed) it with what had been read, losing every verdict in it. Now it stays as it is, named."""
    part = store.Partition(tmp_path / "dst", FP)
    db(part.root)
    store.write_verdict(part, "ef" * 32, store.Verdict(1e-6, 2e-6, "m.onnx"), pytest.fail)
    theirs = (part.path / store.VERDICTS).read_bytes()
    src = tmp_path / "src"
    write_db(src / FP, [workload(2)], [(0, record(3e-5))])
    lock_out(monkeypatch, part.path / store.VERDICTS)
    refused = f"{part.path / store.VERDICTS}: cannot be read (Permission denied): not replaced"
    with pytest.raises(store.TvmcError) as raised:
        store.write_verdict(part, "12" * 32, store.Verdict(1e-6, 1e-6, "n.onnx"), pytest.fail)
    assert raised.value.one_line().startswith(refused + " (the verdicts in it would be lost); make it readable")
    for key in ([], ["ef"]):
        code, output = tvmc(app, "tune", "db", "forget-verdict", FP[:8], *key, "--database", str(part.root))
        assert code == 1 and refused in output and len(output.splitlines()) == 1, output
    code, output = tvmc(app, "tune", "db", "merge", str(src), "-o", str(part.root))
    assert code == 0, output  # the records are merged; the verdicts are left, named
    assert f"{part.path / store.VERDICTS}: cannot be read (Permission denied): left as it is" in output
    monkeypatch.undo()
    assert (part.path / store.VERDICTS).read_bytes() == theirs
    assert len(store.read(part.path, pytest.fail).records) == 3


def test_export_never_writes_into_a_partition(app: typer.Typer, tmp_path: Path) -> None:
    """`db export -o` the partition's own folder rewrote the partition without its lock (a tune or
    merge adding records meanwhile lost them); a folder inside it, named `.run-*`, was merged as a
    killed run; another partition lost its records. Each is refused, one line naming -o."""
    part = db(tmp_path)
    other = tmp_path / ("ab" * 32)
    write_db(other, [workload(2)], [(0, record(3e-5))])
    (other / store.META).write_text("{}")
    before = {p: p.read_bytes() for p in (*part.iterdir(), *other.iterdir()) if p.is_file()}
    (tmp_path / "link").symlink_to(part)
    refused = {
        str(part): f"{part} is the partition's own folder: export writes a copy elsewhere",
        str(tmp_path / "link"): f"{tmp_path / 'link'} is the partition's own folder",
        f"{part}/x/../": f"{part}/x/.. is the partition's own folder",
        str(part / ".run-999000001"): f"{part / '.run-999000001'} is inside the partition's folder {part}",
        str(part / "copy"): f"{part / 'copy'} is inside the partition's folder {part}",
        str(other): f"{other} is a tuning partition (it holds {store.META}): export would replace its records",
    }
    for target, message in refused.items():
        code, output = tvmc(app, "tune", "db", "export", FP[:8], "-o", target, "--database", str(tmp_path))
        assert code == 2, output
        assert output.startswith(f"tvmc: error: -o: {message}") and len(output.splitlines()) == 1, output
    assert {p: p.read_bytes() for p in before} == before
    assert not (part / ".run-999000001").exists() and not (part / "copy").exists()
    code, output = tvmc(app, "tune", "db", "export", FP[:8], "-o", str(tmp_path / "out"), "--database", str(tmp_path))
    assert code == 0 and len(store.read(tmp_path / "out", pytest.fail).records) == 2, output


def test_a_lock_file_made_a_symbolic_link_is_never_followed(app: typer.Typer, tmp_path: Path) -> None:
    """A partition's `.lock` is opened with O_CREAT: as a symbolic link (another user's, in a
    database they can write), it made the user running tvmc create the file it points at."""
    part = db(tmp_path / "dst")
    target = tmp_path / "elsewhere" / "nologin"
    target.parent.mkdir()
    (part / store.LOCK).unlink(missing_ok=True)
    (part / store.LOCK).symlink_to(target)
    src = tmp_path / "src"
    write_db(src / FP, [workload(2)], [(0, record(3e-5))])
    code, output = tvmc(app, "tune", "db", "merge", str(src), "-o", str(tmp_path / "dst"))
    assert code == 1
    assert f"cannot lock {part / store.LOCK}: Too many levels of symbolic links" in output
    assert not target.exists()
    code, output = tvmc(app, "tune", "db", "show", FP[:8], "--database", str(tmp_path / "dst"))
    assert code == 0 and not target.exists()  # a reader goes on without the lock, as for a read-only one


def test_a_killed_runs_deeply_nested_task_names_lose_no_record(tmp_path: Path) -> None:
    part = db(tmp_path)
    run = part / f"{store.RUN_PREFIX}999000001"  # above any pid_max: a killed run
    write_db(run, [workload(2)], [(0, record(3e-5))])
    run.chmod(0o700)
    (run / store.TASKS).write_text(DEEP)
    said: list[str] = []
    assert store.recover(store.Partition(tmp_path, FP), said.append) == 1
    assert len(store.read(part, said.append).records) == 3 and said == []
