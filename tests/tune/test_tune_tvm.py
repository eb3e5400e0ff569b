"""Integration: `tvmc tune` with the installed TVM (MetaSchedule, a few trials), then `tvmc compile`
applies the records and `tvmc run --check` passes; Ctrl-C and SIGKILL keep what was measured and a
rerun resumes. Real `tvmc` processes (signals need them), CPU only, host/native."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from testkit import cli_env, load_script
from tvmc.tune import store

pytestmark = pytest.mark.tvm
pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -e '.[tvm]')")
pytest.importorskip("onnx", reason="onnx is not installed (pip install -e '.[tvm]')")

ROOT = Path(__file__).resolve().parents[2]
MLP = ["--config", "host/native", "--input-shapes", "x:[1,8]"]
CNN = ["--config", "host/native"]


def tvmc(*args: str, db: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    """`tvmc ARGS --database DB` (`tvmc run` takes no database)."""
    extra = ["--database", str(db)] if db is not None else []
    return subprocess.run(
        [sys.executable, "-m", "tvmc", *args, *extra],
        env=cli_env(**env),
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("models")
    bench: ModuleType = load_script("bench_tune")
    cnn = directory / "cnn.onnx"
    cnn.write_bytes(bench.make_cnn(size=16).SerializeToString())
    return {"mlp": ROOT / "models" / "mlp.onnx", "cnn": cnn}


@pytest.fixture(scope="module")
def mlp_db(tmp_path_factory: pytest.TempPathFactory, models: dict[str, Path]) -> Path:
    db = tmp_path_factory.mktemp("mlp-db")
    done = tvmc("tune", str(models["mlp"]), *MLP, "--trials", "4", "-j", "1", db=db)
    assert done.returncode == 0, done.stderr
    assert "2 tasks for target fingerprint" in done.stderr and "task 1/2" in done.stderr
    # 4 candidates, and each task's default schedule (the untuned kernel) as its baseline record
    assert "4 candidates measured, 6 new records" in done.stdout
    # faster or slower with the run (4 trials on a us-scale model): the ratio is said either way
    assert "  end to end  untuned " in done.stdout
    assert re.search(r"x (faster|slower) \(2 of 2 kernels from tuning records", done.stdout), done.stdout
    # the cost model is said: XGBoost where xgboost (the tvm extra's) imports, else random with a warning
    if importlib.util.find_spec("xgboost") is not None:
        assert "  search    MetaSchedule's evolutionary search, XGBoost cost model (xgboost " in done.stdout
        assert "random cost model" not in done.stdout + done.stderr
    else:
        assert "random cost model (xgboost is not installed)" in done.stdout
        assert "tvmc: warning: xgboost is not installed: MetaSchedule searched with its random" in done.stderr
    # the end-to-end ratio printed is the model's stored verdict; removed here, so that the tests
    # below apply the records whatever this machine measured (test_a_losing_verdict_builds_untuned)
    (verdicts,) = db.glob(f"*/{store.VERDICTS}")
    (entry,) = json.loads(verdicts.read_text())["models"].values()
    ratio = entry["untuned-seconds"] / entry["tuned-seconds"]
    assert (f"{ratio:.2f}x faster" if ratio >= 1 else f"{1 / ratio:.2f}x slower") in done.stdout
    assert entry["model"] == "mlp.onnx"
    verdicts.unlink()
    return db


def test_jobs_is_not_the_core_count_tuned_for(mlp_db: Path) -> None:
    """The fixture tuned with -j 1: the records are for this machine's CPU count all the same."""
    (records,) = mlp_db.glob("*/database_tuning_record.json")
    targets = [json.loads(line)[1][2] for line in records.read_text().splitlines()]
    assert targets and all(t["num-cores"] == (os.cpu_count() or 1) for t in targets)


def test_each_task_keeps_its_untuned_baseline(mlp_db: Path) -> None:
    """The default schedule is stored as a record (a one-instruction trace: JSONDatabase skips empty
    ones), so the database returns a tuned schedule only where it beats the untuned kernel."""
    (partition,) = [p for p in mlp_db.iterdir() if p.is_dir()]
    lines = (partition / "database_tuning_record.json").read_text(encoding="utf-8").splitlines()
    baselines: dict[int, int] = {}
    for line in lines:
        workload, (trace, run_secs, *_rest) = json.loads(line)
        instructions = trace[0]
        if len(instructions) == 1 and instructions[0][0] == "GetSBlock":
            baselines[workload] = baselines.get(workload, 0) + 1
            assert all(float(s) < 1 for s in run_secs)
    assert sorted(baselines.values()) == [1, 1]  # one per task


def test_mlp_tuned_compile_uses_records_and_checks(mlp_db: Path, models: dict[str, Path], tmp_path: Path) -> None:
    lib = tmp_path / "mlp.so"
    built = tvmc("compile", str(models["mlp"]), *MLP, "-o", str(lib), db=mlp_db)
    assert built.returncode == 0, built.stderr
    assert "  tuning  2 of 2 kernels from tuning records, database " in built.stdout
    ran = tvmc("run", str(lib), "--check", str(models["mlp"]))
    assert ran.returncode == 0 and ": ok" in ran.stdout, ran.stdout + ran.stderr
    off = tvmc("compile", str(models["mlp"]), *MLP, "-o", str(lib), "--no-tuning", db=mlp_db)
    assert "  tuning  off (--no-tuning)" in off.stdout


def tied(part: store.Partition) -> store.Applied:
    """The records the partition applies now for its tasks (the model's: the fixture tuned only it)."""
    return store.applied(part.database(pytest.fail), part.meta()["tasks"])


def faster_copy(part: store.Partition) -> str:
    """A record line ten times faster than the partition's best one of its first workload (a real trace)."""
    lines = (part.path / store.RECORDS).read_text(encoding="utf-8").splitlines()
    index, payload = min((json.loads(line) for line in lines), key=lambda item: (item[0], min(item[1][1])))
    payload[1] = [min(payload[1]) / 10]
    return json.dumps([index, payload])


def mlp_partition_that_lost(mlp_db: Path, models: dict[str, Path], db: Path) -> tuple[store.Partition, str]:
    """A copy of the tuned MLP's database at `db` whose verdict says the tuned library lost (0.90x),
    tied to the records it holds: the partition and the model's verdict key."""
    shutil.copytree(mlp_db, db)
    (part_dir,) = (p for p in db.iterdir() if p.is_dir())
    part = store.Partition(db, part_dir.name)
    key = store.model_id(models["mlp"], {"x": (1, 8)})
    assert key is not None
    store.write_verdict(part, key, store.Verdict(1.49e-6, 1.65e-6, "mlp.onnx", tied(part)), pytest.fail)
    return part, key


def test_a_losing_verdict_builds_untuned(mlp_db: Path, models: dict[str, Path], tmp_path: Path) -> None:
    """A stored end-to-end loss leaves the model's records out (one warning); another model's
    verdict, or none, applies them."""
    db = tmp_path / "db"
    part, key = mlp_partition_that_lost(mlp_db, models, db)
    built = tvmc("compile", str(models["mlp"]), *MLP, "-o", str(tmp_path / "mlp.so"), db=db)
    assert built.returncode == 0, built.stderr
    assert built.stderr.count("tvmc: warning: tuning records left out: tvmc tune measured") == 1
    assert "(0.90x, tuned 1.65 us against untuned 1.49 us)" in built.stderr
    assert "  tuning  not applied: the tuned library lost to the untuned one (0.90x" in built.stdout
    store.write_verdict(part, key, store.Verdict(1.65e-6, 1.49e-6, "mlp.onnx", tied(part)), pytest.fail)  # a win
    again = tvmc("compile", str(models["mlp"]), *MLP, "-o", str(tmp_path / "mlp.so"), db=db)
    assert "  tuning  2 of 2 kernels from tuning records, database " in again.stdout, again.stderr


def test_a_verdict_over_other_records_no_longer_decides(mlp_db: Path, models: dict[str, Path], tmp_path: Path) -> None:
    """Records that change what the tuned build applies after the measurement (here a killed run's,
    merged by compile itself) make the loss stale: compile applies them and says so; a tune whose
    tasks are all done measures the model again, and its verdict is of the records it measured."""
    db = tmp_path / "db"
    part, key = mlp_partition_that_lost(mlp_db, models, db)
    killed = part.path / f"{store.RUN_PREFIX}999999999-dead"
    killed.mkdir(mode=0o700)
    shutil.copy(part.path / store.WORKLOADS, killed / store.WORKLOADS)
    (killed / store.RECORDS).write_text(faster_copy(part) + "\n")
    built = tvmc("compile", str(models["mlp"]), *MLP, "-o", str(tmp_path / "mlp.so"), db=db)
    assert built.returncode == 0, built.stderr
    assert not killed.exists()  # merged
    assert "  tuning  2 of 2 kernels from tuning records, database " in built.stdout, built.stderr
    assert built.stderr.count("tvmc: warning: the verdict that this model's tuned library lost (0.90x) is stale") == 1
    assert f"tvmc tune db forget-verdict {part.fingerprint[:16]} {key[:16]}" in built.stderr
    retuned = tvmc("tune", str(models["mlp"]), *MLP, "--trials", "4", "-j", "1", db=db)
    assert retuned.returncode == 0, retuned.stderr
    assert "  end to end  untuned " in retuned.stdout  # measured again, though nothing was left to tune
    verdict = store.read_verdicts(part.path, pytest.fail)[key]
    assert verdict.records == tied(part) and verdict.current(part.database(pytest.fail))
    assert verdict.tuned_seconds != 1.65e-6
    # all done and the verdict current: nothing is measured (compile --tune's second call is instant)
    quiet = tvmc("tune", str(models["mlp"]), *MLP, "--trials", "4", "-j", "1", db=db)
    assert "nothing to tune" in quiet.stdout and "end to end" not in quiet.stdout, quiet.stdout


def test_db_merge_drops_the_verdicts_of_records_it_replaces(
    mlp_db: Path, models: dict[str, Path], tmp_path: Path
) -> None:
    db, source = tmp_path / "db", tmp_path / "source"
    shutil.copytree(mlp_db, db)
    shutil.copytree(mlp_db, source)
    (part_dir,) = (p for p in db.iterdir() if p.is_dir())
    part, theirs = store.Partition(db, part_dir.name), store.Partition(source, part_dir.name)
    key = store.model_id(models["mlp"], {"x": (1, 8)})
    assert key is not None
    store.write_verdict(part, key, store.Verdict(1.49e-6, 1.65e-6, "mlp.onnx", tied(part)), pytest.fail)
    same = tvmc("tune", "db", "merge", str(source), "-o", str(db))  # the same records: the verdict stays
    assert same.returncode == 0 and f"{part.fingerprint[:16]}  " in same.stdout and "1 verdicts kept" in same.stdout
    with (theirs.path / store.RECORDS).open("a") as sink:
        sink.write(faster_copy(theirs) + "\n")
    merged = tvmc("tune", "db", "merge", str(source), "-o", str(db))
    assert merged.returncode == 0, merged.stderr
    assert "1 verdicts dropped (measured with other records: tune again to measure)" in merged.stdout
    assert store.read_verdicts(part.path, pytest.fail) == {}
    built = tvmc("compile", str(models["mlp"]), *MLP, "-o", str(tmp_path / "mlp.so"), db=db)
    assert "  tuning  2 of 2 kernels from tuning records, database " in built.stdout, built.stderr
    assert "verdict" not in built.stderr


def test_a_tuned_library_reproduces_and_names_records_found_elsewhere(
    mlp_db: Path, models: dict[str, Path], tmp_path: Path
) -> None:
    """Issue 27: a library built with tuning records is rebuilt byte-identical from its manifest (the
    database it names); the same records copied elsewhere are the one difference named, and records
    that differ are named as such (the manifest keeps the SHA-256 of the records applied)."""
    lib = tmp_path / "mlp.so"
    assert tvmc("compile", str(models["mlp"]), *MLP, "-o", str(lib), db=mlp_db).returncode == 0
    same = tvmc("compile", "--reproduce", str(lib), str(models["mlp"]))
    assert same.returncode == 0 and ": byte-identical (" in same.stdout, same.stdout + same.stderr
    (partition,) = [p for p in mlp_db.iterdir() if p.is_dir()]
    copy = tmp_path / "copy"
    shutil.copytree(partition, copy / partition.name, ignore=shutil.ignore_patterns(".lock"))
    moved = tvmc("compile", "--reproduce", str(lib), str(models["mlp"]), db=copy)
    assert moved.returncode == 1
    assert moved.stdout.splitlines()[1:] == [
        f"  tuning database: the library applied {partition}, this rebuild {copy / partition.name}"
    ]
    records = copy / partition.name / "database_tuning_record.json"
    lines = records.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])[0]  # one task's records kept: the other kernel has none now
    records.write_text("".join(line + "\n" for line in lines if json.loads(line)[0] == first), encoding="utf-8")
    other = tvmc("compile", "--reproduce", str(lib), str(models["mlp"]), db=copy)
    assert other.returncode == 1
    assert any(
        line.startswith("  tuning records: ") and line.endswith("(the records differ)")
        for line in other.stdout.splitlines()
    ), other.stdout


def test_records_of_other_shapes_are_a_warning_naming_the_kernels(
    mlp_db: Path, models: dict[str, Path], tmp_path: Path
) -> None:
    """Input shapes are not in the fingerprint: the partition is chosen, and its records match none of
    the kernels of batch 3. The build still works (untuned kernels) and says which ran so and why."""
    other = [*MLP[:2], "--input-shapes", "x:[3,8]"]
    built = tvmc("compile", str(models["mlp"]), *other, "-o", str(tmp_path / "m.so"), db=mlp_db)
    assert built.returncode == 0, built.stderr
    assert "  tuning  0 of 2 kernels from tuning records" in built.stdout
    (warning,) = [line for line in built.stderr.splitlines() if "have no record" in line]
    assert "fused_matmul1_add1_relu1, fused_matmul_add_relu have no record" in warning
    assert "other input shapes" in warning and "tvmc tune" in warning


def test_another_mcpu_uses_no_record(mlp_db: Path, models: dict[str, Path], tmp_path: Path) -> None:
    built = tvmc(
        "compile", str(models["mlp"]), *MLP, "--target-llvm-mcpu", "haswell", "-o", str(tmp_path / "m.so"), db=mlp_db
    )
    assert built.returncode == 0, built.stderr
    assert "  tuning  no records for target fingerprint" in built.stdout


@contextlib.contextmanager
def start(*args: str, db: Path, **env: str) -> Iterator[subprocess.Popen[str]]:
    """A running `tvmc tune`; on leaving, killed if still running and its pipes closed (an open
    pipe would raise a ResourceWarning in whatever test runs next)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tvmc", "tune", *args, "--database", str(db)],
        env=cli_env(**env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=60)


def wait_for_progress(proc: subprocess.Popen[str]) -> Iterator[str]:
    """stderr lines until the first measured batch (records are in the run's database then)."""
    assert proc.stderr is not None
    deadline = time.monotonic() + 300
    for line in proc.stderr:
        yield line
        if ": " in line and " trials, best " in line:
            return
        assert time.monotonic() < deadline, "no progress within 300 s"
    raise AssertionError(f"tune ended before measuring: {proc.wait()}")


# The tunes the two tests below stop after the first measured batch: 8 candidates per task, so a
# batch is 8 measurements and the search's population its floor of 64 (a budget of 100 or more per
# task made both 16 and 512 and cost minutes before the first batch). The signal still comes with
# most of the run ahead: only the first task's first batch is measured when it is sent.
STOPPED_EARLY = ("--trials-per-task", "8", "-j", "1")


def test_cnn_interrupted_keeps_records_and_resumes(models: dict[str, Path], tmp_path: Path) -> None:
    db = tmp_path / "db"
    with start(str(models["cnn"]), *CNN, *STOPPED_EARLY, db=db) as proc:
        lines = list(wait_for_progress(proc))
        assert any("tasks for target fingerprint" in line for line in lines)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert out.startswith("tvmc: interrupted ") and "new records" in out
    listed = tvmc("tune", "db", "list", db=db)
    assert listed.returncode == 0 and " records, best total " in listed.stdout, listed.stdout + listed.stderr
    assert not list(db.glob("*/.run-*"))  # merged into the partition
    resumed = tvmc("tune", str(models["cnn"]), *CNN, "--trials-per-task", "1", "-j", "1", db=db)
    assert resumed.returncode == 0, resumed.stderr
    assert "already done" in resumed.stderr
    lib = tmp_path / "cnn.so"
    built = tvmc("compile", str(models["cnn"]), *CNN, "-o", str(lib), db=db)
    assert built.returncode == 0, built.stderr
    line = next(x for x in built.stdout.splitlines() if x.startswith("  tuning  "))
    # With every task done, the resumed tune measured the records end to end; on this µs-scale model
    # (and a loaded machine) the tuned library may lose, and then its verdict makes compile build
    # untuned — either outcome says the interrupted run's records were kept and found.
    if "not applied: the tuned library lost" not in line:
        used, total = (int(n) for n in line.split()[1:4:2])
        assert 1 <= used <= total, line
    ran = tvmc("run", str(lib), "--check", str(models["cnn"]))
    assert ran.returncode == 0 and ": ok" in ran.stdout, ran.stdout + ran.stderr


def test_sigkill_leaves_a_readable_database_and_a_rerun_resumes(models: dict[str, Path], tmp_path: Path) -> None:
    db = tmp_path / "db"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    with start(str(models["mlp"]), *MLP, *STOPPED_EARLY, db=db, TMPDIR=str(tmp)) as proc:
        list(wait_for_progress(proc))
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)
    assert list(db.glob("*/.run-*"))  # the killed run's records, not merged yet
    (left,) = tmp.iterdir()  # its temporary folder, TVM's builders' temporaries inside it
    assert left.name.startswith("tvmc-tune-")
    time.sleep(1)  # the child dies with its parent (PR_SET_PDEATHSIG)
    listed = tvmc("tune", "db", "list", db=db)
    assert listed.returncode == 0, listed.stderr
    records = int(listed.stdout.split(" records,")[0].rsplit(" ", 1)[1])
    assert records >= 1 and not list(db.glob("*/.run-*"))
    resumed = tvmc("tune", str(models["mlp"]), *MLP, "--trials-per-task", "1", "-j", "1", db=db, TMPDIR=str(tmp))
    assert resumed.returncode == 0, resumed.stderr
    assert "already done" in resumed.stderr
    assert list(tmp.iterdir()) == []  # the killed run's folder removed, this run's own cleaned up


@pytest.mark.parametrize(
    ("config", "why"),
    [("aws/c6g", "the code is for aarch64"), ("nvidia/nvidia-t4", "cuda")],
)
def test_a_target_this_machine_cannot_run_is_refused(config: str, why: str, tmp_path: Path) -> None:
    if config == "aws/c6g" and os.uname().machine in ("aarch64", "arm64"):
        pytest.skip("this machine runs aarch64 code")
    db = tmp_path / "db"
    refused = tvmc("tune", str(ROOT / "models" / "mlp.onnx"), "--config", config, "--input-shapes", "x:[1,8]", db=db)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "cannot tune here: " in refused.stderr and why in refused.stderr
    assert "--rpc-tracker HOST:PORT --rpc-key KEY" in refused.stderr
    assert not db.exists()  # before any work


def test_compile_tune_tunes_what_is_missing_then_nothing(models: dict[str, Path], tmp_path: Path) -> None:
    """The README's two `compile --tune 2` commands (its block is skipped by tests/docs: this runs
    them and checks what they say)."""
    db = tmp_path / "db"
    args = ["compile", str(models["mlp"]), *MLP, "--tune", "2", "-o", str(tmp_path / "m.so")]
    first = tvmc(*args, db=db)
    assert first.returncode == 0, first.stderr
    assert "2 tasks for target fingerprint" in first.stderr and "2 to tune" in first.stderr
    # Two trials per task on a us-scale model: the tuned library wins or loses end to end with the
    # run (tests/tune/test_verdict.py pins both outcomes); either way compile says which it built.
    applied = "  tuning  2 of 2 kernels from tuning records"
    lost = "  tuning  not applied: the tuned library lost to the untuned one"
    (tuning_line,) = [line for line in first.stdout.splitlines() if line.startswith("  tuning  ")]
    assert tuning_line.startswith((applied, lost)), first.stdout
    again = tvmc(*args, db=db)
    assert again.returncode == 0, again.stderr
    assert "0 to tune, 2 already done" in again.stderr and "trials, best" not in again.stderr
    assert tuning_line in again.stdout  # nothing tuned, nothing measured: the same library


BAD_LINES = ['[0,[[],"notlist",{},[]]]', '[0,[[[],[]],[NaN],{"kind":"llvm"},[]]]']


def test_bad_records_neither_fail_nor_silently_degrade_compile(
    mlp_db: Path, models: dict[str, Path], tmp_path: Path
) -> None:
    db = tmp_path / "db"
    shutil.copytree(mlp_db, db)
    (part,) = [p for p in db.iterdir() if p.is_dir()]
    with (part / "database_tuning_record.json").open("a") as sink:
        sink.write("\n".join(BAD_LINES) + "\n")
    with (part / "database_workload.json").open("a") as sink:
        sink.write('["123", "@@ not base64"]\n')
    built = tvmc("compile", str(models["mlp"]), *MLP, "-o", str(tmp_path / "m.so"), db=db)
    assert built.returncode == 0, built.stderr
    assert "  tuning  2 of 2 kernels from tuning records" in built.stdout and "(bad lines skipped)" in built.stdout
    assert f"{part / 'database_tuning_record.json'}:" in built.stderr and "run_secs" in built.stderr
    assert f"{part / 'database_workload.json'}:" in built.stderr


def test_a_tune_beside_concurrent_db_commands_loses_no_record(
    mlp_db: Path, models: dict[str, Path], tmp_path: Path
) -> None:
    """Runs of killed tunes (real workloads, distinct records) are planted in the partition; a tune
    and db commands started together each recover them: every record is there at the end."""
    (source,) = [p for p in mlp_db.iterdir() if p.is_dir()]
    real = store.read(source, pytest.fail)
    db = tmp_path / "db"
    part = store.Partition(db, source.name)

    def planted(seconds: float, record: store.Record) -> store.Database:
        payload = [record.payload[0], [seconds], *record.payload[2:]]
        return store.Database(list(real.workloads), [store.Record(record.workload, payload)])

    by_task = {real.shash(r.workload): r for r in real.records}  # one record per task
    expected = 0
    for i in range(30):
        run = part.path / f"{store.RUN_PREFIX}{999_200_000 + i}"  # no such process
        store.make_dir(run, 0o700)
        store.write(run, planted(1e-3 + i * 1e-6, list(by_task.values())[i % len(by_task)]))
        expected += 1
    other = tmp_path / "other"
    store.write(other / source.name, planted(2e-3, next(iter(by_task.values()))))
    commands = [["tune", "db", "list", "--database", str(db)]] * 3 + [
        ["tune", "db", "merge", str(other), "-o", str(db)]
    ]
    tune = [str(models["mlp"]), *MLP, "--trials", "2", "--trials-per-task", "40", "-j", "1"]
    with start(*tune, db=db) as tuning:
        others = [
            subprocess.Popen(
                [sys.executable, "-m", "tvmc", *c],
                env=cli_env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for c in commands
        ]
        for proc in others:
            out, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, out + err
        out, err = tuning.communicate(timeout=600)
    assert tuning.returncode == 0, err
    head = out.splitlines()[0]
    measured, added = (int(head.split(" candidates measured, ")[i].split()[-1 + i]) for i in (0, 1))
    # --trials 2 in all, shared by the two tasks (batches no larger than a task's share); each task's
    # untuned baseline is one more record
    assert measured == 2 and measured <= added <= measured + 2, out
    final = store.read(part.path, pytest.fail)
    seconds = sorted(r.seconds or 0 for r in final.records)
    assert [s for s in seconds if s >= 1e-3] == sorted([*(1e-3 + i * 1e-6 for i in range(30)), 2e-3])
    assert len(final.records) == expected + 1 + added  # the planted runs, the merged record, the tune's


def test_a_budget_too_small_for_the_tasks_says_which_are_untuned(tmp_path: Path) -> None:
    tuned = tvmc("tune", str(ROOT / "models" / "cnn.onnx"), *CNN, "--trials", "2", "-j", "1", db=tmp_path / "db")
    assert tuned.returncode == 0, tuned.stderr
    assert "4 tasks for target fingerprint" in tuned.stderr
    assert "tvmc: warning: --trials 2 left 2 of 4 tasks untuned (" in tuned.stderr
    assert "give --trials 4 or more" in tuned.stderr
    assert sum(line.endswith("(not tuned)") for line in tuned.stdout.splitlines()) == 2
