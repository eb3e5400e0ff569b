"""Shipped configs are read from the parse made when the catalogue was generated
(`tvmc.sources.preparsed`, scripts/gen_preparsed.py), so that `config show --config aws/c5` loads no
TOML parser. The table answers only for a shipped config's exact text: anything else is parsed."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from testkit import load_script
from tvmc import sources
from tvmc.sources import loader, preparsed

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "configs").rglob("*.toml"))


def test_the_table_is_current() -> None:
    assert load_script("gen_preparsed").main(["--check"]) == 0, "run scripts/gen_preparsed.py"


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_shipped_config_is_listed_and_loads_as_the_parser_reads_it(path: Path) -> None:
    script = load_script("gen_preparsed")
    text = path.read_text(encoding="utf-8")
    assert text in preparsed.DOCUMENTS
    assert script.same(sources.load_file(path).data, tomllib.loads(text))


def test_a_text_not_listed_is_parsed(tmp_path: Path) -> None:
    """An edited shipped config (one value changed, a line added) means what it now says."""
    text = (ROOT / "configs" / "aws" / "c5.toml").read_text(encoding="utf-8")
    edited = tmp_path / "c5.toml"
    edited.write_text("opt-level = 2\n" + text.replace("skylake-avx512", "cascadelake"), encoding="utf-8")
    data = sources.load_file(edited).data
    assert data["targets"][0]["mcpu"] == "cascadelake" and data["opt-level"] == 2
    assert edited.read_text(encoding="utf-8") not in preparsed.DOCUMENTS


def test_no_two_loads_share_a_value() -> None:
    path = ROOT / "configs" / "aws" / "c5.toml"
    first = sources.load_file(path).data
    first["targets"][0]["mcpu"] = "changed"
    first["description"] = "changed"
    second = sources.load_file(path).data
    assert second["targets"][0]["mcpu"] == "skylake-avx512" and second["description"] != "changed"


def test_a_shipped_config_loads_no_toml_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse() -> Any:
        raise AssertionError("a shipped config, as shipped, needs no TOML parser")

    monkeypatch.setattr(loader, "_the_toml_parser", refuse)
    for path in SHIPPED:
        assert sources.load_file(path).data


def test_documents_json_cannot_hold_are_left_out(tmp_path: Path) -> None:
    script = load_script("gen_preparsed")
    texts = {
        "plain.toml": 'description = "x"\nopt-level = 3\n[pass-config]\n"tir.a" = 1.5\n',
        "date.toml": "description = 1979-05-27\n",
        "nan.toml": "x = nan\n",
        "big.toml": "x = 9223372036854775807\n",
    }
    for name, text in texts.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    found = script.documents(tmp_path)
    assert set(found) == {texts["plain.toml"], texts["big.toml"]}
    assert script.same(loader.json.loads(found[texts["big.toml"]]), {"x": 9223372036854775807})


def test_check_fails_when_the_table_is_stale(tmp_path: Path) -> None:
    script = load_script("gen_preparsed")
    configs, output = tmp_path / "configs", tmp_path / "preparsed.py"
    configs.mkdir()
    (configs / "a.toml").write_text("opt-level = 1\n", encoding="utf-8")
    arguments = ["--configs", str(configs), "--output", str(output)]
    assert script.main(["--check", *arguments]) == 1
    assert script.main(arguments) == 0
    assert script.main(["--check", *arguments]) == 0
    (configs / "a.toml").write_text("opt-level = 2\n", encoding="utf-8")
    assert script.main(["--check", *arguments]) == 1
