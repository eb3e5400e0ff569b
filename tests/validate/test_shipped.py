"""Every config shipped in configs/ validates clean (others add configs there: this keeps them honest)."""

from __future__ import annotations

from pathlib import Path

from corpus_expect import ROOT, Invoke
from tvmc.validate.reporters import text_line
from tvmc.validate.runner import Settings, Validator

SHIPPED = ROOT / "configs"


def test_shipped_configs_have_no_errors() -> None:
    files = sorted(p for p in SHIPPED.rglob("*") if p.suffix in (".toml", ".json"))
    assert files, "no shipped configs found"
    results = list(Validator(Settings()).run([str(p) for p in files]))
    assert len(results) == len(files)
    problems = [
        text_line(d)
        for r in results
        for d in r.diagnostics
        if d.severity == "error" or not d.rule.startswith("legacy-")
    ]
    assert not problems, "\n".join(problems)


def test_shipped_configs_through_the_cli(tvmc: Invoke) -> None:
    result = tvmc("validate", str(SHIPPED))
    assert result.exit_code == 0, result.stdout


def test_shipped_configs_name_the_schema() -> None:
    """Editors find the schema through the `#:schema` line (TOML) or `$schema` (JSON), relative to the file."""
    for path in sorted(SHIPPED.rglob("*.toml")):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        if first.startswith("#:schema "):
            target = (path.parent / first.split(None, 1)[1]).resolve()
            assert target == ROOT / "schemas" / "compilation-config.schema.json", path
    assert Path(ROOT / "schemas" / "compilation-config.schema.json").is_file()
