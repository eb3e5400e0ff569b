"""The schema as editors and CI tools read it, with the real clients: tombi (strict mode, its default)
and taplo, the TOML editors' engines; ajv in strict mode (VS Code's JSON language service and most
JavaScript tools compile schemas with ajv); check-jsonschema. The repository's `tombi.toml` and
`.taplo.toml` are the association examples the README shows, and they are what these tests use."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import ROOT

SCHEMA = ROOT / "schemas" / "compilation-config.schema.json"
SHIPPED = sorted((ROOT / "configs").rglob("*.toml"))
BROKEN = ROOT / "tests" / "lsp" / "corpus"  # 44 broken configs, each naming its rule ("expect-rule: …")
AJV = ROOT / ".tools" / "node_modules" / ".bin" / "ajv"  # npm install --prefix .tools ajv-cli@5 (.ci/run does)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _tool(name: str) -> str:
    found = shutil.which(name, path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is not installed: the `test` extra installs it")
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    return found


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "TOMBI_OFFLINE": "1"}
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _consumer(tmp_path: Path, files: dict[str, Path]) -> Path:
    """A repository of configs as the README shows it: configs/, a copy of the schema (`tvmc config
    schema -o`), and this repository's tombi.toml and .taplo.toml."""
    repo = tmp_path / "repo"
    (repo / "schemas").mkdir(parents=True)
    shutil.copy(SCHEMA, repo / "schemas" / SCHEMA.name)
    for name in ("tombi.toml", ".taplo.toml"):
        shutil.copy(ROOT / name, repo / name)
    for rel, source in files.items():
        target = repo / "configs" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        # Without the `#:schema` line: the association files alone must bring the schema.
        lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
        target.write_text("".join(line for line in lines if not line.startswith("#:schema")), encoding="utf-8")
    return repo


def test_tombi_strict_mode_has_no_false_warning_on_shipped_configs() -> None:
    """tombi's strict mode read the schema's kind dispatch as "no other key" (39 false warnings on 13
    of the 32 shipped configs): each shipped config now lints with no warning at all."""
    tombi = _tool("tombi")
    done = _run([tombi, "lint", "--offline", *map(str, SHIPPED), "tests/validate/corpus/ok"], ROOT)
    output = ANSI.sub("", done.stdout + done.stderr)
    assert done.returncode == 0 and "Warning" not in output and "Error" not in output, output


def test_tombi_and_taplo_find_the_schema_through_the_association_files(tmp_path: Path) -> None:
    ok = {p.relative_to(ROOT / "configs").as_posix(): p for p in SHIPPED}
    broken = {"team/unknown-kind.toml": BROKEN / "unknown-kind.toml"}
    repo = _consumer(tmp_path, {**ok, **broken})
    tombi = _run([_tool("tombi"), "lint", "--offline", "configs"], repo)
    tombi_out = ANSI.sub("", tombi.stdout + tombi.stderr)
    assert tombi.returncode != 0 and "unknown-kind.toml" in tombi_out and "Warning" not in tombi_out, tombi_out
    assert tombi_out.count("Error") == 1, tombi_out  # the broken one only
    taplo = _run([_tool("taplo"), "check"], repo)
    taplo_out = ANSI.sub("", taplo.stdout + taplo.stderr)
    assert taplo.returncode != 0 and "unknown-kind.toml" in taplo_out, taplo_out
    flagged = set(re.findall(r"configs/[\w./-]+\.toml", taplo_out))
    assert flagged == {"configs/team/unknown-kind.toml"}, taplo_out


def test_ajv_compiles_the_schema_in_strict_mode() -> None:
    """ajv refused the schema under `strict: true` (type unions, keywords without their type)."""
    if not AJV.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail("ajv is not installed: .ci/run runs `npm install --prefix .tools ajv-cli@5`")
        pytest.skip("ajv is not installed (npm install --prefix .tools ajv-cli@5)")
    done = _run([str(AJV), "compile", "--spec=draft2020", "--strict=true", "-s", str(SCHEMA)], ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def _broken() -> list[Path]:
    files = sorted(p for p in BROKEN.iterdir() if p.suffix in (".toml", ".json"))
    assert len(files) == 44
    return files


def test_the_schema_alone_catches_at_least_37_of_the_44_broken_configs(tmp_path: Path) -> None:
    """check-jsonschema with the schema alone (no tvmc): what an editor or a generic CI step sees.
    The rest (missing extends files, what is wrong inside a legacy target string) needs tvmc."""
    tool = _tool("check-jsonschema")
    done = _run([tool, "--schemafile", str(SCHEMA), "-o", "JSON", *map(str, _broken())], tmp_path)
    report = json.loads(done.stdout)
    assert done.returncode == 1 and not report["parse_errors"], done.stdout + done.stderr
    caught = {Path(error["filename"]).name for error in report["errors"]}
    assert len(caught) >= 37, sorted({p.name for p in _broken()} - caught)
    shipped = _run([tool, "--schemafile", str(SCHEMA), *map(str, SHIPPED)], tmp_path)
    assert shipped.returncode == 0, shipped.stdout + shipped.stderr


def test_the_catalog_entry_is_ready_for_schemastore() -> None:
    """SchemaStore's catalog entry: name, description, fileMatch (the user config directory, the
    installed catalogue), url."""
    entry = json.loads((ROOT / "schemas" / "schemastore-catalog-entry.json").read_text(encoding="utf-8"))
    assert set(entry) == {"name", "description", "fileMatch", "url"}
    assert entry["url"].startswith("https://json.schemastore.org/") and entry["url"].endswith(".json")
    assert any(".config/tvmc/configs" in m for m in entry["fileMatch"])
