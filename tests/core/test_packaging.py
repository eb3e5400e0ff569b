"""The distribution: the wheel holds every module, the catalogue and the schema (a shipped config's
`#:schema` resolves inside it), and an editable install works from any folder."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = "compilation-config.schema.json"


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """The files of the wheel built from this clone (hatchling, the build backend, in-process)."""
    from hatchling.builders.wheel import WheelBuilder

    out = tmp_path_factory.mktemp("wheel")
    built = list(WheelBuilder(str(ROOT)).build(directory=str(out), versions=["standard"]))
    assert len(built) == 1
    with zipfile.ZipFile(built[0]) as wheel:
        return set(wheel.namelist())


def _tracked(folder: str) -> list[Path]:
    listed = subprocess.run(["git", "ls-files", folder], cwd=ROOT, capture_output=True, text=True, check=False)
    if listed.returncode != 0:  # not a git checkout (an sdist): every file of the folder
        return sorted(p.relative_to(ROOT) for p in (ROOT / folder).rglob("*") if p.is_file())
    return [Path(line) for line in listed.stdout.splitlines()]


def test_the_wheel_holds_every_module_and_data_file(wheel_names: set[str]) -> None:
    package = ROOT / "cli" / "tvmc"
    expected = {f"tvmc/{p.relative_to(package).as_posix()}" for p in package.rglob("*.py")}
    expected |= {f"tvmc/registry/data/{p.name}" for p in (package / "registry" / "data").glob("*.json")}
    expected.add("tvmc/py.typed")
    missing = expected - wheel_names
    assert not missing, sorted(missing)


def test_the_wheel_holds_the_catalogue_and_the_schema(wheel_names: set[str]) -> None:
    configs = {f"tvmc/configs/{PurePosixPath(*p.parts[1:])}" for p in _tracked("configs")}
    assert configs and configs <= wheel_names, sorted(configs - wheel_names)
    assert f"tvmc/schemas/{SCHEMA}" in wheel_names
    assert not any(name.startswith(("tests/", "scripts/", "tvmc/tests")) for name in wheel_names)


def test_every_shipped_schema_line_resolves_in_the_wheel_and_in_the_clone(wheel_names: set[str]) -> None:
    """The same relative place in both layouts: `#:schema ../../schemas/…` from tvmc/configs/aws/c5.toml
    is tvmc/schemas/… in the wheel, and schemas/… from configs/aws/c5.toml in the clone."""
    checked = 0
    for path in sorted((ROOT / "configs").rglob("*.toml")):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("#:schema "), path
        ref = first.split(None, 1)[1]
        assert (path.parent / ref).resolve().is_file(), f"{path}: {ref}"
        in_wheel = PurePosixPath("tvmc/configs", *path.relative_to(ROOT / "configs").parts).parent / ref
        assert os.path.normpath(str(in_wheel)) in wheel_names, f"{path}: {ref}"
        checked += 1
    assert checked >= 30


def _file_of(directive: str) -> Path:
    assert directive.startswith("#:schema file://"), directive
    return Path(unquote(urlparse(directive.split(None, 1)[1]).path))


def test_written_configs_name_the_installed_schema(tmp_path: Path) -> None:
    """`config migrate` (and `config detect`, the host/native cache) write a `#:schema` that
    resolves on this machine: the installed schema, never a URL nothing serves."""
    from tvmc import sources
    from tvmc.migrate import migrate

    installed = sources.shipped_schema_file()
    assert installed is not None and installed.name == SCHEMA
    directive = sources.schema_directive()
    assert directive is not None and _file_of(directive) == installed
    first = migrate("llvm -mcpu=cascadelake").toml_text.splitlines()[0]
    assert _file_of(first) == installed


def test_config_schema_path_prints_the_installed_file() -> None:
    from tvmc import sources

    run = subprocess.run(
        [sys.executable, "-m", "tvmc", "config", "schema", "--path"], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    assert Path(run.stdout.strip()) == sources.shipped_schema_file()
    bad = subprocess.run(
        [sys.executable, "-m", "tvmc", "config", "schema", "--path", "-o", "x.json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr


def test_an_editable_install_works_from_the_folder_holding_the_clone(tmp_path: Path) -> None:
    """A clone named `tvmc`, Python started in its parent (a notebook's usual folder): the clone's
    root must not be imported as a namespace package `tvmc` in place of the real one."""
    import tvmc

    if not Path(tvmc.__file__).resolve().is_relative_to(ROOT / "cli"):
        pytest.skip("tvmc is not an editable install of this clone")
    (tmp_path / "tvmc").symlink_to(ROOT, target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = "import tvmc.api; print(tvmc.api.resolve('aws/c5').config.targets[0]['mcpu'])"
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout == "skylake-avx512\n", run.stderr
    version = subprocess.run(
        [sys.executable, "-m", "tvmc", "--version"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert version.returncode == 0 and version.stdout.startswith("tvmc "), version.stderr


def test_shipped_configs_are_found() -> None:
    from tvmc import sources

    shipped = sources.shipped_config_dir()
    assert shipped is not None and (shipped / "aws" / "c5.toml").is_file()
