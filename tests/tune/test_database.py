"""The tuning database under stress and bad input, without TVM: concurrent commands (real
processes) lose no record, bad lines are skipped and named, untrusted content is not merged, listing
streams, `db prune` ignores TVMC_* settings and keeps configs tuned by path, `--isolated` means no
implicit database, a killed tune's temporary folder is removed, progress and budget reports."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from test_store import ARGS, TARGET, module, record, trace, workload, write_db
from testkit import cli_env
from tvmc import api
from tvmc.backend.model import model_spec
from tvmc.backend.plan import plan_build
from tvmc.cli.tune_cmd import Display, report
from tvmc.tune import session, store
from tvmc.tune.apply import choose
from tvmc.tune.fingerprint import target_fingerprint
from typer.testing import CliRunner

FP = "ab" * 32


def tvmc(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tvmc", *args],
        env=cli_env(**(env or {})),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(procs: list[subprocess.Popen[str]]) -> list[tuple[int, str, str]]:
    out = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=120)
        out.append((proc.returncode, stdout, stderr))
    return out


def collect() -> tuple[list[str], store.Warn]:
    said: list[str] = []
    return said, said.append


def dead_runs(part: store.Partition, count: int) -> None:
    """`count` runs of killed processes, each with a record of its own workload."""
    for i in range(count):
        run = part.path / f"{store.RUN_PREFIX}{999_000_000 + i}"  # above any pid_max: no such process
        write_db(run, [workload(i)], [(0, record(1e-5 + i * 1e-7, f"r{i}"))])
        run.chmod(0o700)


def test_concurrent_commands_during_recovery_lose_no_record(tmp_path: Path) -> None:
    db = tmp_path / "db"
    part = store.Partition(db, target_fingerprint(api.resolve([], []).config))
    write_db(part.path, [workload(999)], [(0, record(2e-5, "base"))])
    dead_runs(part, 60)
    model = tmp_path / "m.onnx"
    model.write_bytes(b"")
    other = tmp_path / "other"
    write_db(other / part.fingerprint, [workload(500)], [(0, record(3e-5, "other"))])
    procs = [tvmc("tune", "db", "list", "--database", str(db)) for _ in range(4)]
    procs.append(tvmc("tune", "db", "show", part.fingerprint[:8], "--database", str(db)))
    procs.append(tvmc("compile", str(model), "--emit", "plan", "--database", str(db)))
    procs.append(tvmc("tune", "db", "merge", str(other), "-o", str(db)))
    for code, stdout, stderr in finish(procs):
        assert code == 0, stdout + stderr
        assert "Traceback" not in stderr
    assert not part.runs()
    said, warn = collect()
    kept = store.read(part.path, warn)
    assert said == []
    shashes = {kept.shash(r.workload) for r in kept.records}
    assert shashes == {str(1000 + i) for i in range(60)} | {"1999", "1500"}


def test_concurrent_merges_into_one_destination_keep_all(tmp_path: Path) -> None:
    sources = []
    for i in range(4):
        source = tmp_path / f"src{i}"
        write_db(source / FP, [workload(i)], [(0, record(1e-5, f"s{i}"))])
        sources.append(source)
    out = tmp_path / "out"
    for code, stdout, stderr in finish([tvmc("tune", "db", "merge", str(s), "-o", str(out)) for s in sources]):
        assert code == 0, stdout + stderr
    db = store.read(out / FP, pytest.fail)
    assert sorted(db.shash(r.workload) for r in db.records) == ["1000", "1001", "1002", "1003"]


BAD_RECORDS = [
    '[0,[[],"notlist",{},[]]]',
    '[0,[[[],[]],[NaN],{"kind":"llvm"},[]]]',
    '[0,[[[],[]],[-1],{"kind":"llvm"},[]]]',
    "[0,[[[],[]],[1e-05],{},[]]]",
    '[7,[[[],[]],[1e-05],{"kind":"llvm"},[]]]',
    "not json at all",
]


def bad_partition(directory: Path) -> None:
    lines = [json.dumps(workload(0)), json.dumps(["1001", "!!not base64!!"]), json.dumps(["12x", module("m")])]
    (directory).mkdir(parents=True, exist_ok=True)
    (directory / store.WORKLOADS).write_text("\n".join(lines) + "\n")
    good = json.dumps([0, record(1e-5)])
    on_bad_workload = json.dumps([1, record(1e-5)])
    (directory / store.RECORDS).write_text("\n".join([good, *BAD_RECORDS, on_bad_workload]) + "\n")


def test_bad_lines_are_skipped_and_named(tmp_path: Path) -> None:
    bad_partition(tmp_path)
    said, warn = collect()
    db = store.read(tmp_path, warn)
    assert len(db.records) == 1 and db.records[0].seconds == 1e-5
    records, workloads = tmp_path / store.RECORDS, tmp_path / store.WORKLOADS
    assert f"{workloads}:2: its module is not base64: skipped" in said
    assert f"{workloads}:3: its structural hash is not a decimal number: skipped" in said
    assert f"{records}:2: its trace is not [instructions, decisions]: skipped" in said
    assert f"{records}:3: its run_secs is not a list of finite positive seconds: skipped" in said
    assert f"{records}:4: its run_secs is not a list of finite positive seconds: skipped" in said
    assert f"{records}:5: its target is not a target (no kind): skipped" in said
    assert f"{records}: 2 more bad lines skipped" in said  # 7 bad lines: 5 named, the rest counted
    assert len(said) == 2 + 5 + 1


def test_compile_applies_a_clean_copy_of_a_partition_with_bad_lines(tmp_path: Path) -> None:
    from tvmc.backend.model import model_spec
    from tvmc.backend.plan import plan_build

    resolved = api.resolve([], [])
    plan = plan_build(resolved.config, resolved.origins, model_spec("m.onnx", None, None))
    part = store.Partition(tmp_path, target_fingerprint(resolved.config))
    bad_partition(part.path)
    said, warn = collect()
    tuned, why = choose(plan, resolved.config, warn=warn, database=tmp_path)
    assert tuned.tuning is not None and tuned.tuning != str(part.path)
    assert why == f"database {part.path} (bad lines skipped)"
    assert store.problems(Path(tuned.tuning)) == [] and len(store.read(Path(tuned.tuning), warn).records) == 1
    assert any(f"{part.path / store.RECORDS}:2:" in s for s in said)


def test_a_directory_or_garbage_records_file_is_named(app: typer.Typer, tmp_path: Path) -> None:
    from tvmc.backend.model import model_spec
    from tvmc.backend.plan import plan_build

    resolved = api.resolve([], [])
    plan = plan_build(resolved.config, resolved.origins, model_spec("m.onnx", None, None))
    part = store.Partition(tmp_path, target_fingerprint(resolved.config))
    write_db(part.path, [workload(0)], [])
    (part.path / store.RECORDS).unlink()
    (part.path / store.RECORDS).mkdir()
    said, warn = collect()
    unchanged, why = choose(plan, resolved.config, warn=warn, database=tmp_path)
    assert unchanged.tuning is None and "no records" in why
    assert said == [f"{part.path / store.RECORDS} is a directory: its records are not used"]
    (part.path / store.RECORDS).rmdir()
    (part.path / store.RECORDS).write_bytes(b"\x00\xff garbage\n" * 3)
    listed = CliRunner().invoke(app, ["tune", "db", "list", "--database", str(tmp_path)])
    assert listed.exit_code == 0
    assert f"{part.path / store.RECORDS}:1: not a JSON line: skipped" in listed.output


def test_a_broken_partition_json_is_one_line(app: typer.Typer, tmp_path: Path) -> None:
    write_db(tmp_path / FP, [workload(0)], [(0, record(1e-5))])
    (tmp_path / FP / store.META).write_text(json.dumps({"tasks": [1, 2, 3]}))
    runner = CliRunner()
    for args in (["list"], ["show", FP[:6]]):
        result = runner.invoke(app, ["tune", "db", *args, "--database", str(tmp_path)])
        assert result.exit_code == 1, result.output
        assert f"{tmp_path / FP / store.META}: 'tasks' is not an object of task names" in result.output
        assert "Traceback" not in result.output and not isinstance(result.exception, KeyError | AttributeError)


NOT_A_DATABASE = "env TVMC_TUNING_DB: {path} is not a directory (a tuning database is one)"


DB_COMMANDS = [
    ["list"],
    ["show", FP[:6]],
    ["prune", "--dry-run"],
    ["forget-verdict", FP[:6]],
    ["export", FP[:6], "-o", "x"],
]


@pytest.mark.parametrize("args", DB_COMMANDS)
def test_a_tuning_db_variable_naming_a_file_is_one_line_naming_it(
    app: typer.Typer, args: list[str], tmp_path: Path
) -> None:
    """`TVMC_TUNING_DB=/dev/null tvmc tune db list` said `/dev/null: /dev/null is not a directory`:
    the path twice, and not where it came from."""
    (tmp_path / "file").write_text("")
    for path in ("/dev/null", str(tmp_path / "file")):
        result = CliRunner().invoke(app, ["tune", "db", *args], env={store.ENV: path})
        assert result.exit_code == 2, result.output
        assert result.output == f"tvmc: error: {NOT_A_DATABASE.format(path=path)}\n"
    # given with --database, the flag is the location, as the variable is: the path once too
    result = CliRunner().invoke(app, ["tune", "db", "list", "--database", "/dev/null"])
    assert result.output == "tvmc: error: --database: /dev/null is not a directory (a tuning database is one)\n"


def test_tune_and_compile_name_a_tuning_db_variable_naming_a_file(tmp_path: Path) -> None:
    model = tmp_path / "m.onnx"
    model.write_bytes(b"model bytes")
    env = {store.ENV: "/dev/null"}
    with pytest.raises(store.UsageError) as refused:
        api.tune(model, [], [], env=env, input_shapes={"x": (1, 8)})
    assert refused.value.one_line() == NOT_A_DATABASE.format(path="/dev/null")
    resolved = api.resolve([], [])
    plan = plan_build(resolved.config, resolved.origins, model_spec(str(model), None, {"x": (1, 8)}))
    said: list[str] = []
    chosen, why = choose(plan, resolved.config, warn=said.append, env=env)
    assert chosen.tuning is None and why == f"none applied: {NOT_A_DATABASE.format(path='/dev/null')}"
    assert said == [f"tuning records not applied: {NOT_A_DATABASE.format(path='/dev/null')}"]


@pytest.mark.parametrize("name", [store.META, store.VERDICTS])
def test_a_fifo_where_a_partition_file_should_be_does_not_hang(tmp_path: Path, name: str) -> None:
    """partition.json or verdicts.json as a FIFO (another user's doing) blocked reading it forever:
    now it is a file that cannot be read, named, like a broken one."""
    write_db(tmp_path / FP, [workload(0)], [(0, record(1e-5))])
    os.mkfifo(tmp_path / FP / name)
    warnings: list[str] = []
    if name == store.META:
        with pytest.raises(store.TvmcError, match=f"{tmp_path / FP / name}: .*not a regular file"):
            store.Partition(tmp_path, FP).meta()
    else:
        assert store.read_verdicts(tmp_path / FP, warnings.append) == {}
        assert warnings == [
            f"{tmp_path / FP / name}: cannot be read (not a regular file): skipped (tvmc tune measures it again)"
        ]


def test_partition_files_are_read_by_the_config_loaders_reader(tmp_path: Path) -> None:
    """One reader of small files that must be regular (store had a twin of the loader's): a file
    larger than the limit is refused by size, read no further, and the message says the limit."""
    from tvmc import readfile
    from tvmc.sources import loader

    assert store.read_regular is readfile.read_regular is loader.read_regular
    write_db(tmp_path / FP, [workload(0)], [(0, record(1e-5))])
    meta = tmp_path / FP / store.META
    with meta.open("wb") as sparse:  # a hole: 64 MiB of size, no disk
        sparse.truncate(store.SMALL_FILE_BYTES + 1)
    size = store.SMALL_FILE_BYTES + 1
    # the path once: it is the error's location (h-edges: it was 'PATH: cannot read PATH: ...')
    with pytest.raises(store.TvmcError, match=rf"^{meta}: cannot be read: larger than {size - 1} bytes \({size} "):
        store.Partition(tmp_path, FP).meta()


def test_listing_streams_the_records(tmp_path: Path) -> None:
    part = store.Partition(tmp_path, FP)
    write_db(part.path, [workload(0), workload(1)], [])
    line = json.dumps([0, record(1e-5)]) + "\n"
    count = 4_000_000 // len(line) + 1  # a 4 MB records file
    with (part.path / store.RECORDS).open("w") as sink:
        for i in range(count):
            sink.write(line if i % 2 else json.dumps([1, record(2e-5)]) + "\n")
    tracemalloc.start()
    try:
        tasks = store.summary(part, pytest.fail)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sum(t.trials for t in tasks) == count
    assert peak < 1_000_000, peak  # a fraction of the file, not a structure many times its size


def test_runs_and_sources_others_could_write_are_not_merged(tmp_path: Path) -> None:
    part = store.Partition(tmp_path / "db", FP)
    write_db(part.path, [workload(0)], [(0, record(1e-5))])
    dead_runs(part, 2)
    planted = part.runs()[0]
    planted.chmod(0o777)
    said, warn = collect()
    assert store.recover(part, warn) == 1
    assert said == [f"{planted} is writable by other users: its records are not merged into {part.path}"]
    assert part.runs() == [planted]  # left for its owner
    source = tmp_path / "src"
    write_db(source / FP, [workload(7)], [(0, record(1e-6))])
    (source / FP / store.RECORDS).chmod(0o666)
    said.clear()
    assert store.merge([source], tmp_path / "out", warn) == {}
    assert said == [
        f"{source / FP / store.RECORDS} is writable by other users: not merged "
        "(copy it to a directory of your own to merge it)"
    ]


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_a_run_of_another_user_is_not_merged(tmp_path: Path) -> None:
    part = store.Partition(tmp_path, FP)
    dead_runs(part, 1)
    run = part.runs()[0]
    os.chown(run, 65534, 65534)
    said, warn = collect()
    assert store.recover(part, warn) == 0
    assert said == [f"{run} is owned by another user (uid 65534): its records are not merged into {part.path}"]


def test_failed_measurements_are_not_done(tmp_path: Path) -> None:
    write_db(tmp_path, [workload(0), workload(1)], [(0, record(1e10)), (0, record(1e10, "u")), (1, record(1e-5))])
    db = store.read(tmp_path, pytest.fail)
    assert db.trials() == {"1000": 2, "1001": 1}
    assert db.measured() == {"1001": 1}


def outcome(**fields: object) -> session.Outcome:
    tasks = [{"name": f"k{i}", "shash": str(i), "done": 0, "budget": 1, "state": "pending"} for i in range(4)]
    result = session.Outcome(store.Partition(Path("db"), FP), tasks=tasks)
    for key, value in fields.items():
        setattr(result, key, value)
    return result


def test_a_budget_that_leaves_tasks_untuned_says_so() -> None:
    said, warn = collect()
    lines = report(outcome(trials={0: 1, 1: 1}, untuned=["k2", "k3"]), "m.onnx", 2, None, warn)
    assert said == ["--trials 2 left 2 of 4 tasks untuned (k2, k3): give --trials 4 or more"]
    assert [line.endswith("(not tuned)") for line in lines[2:]] == [False, False, True, True]
    said.clear()
    report(outcome(trials={0: 2}, untuned=["k1", "k2", "k3"], failed=2), "m.onnx", 8, None, warn)
    assert said and "3 of 4 tasks have no successful measurement" in said[0] and "2 measurements failed" in said[0]


def test_progress_on_a_terminal_is_one_line_with_an_eta() -> None:
    stream = io.StringIO()
    display = Display("", terminal=True, stream=stream)
    tasks = [{"name": "k0", "shash": "0", "done": 0, "budget": 4, "state": "pending"}] * 2
    display({"tasks": tasks, "fingerprint": FP})
    display({"task": 0, "trials": 2, "best": 1e-5})
    display({"task": 1, "trials": 2, "best": 2e-5})
    display.close()
    text = stream.getvalue()
    assert text.startswith(f"tvmc: 2 tasks for target fingerprint {FP[:12]}: 2 to tune\n")
    assert "\r\033[Ktvmc: task 2/2 k0: 2/4 trials, best 20 us; 4/8 in all, ETA " in text
    assert text.endswith("\r\033[K") and text.count("\n") == 1
    piped = io.StringIO()
    logged = Display(FP, terminal=False, stream=piped)
    logged({"tasks": tasks})
    logged({"task": 0, "trials": 2, "best": 1e-5})
    assert piped.getvalue().splitlines()[1] == "tvmc: task 1/2 k0: 2/4 trials, best 10 us"


def test_jobs_is_not_the_core_count(tmp_path: Path) -> None:
    from tvmc.backend.model import model_spec
    from tvmc.backend.plan import plan_build

    resolved = api.resolve([], [])
    plan = plan_build(resolved.config, resolved.origins, model_spec("m.onnx", None, None))
    assert session.cores_of(plan) == (os.cpu_count() or 1)
    resolved = api.resolve([], [("--target-llvm-num-cores", "3")])
    assert session.cores_of(plan_build(resolved.config, resolved.origins, model_spec("m.onnx", None, None))) == 3


def test_prune_ignores_tvmc_settings_and_keeps_configs_tuned_by_path(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "db"
    c5 = target_fingerprint(api.resolve(["aws/c5"], []).config)
    mine = tmp_path / "mine.toml"
    mine.write_text('extends = "host/default"\nopt-level = 1\n')
    by_path = target_fingerprint(api.resolve([str(mine)], []).config)
    for name in (c5, by_path, "77" * 32):
        write_db(db / name, [workload(0)], [(0, record(1e-5))])
    (db / by_path / store.META).write_text(json.dumps({"sources": [str(mine)], "description": "mine"}))
    monkeypatch.setenv("TVMC_OPT_LEVEL", "2")
    runner = CliRunner()
    dry = runner.invoke(app, ["tune", "db", "prune", "--dry-run", "--database", str(db)])
    assert dry.exit_code == 0, dry.output
    assert sorted(dry.output.splitlines()) == [
        f"kept {by_path[:16]}  mine  (tuned with {mine})",
        f"would remove {'77' * 8}  -  (no config on the search path maps to it)",
    ]
    mine.unlink()
    dry = runner.invoke(app, ["tune", "db", "prune", "--database", str(db)])
    assert f"removed {by_path[:16]}  mine  (no config on the search path maps to it; {mine}, which" in dry.output
    assert (db / c5).exists() and not (db / by_path).exists()


def test_isolated_means_no_implicit_database(app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    own = store.Partition(tmp_path, target_fingerprint(api.resolve([], []).config))
    write_db(own.path, [workload(0)], [(0, record(1e-5))])
    monkeypatch.setenv("TVMC_TUNING_DB", str(tmp_path))
    model = tmp_path / "m.onnx"
    model.write_bytes(b"")
    runner = CliRunner()
    applied = runner.invoke(app, ["compile", str(model), "--emit", "python"])
    assert "TUNING_DATABASE" in applied.stdout
    isolated = runner.invoke(app, ["compile", str(model), "--emit", "python", "--isolated"])
    assert isolated.exit_code == 0 and "TUNING_DATABASE" not in isolated.stdout
    given = runner.invoke(app, ["compile", str(model), "--emit", "python", "--isolated", "--database", str(tmp_path)])
    assert "TUNING_DATABASE" in given.stdout
    for args in (["tune", "db", "prune"], ["tune", "db", "list"], ["tune", str(model)]):
        refused = runner.invoke(app, [*args, "--isolated"])
        assert refused.exit_code == 2, refused.output
        assert "--isolated uses no implicit tuning database: give --database DIR" in refused.output


def test_a_killed_tunes_temporary_folder_is_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stale = tmp_path / f"{session.TEMP_PREFIX}stale"
    stale.mkdir()
    (stale / session.TEMP_LOCK).write_text("")
    (stale / "job.pickle").write_bytes(b"x")
    fresh_unlocked = tmp_path / f"{session.TEMP_PREFIX}starting"
    fresh_unlocked.mkdir()  # made by a run that has not locked yet: left alone
    other = tmp_path / "tvmc-other"
    other.mkdir()
    with session.run_folder() as live:
        assert (live / session.TEMP_LOCK).exists()
        removed = session.remove_stale_temporaries()
        assert removed == [stale]
        assert live.exists() and fresh_unlocked.exists() and other.exists()
    # a SIGKILLed tune (a real process holding its folder's lock) is found stale once it is dead
    code = (
        "import tvmc.tune.session as s, os, signal\n"
        "with s.run_folder() as f:\n print(f, flush=True)\n os.kill(os.getpid(), signal.SIGKILL)"
    )
    killed = subprocess.run(
        [sys.executable, "-c", code], env=cli_env(TMPDIR=str(tmp_path)), capture_output=True, text=True, timeout=60
    )
    folder = Path(killed.stdout.strip())
    assert killed.returncode == -9 and folder.is_dir()
    assert session.remove_stale_temporaries() == [folder]


def test_records_of_everything_but_the_trace_are_checked() -> None:
    good = [0, [trace("t"), [1e-5], TARGET, ARGS]]
    assert store.record_problem(good, [["1", "m"]]) is None
    assert store.record_problem([True, good[1]], [["1", "m"]]) is not None
    assert store.record_problem([0, [trace("t"), [1e-5], TARGET, "x"]], [["1", "m"]]) is not None
    assert store.record_problem(good, [None]) == f"its workload (line 1 of {store.WORKLOADS}) is bad"
    assert store.workload_problem(workload(3)) is None


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(lines=st.lists(JSON | st.text(max_size=20), max_size=8))
def test_reading_any_lines_never_raises_and_keeps_only_valid_records(lines: list[object]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        good = json.dumps([0, record(1e-5)])
        text = [line if isinstance(line, str) else json.dumps(line, allow_nan=True) for line in lines]
        (directory / store.WORKLOADS).write_text(json.dumps(workload(0)) + "\n")
        (directory / store.RECORDS).write_text("\n".join([good, *(t.replace("\n", " ") for t in text)]) + "\n")
        _said, warn = collect()
        db = store.read(directory, warn)
        assert db.records and db.records[0].seconds == 1e-5
        for item in db.records:
            assert store.record_problem([0, item.payload], [workload(0)]) is None


@settings(max_examples=25, deadline=None)
@given(spread=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 5)), min_size=1, max_size=12))
def test_recovering_runs_keeps_the_union_of_their_records(spread: list[tuple[int, int]]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        part = store.Partition(Path(tmp), FP)
        wanted = set()
        for number, (run_index, kernel) in enumerate(spread):
            run = part.path / f"{store.RUN_PREFIX}{999_100_000 + run_index}"
            old = store.read(run, pytest.fail)
            old.add(
                store.Database(
                    [workload(kernel)], [store.Record("\0".join(workload(kernel)), record(1e-5, f"c{number}"))]
                )
            )
            store.write(run, old)
            wanted.add((str(1000 + kernel), f"c{number}"))
        store.recover(part, pytest.fail)
        db = store.read(part.path, pytest.fail)
        assert {(db.shash(r.workload), r.payload[0][0][0][2][0]) for r in db.records} == wanted


def test_records_apply_when_the_runs_cannot_be_merged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A database this user cannot write (another user's, shared): its killed runs are not merged
    (the lock cannot be taken), and its records still apply, said in a warning."""
    from tvmc.backend.model import model_spec
    from tvmc.backend.plan import plan_build
    from tvmc.errors import TvmcError

    resolved = api.resolve([], [])
    plan = plan_build(resolved.config, resolved.origins, model_spec("m.onnx", None, None))
    part = store.Partition(tmp_path, target_fingerprint(resolved.config))
    write_db(part.path, [workload(0)], [(0, record(1e-5))])

    def cannot_lock(partition: store.Partition, warn: store.Warn, *, finished: Path | None = None) -> int:
        raise TvmcError(f"cannot lock {partition.path / store.LOCK}: Permission denied", str(partition.path))

    monkeypatch.setattr(store, "recover", cannot_lock)
    said, warn = collect()
    tuned, why = choose(plan, resolved.config, warn=warn, database=tmp_path)
    assert tuned.tuning == str(part.path) and why == f"database {part.path}"
    assert said == [
        f"{part.path}: cannot lock {part.path / store.LOCK}: Permission denied: runs left in {part.path} are not merged"
    ]


def test_a_model_is_known_by_its_bytes_and_plan_not_its_path(tmp_path: Path) -> None:
    from tvmc.backend.model import model_spec
    from tvmc.backend.plan import plan_build

    def key(model: Path, *flags: tuple[str, str]) -> str:
        resolved = api.resolve([], list(flags))
        return session.model_key(plan_build(resolved.config, resolved.origins, model_spec(str(model), None, None)))

    a, b = tmp_path / "a.onnx", tmp_path / "b" / "a.onnx"
    b.parent.mkdir()
    a.write_bytes(b"model one")
    b.write_bytes(b"model one")
    assert key(a) == key(b)
    assert key(a) != key(a, ("-O", "2"))
    b.write_bytes(b"model two")
    assert key(a) != key(b)
