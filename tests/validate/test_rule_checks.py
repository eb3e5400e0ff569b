"""Rules are declared objects with a check, and the one rule engine runs every check.

Each `Rule` of `tvmc.validate.diagnostics.REGISTRY` names its check: the functions that produce its
findings (or, for a rule a stage reports, that stage: reading a file, expanding `extends`). These
tests run the engine (`validate.runner.Validator`, what `config validate` and every command run)
over the corpus and a few inputs only a run can give (a missing file, an empty directory, a flag
that does not apply, a failing check) under a profiler, and check that every check of a config
rule is called there and that the rule's problems are made while one of its checks runs. The few
rules about an input that is not a config (`outside`) are checked the same way on their stage.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import pytest
from corpus_expect import CORPUS, corpus_files, load_case
from tvmc.errors import TvmcError
from tvmc.layering.expand import Problem
from tvmc.validate import runner
from tvmc.validate.diagnostics import REGISTRY, Diagnostic, Finding, Rule


class Recorder:
    """Under `sys.setprofile`: every function called, and for every problem record made (a
    finding, a diagnostic, an `extends` problem, an error with a rule id) the functions on the
    stack while it was made. A diagnostic made from an error (`runner.error_diagnostic`) counts
    the stack the error was made on: that is where the rule's stage refused."""

    def __init__(self) -> None:
        self.called: set[CodeType] = set()
        self.made: defaultdict[str, set[CodeType]] = defaultdict(set)
        self._errors: dict[int, tuple[TvmcError, set[CodeType]]] = {}
        # Every record's __init__ runs the one code object of tvmc.records: its class tells which.
        self._record_init = Finding.__init__.__code__
        self._records = (Finding, Diagnostic, Problem)
        self._error_init = TvmcError.__init__.__code__
        self._from_error = runner.error_diagnostic.__code__

    @staticmethod
    def _stack(frame: FrameType | None) -> set[CodeType]:
        codes = set()
        while frame is not None:
            codes.add(frame.f_code)
            frame = frame.f_back
        return codes

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        self.called.add(code)
        if code is self._record_init and type(frame.f_locals["self"]) in self._records:
            args, kwargs = frame.f_locals["args"], frame.f_locals["kwargs"]
            rule = args[0] if args else kwargs.get("rule")
            if isinstance(rule, str):
                self.made[rule] |= self._stack(frame)
        elif code is self._error_init:
            error = frame.f_locals["self"]
            stack = self._stack(frame)
            self._errors[id(error)] = (error, stack)  # the error is kept: its id stays its own
            rule = frame.f_locals.get("rule") or type(error).default_rule
            if rule is not None:
                self.made[rule] |= stack
        elif code is self._from_error:
            error, rule = frame.f_locals["err"], frame.f_locals["rule"]
            kept = self._errors.get(id(error))
            if kept is not None and kept[0] is error:
                self.made[rule] |= kept[1]

    @contextmanager
    def recording(self) -> Iterator[Recorder]:
        sys.setprofile(self)
        try:
            yield self
        finally:
            sys.setprofile(None)


def _codes(rule: Rule) -> set[CodeType]:
    return {function.__code__ for function in rule.check_functions()}


def _engine_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Recorder:
    """The engine over the corpus (with each file's own arguments) and the inputs only a run gives."""
    from tvmc import api, rewrites, sources

    monkeypatch.chdir(CORPUS)
    dirs = [sources.SearchDir(CORPUS, "path"), *sources.search_path(isolated=True)]
    plain, strict = runner.Validator(runner.Settings(), dirs), runner.Validator(runner.Settings(strict=True), dirs)
    not_applying = rewrites.argv_rewrites([("--target-cuda-arch", "sm_80")])
    with_flag = runner.Validator(runner.Settings(rewrites=tuple(not_applying)), dirs)
    empty = tmp_path / "empty"
    empty.mkdir()
    recorder = Recorder()
    with recorder.recording():
        for rel in corpus_files():
            validator = strict if "--strict" in load_case(rel).args else plain
            list(validator.paths([rel]))
        list(plain.paths([str(tmp_path / "missing.toml"), str(empty)]))  # unreadable, config-not-found
        list(with_flag.paths(["lib/base-cpu.toml"]))  # rewrite
        api.validate_config(["ok/mixin"], env={}, search=dirs)  # a config used alone: complete
        monkeypatch.setattr(runner, "semantic_findings", _failing)
        list(plain.paths(["ok/mixin.toml"]))  # internal: a check that fails is reported, not raised
    return recorder


def _failing(*args: object, **kwargs: object) -> list[Finding]:
    raise KeyError("a bug in a check")


@pytest.fixture(scope="module")
def engine_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recorder]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield _engine_run(tmp_path_factory.mktemp("engine"), monkeypatch)


def test_every_rule_has_a_check_that_resolves() -> None:
    for rule in REGISTRY.values():
        assert rule.check, rule.id
        functions = rule.check_functions()
        assert all(callable(f) and hasattr(f, "__code__") for f in functions), rule.id
        assert len(set(rule.check)) == len(rule.check), rule.id
    outside = {r.id for r in REGISTRY.values() if r.outside is not None}
    assert outside == {"migrate-input", "old-tvmc-refused", "inexpressible", "manifest-config"}


def test_a_check_that_names_nothing_is_refused() -> None:
    with pytest.raises(AttributeError):
        Rule("x", "error", "x", ("tvmc.validate.checks:no_such_check",)).check_functions()


@pytest.mark.parametrize("rule", [r for r in REGISTRY.values() if r.outside is None], ids=lambda r: r.id)
def test_the_engine_runs_every_check(engine_run: Recorder, rule: Rule) -> None:
    """Each check of a config rule is called by the one engine, and the rule's problems are made
    while one of its checks runs (the registry says what produces them)."""
    functions = zip(rule.check, rule.check_functions(), strict=True)
    not_called = [name for name, f in functions if f.__code__ not in engine_run.called]
    assert not not_called, f"{rule.id}: the engine never runs {not_called}"
    assert rule.id in engine_run.made, f"{rule.id}: the engine made no problem of this rule"
    assert engine_run.made[rule.id] & _codes(rule), f"{rule.id}: made while none of {rule.check} ran"


def _outside_cases(tmp_path: Path) -> dict[str, Callable[[], object]]:
    from tvmc import api, manifest, migrate
    from tvmc.backend.model import model_spec
    from tvmc.emit import relay
    from tvmc.emit.legacy import plan_legacy

    def relay_script() -> object:
        path = tmp_path / "mixed.toml"
        path.write_text('tvm-version = "<=0.19"\ntargets = ["llvm"]\n[build]\nmixed-precision = true\n')
        resolved = api.resolve([str(path)], env={})
        return relay.render(plan_legacy(resolved.config, resolved.origins, model_spec("model.onnx", None, None)))

    def manifest_without_config() -> object:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(manifest, "require", lambda path, source="LIBRARY": {"origins": {}})
            return api.from_library(tmp_path / "lib.so")

    return {
        "migrate-input": lambda: migrate.migrate("tvmc run model.tar"),
        "old-tvmc-refused": lambda: migrate.migrate("tvmc compile --pass-config no.such.config=1 model.onnx"),
        "inexpressible": relay_script,
        "manifest-config": manifest_without_config,
    }


@pytest.mark.parametrize("rule", [r for r in REGISTRY.values() if r.outside is not None], ids=lambda r: r.id)
def test_a_rule_outside_a_config_is_reported_by_its_check(tmp_path: Path, rule: Rule) -> None:
    case = _outside_cases(tmp_path)[rule.id]
    recorder = Recorder()
    with recorder.recording(), pytest.raises(TvmcError) as raised:
        case()
    assert raised.value.rule == rule.id
    assert recorder.made[rule.id] & _codes(rule), f"{rule.id}: made while none of {rule.check} ran"
