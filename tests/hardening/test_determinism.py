"""Canonical output is byte-identical across runs, hash seeds, key order and Python versions.

`determinism_probe.py` prints a digest of every canonical output (config show TOML/JSON/--origin/
--hash, target canonicalize, config schema, every --emit format); it runs in subprocesses under
several PYTHONHASHSEED values and under python3.12/3.13 when they can import tvmc's dependencies.
"""

from __future__ import annotations

import glob
import json
import os
import random
import shutil
import subprocess
import sys
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from testkit import cli_env
from tvmc import api, sources
from tvmc.emit import canonical

from .harness import ROOT

PROBE = Path(__file__).with_name("determinism_probe.py")
SHIPPED = ROOT / "configs"
# Extra interpreters to compare, os.pathsep-separated (e.g. venvs that have tvmc's dependencies).
EXTRA_PYTHONS = [p for p in os.environ.get("HARDENING_PYTHONS", "").split(os.pathsep) if p]


def probe(python: str, hash_seed: str = "0") -> dict[str, Any]:
    proc = subprocess.run(
        [python, str(PROBE)],
        capture_output=True,
        text=True,
        env=cli_env(PYTHONHASHSEED=hash_seed),
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


@cache
def reference() -> dict[str, str]:
    digests: dict[str, str] = probe(sys.executable)["digests"]
    return digests


@pytest.mark.parametrize("seed", ["1", "4242", "random"])
def test_hash_seeds_do_not_change_any_output(seed: str) -> None:
    digests = probe(sys.executable, seed)["digests"]
    assert digests == reference(), [k for k in digests if digests[k] != reference().get(k)]


def _interpreters(minor: int) -> list[str]:
    """python3.<minor> on PATH (if it runs: pyenv shims may not), pyenv's, and HARDENING_PYTHONS."""
    found = [shutil.which(f"python3.{minor}") or ""]
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found += sorted(glob.glob(os.path.join(pyenv, "versions", f"3.{minor}.*", "bin", f"python3.{minor}")))
    found.append(str(ROOT / ".venvs" / f"py3.{minor}" / "bin" / "python"))  # made by scripts/setup-pythons
    found += EXTRA_PYTHONS
    return [p for p in dict.fromkeys(found) if p and os.path.exists(p)]


def _usable(python: str, minor: int) -> str | None:
    """Why `python` cannot run the probe, or None."""
    check = f"import sys; assert sys.version_info[:2] == (3, {minor}); import typer, click, tomli_w"
    try:
        proc = subprocess.run([python, "-c", check], capture_output=True, text=True, env=cli_env(), timeout=60)
    except OSError as err:
        return str(err)
    lines = proc.stderr.strip().splitlines() or ["it fails"]
    return None if proc.returncode == 0 else next((x for x in reversed(lines) if "Error" in x), lines[0])


@pytest.mark.parametrize("minor", [11, 12, 13])
def test_other_python_versions_print_the_same_bytes(minor: int) -> None:
    if sys.version_info[:2] == (3, minor):
        pytest.skip("the running interpreter is the reference")
    candidates = [p for p in _interpreters(minor) if _usable(p, minor) is None]
    if not candidates:
        reasons = {p: _usable(p, minor) for p in _interpreters(minor)}
        pytest.skip(
            f"no python3.{minor} that can import tvmc's dependencies: {reasons or 'none found'} "
            f"(pip install -e . for it, or list one in HARDENING_PYTHONS)"
        )
    digests = probe(candidates[0])["digests"]
    assert digests == reference(), [k for k in digests if digests[k] != reference().get(k)]


# ---- key order ------------------------------------------------------------------------------------


def shuffled(value: Any, rng: random.Random) -> Any:
    """The same data with the keys of every table in another order (lists keep theirs)."""
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {k: shuffled(value[k], rng) for k in keys}
    if isinstance(value, list):
        return [shuffled(v, rng) for v in value]
    return value


def outputs(name: str, dirs: list[sources.SearchDir]) -> tuple[str, str, str]:
    resolved = api.resolve([name], env={}, search=dirs)
    data = resolved.to_dict()
    return canonical.to_toml(data), canonical.to_json(data), resolved.fingerprint()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_key_order_does_not_change_any_output(seed: int, tmp_path: Path) -> None:
    """Every catalogue config, its keys shuffled at every level, as TOML and (where no `extends`
    path names the file) as JSON, resolves to the same bytes."""
    rng = random.Random(seed)
    files = sorted(SHIPPED.rglob("*.toml"))
    extended = {
        (f.parent / ref).resolve()
        for f in files
        for ref in tomllib.loads(f.read_text()).get("extends", [])
        if ref.endswith(".toml")
    }
    for file in files:
        data = shuffled(tomllib.loads(file.read_text()), rng)
        copy = tmp_path / file.relative_to(SHIPPED)
        copy.parent.mkdir(parents=True, exist_ok=True)
        if file.resolve() in extended or rng.random() < 0.5:
            copy.write_text(tomli_w.dumps(data))
        else:
            copy.with_suffix(".json").write_text(json.dumps(data, indent=2))
    mirror = [sources.SearchDir(tmp_path, "TVMC_CONFIG_PATH")]
    original = [sources.SearchDir(SHIPPED, "shipped")]
    names = [f.relative_to(SHIPPED).with_suffix("").as_posix() for f in files]
    assert len(names) >= 30
    for name in names:
        assert outputs(name, mirror) == outputs(name, original), name
