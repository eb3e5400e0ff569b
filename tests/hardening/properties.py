"""The hardening properties, by surface. Each takes one generated case and raises on a violation.

    files     config bytes (TOML/JSON, corrupted) through the loader, the pipeline and `config show`
    targets   target values (tags, legacy strings, comma lists, JSON, tables) and `target canonicalize`
    rewrites  --config names and rewrite flags through the pipeline and `config show`
    emit      config trees through canonicalization and every emitter, and `compile MODEL --emit`

`scripts/fuzz.py` runs these for any number of cases; `test_fuzz_sample.py` runs a CI-sized sample.
"""

from __future__ import annotations

import ast
import itertools
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from tvmc import api, sources
from tvmc.config import CompilationConfig, canonicalize_config
from tvmc.emit import canonical
from tvmc.errors import TvmcError
from tvmc.layering import layer_tree

from . import strategies as S
from .corruption import config_bytes
from .harness import MODEL, core, run_cli, workdir

_counter = itertools.count()


@dataclass(frozen=True)
class Property:
    name: str
    surface: str
    strategy: st.SearchStrategy[Any]
    check: Callable[[Any], None]
    weight: int = 1  # relative share of the cases; CLI properties are slower per case


def outputs(resolved: api.Resolved) -> tuple[str, ...]:
    """Every canonical rendering `config show` offers, for determinism checks."""
    data = resolved.to_dict()
    return (
        canonical.to_toml(data),
        canonical.to_json(data),
        canonical.to_json(data, resolved.origins),
        canonical.origin_view(data, resolved.origins),
        resolved.fingerprint(),
    )


def _resolve_twice(call: Callable[[], api.Resolved], source: str | None = None) -> None:
    first = core(lambda: outputs(call()), source)
    if isinstance(first, TvmcError):
        return
    assert core(lambda: outputs(call())) == first, "the same input printed different bytes"


# ---- files --------------------------------------------------------------------------------------


def check_load_bytes(case: tuple[bytes, str]) -> None:
    data, fmt = case
    core(lambda: sources.load_bytes(data, source="fuzz-source", format=fmt), "fuzz-source")
    core(lambda: sources.load_bytes(data, source="fuzz-source"), "fuzz-source")  # sniffed


def _write_case(data: bytes, suffix: str) -> str:
    path = workdir() / f"case{next(_counter) % 64}{suffix}"
    path.write_bytes(data)
    return str(path)


def check_resolve_file(case: tuple[bytes, str]) -> None:
    data, fmt = case
    path = _write_case(data, "." + fmt)
    _resolve_twice(lambda: api.resolve([path], env={}), source=None)


def check_show_file(case: tuple[tuple[bytes, str], int]) -> None:
    (data, _fmt), variant = case
    path = _write_case(data, [".toml", ".json", ""][variant % 3])
    flags = [[], ["--format", "json"], ["--origin"], ["--format", "json", "--origin"], ["--hash"]][variant % 5]
    run_cli(["config", "show", "--config", path, *flags])


def check_validate(case: tuple[tuple[bytes, str], bool]) -> None:
    (data, fmt), stdin = case
    if stdin:
        run_cli(
            ["config", "validate", "--stdin-filename", f"fuzz.{fmt}", "-"],
            stdin=data.decode("utf-8", "replace"),
            report=True,
        )
    else:
        run_cli(["config", "validate", _write_case(data, "." + fmt)], report=True)


# ---- targets ------------------------------------------------------------------------------------


def check_target(value: Any) -> None:
    from tvmc import targets as tg

    parsed = core(lambda: tg.parse_target(value, source="fuzz-target"), "fuzz-target")
    if isinstance(parsed, TvmcError):
        return
    spec = parsed.spec
    result = core(lambda: tg.canonicalize(spec, source="fuzz-target"), "fuzz-target")
    if isinstance(result, TvmcError):
        return
    assert core(lambda: tg.canonicalize(spec)) == result, "canonicalize is not deterministic"
    legacy = core(lambda: tg.to_legacy(result))
    if isinstance(legacy, TvmcError):
        return
    # The legacy string parses back to the same target (to_legacy's promise).
    again = core(lambda: tg.canonicalize(tg.parse_target(legacy).spec))
    assert again == result, f"to_legacy does not round-trip: {legacy!r} → {again!r}, expected {result!r}"


def check_target_list(text: str) -> None:
    from tvmc import targets as tg

    core(lambda: tg.parse_targets(text, source="fuzz-target"), "fuzz-target")


def check_target_cli(case: tuple[list[str], bool]) -> None:
    texts, legacy = case
    texts = [t for t in texts if t != "-"]
    result = run_cli(["target", "canonicalize", *(["--format", "legacy"] if legacy else []), "--", *texts])
    if texts and result.exit_code in (0, 1):
        lines = result.stdout.split("\n")
        assert lines[-1] == "" and len(lines) - 1 == len(texts), f"{len(texts)} inputs, output {result.stdout!r}"


def check_migrate(text: str) -> None:
    """Any text given to `config migrate`: one error line or a config that reads back (TOML)."""
    import tomllib

    result = run_cli(["config", "migrate", "--", text])
    if result.exit_code == 0:
        tomllib.loads(result.stdout)
        assert all(line.isprintable() for line in result.stdout.split("\n")), "control characters in the output"


_old_inputs = st.one_of(
    st.tuples(S.target_texts(), st.lists(S.flag_pair(True), max_size=3)).map(
        lambda c: (
            "tvmc compile --target " + shlex.quote(c[0]) + " " + shlex.join(x for p in c[1] for x in p) + " m.onnx"
        )
    ),
    S.hostile_text(surrogates=False),
    st.dictionaries(S.texts(True), S.junk, max_size=3).map(lambda d: __import__("json").dumps(d)),
)


# ---- rewrites -----------------------------------------------------------------------------------


def check_rewrites(case: tuple[list[str], list[tuple[str, str]]]) -> None:
    configs, pairs = case
    _resolve_twice(lambda: api.resolve(configs, pairs, env={}))


def check_environment(case: tuple[dict[str, str], list[str]]) -> None:
    env, configs = case
    _resolve_twice(lambda: api.resolve(configs, env=env))


def argv_of(configs: list[str], pairs: list[tuple[str, str]]) -> list[str]:
    argv: list[str] = []
    for ref in configs:
        argv += ["--config", ref]
    for flag, value in pairs:
        argv += [f"{flag}={value}"] if flag.startswith("--") else [flag, value]
    return argv


def check_show_rewrites(case: tuple[tuple[list[str], list[tuple[str, str]]], bool]) -> None:
    (configs, pairs), json_format = case
    run_cli(["config", "show", *argv_of(configs, pairs), *(["--format", "json"] if json_format else [])])


# ---- emit ---------------------------------------------------------------------------------------


def render_all(config: CompilationConfig, origins: Any) -> None:
    """Canonical text and every --emit format; emitted code must parse and argv must split."""
    from tvmc.backend.model import model_spec
    from tvmc.backend.plan import plan_build
    from tvmc.emit import plan as plan_json
    from tvmc.emit import python, relay, tvmc_argv
    from tvmc.emit.legacy import plan_legacy

    data = config.to_dict()
    canonical.to_toml(data)
    canonical.origin_view(data, origins)
    spec = model_spec(str(MODEL), None, None)
    plan = core(lambda: plan_build(config, origins, spec))
    if not isinstance(plan, TvmcError):
        script = core(lambda: python.render(plan)[0])
        if isinstance(script, str):
            ast.parse(script)
        core(lambda: plan_json.render(plan, data))
    legacy = core(lambda: plan_legacy(config, origins, spec))
    if not isinstance(legacy, TvmcError):
        line = core(lambda: tvmc_argv.render(legacy)[0])
        if isinstance(line, str):
            shlex.split(line)
        script = core(lambda: relay.render(legacy)[0])
        if isinstance(script, str):
            ast.parse(script)


def check_emit_tree(data: dict[str, Any]) -> None:
    text = canonical.to_compact_json(data)
    layer = sources.Layer(source="fuzz.json", path=None, data=data, format="json", text=text)
    tree = layer_tree(layer, ())
    # Only the rule engine refuses (canonicalization asserts what it refuses): every command runs it first.
    if isinstance(core(lambda: api.check(tree)), TvmcError):
        return
    result = core(lambda: canonicalize_config(tree.data, tree.origins))
    if isinstance(result, TvmcError):
        return
    config = result[0]
    origins = api.canonical_origins(config.to_dict(), tree)
    render_all(config, origins)


def check_compile_emit(case: tuple[tuple[list[str], list[tuple[str, str]]], str, str | None]) -> None:
    (configs, pairs), fmt, shapes = case
    extra = ["--input-shapes", shapes] if shapes is not None else []
    run_cli(["compile", str(MODEL), "--emit", fmt, *extra, *argv_of(configs, pairs)])


def check_shapes(text: str) -> None:
    from tvmc.shapes import format_input_shapes, parse_input_shapes

    shapes = core(lambda: parse_input_shapes(text))
    if not isinstance(shapes, TvmcError):
        assert parse_input_shapes(format_input_shapes(shapes)) == shapes, "input shapes do not round-trip"


# ---- the catalogue ------------------------------------------------------------------------------

_emit_formats = st.sampled_from(["python", "plan", "tvmc", "relay"])
_shapes = (
    st.none()
    | S.hostile_text(surrogates=True)
    | st.sampled_from(["x:[1,2]", "x:[]", "a/b:0:[1,?] y:[-1]", '"q q":[1]'])
)

PROPERTIES: tuple[Property, ...] = (
    Property("load-bytes", "files", config_bytes(), check_load_bytes, 3),
    Property("resolve-file", "files", config_bytes(), check_resolve_file, 3),
    Property("show-file", "files", st.tuples(config_bytes(), st.integers(0, 14)), check_show_file),
    Property("validate", "files", st.tuples(config_bytes(), st.booleans()), check_validate),
    Property("target", "targets", S.targets_any(), check_target, 4),
    Property("target-list", "targets", S.target_texts(), check_target_list, 2),
    Property(
        "target-cli", "targets", st.tuples(st.lists(S.target_texts(), max_size=3), st.booleans()), check_target_cli
    ),
    Property("migrate", "files", _old_inputs, check_migrate, 2),
    Property("rewrites", "rewrites", S.rewrite_case(), check_rewrites, 4),
    Property("environment", "rewrites", S.environments(), check_environment, 2),
    Property("show-rewrites", "rewrites", st.tuples(S.rewrite_case(), st.booleans()), check_show_rewrites),
    Property("emit-tree", "emit", S.config_trees(extends=False), check_emit_tree, 4),
    Property("compile-emit", "emit", st.tuples(S.rewrite_case(), _emit_formats, _shapes), check_compile_emit),
    Property("input-shapes", "emit", _shapes.filter(bool), check_shapes),
)
SURFACES = ("files", "targets", "rewrites", "emit")
