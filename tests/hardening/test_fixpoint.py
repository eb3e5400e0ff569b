"""`config show` of `config show`'s output is the same bytes (issue 14, item 7): for every shipped
config, every TVM tag as a target, and generated target lists, in TOML and JSON."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tvmc import registry

from .harness import ROOT, run_cli

SHIPPED = sorted(p.relative_to(ROOT / "configs").with_suffix("").as_posix() for p in (ROOT / "configs").rglob("*.toml"))
TAGS = sorted(registry.tag_names())


def assert_fixpoint(tmp: Path, first_args: list[str], fmt: str) -> None:
    first = run_cli(["config", "show", *first_args, "--format", fmt])
    if first.exit_code != 0:
        return  # nothing to read back
    again_file = tmp / f"again.{fmt}"
    again_file.write_text(first.stdout, encoding="utf-8")
    again = run_cli(["config", "show", "--config", str(again_file), "--format", fmt])
    assert again.exit_code == 0, again.stderr
    assert again.stdout == first.stdout, (first_args, fmt)


@pytest.mark.parametrize("fmt", ["toml", "json"])
def test_every_shipped_config(tmp_path: Path, fmt: str) -> None:
    for name in SHIPPED:
        assert_fixpoint(tmp_path, ["--config", name], fmt)


@pytest.mark.parametrize("fmt", ["toml", "json"])
def test_every_tag_as_a_target(tmp_path: Path, fmt: str) -> None:
    for tag in TAGS:
        assert_fixpoint(tmp_path, ["--target", tag], fmt)


target_texts = st.sampled_from(
    ["llvm", "cuda", "c", "llvm -mcpu=skylake", "opencl", "vulkan", "llvm -mtriple=aarch64-linux-gnu", *TAGS[:40]]
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(targets=st.lists(target_texts, min_size=1, max_size=3), host=st.none() | target_texts)
def test_generated_target_lists(tmp_path: Path, targets: list[str], host: str | None) -> None:
    args = ["--target", ", ".join(targets)]
    if host is not None:
        args += ["--target-host", host]
    assert_fixpoint(tmp_path, args, "toml")
