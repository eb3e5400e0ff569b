"""The end-to-end verdict (issue 29, "a tuned library is never slower than the untuned one"):
`tvmc tune` stores the ratio it measured on the built libraries, and `compile` leaves a model's
records out where that ratio says the tuned library clearly lost. No TVM here (the measurement
itself is covered by tests/tune/test_tune_tvm.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_store import record, workload, write_db
from tvmc import api
from tvmc.backend.model import model_spec
from tvmc.backend.plan import BuildPlan, plan_build
from tvmc.tune import compare, store
from tvmc.tune.apply import choose
from tvmc.tune.fingerprint import target_fingerprint


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


def test_a_losing_verdict_builds_untuned_with_one_note(
    setup: Setup,
) -> None:
    resolved, plan, part, key = setup
    store.write_verdict(part, key, store.Verdict(1.49e-6, 1.65e-6, "m.onnx"), pytest.fail)
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
    compare.remember(compare.EndToEnd(untuned_ms=0.002, tuned_ms=0.004), resolved, spec, part.root, pytest.fail)
    lost, _ = choose(plan, resolved.config, warn=lambda _m: None, database=part.root)
    assert lost.tuning is None
    compare.remember(compare.EndToEnd(untuned_ms=0.002, tuned_ms=0.001), resolved, spec, part.root, pytest.fail)
    assert store.read_verdicts(part.path, pytest.fail)[key].ratio == 2.0
    won, why = choose(plan, resolved.config, warn=pytest.fail, database=part.root)
    assert won.tuning == str(part.path) and why == f"database {part.path}"
    assert (part.path / store.VERDICTS).stat().st_mode & 0o022 == 0


def test_a_verdict_is_of_the_models_bytes_and_shapes(setup: Setup, tmp_path: Path) -> None:
    resolved, plan, part, key = setup
    store.write_verdict(part, key, store.Verdict(1e-6, 2e-6), pytest.fail)
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
    doc = {"models": {"0" * 64: {"tuned-seconds": 1}, key: {"untuned-seconds": 1e-6, "tuned-seconds": 2e-6}}}
    (part.path / store.VERDICTS).write_text(json.dumps(doc))
    said, warn = collect()
    chosen, _ = choose(plan, resolved.config, warn=warn, database=part.root)
    assert chosen.tuning is None
    problem = "'untuned-seconds' is not a finite positive number of seconds"
    assert said[0] == f"{part.path / store.VERDICTS}: model '0000000000000000': {problem}: skipped"
    # writing a verdict drops the bad entry and keeps the good one
    store.write_verdict(part, "1" * 64, store.Verdict(1e-6, 1e-6), lambda _m: None)
    assert set(store.read_verdicts(part.path, pytest.fail)) == {key, "1" * 64}
