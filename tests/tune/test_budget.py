"""The tuning budget is per task (64 each by default; --trials is a budget in all, shared among the
tasks; `compile --tune N` is N per task) and the cost model the search used is said. No TVM needed:
the CLI's calls into `tvmc.api` are caught."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st
from tvmc import api, deps
from tvmc.api import commands
from tvmc.cli.tune_cmd import report
from tvmc.tune import DEFAULT_TRIALS_PER_TASK, session, store, worker
from tvmc.tune.apply import choose
from typer.testing import CliRunner

FP = "cd" * 32


@given(st.integers(1, 500), st.integers(1, 10_000), st.integers(1, 1000))
def test_the_default_budget_is_per_task_and_trials_is_shared(count: int, trials: int, per_task: int) -> None:
    assert session.budget_of(None, None, count) == DEFAULT_TRIALS_PER_TASK == 64
    shared = session.budget_of(trials, None, count)
    assert shared == max(1, math.ceil(trials / count)) and shared * count >= trials  # every task its share
    assert session.budget_of(trials, per_task, count) == session.budget_of(None, per_task, count) == per_task


class Called(Exception):
    """Raised by a stand-in for tvmc.api.tune once it has seen its arguments."""


def catch_tune(monkeypatch: pytest.MonkeyPatch, name: str = "tune") -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def tune(*_args: Any, **kwargs: Any) -> Any:
        seen.update(kwargs)
        if name == "tune":
            return session.Outcome(store.Partition(Path("db"), FP), skipped=True)
        raise Called

    # A public name is patched where the CLI calls it; a helper, where `api.compile` calls it.
    monkeypatch.setattr(api if not name.startswith("_") else commands, name, tune)
    return seen


@pytest.mark.parametrize(
    ("flags", "trials", "per_task"),
    [
        ([], None, None),  # 64 per task (the worker's default)
        (["--trials", "100"], 100, None),
        (["--trials-per-task", "8"], None, 8),
        (["--trials", "100", "--trials-per-task", "8"], 100, 8),
    ],
)
def test_tune_passes_the_budget_as_given(
    app: typer.Typer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, flags: list[str], trials: Any, per_task: Any
) -> None:
    seen = catch_tune(monkeypatch)
    model = tmp_path / "m.onnx"
    model.write_bytes(b"")
    result = CliRunner().invoke(app, ["tune", str(model), *flags])
    assert result.exit_code == 0, result.output
    assert (seen["trials"], seen["trials_per_task"]) == (trials, per_task)


def test_compile_tune_n_is_n_trials_per_task(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen = catch_tune(monkeypatch, "_tune_model")
    model = tmp_path / "m.onnx"
    model.write_bytes(b"")
    with pytest.raises(Called):
        api.compile(model, ["host/default"], tune=8, database=tmp_path / "db")
    assert seen["trials_per_task"] == 8 and "trials" not in seen


def test_help_says_the_budget_is_per_task(app: typer.Typer) -> None:
    tune = CliRunner().invoke(app, ["tune", "--help"])
    assert tune.exit_code == 0
    text = " ".join(tune.output.split())
    assert "--trials-per-task N Per task (64 unless --trials)." in text
    assert "--trials N Candidates in all, shared by the tasks." in text and "(200)" not in text
    built = CliRunner().invoke(app, ["compile", "--help"])
    assert "(N trials per task)" in " ".join(built.output.split())


def test_without_xgboost_the_random_cost_model_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "xgboost", None)
    assert worker.choose_cost_model() == ("random", "xgboost is not installed")
    outcome = session.Outcome(
        store.Partition(Path("db"), FP), cost_model="random", cost_model_why="xgboost is not installed"
    )
    said: list[str] = []
    session.say_cost_model(outcome, said.append)
    assert said == [
        "xgboost is not installed: MetaSchedule searched with its random cost model, which finds fast kernels "
        f"later than its XGBoost one; {deps.install_command([deps.PACKAGES['xgboost']])}"
    ]
    assert deps.install_command([deps.PACKAGES["xgboost"]]) in ("pip install xgboost-cpu", "pip install xgboost")
    lines = report(outcome, "m.onnx", None, None, said.append)
    assert "  search    MetaSchedule's evolutionary search, random cost model (xgboost is not installed)" in lines


def test_with_xgboost_the_xgboost_cost_model_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = type(sys)("xgboost")
    fake.__version__ = "3.2.0"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "xgboost", fake)
    assert worker.choose_cost_model() == ("xgb", "xgboost 3.2.0")
    outcome = session.Outcome(store.Partition(Path("db"), FP), cost_model="xgb", cost_model_why="xgboost 3.2.0")
    said: list[str] = []
    session.say_cost_model(outcome, said.append)
    assert said == []
    lines = report(outcome, "m.onnx", None, None, said.append)
    assert "  search    MetaSchedule's evolutionary search, XGBoost cost model (xgboost 3.2.0)" in lines


def test_compile_without_records_says_the_build_is_not_fast_and_suggests_tune(tmp_path: Path) -> None:
    resolved = api.resolve(["host/default"], [])
    from tvmc.backend.model import ModelSpec
    from tvmc.backend.plan import plan_build

    plan = plan_build(resolved.config, resolved.origins, ModelSpec("m.onnx", "onnx"))
    _, line = choose(plan, resolved.config, warn=pytest.fail, database=tmp_path)
    assert line.startswith("no records for target fingerprint ")
    assert line.endswith(
        "(the untuned library works but is not fast: compile with --tune 64 to tune its kernels first, "
        "or tvmc tune MODEL with this config)"
    )


def test_a_gpu_run_says_its_untuned_kernels_were_not_measured() -> None:
    """On GPUs the untuned build runs DLight's schedules, which tuning does not time: no baseline is
    pretended, and the summary says what that means."""
    outcome = session.Outcome(store.Partition(Path("db"), FP))
    assert session._take(outcome, {"no_baselines": worker.GPU_BASELINES}) is None
    lines = report(outcome, "m.onnx", None, None, pytest.fail)
    assert f"  untuned   {worker.GPU_BASELINES}" in lines
    assert "a record applies even where DLight's kernel is faster" in worker.GPU_BASELINES
    cpu = session.Outcome(store.Partition(Path("db"), FP))
    assert not [line for line in report(cpu, "m.onnx", None, None, pytest.fail) if line.startswith("  untuned ")]


def test_doctor_names_the_cost_model_package_without_making_tune_need_it() -> None:
    assert "xgboost" not in deps.FEATURES["tune"].modules  # tune runs without it (random cost model)
    assert deps.FEATURES["tune-xgboost"].modules == ("xgboost",)
    assert deps.PACKAGES["xgboost"].extra == "tvm"
