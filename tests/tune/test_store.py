"""The tuning database without TVM: the target fingerprint, MetaSchedule's JSON files read and
written as text, recovery of a killed run, merge (fastest kept), export and prune."""

from __future__ import annotations

import base64
import json
import struct
from pathlib import Path

import pytest
import typer
from tvmc import api
from tvmc.tune import store
from tvmc.tune.apply import choose
from tvmc.tune.fingerprint import target_fingerprint, target_key
from typer.testing import CliRunner

TARGET = {"kind": "llvm", "keys": ["cpu"], "tag": ""}
ARGS = [["TENSOR", "float32", [1, 8]]]


def NOWARN(message: str) -> None:
    raise AssertionError(f"unexpected warning: {message}")


def fp(*flags: tuple[str, str], configs: tuple[str, ...] = ()) -> str:
    return target_fingerprint(api.resolve(list(configs), list(flags)).config)


def test_fingerprint_ignores_what_does_not_change_code() -> None:
    base = fp()
    assert fp(("--set", 'description="other words"')) == base
    assert fp(("--set", 'tvm-version=">=0.25"')) == base
    assert fp(("--set", 'build.output-format="tar"')) == base
    assert fp(("--set", "runtime.system-lib=true")) == base
    assert fp(("--target-host", "llvm")) == base  # the host written out is the host it had


@pytest.mark.parametrize(
    "flag",
    [
        ("--target-llvm-mcpu", "skylake"),
        ("--target-llvm-num-cores", "4"),
        ("--opt-level", "2"),
        ("--pass-config", "tirx.disable_vectorize=true"),
        ("--set", 'build.desired-layout=["NHWC"]'),
        ("--set", "build.mixed-precision=true"),
    ],
)
def test_fingerprint_changes_with_code(flag: tuple[str, str]) -> None:
    assert fp(flag) != fp()


def test_target_key_nests_the_host() -> None:
    key = target_key(api.resolve(["nvidia/jetson-nano"]).config)
    assert key["targets"][0]["kind"] == "cuda" and key["targets"][0]["host"]["kind"] == "llvm"


def module(text: str) -> str:
    """A serialized module as TVM writes it: base64 of a little-endian length and the JSON."""
    data = json.dumps(
        {"root_index": 1, "nodes": [{"type": "ffi.String", "data": text}, {"type": "ir.IRModule"}]}
    ).encode()
    return base64.b64encode(struct.pack("<Q", len(data)) + data).decode()


def workload(n: int) -> list[str]:
    return [str(1000 + n), module(f"module-{n}")]


def trace(name: str) -> list[object]:
    return [
        [["GetSBlock", [], [name, "main"], ["b0"]], ["SampleCategorical", [], [[0, 16], [0.5, 0.5]], ["v1"]]],
        [[1, 0]],
    ]


def record(seconds: float, name: str = "t") -> list[object]:
    return [trace(name), [seconds], TARGET, ARGS]


def write_db(directory: Path, workloads: list[list[str]], records: list[tuple[int, list[object]]]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / store.WORKLOADS).write_text("".join(json.dumps(w) + "\n" for w in workloads))
    (directory / store.RECORDS).write_text("".join(json.dumps([i, r]) + "\n" for i, r in records))


def test_read_skips_a_torn_last_line(tmp_path: Path) -> None:
    write_db(tmp_path, [workload(0)], [(0, record(1e-5)), (0, record(2e-5, "u"))])
    with (tmp_path / store.RECORDS).open("a") as sink:
        sink.write('[0,[["v"],[3e-05],{"kind":')  # what a SIGKILL mid-append leaves
    db = store.read(tmp_path, NOWARN)
    assert len(db.records) == 2
    assert db.trials() == {"1000": 2}
    assert db.best_seconds() == {"1000": 1e-5}


def test_failed_measurements_are_not_latencies(tmp_path: Path) -> None:
    write_db(tmp_path, [workload(0)], [(0, record(1e10))])
    assert store.read(tmp_path, NOWARN).best_seconds() == {"1000": None}


def test_recover_merges_a_killed_run(tmp_path: Path) -> None:
    part = store.Partition(tmp_path, "ab" * 32)
    write_db(part.path, [workload(0)], [(0, record(3e-5))])
    dead = part.path / f"{store.RUN_PREFIX}999999999"  # no such process
    write_db(dead, [workload(0), workload(1)], [(0, record(3e-5)), (1, record(1e-6))])
    (dead / store.TASKS).write_text(json.dumps({"1001": "fused_conv2d"}))
    assert store.recover(part, NOWARN) == 1  # the copy of the partition's record is not added twice
    assert not dead.exists()
    names = {t.shash: (t.name, t.trials) for t in store.summary(part, NOWARN)}
    assert names == {"1000": ("?", 1), "1001": ("fused_conv2d", 1)}


def test_recover_leaves_a_live_run(tmp_path: Path) -> None:
    import os

    part = store.Partition(tmp_path, "cd" * 32)
    live = part.path / f"{store.RUN_PREFIX}{os.getppid()}"
    write_db(live, [workload(0)], [(0, record(1e-5))])
    assert store.recover(part, NOWARN) == 0 and live.exists()


def test_merge_keeps_the_faster_record(tmp_path: Path) -> None:
    a, b, out = tmp_path / "a", tmp_path / "b", tmp_path / "out"
    name = "ef" * 32
    write_db(a / name, [workload(0)], [(0, record(5e-5, "slow")), (0, record(1e10, "failed"))])
    b_records = [(0, record(7e-6)), (0, record(2e-6, "t2")), (1, record(4e-5, "fast"))]
    write_db(b / name, [workload(1), workload(0)], b_records)  # workload 0 is line 1 here
    assert store.merge([a, b], out, NOWARN) == {name: 2}
    db = store.read(out / name, NOWARN)
    best = {w: r.payload[0] for w, r in ((db.shash(r.workload), r) for r in db.records)}
    assert best == {"1000": trace("fast"), "1001": trace("t2")}
    assert min(r.seconds or 1 for r in db.records) == 2e-6


def test_merge_keeps_every_record_the_destination_had(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    name = "ef" * 32
    write_db(out / name, [workload(0)], [(0, record(5e-5, "mine")), (0, record(6e-5, "mine2"))])
    write_db(src / name, [workload(0)], [(0, record(1e-5, "theirs")), (0, record(9e-5, "slower"))])
    assert store.merge([src], out, NOWARN) == {name: 3}
    kept = sorted(r.seconds or 0 for r in store.read(out / name, NOWARN).records)
    assert kept == [1e-5, 5e-5, 6e-5]


def test_export_writes_a_plain_metaschedule_database(tmp_path: Path) -> None:
    part = store.Partition(tmp_path / "db", "12" * 32)
    write_db(part.path, [workload(0)], [(0, record(1e-5))])
    assert store.export(part, tmp_path / "plain", NOWARN) == 1
    assert sorted(p.name for p in (tmp_path / "plain").iterdir()) == [store.RECORDS, store.WORKLOADS]
    assert store.read(tmp_path / "plain", NOWARN).records[0].seconds == 1e-5


def test_compile_applies_only_its_own_fingerprint(tmp_path: Path) -> None:
    from tvmc.backend.model import model_spec
    from tvmc.backend.plan import plan_build

    resolved = api.resolve([], [])
    plan = plan_build(resolved.config, resolved.origins, model_spec("m.onnx", None, None))
    other = store.Partition(tmp_path, fp(("--target-llvm-mcpu", "skylake")))
    write_db(other.path, [workload(0)], [(0, record(1e-5))])
    unchanged, why = choose(plan, resolved.config, warn=NOWARN, database=tmp_path)
    assert unchanged.tuning is None and why.startswith("no records for target fingerprint")
    own = store.Partition(tmp_path, target_fingerprint(resolved.config))
    write_db(own.path, [workload(0)], [(0, record(1e-5))])
    tuned, why = choose(plan, resolved.config, warn=NOWARN, database=tmp_path)
    assert tuned.tuning == str(own.path) and why == f"database {own.path}"
    assert choose(plan, resolved.config, warn=NOWARN, enabled=False, database=tmp_path)[0].tuning is None
    steps = [s["step"] for s in tuned.steps("m.so")]
    assert steps.index("apply-tuning") == steps.index("build") - 1


def test_db_commands(app: typer.Typer, tmp_path: Path) -> None:
    runner = CliRunner()
    keep, stale = target_fingerprint(api.resolve([], []).config), "77" * 32
    for name in (keep, stale):
        write_db(tmp_path / name, [workload(0)], [(0, record(1e-5))])
    listed = runner.invoke(app, ["tune", "db", "list", "--database", str(tmp_path)])
    assert listed.exit_code == 0, listed.output
    assert f"{stale[:16]}  1 tasks, 1 records, best total 10 us" in listed.output
    shown = runner.invoke(app, ["tune", "db", "show", stale[:6], "--database", str(tmp_path)])
    assert shown.exit_code == 0 and f"fingerprint  {stale}" in shown.output
    missing = runner.invoke(app, ["tune", "db", "show", "0123", "--database", str(tmp_path)])
    assert missing.exit_code == 1 and "no partition 0123" in missing.output
    dry = runner.invoke(app, ["tune", "db", "prune", "--dry-run", "--database", str(tmp_path)])
    assert dry.exit_code == 0 and f"would remove {stale[:16]}" in dry.output and keep[:16] not in dry.output
    assert (tmp_path / stale).exists()
    pruned = runner.invoke(app, ["tune", "db", "prune", "--database", str(tmp_path)])
    assert pruned.exit_code == 0 and not (tmp_path / stale).exists() and (tmp_path / keep).exists()


def test_tune_refuses_half_an_rpc_setting(app: typer.Typer, tmp_path: Path) -> None:
    model = tmp_path / "m.onnx"
    model.write_bytes(b"")
    result = CliRunner().invoke(app, ["tune", str(model), "--rpc-key", "board"])
    assert result.exit_code == 2 and "--rpc-tracker and --rpc-key go together" in result.output
    result = CliRunner().invoke(app, ["tune", str(model), "--rpc-tracker", "nohost", "--rpc-key", "k"])
    assert result.exit_code == 2 and "is not HOST:PORT" in result.output


def test_emit_python_and_plan_include_the_database(app: typer.Typer, tmp_path: Path) -> None:
    own = store.Partition(tmp_path, target_fingerprint(api.resolve([], []).config))
    write_db(own.path, [workload(0)], [(0, record(1e-5))])
    model = tmp_path / "m.onnx"
    model.write_bytes(b"")
    runner = CliRunner()
    script = runner.invoke(app, ["compile", str(model), "--emit", "python", "--database", str(tmp_path)])
    assert script.exit_code == 0, script.output
    assert f"TUNING_DATABASE = {str(own.path)!r}" in script.stdout
    assert "executable = build_tuned(mod, target)" in script.stdout
    compile(script.stdout, "build.py", "exec")
    plan = runner.invoke(app, ["compile", str(model), "--emit", "plan", "--database", str(tmp_path)])
    steps = json.loads(plan.stdout)["steps"]
    assert {"step": "apply-tuning", "args": {"work_dir": str(own.path)}}.items() <= {
        k: v for s in steps if s["step"] == "apply-tuning" for k, v in s.items()
    }.items()
    off = runner.invoke(app, ["compile", str(model), "--emit", "python", "--no-tuning", "--database", str(tmp_path)])
    assert "TUNING_DATABASE" not in off.stdout and "relax.build(mod, target, exec_mode" in off.stdout


def test_the_untuned_baseline_is_no_trial() -> None:
    """A run's first record per task is its untuned kernel (a one-instruction trace): kept for
    compile to compare with, counted neither as a trial nor as a task done."""
    baseline = store.Record("1\0m", [[[["GetSBlock", [], [], []]], []], [1e-6], {"kind": "llvm"}, []])
    tuned = store.Record("1\0m", [[[["GetSBlock", [], [], []], ["Split", [], [], []]], []], [2e-6], {}, []])
    failed = store.Record("1\0m", [[[["GetSBlock", [], [], []], ["Split", [], [], []]], []], [1e10], {}, []])
    assert baseline.is_baseline and not tuned.is_baseline
    db = store.Database([["1", "m"]], [baseline])
    assert db.trials() == {} and db.measured() == {} and db.best_seconds() == {"1": 1e-6}
    db.records += [tuned, failed]
    assert db.trials() == {"1": 2} and db.measured() == {"1": 1}


def test_a_run_is_judged_by_its_lock_not_its_pid(tmp_path: Path) -> None:
    """A live writer in another PID namespace has a PID that looks dead (or is another process's)
    from here: its lock says whether it lives."""
    import fcntl
    import os
    import subprocess
    import sys

    part = store.Partition(tmp_path, "ef" * 32)
    held = part.path / f"{store.RUN_PREFIX}999999999-0"  # no such process here, but its lock is held
    free = part.path / f"{store.RUN_PREFIX}{os.getppid()}-1"  # a live PID, but nobody holds its lock
    for n, run in enumerate((held, free)):
        write_db(run, [workload(n)], [(0, record(1e-5))])
        (run / store.LOCK).touch()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl,os,sys; f=os.open(sys.argv[1],os.O_RDWR); fcntl.flock(f,fcntl.LOCK_EX); "
         "print('held', flush=True); sys.stdin.read()", str(held / store.LOCK)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert store.recover(part, NOWARN) == 1
        assert part.runs() == [held] and not free.exists()
    finally:
        holder.communicate("")
    assert store.recover(part, NOWARN) == 1 and part.runs() == []  # its writer is gone
    # a lock held in this very process (another descriptor) counts the same
    lonely = part.path / f"{store.RUN_PREFIX}999999999-2"
    write_db(lonely, [workload(5)], [(0, record(1e-5))])
    fd = os.open(lonely / store.LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert store.recover(part, NOWARN) == 0 and part.runs() == [lonely]
    finally:
        os.close(fd)


def test_a_run_of_this_process_is_merged_only_once_ended(tmp_path: Path) -> None:
    part = store.Partition(tmp_path, "fe" * 32)
    run, _ = store.start_run(part)
    try:
        assert part.runs() == [run] and (run / store.LOCK).is_file()
        assert (run.stat().st_mode & 0o777) == 0o700
        write_db(run, [workload(0)], [(0, record(1e-5))])
        other, _ = store.start_run(part)  # two runs of one process (two threads of the API)
        assert other != run
        assert store.recover(part, NOWARN) == 0 and set(part.runs()) == {run, other}  # both live
        assert store.recover(part, NOWARN, finished=run) == 1 and part.runs() == [other]
        store.end_run(other)
        assert store.recover(part, NOWARN) == 0 and part.runs() == []  # ended: no longer held, merged
    finally:
        store.end_run(run)
    assert len(store.read(part.path, NOWARN).records) == 1


def test_a_run_another_user_owns_is_never_merged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As another user sees this user's killed run (runs without root, unlike the chown test)."""
    import os

    part = store.Partition(tmp_path, "0f" * 32)
    run = part.path / f"{store.RUN_PREFIX}999999999-0"
    write_db(run, [workload(0)], [(0, record(1e-5))])
    (run / store.LOCK).touch()
    me = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: me + 1)
    said: list[str] = []
    assert store.recover(part, said.append) == 0
    assert said == [f"{run} is owned by another user (uid {me}): its records are not merged into {part.path}"]
    assert part.runs() == [run]
