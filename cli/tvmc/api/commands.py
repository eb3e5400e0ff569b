"""The commands beyond resolving, as functions (`tvmc.api` exports them): validation that returns
the problems, `compile`, `emit`, `reproduce`, `tune`, `run`, `doctor` and the tuning database's
pruning. They take what the pipeline in `tvmc.api` gives (`inputs`, `resolve_inputs`, `Resolved`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence

from tvmc import sources
from tvmc.api import (
    ConfigRef,
    Participation,
    Resolved,
    _environment,
    _refs,
    _rewrites,
    _search,
    _type_name,
    resolve,
    resolve_tree,
)
from tvmc.config import canonicalize_config
from tvmc.errors import Location, TvmcError, UsageError
from tvmc.layering import Tree
from tvmc.pointers import display_path
from tvmc.provenance import Origin, printable, walk
from tvmc.records import record
from tvmc.sources.limits import check_values
from tvmc.validate.diagnostics import Diagnostic, FileResult
from tvmc.validate.rules import config_findings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO

    from tvmc.api import RewriteLike
    from tvmc.doctor import Report


# ---- validation (`tvmc config validate`): the problems, returned, never printed -------------------

ENGINES = ("fast", "jsonschema")  # the compiled checks, or python-jsonschema over the generated schema


def _validator(
    strict: object, engine: object, rewrite_list: object, env: object, search: object, isolated: object
) -> Any:
    from tvmc.validate.runner import Settings, Validator  # lazy: only validation needs the runner

    if not isinstance(strict, bool) or not isinstance(isolated, bool):
        raise TypeError("strict and isolated: expected bools")
    if engine not in ENGINES:
        raise TypeError(f"engine: expected one of {', '.join(ENGINES)}, got {engine!r}")
    checked_env = _environment(env)
    isolated = isolated or sources.is_isolated(checked_env)
    edits = tuple(_rewrites(rewrite_list))
    return Validator(Settings(strict, str(engine), edits), _search(search, checked_env, isolated))


def validate_paths(
    paths: Sequence[str | os.PathLike[str]],
    rewrite_list: Sequence[RewriteLike] = (),
    *,
    strict: bool = False,
    engine: str = "fast",
    jobs: int = 1,
    stdin: BinaryIO | None = None,
    stdin_name: str | None = None,
    env: Mapping[str, str] | None = None,
    search: Sequence[sources.SearchDir] | None = None,
    isolated: bool = False,
) -> Iterator[FileResult]:
    """`tvmc config validate PATH...`: each input's result (its file name and diagnostics), in
    order, as they are found. A directory is every *.toml/*.json below it (one holding none is an
    error); `-` reads `stdin` (default: the process's standard input) named `stdin_name`. Each file
    is checked alone and through its `extends` chain, with `rewrite_list` applied on top; `jobs`
    processes share the files (the results are the same). A parent's error is reported once, not
    once per file extending it. Bad input is never raised: it is in the results."""
    if isinstance(paths, str | os.PathLike) or not isinstance(paths, Sequence):
        raise TypeError(f"paths: expected a list of file or directory paths, got {_type_name(paths)}")
    given = [os.fspath(p) for p in paths]
    if not all(isinstance(p, str) for p in given):
        raise TypeError("paths: expected str paths")
    if not isinstance(jobs, int) or jobs < 1:
        raise TypeError(f"jobs: expected a positive int, got {jobs!r}")
    validator = _validator(strict, engine, rewrite_list, env, search, isolated)
    stream = sys.stdin.buffer if stdin is None and "-" in given and sys.stdin is not None else stdin
    results: Iterator[FileResult] = validator.paths(given, stdin=stream, stdin_name=stdin_name, jobs=jobs)
    return results


def validate_config(
    configs: Sequence[ConfigRef] | str = (),
    rewrite_list: Sequence[RewriteLike] = (),
    *,
    strict: bool = False,
    engine: str = "fast",
    env: Mapping[str, str] | None = None,
    search: Sequence[sources.SearchDir] | None = None,
    stdin: BinaryIO | sources.Layer | None = None,
    isolated: bool = False,
) -> FileResult:
    """`tvmc config validate --config ...`: the config `configs` and `rewrite_list` resolve to (and
    the TVMC_* environment, unless isolated), validated whole: it must be complete. A rewrite that
    does not apply is a UsageError (raised: the command line is at fault, not a config)."""
    validator = _validator(strict, engine, (), env, search, isolated)
    names = [ref for ref, _ in _refs(configs)]

    def tree() -> Tree:  # in the validator: what does not resolve is a diagnostic, not raised
        return resolve_tree(configs, rewrite_list, env=env, search=validator.dirs, stdin=stdin, isolated=isolated)

    return validator.resolved(names, tree)  # type: ignore[no-any-return]


def validate(
    configs: Sequence[ConfigRef] | str = (),
    rewrite_list: Sequence[RewriteLike] = (),
    *,
    paths: Sequence[str | os.PathLike[str]] = (),
    strict: bool = False,
    env: Mapping[str, str] | None = None,
    search: Sequence[sources.SearchDir] | None = None,
    isolated: bool = False,
) -> list[Diagnostic]:
    """The problems of a config, returned, never printed nor raised: the rule engine's errors and
    warnings (each a `Diagnostic`: rule id of the registry, severity, pointer, message, file, line,
    column, suggestion); no error means every command accepts it. Either `configs` (names, paths,
    tags, with `rewrite_list` on top: the config they resolve to) or `paths` (config files, each
    alone and through its `extends`), as `tvmc config validate` takes them.

        >>> from tvmc.api import validate
        >>> [(d.rule, d.path) for d in validate([], [("--target", "llvm"), ("-O", "7")], env={})]
        [('invalid-value', 'opt-level')]
    """
    if paths and configs:
        raise TypeError("validate: give configs or paths, not both")
    if paths:
        results = validate_paths(paths, rewrite_list, strict=strict, env=env, search=search, isolated=isolated)
        return [d for result in results for d in result.diagnostics]
    result = validate_config(configs, rewrite_list, strict=strict, env=env, search=search, isolated=isolated)
    return list(result.diagnostics)


# ---- a library's own config (issue 27): the manifest `tvmc compile` links into it ------------------


def from_library(library: str | os.PathLike[str], *, source: str = "LIBRARY") -> Resolved:
    """The config a library was built with, from its manifest (no TVM needed): canonical config,
    origins as recorded at build time (`config show --from LIB --origin`), the user and environment
    inputs that took part. Raises TvmcError when the file has no (readable) manifest, located at
    `source` (what named the library: `--from`, an argument)."""
    from pathlib import Path

    from tvmc import manifest

    path = Path(os.fspath(library))
    doc = manifest.require(path, source)
    data, recorded_text, environment = doc.get("config"), doc.get("origins"), doc.get("environment")
    if not isinstance(data, dict) or not isinstance(recorded_text, dict):
        raise TvmcError(f"{path}: the manifest has no config", source, rule="manifest-config")
    # A recorded origin is its text (`configs/x.toml:3:1`, `--set ...`): shown as it was, not re-located.
    recorded = {str(p): Origin("flag", str(text)) for p, text in recorded_text.items()}
    # The manifest's JSON did not come through the loader: its limits first (an integer beyond int64,
    # a NUL in a string: what `config show -c` of the same text refuses), then the rule engine
    # decides (a manifest of another tvmc may hold what this one refuses); canonicalization then
    # only normalizes.
    try:
        check_values(data, lambda _pointer: Location(str(path)))
    except TvmcError as err:
        raise TvmcError(
            f"{path}: the config in its manifest is not valid here: {err.one_line().removeprefix(f'{path}: ')}",
            source,
            rule=err.rule,
        ) from None
    error = next((f for f in config_findings(data) if f.severity == "error"), None)
    if error is not None:
        at = f"{display_path(error.pointer)}: " if error.pointer else ""
        raise TvmcError(
            f"{path}: the config in its manifest is not valid here: {at}{error.message}",
            source,
            rule=error.rule,
        )
    config, _notes = canonicalize_config(data, recorded)
    origins = {p: recorded.get(p, Origin.default()) for p, _ in walk(config.to_dict())}
    env = environment if isinstance(environment, dict) else {}
    variables, users = env.get("variables"), env.get("user-configs")
    variables = variables if isinstance(variables, dict) else {}
    users = users if isinstance(users, list) else []
    taking_part = Participation(
        bool(env.get("isolated")), tuple((str(k), str(v)) for k, v in variables.items()), tuple(str(u) for u in users)
    )
    return Resolved(config, origins, (), Tree(data, dict(recorded), inputs=[os.fspath(path)]), taking_part)


# ---- build and run (issue 16): what `tvmc compile` and `tvmc run` do, as functions ---------------

if TYPE_CHECKING:
    from tvmc.backend.compile import Compiled
    from tvmc.backend.run import Fill, RunResult


def _no_note(_text: str) -> None:
    return None


def compile(
    model: str | os.PathLike[str],
    configs: Sequence[ConfigRef] = (),
    rewrite_list: Sequence[RewriteLike] = (),
    *,
    output: str | os.PathLike[str] | None = None,
    model_format: str | None = None,
    input_shapes: str | Mapping[str, Sequence[int | None]] | None = None,
    verbose: bool = False,
    env: Mapping[str, str] | None = None,
    isolated: bool = False,
    search: Sequence[sources.SearchDir] | None = None,
    on_stage: Callable[[str], None] = _no_note,
    on_warning: Callable[[str], None] = _no_note,
    tuning: bool = True,
    database: str | os.PathLike[str] | None = None,
    tune: int | None = None,
    on_tune_event: Callable[[Mapping[str, Any]], None] | None = None,
) -> Compiled:
    """Build MODEL for the resolved config, exactly as `tvmc compile MODEL` does (TVM >= 0.25).

    `tuning=False` is `--no-tuning`, `database` is `--database` (tuning records, tvmc.tune);
    isolated, only `database` or the config's build.tuning-records is applied. `tune=N` is
    `--tune N`: first tune what the database lacks for this model (N trials per task, as
    `tune(trials_per_task=N)`).

    `output` is `-o` (a directory, or a path ending in "/", receives MODEL.so; default MODEL.so
    here); `input_shapes` is `--input-shapes` text or {name: shape} (None: a dynamic dimension).
    Returns what was written; warnings (also passed to `on_warning` as they come) are in
    `.warnings`. `verbose` (or `TVMC_VERBOSE=1` in `env`, unless isolated) shows TVM's own output.
    Raises the CLI's errors: UsageError (bad arguments), TvmcError (anything else).
    """
    # lazy: only building needs the build stage (`config show` does not)
    from tvmc.backend import compile as building
    from tvmc.backend.model import model_spec
    from tvmc.shapes import parse_input_shapes

    if isinstance(input_shapes, str):
        shapes = parse_input_shapes(input_shapes)
    elif input_shapes is not None:
        shapes = {
            str(name): tuple(None if d is None or d < 0 else int(d) for d in dims)
            for name, dims in input_shapes.items()
        }
    else:
        shapes = None
    spec = model_spec(os.fspath(model), model_format, shapes)
    resolved = resolve(configs, rewrite_list, env=env, search=search, isolated=isolated)
    environment = os.environ if env is None else env
    if not resolved.participation.isolated and environment.get("TVMC_VERBOSE", "") not in ("", "0"):
        verbose = True
    notes = list(resolved.notes)
    for note in notes:
        on_warning(note)
    if tune is not None:
        if not tuning:
            raise UsageError("--tune and --no-tuning contradict each other", "--tune")
        _tune_model(
            model,
            configs,
            rewrite_list,
            trials_per_task=tune,
            model_format=model_format,
            input_shapes=input_shapes,
            env=env,
            isolated=isolated,
            search=search,
            database=database,
            verbose=verbose,
            on_warning=lambda message: None if message in notes else on_warning(message),
            on_event=on_tune_event or _no_event,
        )
    result = building.build(
        resolved,
        spec,
        None if output is None else _output_text(output),
        verbose=verbose,
        on_stage=on_stage,
        on_warning=on_warning,
        label=_config_label(configs),
        tuning=tuning,
        database=None if database is None else _path(database),
        implicit_database=not resolved.participation.isolated,
    )
    result.warnings[:0] = notes
    return result


# The forms `tvmc compile --emit FORM` prints (a registry: `--emit` takes its choices from it).
EMIT_FORMS: dict[str, str] = {
    "python": "a Python script that builds the model with TVM >= 0.25 (and links its manifest)",
    "plan": "the build plan as JSON (TVM >= 0.25)",
    "tvmc": "the old tvmc command line (TVM 0.18/0.19)",
    "relay": "a Python script of the Relay build (TVM 0.18/0.19)",
}


@record(slots=True, frozen=True)
class Emitted:
    """The text of an emitted build, the config it is for, and the files read to make it (which
    `-o` must never overwrite)."""

    text: str
    resolved: Resolved
    inputs: frozenset[Any]  # pathlib.Path


def emit(
    model: str | os.PathLike[str],
    configs: Sequence[ConfigRef] = (),
    rewrite_list: Sequence[RewriteLike] = (),
    *,
    form: str,
    model_format: str | None = None,
    input_shapes: str | None = None,
    tvm_version: str | None = None,
    tuning: bool = True,
    database: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    search: Sequence[sources.SearchDir] | None = None,
    isolated: bool = False,
    on_warning: Callable[[str], None] = _no_note,
) -> Emitted:
    """`tvmc compile MODEL --emit FORM`: the build as text, no TVM needed (`EMIT_FORMS`): python or
    plan for TVM >= 0.25 (tuning records applied as compile would, unless `tuning=False`), tvmc or
    relay for TVM 0.18/0.19 (`tvm_version` picks one). Notes and warnings go to `on_warning`."""
    from pathlib import Path

    from tvmc.backend.model import model_spec
    from tvmc.shapes import parse_input_shapes

    if form not in EMIT_FORMS:
        raise UsageError(f"unknown form {form!r} ({', '.join(EMIT_FORMS)})", "--emit")
    if tvm_version is not None and form not in ("tvmc", "relay"):
        raise UsageError("--tvm-version applies to --emit tvmc and --emit relay only", "--tvm-version")
    shapes = parse_input_shapes(input_shapes) if input_shapes is not None else None
    spec = model_spec(os.fspath(model), model_format, shapes)  # the model's errors first, as compile
    resolved = resolve(configs, rewrite_list, env=env, search=search, isolated=isolated)
    for note in resolved.notes:
        on_warning(note)
    if form in ("python", "plan"):
        from tvmc.backend.plan import plan_build
        from tvmc.tune.apply import choose

        plan, _ = choose(
            plan_build(resolved.config, resolved.origins, spec),
            resolved.config,
            warn=on_warning,
            enabled=tuning,
            database=None if database is None else Path(os.fspath(database)),
            implicit=not resolved.participation.isolated,
            copy_if_bad=False,
        )
        if any(n.get("kind") == "llvm" and n.get("mcpu") == "native" for n in (plan.target, plan.host or {})):
            on_warning(
                "mcpu 'native' is passed to TVM as written: its LLVM does not resolve it (generic code); "
                "tvmc compile builds for this machine's CPU instead"
            )
        if form == "python":
            from tvmc.backend.record import base_manifest
            from tvmc.emit import python

            base = base_manifest(
                resolved.config, resolved.origins, resolved.participation.to_dict(), plan, digest=False
            )
            text, notes = python.render(plan, manifest_base=base)
        else:
            from tvmc.emit import plan as plan_json

            text, notes = plan_json.render(plan, resolved.to_dict())
    else:
        from tvmc.emit.legacy import plan_legacy

        legacy = plan_legacy(resolved.config, resolved.origins, spec, tvm_version)
        if form == "tvmc":
            from tvmc.emit import tvmc_argv

            text, notes = tvmc_argv.render(legacy)
        else:
            from tvmc.emit import relay

            text, notes = relay.render(legacy)
    for note in notes:
        on_warning(note)
    return Emitted(text, resolved, frozenset({*map(Path, resolved.tree.inputs), Path(spec.path)}))


def _no_event(_event: Mapping[str, Any]) -> None:
    return None


if TYPE_CHECKING:
    from tvmc.backend.reproduce import Reproduction


def reproduce(
    library: str | os.PathLike[str],
    model: str | os.PathLike[str],
    *,
    output: str | os.PathLike[str] | None = None,
    database: str | os.PathLike[str] | None = None,
    verbose: bool = False,
    on_stage: Callable[[str], None] = _no_note,
    on_warning: Callable[[str], None] = _no_note,
    source: str = "LIBRARY",
) -> Reproduction:
    """`tvmc compile --reproduce LIBRARY MODEL` (issue 27): build LIBRARY again from its manifest (its
    config, input shapes and tuning database; `database` is the root its records are in now; `source`
    names it in errors) and compare. `.identical` is byte equality; otherwise `.differences` has one line per input that
    differs (versions, the model's SHA-256, the config, the target, the tuning records). `output`
    keeps the rebuilt library."""
    from pathlib import Path

    from tvmc.backend import reproduce as reproducing

    return reproducing.reproduce(
        from_library(library, source=source),
        Path(os.fspath(library)),
        os.fspath(model),
        output=None if output is None else _output_text(output),
        database=None if database is None else _path(database),
        verbose=verbose,
        on_stage=on_stage,
        on_warning=on_warning,
    )


def tune(
    model: str | os.PathLike[str],
    configs: Sequence[ConfigRef] = (),
    rewrite_list: Sequence[RewriteLike] = (),
    *,
    trials: int | None = None,
    trials_per_task: int | None = None,
    timeout: float = 30.0,
    jobs: int = 0,
    model_format: str | None = None,
    input_shapes: str | Mapping[str, Sequence[int | None]] | None = None,
    env: Mapping[str, str] | None = None,
    isolated: bool = False,
    search: Sequence[sources.SearchDir] | None = None,
    database: str | os.PathLike[str] | None = None,
    rpc: tuple[str, int, str] | None = None,
    verbose: bool = False,
    on_warning: Callable[[str], None] = _no_note,
    on_event: Callable[[Mapping[str, Any]], None] = _no_event,
    rpc_timeout: float = 60.0,
) -> Any:
    """Tune MODEL for the resolved config, exactly as `tvmc tune MODEL` does; returns the
    `tvmc.tune.session.Outcome`. The database: `database`, else the config's build.tuning-records,
    else (not isolated) TVMC_TUNING_DB or the user's cache directory. The budget: `trials_per_task`
    candidates per task (default 64, `tvmc.tune.DEFAULT_TRIALS_PER_TASK`); `trials` alone is
    a budget in all, shared among the tasks; both: per task, capped in all. `jobs` (0: the CPU
    count) is how many candidates are built at once, nothing else. `rpc` (tracker host, port, device
    key) measures on a device of TVM's RPC tracker: the tracker must answer and know the key within
    `rpc_timeout` seconds, before any work (TVM's runner would wait for the key forever)."""
    from pathlib import Path

    from tvmc.backend import frontends
    from tvmc.backend.compile import resolve_native
    from tvmc.backend.model import check_exists, model_spec
    from tvmc.backend.plan import plan_build
    from tvmc.shapes import parse_input_shapes
    from tvmc.tune import session, store

    shapes = parse_input_shapes(input_shapes) if isinstance(input_shapes, str) else None
    if input_shapes is not None and not isinstance(input_shapes, str):
        shapes = {
            str(name): tuple(None if d is None or d < 0 else int(d) for d in dims)
            for name, dims in input_shapes.items()
        }
    spec = model_spec(os.fspath(model), model_format, shapes)
    resolved = resolve(configs, rewrite_list, env=env, search=search, isolated=isolated)
    environment = os.environ if env is None else env
    if not resolved.participation.isolated and environment.get("TVMC_VERBOSE", "") not in ("", "0"):
        verbose = True
    for note in resolved.notes:
        on_warning(note)
    plan = plan_build(resolved.config, resolved.origins, spec)
    if database is not None:
        root = store.database_root(Path(os.fspath(database)), "--database")
    elif plan.tuning_records is not None:
        root = Path(plan.tuning_records)
    elif resolved.participation.isolated:
        raise UsageError("--isolated uses no implicit tuning database: give --database DIR", "--isolated")
    else:
        root = store.implicit_root(environment)
    check_exists(spec)
    session.check_ready()  # the packages tuning needs, no known-bad version, TVM itself
    plan = resolve_native(plan, on_warning)  # as compile builds it: mcpu "native" is this machine's CPU
    frontends.check_available(spec)
    names = [configs] if isinstance(configs, str | os.PathLike) else list(configs)
    by_path = [
        os.path.abspath(os.fspath(c))
        for c in names
        if isinstance(c, str | os.PathLike) and os.fspath(c) != "-" and os.path.isfile(os.fspath(c))
    ]
    if rpc is not None:
        from tvmc.backend import remote

        remote.check_device(rpc, remote.check_timeout(rpc_timeout))
    outcome = session.tune(
        plan,
        resolved.config,
        root,
        trials=trials,
        trials_per_task=trials_per_task,
        timeout=timeout,
        jobs=jobs or os.cpu_count() or 1,
        warn=on_warning,
        rpc=rpc,
        verbose=verbose,
        on_event=on_event,
        sources=by_path,
    )
    # every task done: measured again only when the model's verdict is of other records (merged since)
    if not outcome.interrupted and (
        not outcome.skipped or store.stale_verdict(outcome.partition, spec.path, spec.shapes, on_warning)
    ):
        from tvmc.tune import compare  # lazy: only a finished tune times both libraries

        workloads = [str(t.get("shash")) for t in outcome.tasks]
        measured = compare.end_to_end(
            resolved, spec, plan, root, workloads=workloads, remote=rpc is not None, warn=on_warning
        )
        outcome.end_to_end = measured.line()
    return outcome


_tune_model = tune  # for compile, whose parameter `tune` (as --tune) hides this function


def _config_label(configs: object) -> str | None:
    """`--config apple/m1-gpu`: the configs a build was asked for, for its crash report."""
    names = [configs] if isinstance(configs, str | os.PathLike) else configs
    if not isinstance(names, Sequence) or not names:
        return None
    shown = [os.fspath(c) if isinstance(c, str | os.PathLike) else str(c[0]) for c in names]
    return " ".join(f"--config {printable(name)}" for name in shown)


def _path(value: str | os.PathLike[str]) -> Any:
    from pathlib import Path  # here: pathlib is not imported at start-up

    return Path(os.fspath(value))


def _output_text(output: str | os.PathLike[str]) -> str:
    # Text, not Path: Path drops the trailing "/" that says "into this directory".
    return output if isinstance(output, str) else os.fspath(output)


def run(
    library: str | os.PathLike[str],
    inputs: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    *,
    check: str | os.PathLike[str] | None = None,
    device: str | None = None,
    fill: Fill = "random",
    batch: int = 1,
    input_shapes: str | Mapping[str, Sequence[int]] | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    time_it: bool = False,
    repeat: int = 3,
    number: int = 10,
    profile: bool = False,
    on_stage: Callable[[str], None] = _no_note,
    rpc: tuple[str, int, str] | None = None,
    force: bool = False,
    verbose: bool = False,
    rpc_timeout: float = 60.0,
) -> RunResult:
    """Run a library `compile` built, exactly as `tvmc run LIBRARY` does, in a child process: inputs
    from an .npz path or a {name: array} mapping (names and shapes checked against the library's
    manifest), or generated from the manifest (`fill`; `batch` or `input_shapes` size its dynamic
    dimensions; a library without a manifest takes `check`'s ONNX signature). Outputs are named as
    the model names them. `check` compares them with the ONNX reference (`result.checks`, each with
    `.ok`; `rtol`/`atol` override the per-dtype tolerance of floats); `time_it` times main
    (`result.timing`), `profile` gives the VM's per-operator profile (`result.profile`); `rpc` =
    (tracker host, port, device key) runs it on a device of TVM's RPC tracker, given within
    `rpc_timeout` seconds (else an error: an unknown key, a tracker that does not answer, devices
    all busy). `device` defaults to
    the library's (cpu for llvm code); `force` runs a library the manifest says cannot run here.
    Warnings are in `result.notes`. Raises UsageError / TvmcError as the CLI reports them."""
    from pathlib import Path

    from tvmc.backend import run as running  # lazy: only `tvmc run` needs it
    from tvmc.shapes import parse_input_shapes

    shapes = parse_input_shapes(input_shapes) if isinstance(input_shapes, str) else input_shapes
    return running.run_library(
        Path(library),
        inputs if isinstance(inputs, Mapping) or inputs is None else Path(inputs),
        check=None if check is None else Path(check),
        device=device,
        fill=fill,
        batch=batch,
        input_shapes=shapes,
        rtol=rtol,
        atol=atol,
        time_it=time_it,
        repeat=repeat,
        number=number,
        profile=profile,
        on_stage=on_stage,
        remote=rpc,
        force=force,
        verbose=verbose,
        rpc_timeout=rpc_timeout,
    )


def shipped_cross_compilers() -> dict[str, list[str]]:
    """Each `build.cross-compiler` the shipped configs name (resolved, so a config inherits its
    base's) → the configs naming it. A shipped config that does not resolve names none."""
    shipped = sources.shipped_config_dir()
    if shipped is None:
        return {}
    named: dict[str, list[str]] = {}
    for entry in sources.list_configs([sources.SearchDir(shipped, "shipped")]):
        if entry.error or entry.shadowed:
            continue
        try:
            resolved = resolve([entry.name], isolated=True)
        except TvmcError:
            continue
        cc = resolved.config.build.get("cross-compiler")
        if isinstance(cc, str) and cc:
            named.setdefault(cc, []).append(entry.name)
    return named


def doctor(features: Sequence[str] = ()) -> Report:
    """`tvmc doctor [FEATURE...]`: versions, this CPU, what each feature needs and whether it can run
    here (with the one command that fixes it), known-bad versions, the shipped configs' cross
    compilers and tvmc's paths. `report.failed()` lists what makes the exit status 1."""
    from tvmc import doctor as doctoring  # lazy: only `tvmc doctor` needs it

    if isinstance(features, str) or not isinstance(features, Sequence):
        raise TypeError(f"features: expected a list of feature names, got {_type_name(features)}")
    return doctoring.diagnose([str(f) for f in features], shipped_cross_compilers())


@record(slots=True, frozen=True)
class PruneVerdict:
    """Whether `tvmc tune db prune` keeps a partition, and why (empty: a config on the search path)."""

    keep: bool
    reason: str = ""
    description: str | None = None


def prune_verdicts(root: Any, *, isolated: bool = False, env: Mapping[str, str] | None = None) -> list[Any]:
    """(partition, PruneVerdict) for each partition of the tuning database `root`. A partition is
    kept when a config on the search path (or host/native) maps to its fingerprint, or when a config
    file it was tuned with (partition.json "sources", by path) still does. Every config is resolved
    without TVMC_* variables (TVMC_OPT_LEVEL, TVMC_TARGET, ... would change the fingerprint);
    `isolated` also leaves out the user config directory and TVMC_CONFIG_PATH."""
    from tvmc.tune import store
    from tvmc.tune.fingerprint import target_fingerprint

    environment = os.environ if env is None else env
    dirs = sources.search_path(environment, isolated=isolated)
    plain = sources.isolated_env(environment)

    def fingerprint_of(ref: str) -> str | None:
        try:
            return target_fingerprint(resolve([ref], env=plain, search=dirs).config)
        except TvmcError:
            return None

    names = [e.name for e in sources.list_configs(dirs) if not e.shadowed and not e.error]
    wanted = {fp for fp in (fingerprint_of(n) for n in [*names, "host/native"]) if fp is not None}
    out: list[Any] = []
    for part in store.partitions(root):
        try:
            meta = part.meta()
        except TvmcError as err:
            out.append((part, PruneVerdict(True, f"kept: {err.one_line()}")))
            continue
        description = meta.get("description")
        if part.fingerprint in wanted:
            out.append((part, PruneVerdict(True, "", description)))
            continue
        tuned_with = [str(s) for s in meta.get("sources", [])]
        alive = [s for s in tuned_with if os.path.isfile(s) and fingerprint_of(s) == part.fingerprint]
        if alive:
            out.append((part, PruneVerdict(True, f"tuned with {alive[0]}", description)))
            continue
        reason = "no config on the search path maps to it"
        if tuned_with:
            reason += f"; {tuned_with[0]}, which it was tuned with, no longer does"
        out.append((part, PruneVerdict(False, reason, description)))
    return out
