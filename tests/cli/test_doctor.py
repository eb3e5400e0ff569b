"""`tvmc doctor` and the missing-package / known-bad-version messages of `tune` and `compile` (issue 25),
in environments built for real: a subprocess whose Python cannot import cloudpickle (a meta-path
blocker installed by a sitecustomize on PYTHONPATH), one that sees apache-tvm-ffi 0.1.15 (a
dist-info shadowing the installed version), and a PATH without a cross compiler (or with a stand-in).
Each names its problem and its fix; `doctor FEATURE` exits 1 when FEATURE cannot run here."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import stat
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from testkit import cli_env
from tvmc import api, deps, doctor
from tvmc.backend.model import model_spec
from tvmc.backend.plan import plan_build
from tvmc.errors import BuildError, UsageError
from tvmc.tune import session, worker

ROOT = Path(__file__).resolve().parents[2]
MLP = ROOT / "models" / "mlp.onnx"
HAS_TVM = importlib.util.find_spec("tvm") is not None
# These build an environment that lacks one package beside an installed TVM (scripts/test also runs
# the suite under Pythons without TVM, where they cannot).
needs_tvm = pytest.mark.skipif(not HAS_TVM, reason="apache-tvm is not installed")

BLOCKER = """
import os, sys

_BLOCKED = set(filter(None, os.environ.get("TVMC_TEST_BLOCK", "").split(",")))


class _Blocker:
    # What a Python without these packages does: `import x` raises ModuleNotFoundError naming x.
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in _BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _Blocker())
"""


def without(tmp_path: Path, *modules: str) -> dict[str, str]:
    """The environment of a Python that cannot import `modules` (children inherit it)."""
    folder = tmp_path / "blocker"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(BLOCKER)
    return cli_env(PYTHONPATH=f"{ROOT / 'cli'}{os.pathsep}{folder}", TVMC_TEST_BLOCK=",".join(modules))


def with_tvm_ffi(tmp_path: Path, version: str) -> dict[str, str]:
    """The environment of a Python whose metadata says apache-tvm-ffi VERSION is installed."""
    folder = tmp_path / "shadow"
    info = folder / f"apache_tvm_ffi-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: apache-tvm-ffi\nVersion: {version}\n")
    return cli_env(PYTHONPATH=f"{ROOT / 'cli'}{os.pathsep}{folder}")


def tvmc(env: Mapping[str, str], *argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tvmc", *argv],
        capture_output=True,
        text=True,
        env=dict(env),
        cwd=cwd,
        timeout=600,
        check=False,
    )


def doctor_json(env: Mapping[str, str], *argv: str) -> tuple[int, dict[str, Any], str]:
    proc = tvmc(env, "doctor", *argv, "--format", "json")
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr


# ---- a Python without cloudpickle ----------------------------------------------------------------


@pytest.mark.tvm
@needs_tvm
def test_doctor_without_cloudpickle_names_the_package_and_the_command(tmp_path: Path) -> None:
    env = without(tmp_path, "cloudpickle")
    code, report, stderr = doctor_json(env, "tune", "rpc", "compile-onnx")
    assert code == 1
    assert report["packages"]["cloudpickle"]["state"] == "missing"
    for name in ("tune", "rpc"):
        feature = report["features"][name]
        assert not feature["ok"] and feature["fix"] == "pip install cloudpickle"
        assert feature["problems"] == ["cloudpickle is not installed"]
    assert report["features"]["compile-onnx"] == {**report["features"]["compile-onnx"], "ok": True, "fix": None}
    assert report["failed"] == ["tune", "rpc"]
    assert stderr == "tvmc: doctor: cannot run here: tune, rpc (the fix is above)\n"
    text = tvmc(env, "doctor", "compile-onnx")  # what was asked for runs here: exit 0
    assert text.returncode == 0, text.stderr
    assert "cannot   tune            cloudpickle is not installed; fix: pip install cloudpickle" in text.stdout


@pytest.mark.tvm
@needs_tvm
def test_tune_without_cloudpickle_names_the_package_and_the_command(tmp_path: Path) -> None:
    env = without(tmp_path, "cloudpickle")
    argv = ["tune", str(MLP), "--config", "host/default", "--input-shapes", "x:[1,8]", "--trials", "1"]
    proc = tvmc(env, *argv, "--database", str(tmp_path / "db"), cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr == (
        "tvmc: error: tune: tuning needs the Python package 'cloudpickle', which is not installed; "
        "pip install cloudpickle\n"
    )
    assert not (tmp_path / "db").exists()  # refused before the database was touched


def test_a_package_missing_in_the_tuning_child_is_named_without_a_verbose_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    def tune(_job: object, _events: object) -> None:
        raise ModuleNotFoundError("No module named 'cloudpickle'", name="cloudpickle")

    monkeypatch.setattr(worker, "tune", tune)
    events = io.StringIO()
    worker.run_job(None, events)  # type: ignore[arg-type]
    event = json.loads(events.getvalue())
    assert event == {
        "error": "tuning needs the Python package 'cloudpickle', which is not installed; pip install cloudpickle",
        "complete": True,
    }


CHILD = """
import json, os, sys
events = os.fdopen(int(sys.argv[2]), "w")
events.write(json.dumps(json.loads(os.environ["TVMC_TEST_EVENT"])) + "\\n")
events.close()
"""


@pytest.mark.tvm
@needs_tvm
@pytest.mark.parametrize("complete", [True, False])
def test_the_parent_adds_the_verbose_hint_only_when_tvm_output_could_say_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, complete: bool
) -> None:
    (tmp_path / "child_stub.py").write_text(CHILD)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    event: dict[str, Any] = {
        "error": "tuning needs the Python package 'psutil', which is not installed; pip install psutil"
    }
    if complete:
        event["complete"] = True
    monkeypatch.setenv("TVMC_TEST_EVENT", json.dumps(event))
    # host/default: code any x86-64 machine runs (tune refuses a target it cannot measure here)
    resolved = api.resolve(["host/default"], [], env={})
    plan = plan_build(resolved.config, resolved.origins, model_spec(str(MLP), None, None))
    with pytest.raises(BuildError) as err:
        session.tune(
            plan,
            resolved.config,
            tmp_path / "db",
            trials=1,
            trials_per_task=None,
            timeout=5,
            jobs=1,
            warn=lambda _message: None,
            child="child_stub",
        )
    assert err.value.one_line().startswith("tune: tuning needs the Python package 'psutil'")
    assert ("--verbose" in err.value.one_line()) is not complete


def test_the_jsonschema_engine_without_jsonschema_names_the_package(tmp_path: Path) -> None:
    env = without(tmp_path, "jsonschema")
    proc = tvmc(env, "config", "validate", str(ROOT / "configs" / "aws" / "c5.toml"), "--engine", "jsonschema")
    assert proc.returncode == 1
    assert proc.stderr == (
        "tvmc: error: --engine: the jsonschema engine needs the Python package 'jsonschema', which is not "
        "installed; pip install jsonschema\n"
    )


# ---- apache-tvm-ffi 0.1.15 ------------------------------------------------------------------------


@pytest.mark.tvm
@needs_tvm
def test_doctor_names_the_tvm_ffi_crash_and_its_fix(tmp_path: Path) -> None:
    env = with_tvm_ffi(tmp_path, "0.1.15")
    code, report, stderr = doctor_json(env)
    assert code == 1  # no FEATURE asked for, but something installed is known to crash
    assert report["tvm"]["ffi"] == "0.1.15"
    [bad] = report["known-bad"]
    assert bad["fix"] == "pip install 'apache-tvm-ffi<0.1.15'" and bad["features"] == ["tune"]
    tune = report["features"]["tune"]
    assert not tune["ok"] and tune["fix"] == "pip install 'apache-tvm-ffi<0.1.15'"
    assert any("apache-tvm-ffi 0.1.15 crashes" in p for p in tune["problems"])
    assert report["features"]["compile-onnx"]["ok"]  # compiling does not call save_json
    assert stderr.startswith("tvmc: doctor: broken: apache-tvm-ffi 0.1.15 crashes apache-tvm")
    assert tvmc(env, "doctor", "compile-onnx").returncode == 0


@pytest.mark.tvm
@needs_tvm
def test_tune_refuses_a_known_bad_tvm_ffi_before_it_starts_and_compile_warns(tmp_path: Path) -> None:
    env = with_tvm_ffi(tmp_path, "0.1.15")
    tune = tvmc(env, "tune", str(MLP), "--config", "host/default", "--database", str(tmp_path / "db"), cwd=tmp_path)
    assert tune.returncode == 1
    assert tune.stderr.startswith("tvmc: error: tune: apache-tvm-ffi 0.1.15 crashes apache-tvm ")
    assert tune.stderr.endswith(
        "in tvm.ir.save_json (SIGSEGV), which tuning needs; pip install 'apache-tvm-ffi<0.1.15'\n"
    )
    assert not (tmp_path / "db").exists()  # refused before anything was written
    compiled = tvmc(env, "compile", str(MLP), "--config", "host/default", "-o", str(tmp_path / "mlp.so"), cwd=tmp_path)
    assert compiled.returncode == 0, compiled.stderr
    warning = compiled.stderr.splitlines()[0]
    assert warning.startswith("tvmc: warning: apache-tvm-ffi 0.1.15 crashes apache-tvm ")
    assert warning.endswith("; pip install 'apache-tvm-ffi<0.1.15'")


# ---- cross compilers -------------------------------------------------------------------------------


def test_doctor_names_a_cross_compiler_not_on_path_and_its_debian_package(tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    code, report, stderr = doctor_json(cli_env(PATH=str(empty)), "aarch64-linux-gnu-gcc")
    assert code == 1 and stderr == "tvmc: doctor: cannot run here: aarch64-linux-gnu-gcc (the fix is above)\n"
    entry = next(c for c in report["cross-compilers"] if c["command"] == "aarch64-linux-gnu-gcc")
    assert entry["found"] is None
    assert entry["debian-package"] == "gcc-aarch64-linux-gnu"
    assert entry["install"] == "apt-get install gcc-aarch64-linux-gnu"
    assert {"base/aarch64-linux", "nvidia/jetson-nano"} <= set(entry["configs"])  # jetson-nano inherits it
    assert {c["command"] for c in report["cross-compilers"]} >= {"arm-linux-gnueabihf-gcc", "riscv64-linux-gnu-gcc"}


def test_doctor_finds_a_cross_compiler_on_path(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    compiler = bin_dir / "aarch64-linux-gnu-gcc"
    compiler.write_text("#!/bin/sh\nexit 0\n")
    compiler.chmod(compiler.stat().st_mode | stat.S_IXUSR)
    proc = tvmc(cli_env(PATH=str(bin_dir)), "doctor", "aarch64-linux-gnu-gcc")
    assert proc.returncode == 0, proc.stderr
    assert "  found    aarch64-linux-gnu-gcc" in proc.stdout and str(compiler) in proc.stdout
    assert "apt-get install gcc-riscv64-linux-gnu" in proc.stdout  # the others: missing, with their package


# ---- the report itself (a probe's answer given in-process: fast) --------------------------------------


def records(**overrides: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for module, package in deps.PACKAGES.items():
        record = {"package": module, "distribution": package.distribution, "version": "9.0", "state": "ok"}
        record.update({"tvm": {"version": "0.27.0.post1"}, "tvm_ffi": {"version": "0.1.14.post1"}}.get(module, {}))
        if module == "tomli":
            record.update(version="2.3.2", compiled=True)
        record.update(overrides.get(module, {}))
        out.append(record)
    facts = {
        "tvm": "0.27.0.post1",
        "llvm": "22",
        "cpu": {"name": "cpu0", "triple": "x86_64-linux-gnu", "features": ["avx2"]},
    }
    return [*out, {"facts": facts}, {"done": True}]


def test_every_feature_runs_when_every_package_imports() -> None:
    report = doctor.diagnose(list(deps.FEATURES), {}, probe=(records(), None))
    assert all(f.ok for f in report.features) and report.failed() == [] and report.verdict() is None
    assert report.cpu == {"name": "cpu0", "triple": "x86_64-linux-gnu", "features": ["avx2"]}


def test_a_package_that_is_present_but_broken_is_reinstalled_and_fails_even_unasked() -> None:
    broken = {"psutil": {"state": "broken", "error": "ImportError: libfoo.so: cannot open"}}
    report = doctor.diagnose([], {}, probe=(records(**broken), None))
    tune = next(f for f in report.features if f.feature.name == "tune")
    assert tune.fix == "pip install --force-reinstall psutil"
    assert tune.problems == ("psutil 9.0 is installed but does not import (ImportError: libfoo.so: cannot open)",)
    assert report.failed() == ["psutil is broken"]


def test_a_tomli_that_reads_toml_1_1_is_not_the_fast_parser() -> None:
    report = doctor.diagnose(["fast-toml"], {}, probe=(records(tomli={"version": "2.4.0"}), None))
    assert report.failed() == ["fast-toml"]
    fast = next(f for f in report.features if f.feature.name == "fast-toml")
    assert fast.problems == ("tomli 2.4.0 is installed; tvmc needs tomli>=2.2.1,<2.4",)
    assert fast.fix == "pip install 'tomli>=2.2.1,<2.4'"


@pytest.mark.tvm
@needs_tvm
def test_a_probe_that_crashes_importing_tvm_is_named() -> None:
    early = [r for r in records() if r.get("package") not in ("tvm", "tvm_ffi") and "package" in r]
    report = doctor.diagnose(["compile-onnx"], {}, probe=(early, "crashed (SIGSEGV)"))
    assert report.tvm_error == "importing TVM crashed (SIGSEGV)"
    assert report.failed() == ["compile-onnx"]
    onnx = next(f for f in report.features if f.feature.name == "compile-onnx")
    assert "importing TVM crashed (SIGSEGV)" in " ".join(onnx.problems)
    unasked = doctor.diagnose([], {}, probe=(early, "crashed (SIGSEGV)"))
    assert unasked.failed()[-1] == "importing TVM crashed (SIGSEGV)"  # broken, even unasked


def test_an_unknown_feature_is_a_usage_error_with_a_suggestion() -> None:
    with pytest.raises(UsageError) as err:
        doctor.diagnose(["tunee"], {"aarch64-linux-gnu-gcc": ["base/aarch64-linux"]}, probe=([], None))
    assert err.value.exit_code == 2 and "did you mean 'tune'" in err.value.one_line()


def test_the_json_keys_are_stable() -> None:
    doc = doctor.diagnose([], {"aarch64-linux-gnu-gcc": ["base/aarch64-linux"]}, probe=(records(), None)).to_json()
    assert list(doc) == [
        "tvmc",
        "python",
        "tvm",
        "cpu",
        "packages",
        "features",
        "known-bad",
        "cross-compilers",
        "paths",
        "requested",
        "failed",
    ]
    assert list(doc["tvm"]) == ["version", "ffi", "llvm", "error"]
    assert list(doc["features"]) == list(deps.FEATURES)
    assert set(doc["features"]["tune"]) == {"ok", "summary", "problems", "fix"}
    assert list(doc["cross-compilers"][0]) == ["command", "found", "configs", "debian-package", "install"]
    assert list(doc["paths"]) == ["cache", "host/native", "user configs", "shipped configs", "tuning database"]


# ---- tvmc --version -----------------------------------------------------------------------------------

VERSION = """
import atexit, json, sys
sys.argv = ["tvmc", "--version"]
atexit.register(lambda: print(json.dumps("tvm" in sys.modules), file=sys.stderr))
from tvmc.cli.app import main
main()
"""


def test_version_names_tvm_without_importing_it() -> None:
    from importlib import metadata

    proc = subprocess.run(
        [sys.executable, "-c", VERSION], capture_output=True, text=True, env=cli_env(), timeout=120, check=False
    )
    assert proc.returncode == 0 and proc.stderr.strip() == "false"
    try:
        tvm = metadata.version("apache-tvm")
    except metadata.PackageNotFoundError:
        assert proc.stdout.strip() == "tvmc 0.1.0"
        return
    assert proc.stdout.startswith(f"tvmc 0.1.0 (TVM {tvm}")
