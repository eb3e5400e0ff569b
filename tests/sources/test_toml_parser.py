"""The TOML parser behind the loader: compiled tomli (the `fast` extra) must read exactly what
tomllib reads — the same values, the same errors at the same places — or not be used at all."""

from __future__ import annotations

import sys
import tomllib
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tvmc.sources import loader

from .test_properties import documents, scalars
from .toml_render import toml_documents

ROOT = Path(__file__).resolve().parents[2]
TOML_FILES = sorted([*(ROOT / "configs").rglob("*.toml"), *(ROOT / "tests" / "validate" / "corpus").rglob("*.toml")])

try:
    import tomli
except ImportError:  # the suite also runs without the `fast` extra
    tomli = None

needs_tomli = pytest.mark.skipif(
    tomli is None or not loader.TOML_PARSER.startswith("tomli"),
    reason="the `fast` extra (tomli < 2.4) is not installed: the loader uses tomllib",
)


def _outcome(parse: Any, text: str) -> tuple[str, str]:
    try:
        return "ok", repr(parse(text))  # repr: nan == nan
    except ValueError as err:  # both parsers' errors are ValueErrors with the same wording
        return "error", str(err)


@needs_tomli
@pytest.mark.parametrize("path", TOML_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_same_outcome_on_every_shipped_and_corpus_file(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    assert _outcome(tomli.loads, text) == _outcome(tomllib.loads, text)


# Text near TOML's edges: TOML 1.1 additions (which tomli >= 2.4 would accept), escapes, dates,
# numbers in every base, and byte-level damage to valid documents.
_EDGES = [
    "a = {x = 1,\n y = 2}",
    "a = {x = 1,}",
    'a = "\\e"',
    'a = "\\x41"',
    "a = 12:30",
    "a = 1979-05-27T07:32",
    "a = 0x_1",
    "a = 1__0",
    "a = +inf",
    "a = -nan",
    "a = 0o17",
    "a = 1e+05",
    "a.b.c = 1\n[a]\n",
    "[[t]]\n[t]\n",
    'a = """\n\\\n  x"""',
    "a = '''\n'''",
    "a = [1,\n# c\n 2,]",
    "\ufeffa = 1",
]


@needs_tomli
@pytest.mark.parametrize("text", _EDGES)
def test_same_outcome_at_the_edges_of_the_grammar(text: str) -> None:
    assert _outcome(tomli.loads, text) == _outcome(tomllib.loads, text)


@needs_tomli
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(toml_documents(documents(scalars)), st.data())
def test_same_outcome_on_generated_and_damaged_documents(case: tuple[dict[str, Any], str], data: st.DataObject) -> None:
    _, text = case
    assert _outcome(tomli.loads, text) == _outcome(tomllib.loads, text)
    if text:
        at = data.draw(st.integers(0, len(text) - 1))
        edit = data.draw(st.sampled_from(["", "=", "[", "\n", '"', "'", ",", "}", "#", "."]))
        damaged = text[:at] + edit + text[at + 1 :]
        assert _outcome(tomli.loads, damaged) == _outcome(tomllib.loads, damaged)


def test_tomli_reading_toml_1_1_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("tomli")
    fake.__version__ = "2.4.0"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tomli", fake)
    assert loader._toml_parser()[2] == "tomllib"


def test_without_tomli_tomllib_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tomli", None)  # makes `import tomli` raise ImportError
    parse, error, name = loader._toml_parser()
    assert (parse, error, name) == (tomllib.loads, tomllib.TOMLDecodeError, "tomllib")
