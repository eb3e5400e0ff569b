"""tvmc.deps: the packages each feature needs, as pyproject declares them, and the one command that
installs them; known-bad version combinations from the installed metadata. No TVM needed."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tvmc import deps
from tvmc.backend import frontends, runner
from tvmc.backend.model import ModelSpec
from tvmc.errors import BuildError

ROOT = Path(__file__).resolve().parents[2]


def declared() -> dict[str, tuple[str | None, str]]:
    """pyproject's requirements: distribution → (extra or None for a core dependency, requirement)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    out: dict[str, tuple[str | None, str]] = {}
    for extra, requirements in [(None, project["dependencies"]), *project["optional-dependencies"].items()]:
        for requirement in requirements:
            name = requirement.split(";")[0]
            for sign in "<>=!~[ ":
                name = name.split(sign)[0]
            out[name.lower()] = (extra, requirement)
    return out


def test_every_package_a_feature_needs_is_declared_as_pyproject_declares_it() -> None:
    listed = declared()
    for package in deps.PACKAGES.values():
        assert package.distribution in listed, f"{package.distribution} is not declared in pyproject.toml"
        assert listed[package.distribution] == (package.extra, package.requirement)
    for feature in deps.FEATURES.values():
        assert set(feature.modules) <= set(deps.PACKAGES), feature.name
    assert listed["cloudpickle"][0] == "tvm"  # issue 25: TVM's worker pools import it; apache-tvm does not declare it


def test_the_command_is_the_bare_name_unless_an_upper_bound_or_a_pin_is_declared() -> None:
    assert deps.install_command([deps.PACKAGES["cloudpickle"]]) == "pip install cloudpickle"
    assert deps.install_command([deps.PACKAGES["tomli"]]) == "pip install 'tomli>=2.2.1,<2.4'"
    assert (
        deps.install_command([deps.PACKAGES["tvm"], deps.PACKAGES["cloudpickle"]])
        == "pip install 'apache-tvm==0.27.0.post1' cloudpickle"
    )
    assert deps.install_command([deps.PACKAGES["onnx"]], reinstall=True) == "pip install --force-reinstall onnx"


def test_a_blocked_package_is_missing_and_its_error_names_it_and_the_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deps, "missing", _missing_but(deps.missing, ("tvm", "tvm_ffi")))  # TVM as if installed
    monkeypatch.setitem(sys.modules, "cloudpickle", None)
    monkeypatch.setitem(sys.modules, "psutil", None)
    assert [p.module for p in deps.missing(["cloudpickle", "psutil", "jsonschema"])] == ["cloudpickle", "psutil"]
    with pytest.raises(deps.MissingPackageError) as err:
        deps.require("tune", what="tuning", location="tune")
    assert err.value.one_line() == (
        "tune: tuning needs the Python packages 'cloudpickle' and 'psutil', which are not installed; "
        "pip install cloudpickle psutil"
    )


def _missing_but(missing: Any, present: tuple[str, ...]) -> Any:
    """deps.missing, with the modules `present` taken as installed (the suite also runs without TVM)."""
    return lambda modules: [p for p in missing([m for m in modules if m not in present])]


def test_a_model_format_without_its_reader_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tflite", None)
    with pytest.raises(BuildError) as err:
        frontends.check_available(ModelSpec("m.tflite", "tflite"))
    assert err.value.one_line() == (
        "importing TFLite models needs the Python package 'tflite', which is not installed; pip install tflite"
    )


def test_tvm_missing_names_both_tvm_packages_when_both_are_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tvm", None)
    monkeypatch.setitem(sys.modules, "tvm_ffi", None)
    with pytest.raises(BuildError) as err:
        runner.require_tvm("tuning", alternative=None)
    assert err.value.hint == "pip install 'apache-tvm==0.27.0.post1' 'apache-tvm-ffi>=0.1.14.post0,<0.1.15'"


def test_a_module_not_found_inside_a_stage_names_its_package() -> None:
    timings: dict[str, float] = {}
    with pytest.raises(BuildError) as err, runner.stage("import", timings, lambda _s: None):
        raise ModuleNotFoundError("No module named 'onnx'", name="onnx")
    assert err.value.one_line().endswith("needs the Python package 'onnx', which is not installed; pip install onnx")
    assert "--verbose" not in err.value.one_line()


@pytest.mark.parametrize(
    ("tvm", "ffi", "bad"),
    [
        ("0.27.0.post1", "0.1.15", True),
        ("0.27.0.post1", "0.1.16rc1", True),
        ("0.27.0", "0.2.0", True),
        ("0.27.0.post1", "0.1.14.post1", False),
        ("0.27.0.post1", None, False),
        (None, "0.1.15", False),
        ("0.28.0", "0.1.15", False),
    ],
)
def test_known_bad_names_the_tvm_ffi_crash_and_its_fix(tvm: str | None, ffi: str | None, bad: bool) -> None:
    found = deps.known_bad({"apache-tvm": tvm, "apache-tvm-ffi": ffi})
    assert bool(found) == bad
    if bad:
        assert found[0].fix == "pip install 'apache-tvm-ffi<0.1.15'"
        assert f"apache-tvm-ffi {ffi}" in found[0].message and "tvm.ir.save_json" in found[0].message
        assert found[0].features == ("tune",)


@given(
    st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=4),
    st.sampled_from(["", ".post1", "rc2", ".dev0"]),
)
def test_release_reads_the_numbers_of_any_version(numbers: list[int], suffix: str) -> None:
    assert deps.release(".".join(map(str, numbers)) + suffix) == tuple(numbers)
