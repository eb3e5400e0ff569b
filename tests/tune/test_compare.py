"""The end of `tvmc tune` (issue 29): tasks whose tuned kernel lost to the untuned one, and the
end-to-end line. No TVM here (the builds are covered by tests/tune/test_tune_tvm.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from tvmc.tune.compare import EndToEnd, lost_tasks

SECONDS = st.none() | st.floats(min_value=1e-9, max_value=1.0)


@given(st.lists(st.tuples(SECONDS, SECONDS), max_size=8))
def test_a_task_lost_exactly_when_both_were_measured_and_tuned_is_slower(
    measured: list[tuple[float | None, float | None]],
) -> None:
    tasks = [{"name": f"t{i}"} for i in range(len(measured))]
    baseline = {i: untuned for i, (untuned, _) in enumerate(measured)}
    best = {i: tuned for i, (_, tuned) in enumerate(measured)}
    lost = lost_tasks(tasks, baseline, best)
    expected = [
        (f"t{i}", tuned, untuned)
        for i, (untuned, tuned) in enumerate(measured)
        if untuned is not None and tuned is not None and tuned > untuned
    ]
    assert lost == expected


def test_end_to_end_line() -> None:
    line = EndToEnd(untuned_ms=0.003, tuned_ms=0.0015, tuning="2 of 2 kernels from tuning records").line()
    assert line == "untuned 3 us, tuned 1.5 us: 2.00x faster (2 of 2 kernels from tuning records)"
    assert (
        EndToEnd(skipped="the target does not run on this machine").line() == "the target does not run on this machine"
    )


def test_a_slower_tuned_library_is_said() -> None:
    line = EndToEnd(untuned_ms=0.002, tuned_ms=0.0025, tuning="2 of 2 kernels from tuning records").line()
    assert line.startswith("untuned 2 us, tuned 2.5 us: 1.25x slower") and "the tuned library is slower here" in line
    assert "compile builds this model untuned until a tune with more trials measures a win" in line
    tie = EndToEnd(untuned_ms=0.00097, tuned_ms=0.001, tuning="2 of 2 kernels from tuning records").line()
    assert "slower here" not in tie and tie.endswith("; within 5% of even (noise here): compile applies the records")
