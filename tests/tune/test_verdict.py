"""The end-to-end verdict (issue 29, "a tuned library is never slower than the untuned one"):
`tvmc tune` stores the ratio it measured on the built libraries, with the records the tuned build
applied, and `compile` leaves a model's records out where that ratio says the tuned library clearly
lost — while the partition still gives those records. No TVM here (the measurement itself, and a
verdict over real partitions, are covered by tests/tune/test_tune_tvm.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st
from test_store import record, workload, write_db
from tvmc import api
from tvmc.backend.model import model_spec
from tvmc.backend.plan import BuildPlan, plan_build
from tvmc.errors import TvmcError, UsageError
from tvmc.tune import compare, store
from tvmc.tune.apply import choose
from tvmc.tune.fingerprint import target_fingerprint
from typer.testing import CliRunner


def collect() -> tuple[list[str], store.Warn]:
    said: list[str] = []
    return said, said.append


Setup = tuple[api.Resolved, BuildPlan, store.Partition, str]


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    """A model file, the default config's plan for it, a partition with one record, the model's id."""
    model = tmp_path / "m.onnx"
    model.write_bytes(b"model bytes")
    resolved = api.resolve([], [])
    plan = plan_build(resolved.config, resolved.origins, model_spec(str(model), None, {"x": (1, 8)}))
    part = store.Partition(tmp_path / "db", target_fingerprint(resolved.config))
    write_db(part.path, [workload(0)], [(0, record(1e-5))])
    key = store.model_id(model, {"x": (1, 8)})
    assert key is not None
    return resolved, plan, part, key


def now(part: store.Partition, *workloads: str) -> store.Applied:
    """The records the partition applies now for these workloads (the model's: "1000")."""
    return store.applied(part.database(pytest.fail), workloads or ("1000",))


def loss(part: store.Partition, records: store.Applied | None = None) -> store.Verdict:
    """A measured loss (0.90x) over the records the partition applies now."""
    return store.Verdict(1.49e-6, 1.65e-6, "m.onnx", now(part) if records is None else records)


def add_records(part: store.Partition, *records: tuple[int, list[object]]) -> None:
    """Records added to the partition as a merged run adds them (workload lines 0: "1000", 1: "1001")."""
    db = part.database(pytest.fail)
    db.add(store.Database([workload(0), workload(1)], []))
    keys = [store.Database.key(workload(0)), store.Database.key(workload(1))]
    db.records += [store.Record(keys[index], payload) for index, payload in records]
    store.write(part.path, db)


def test_a_losing_verdict_builds_untuned_with_one_note(
    setup: Setup,
) -> None:
    resolved, plan, part, key = setup
    store.write_verdict(part, key, loss(part), pytest.fail)
    said, warn = collect()
    chosen, why = choose(plan, resolved.config, warn=warn, database=part.root)
    assert chosen.tuning is None
    assert why == f"not applied: the tuned library lost to the untuned one (0.90x, {part.path})"
    assert len(said) == 1 and said[0].startswith("tuning records left out: tvmc tune measured this model's tuned")
    assert "(0.90x, tuned 1.65 us against untuned 1.49 us)" in said[0] and "--tune N" in said[0]
    assert str(part.path / store.VERDICTS) in said[0]
    # tune's own measurement builds with the records all the same
    applied, _ = choose(plan, resolved.config, warn=pytest.fail, database=part.root, verdicts=False)
    assert applied.tuning == str(part.path)


@given(st.floats(min_value=0.01, max_value=100.0))
def test_records_apply_exactly_when_the_ratio_is_not_a_clear_loss(ratio: float) -> None:
    verdict = store.Verdict(ratio * 1e-6, 1e-6)
    assert verdict.lost == (ratio < store.LOST_BELOW)
    assert verdict.ratio == pytest.approx(ratio)


def test_a_later_win_replaces_the_loss(setup: Setup) -> None:
    resolved, plan, part, key = setup
    spec = plan.model
    measured = now(part)
    compare.remember(
        compare.EndToEnd(untuned_ms=0.002, tuned_ms=0.004), resolved, spec, part.root, pytest.fail, measured
    )
    lost, _ = choose(plan, resolved.config, warn=lambda _m: None, database=part.root)
    assert lost.tuning is None
    compare.remember(
        compare.EndToEnd(untuned_ms=0.002, tuned_ms=0.001), resolved, spec, part.root, pytest.fail, measured
    )
    assert store.read_verdicts(part.path, pytest.fail)[key].ratio == 2.0
    won, why = choose(plan, resolved.config, warn=pytest.fail, database=part.root)
    assert won.tuning == str(part.path) and why == f"database {part.path}"
    assert (part.path / store.VERDICTS).stat().st_mode & 0o022 == 0


def test_a_verdict_is_of_the_models_bytes_and_shapes(setup: Setup, tmp_path: Path) -> None:
    resolved, plan, part, key = setup
    store.write_verdict(part, key, store.Verdict(1e-6, 2e-6, records=now(part)), pytest.fail)
    copy = tmp_path / "elsewhere.onnx"
    copy.write_bytes(Path(plan.model.path).read_bytes())
    same = plan_build(resolved.config, resolved.origins, model_spec(str(copy), None, {"x": (1, 8)}))
    other_shapes = plan_build(resolved.config, resolved.origins, model_spec(str(copy), None, {"x": (2, 8)}))
    copy_other = tmp_path / "other.onnx"
    copy_other.write_bytes(b"other model")
    other = plan_build(resolved.config, resolved.origins, model_spec(str(copy_other), None, {"x": (1, 8)}))
    assert choose(same, resolved.config, warn=lambda _m: None, database=part.root)[0].tuning is None
    for applies in (other_shapes, other):
        assert choose(applies, resolved.config, warn=pytest.fail, database=part.root)[0].tuning == str(part.path)
    # the fingerprint is the config's: a verdict changes no partition name
    assert target_fingerprint(resolved.config) == part.fingerprint


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("not json", "cannot be read"),
        ("[1, 2]", "not an object of models"),
        ('{"models": []}', "not an object of models"),
        ('{"models": {"KEY": {"untuned-seconds": "fast", "tuned-seconds": 1}}}', "'untuned-seconds' is not"),
        ('{"models": {"KEY": {"untuned-seconds": 1, "tuned-seconds": -1}}}', "'tuned-seconds' is not"),
        ('{"models": {"KEY": {"untuned-seconds": 1, "tuned-seconds": 1e999}}}', "'tuned-seconds' is not"),
        ('{"models": {"KEY": {"untuned-seconds": 1, "tuned-seconds": 2, "model": 3}}}', "'model' is not a string"),
        ('{"models": {"nothex": {"untuned-seconds": 1, "tuned-seconds": 2}}}', "its key is not a SHA-256"),
        ('{"models": {"KEY": {"untuned-seconds": 1, "tuned-seconds": 2, "records": -1}}}', "'records' is not a count"),
        (
            '{"models": {"KEY": {"untuned-seconds": 1, "tuned-seconds": 2, "records": 1, "records-sha256": "x"}}}',
            "'records-sha256' is not a SHA-256",
        ),
        (
            '{"models": {"KEY": {"untuned-seconds": 1, "tuned-seconds": 2, "records": 1, '
            '"records-sha256": "' + "0" * 64 + '", "workloads": [7]}}}',
            "'workloads' is not a list of structural hashes",
        ),
    ],
)
def test_a_bad_verdict_is_skipped_and_named(setup: Setup, content: str, problem: str) -> None:
    resolved, plan, part, key = setup
    (part.path / store.VERDICTS).write_text(content.replace("KEY", key))
    said, warn = collect()
    chosen, _ = choose(plan, resolved.config, warn=warn, database=part.root)
    assert chosen.tuning == str(part.path)  # the records apply: a bad verdict is no verdict
    assert len(said) == 1 and said[0].startswith(f"{part.path / store.VERDICTS}: ") and problem in said[0]


def test_a_bad_entry_leaves_the_others(setup: Setup) -> None:
    resolved, plan, part, key = setup
    tied = loss(part).to_dict()
    doc = {"models": {"0" * 64: {"tuned-seconds": 1}, key: {**tied, "untuned-seconds": 1e-6, "tuned-seconds": 2e-6}}}
    (part.path / store.VERDICTS).write_text(json.dumps(doc))
    said, warn = collect()
    chosen, _ = choose(plan, resolved.config, warn=warn, database=part.root)
    assert chosen.tuning is None
    problem = "'untuned-seconds' is not a finite positive number of seconds"
    assert said[0] == f"{part.path / store.VERDICTS}: model '0000000000000000': {problem}: skipped"
    # writing a verdict drops the bad entry and keeps the good one
    store.write_verdict(part, "1" * 64, store.Verdict(1e-6, 1e-6), lambda _m: None)
    assert set(store.read_verdicts(part.path, pytest.fail)) == {key, "1" * 64}


# ---- a verdict decides only over the records it measured --------------------------------------------


def test_a_faster_record_for_the_model_makes_the_loss_stale(setup: Setup) -> None:
    """Records added since the measurement (a run killed before its end-to-end line, or another
    tune's): the verdict no longer decides, the records apply, and one warning says it is stale."""
    resolved, plan, part, key = setup
    store.write_verdict(part, key, loss(part), pytest.fail)
    add_records(part, (0, record(5e-6, "faster")))
    said, warn = collect()
    chosen, why = choose(plan, resolved.config, warn=warn, database=part.root)
    assert chosen.tuning == str(part.path) and why == f"database {part.path}"
    assert len(said) == 1, said
    assert said[0].startswith("the verdict that this model's tuned library lost (0.90x) is stale: it was measured")
    assert "(1 records then, 1 now)" in said[0] and "tune again to measure them" in said[0]
    assert f"tvmc tune db forget-verdict {part.fingerprint[:16]} {key[:16]}" in said[0]
    assert store.stale_verdict(part, plan.model.path, plan.model.shapes, pytest.fail)


def test_compile_and_tune_look_a_verdict_up_alike(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    """One lookup of a model's verdict (`store.model_verdict`) serves compile (whether the records
    apply) and tune (whether a done model is measured again): the model hashed only when the
    partition has verdicts, and not found for another model or other shapes."""
    resolved, plan, part, key = setup
    model, shapes = plan.model.path, plan.model.shapes
    with monkeypatch.context() as patched:
        patched.setattr(store, "model_id", lambda *_a: pytest.fail("hashed a model with no verdict to find"))
        assert store.model_verdict(part, model, shapes, pytest.fail) is None
        assert not store.stale_verdict(part, model, shapes, pytest.fail)
        assert choose(plan, resolved.config, warn=pytest.fail, database=part.root)[0].tuning == str(part.path)
    verdict = loss(part)
    store.write_verdict(part, key, verdict, pytest.fail)
    assert store.model_verdict(part, model, shapes, pytest.fail) == (key, verdict)
    assert store.model_verdict(part, model, {"x": (2, 8)}, pytest.fail) is None
    assert store.model_verdict(part, Path(model).parent / "missing.onnx", shapes, pytest.fail) is None
    looked: list[object] = []
    lookup = store.model_verdict
    monkeypatch.setattr(store, "model_verdict", lambda *a: looked.append(a[1]) or lookup(*a))
    assert choose(plan, resolved.config, warn=lambda _m: None, database=part.root)[0].tuning is None
    assert not store.stale_verdict(part, model, shapes, pytest.fail)
    assert looked == [model, model]  # both went through the one lookup


def test_records_the_model_does_not_apply_leave_the_verdict_in_force(setup: Setup) -> None:
    """A slower record of the model's workload (MetaSchedule applies the fastest) or a record of
    another workload (another model's) change nothing the tuned build applies."""
    resolved, plan, part, key = setup
    store.write_verdict(part, key, loss(part), pytest.fail)
    add_records(part, (0, record(9e-5, "slower")), (1, record(1e-7, "other model")))
    chosen, _ = choose(plan, resolved.config, warn=lambda _m: None, database=part.root)
    assert chosen.tuning is None
    assert not store.stale_verdict(part, plan.model.path, plan.model.shapes, pytest.fail)
    # a verdict over every workload (none named) sees the other model's record
    everything = store.applied(part.database(pytest.fail), ())
    assert everything.records == 2 and everything != now(part)


def test_a_verdict_without_its_records_decides_nothing(setup: Setup) -> None:
    """A verdict of a tvmc that did not keep the records (or a hand-written one) is stale."""
    resolved, plan, part, key = setup
    (part.path / store.VERDICTS).write_text(
        json.dumps({"models": {key: {"untuned-seconds": 1.49e-6, "tuned-seconds": 1.65e-6}}})
    )
    said, warn = collect()
    chosen, _ = choose(plan, resolved.config, warn=warn, database=part.root)
    assert chosen.tuning == str(part.path)
    assert len(said) == 1 and "is stale" in said[0] and "(records not kept, 1 now)" in said[0]


def test_the_applied_records_are_the_fastest_per_workload(setup: Setup) -> None:
    _resolved, _plan, part, _key = setup
    before = now(part)
    assert before.records == 1 and before.workloads == ("1000",)
    add_records(part, (0, record(1e10, "failed")))  # a failed measurement is never applied
    assert now(part) == before
    add_records(part, (0, record(2e-6, "new best")))
    assert now(part) != before and now(part).records == 1


def test_merge_keeps_the_verdicts_of_the_records_it_keeps(setup: Setup, tmp_path: Path) -> None:
    """`db merge`: a destination's verdict whose records the merge replaced is dropped; one whose
    records are unchanged is kept; a source's verdict comes along where the merged partition applies
    the records it measured."""
    _resolved, _plan, part, key = setup
    other_key = "2" * 64
    store.write_verdict(part, key, loss(part), pytest.fail)
    store.write_verdict(part, other_key, store.Verdict(1e-6, 1e-6, "n.onnx", now(part, "1001")), pytest.fail)
    source = store.Partition(tmp_path / "src", part.fingerprint)
    write_db(source.path, [workload(0), workload(1)], [(0, record(2e-6)), (1, record(4e-6))])
    carried = "3" * 64
    store.write_verdict(source, carried, store.Verdict(2e-6, 1e-6, "o.onnx", now(source, "1000", "1001")), pytest.fail)
    counts: dict[str, tuple[int, int]] = {}
    store.merge([source.root], part.root, pytest.fail, counts)
    kept = store.read_verdicts(part.path, pytest.fail)
    # key's records (workload 1000) got a faster one: dropped. other_key measured workload 1001 when it
    # had no record; now it has one: dropped. The source's verdict: its records are the merged ones.
    assert set(kept) == {carried} and counts == {part.fingerprint: (1, 2)}
    assert kept[carried].current(part.database(pytest.fail))
    # merging again changes nothing: the verdict stays
    store.merge([source.root], part.root, pytest.fail, counts)
    assert set(store.read_verdicts(part.path, pytest.fail)) == {carried}


def test_merge_into_a_copy_keeps_every_verdict(setup: Setup, tmp_path: Path) -> None:
    _resolved, _plan, part, key = setup
    store.write_verdict(part, key, loss(part), pytest.fail)
    counts: dict[str, tuple[int, int]] = {}
    store.merge([part.root], tmp_path / "copy", pytest.fail, counts)
    copy = store.Partition(tmp_path / "copy", part.fingerprint)
    assert store.read_verdicts(copy.path, pytest.fail) == store.read_verdicts(part.path, pytest.fail)
    assert counts == {part.fingerprint: (1, 0)}


def test_forget_verdicts(setup: Setup) -> None:
    _resolved, _plan, part, key = setup
    for other in ("4" * 64, "45" + "0" * 62):
        store.write_verdict(part, other, loss(part), pytest.fail)
    store.write_verdict(part, key, loss(part), pytest.fail)
    with pytest.raises(UsageError, match="names 2 verdicts"):
        store.forget_verdicts(part, "4", pytest.fail)
    with pytest.raises(TvmcError, match=f"no verdict 99 in {part.path}"):
        store.forget_verdicts(part, "99", pytest.fail)
    with pytest.raises(UsageError, match="not a verdict's key"):
        store.forget_verdicts(part, "xyz", pytest.fail)
    assert set(store.forget_verdicts(part, "44", pytest.fail)) == {"4" * 64}
    assert set(store.read_verdicts(part.path, pytest.fail)) == {key, "45" + "0" * 62}
    assert len(store.forget_verdicts(part, None, pytest.fail)) == 2
    assert not (part.path / store.VERDICTS).exists()
    assert store.forget_verdicts(part, None, pytest.fail) == {}


def test_db_show_lists_verdicts_and_forget_verdict_removes_one(app: typer.Typer, setup: Setup) -> None:
    resolved, plan, part, key = setup
    store.write_verdict(part, key, loss(part), pytest.fail)
    store.write_verdict(part, "5" * 64, store.Verdict(2e-6, 1e-6, "n.onnx", now(part)), pytest.fail)
    store.write_verdict(part, "6" * 64, store.Verdict(1e-6, 2e-6, "o.onnx", now(part, "1001")), pytest.fail)
    add_records(part, (1, record(1e-6)))  # o.onnx's verdict is now stale
    runner = CliRunner()
    db = ["--database", str(part.root)]
    shown = runner.invoke(app, ["tune", "db", "show", part.fingerprint[:8], *db])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[lines.index(next(x for x in lines if x.startswith("verdicts "))) + 1 :] == [
        f"  {key[:16]}  {'m.onnx':<24} 0.90x (tuned 1.65 us, untuned 1.49 us): lost, compile builds it untuned",
        f"  {'5' * 16}  {'n.onnx':<24} 2.00x (tuned 1 us, untuned 2 us): compile applies the records",
        f"  {'6' * 16}  {'o.onnx':<24} 0.50x (tuned 2 us, untuned 1 us): stale, measured with other records "
        "(compile applies them; tune again to measure)",
    ]
    forgot = runner.invoke(app, ["tune", "db", "forget-verdict", part.fingerprint[:8], key[:6], *db])
    assert forgot.exit_code == 0, forgot.output
    assert forgot.output == f"tvmc: forgot 1 verdict of {part.fingerprint[:16]} ({key[:16]} m.onnx 0.90x)\n"
    assert choose(plan, resolved.config, warn=pytest.fail, database=part.root)[0].tuning == str(part.path)
    unknown = runner.invoke(app, ["tune", "db", "forget-verdict", part.fingerprint[:8], "abc", *db])
    assert unknown.exit_code == 1 and f"no verdict abc in {part.path}" in unknown.output
    everything = runner.invoke(app, ["tune", "db", "forget-verdict", part.fingerprint[:8], *db])
    assert everything.exit_code == 0 and everything.output.startswith("tvmc: forgot 2 verdicts of ")


def test_merge_takes_no_verdict_others_could_write(setup: Setup, tmp_path: Path) -> None:
    _resolved, _plan, part, key = setup
    store.write_verdict(part, key, loss(part), pytest.fail)
    (part.path / store.VERDICTS).chmod(0o666)
    said, warn = collect()
    assert store.merge([part.root], tmp_path / "copy", warn) == {}
    assert said == [
        f"{part.path / store.VERDICTS} is writable by other users: not merged "
        "(copy it to a directory of your own to merge it)"
    ]


# `tune db show` reads a partition once: the summary's pass also finds the fastest record per
# workload, which is what the verdicts compare with (it read a 250 MB partition twice, building
# every record in memory the second time: 72 s, now 9 s). What it finds is what `applied` finds
# from the whole database, for every workload set.
seconds_st = st.one_of(st.sampled_from([1e-5, 2e-5, 1e10, 0.0]), st.floats(1e-7, 1e-3))


@given(
    lines=st.lists(st.tuples(st.integers(0, 3), seconds_st, st.sampled_from("tuv")), max_size=12),
    wanted=st.lists(st.sampled_from(["1000", "1001", "1002", "1003", "9999"]), max_size=3),
)
def test_one_pass_finds_what_the_whole_database_applies(
    tmp_path_factory: pytest.TempPathFactory, lines: list[tuple[int, float, str]], wanted: list[str]
) -> None:
    part = store.Partition(tmp_path_factory.mktemp("db") / "db", "f" * 64)
    # workload 3 has the same structural hash as workload 0 (TVM keeps both lines)
    workloads = [workload(0), workload(1), workload(2), [workload(0)[0], workload(3)[1]]]
    write_db(part.path, workloads, [(w, record(s, name)) for w, s, name in lines])
    fastest: dict[str, store.Record] = {}
    said, warn = collect()  # a bad line (0 s) is skipped and named alike by every reader
    tasks = store.summary(part, warn, fastest)
    plain = store.summary(part, warn)
    assert [(t.shash, t.trials, t.best_seconds) for t in tasks] == [(t.shash, t.trials, t.best_seconds) for t in plain]
    assert store.applied(fastest, wanted) == store.applied(part.database(warn), wanted)
    assert bool(said) == any(s == 0.0 for _, s, _ in lines)
