"""The shipped catalogue in configs/: every file resolves, validates, is documented, pins its CPU
triple, cites real TVM tags, matches its golden `config show`, and the README lists it.

Regenerate the goldens with `TVMC_UPDATE_GOLDEN=1 pytest tests/catalogue`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
import typer
from testkit import load_script
from tvmc import api, registry, sources
from tvmc.validate import runner as validate_runner
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "configs"
GOLDEN = ROOT / "tests" / "golden" / "catalogue"
NAMES = [e.name for e in sources.list_configs([sources.SearchDir(CONFIGS, "shipped")])]
SCHEMA_LINE = "#:schema ../../schemas/compilation-config.schema.json"
# The names issue 6 asks for; the catalogue may hold more.
REQUIRED = (
    "host/default",
    "aws/c5",
    "aws/c5.large",
    "aws/c6g",
    "aws/c7g",
    "arm/rasp4b",
    "arm/rasp4b64",
    "raspberry-pi/4b-aarch64",
    "nvidia/jetson-nano",
    "nvidia/jetson-agx-orin-64gb",
    "nvidia/nvidia-a100",
    "nvidia/nvidia-h100",
    "nvidia/nvidia-t4",
    "qcom/adreno-opencl",
    "qcom/hexagon-v68",
    "apple/m1-gpu",
    "apple/m2-gpu",
    "riscv/sifive-u74",
    "boards/corstone-300",
    "boards/stm32f746-disco",
    "base/aarch64-linux",
    "base/microcontroller-aot",
)
# Read at import: the autouse fixture in tests/conftest.py clears every TVMC_* variable per test.
UPDATE_GOLDEN = bool(os.environ.get("TVMC_UPDATE_GOLDEN"))
runner = CliRunner()


def text_of(name: str) -> str:
    return (CONFIGS / f"{name}.toml").read_text(encoding="utf-8")


def test_catalogue_has_the_required_configs_and_at_least_twenty() -> None:
    assert len(NAMES) >= 20
    assert sorted(set(REQUIRED) - set(NAMES)) == []


@pytest.mark.parametrize("name", NAMES)
def test_file_is_documented(name: str) -> None:
    text = text_of(name)
    assert text.splitlines()[0] == SCHEMA_LINE
    assert text.splitlines()[1].startswith("# "), "a comment explains the config"
    description = sources.load_file(CONFIGS / f"{name}.toml").data.get("description")
    assert isinstance(description, str) and len(description) > 20


@pytest.mark.parametrize("name", NAMES)
def test_every_tag_or_config_the_file_names_exists(name: str) -> None:
    """Catches typos in the TVM tags a file cites (in comments too) and in config names."""
    vendors = "|".join(sorted({t.split("/")[0] for t in registry.tag_names()} | {"base", "boards"}))
    for word in re.findall(rf"(?<![\w./-])(?:{vendors})/[\w./,*:-]+", text_of(name)):
        word = word.rstrip(".,:;)").split(":")[0]
        if word.endswith(".*"):  # a family, e.g. aws/cpu/c5.*
            assert any(t.startswith(word[:-1]) for t in registry.tag_names()), word
        else:
            assert registry.is_tag(word) or word in NAMES, f"{name}: {word!r} is no TVM tag and no config"


def _llvm_nodes(config: dict[str, Any]) -> list[dict[str, Any]]:
    nodes = [*config["targets"], config["host"]]
    nodes += [t["host"] for t in config["targets"] if "host" in t]
    return [n for n in nodes if n["kind"] == "llvm"]


@pytest.mark.parametrize("name", NAMES)
def test_resolves_and_pins_the_cpu_triple(name: str) -> None:
    config = api.resolve([name]).to_dict()
    assert config["targets"]
    if name == "host/default":  # the one config about *this* machine: LLVM picks the triple
        assert "mtriple" not in config["targets"][0]
        return
    for node in _llvm_nodes(config):
        assert "mtriple" in node, f"{name}: an llvm target without mtriple means the build machine's CPU"


@pytest.mark.parametrize("name", NAMES)
def test_validates_strictly(name: str) -> None:
    result = validate_runner.Validator(validate_runner.Settings(strict=True)).file(str(CONFIGS / f"{name}.toml"))
    assert [(d.rule, d.full_message) for d in result.diagnostics] == []


@pytest.mark.parametrize("name", NAMES)
def test_config_show_matches_golden(app: typer.Typer, name: str) -> None:
    result = runner.invoke(app, ["config", "show", "--config", name])
    assert result.exit_code == 0, result.output
    golden = GOLDEN / f"{name}.toml"
    if UPDATE_GOLDEN:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(result.stdout, encoding="utf-8")
    assert result.stdout == golden.read_text(encoding="utf-8")


def test_no_stale_goldens() -> None:
    goldens = sorted(p.relative_to(GOLDEN).with_suffix("").as_posix() for p in GOLDEN.rglob("*.toml"))
    assert goldens == sorted(NAMES)


def test_readme_catalogue_is_current() -> None:
    module = load_script("gen_readme_configs")
    assert module.main(["--check"]) == 0, "run scripts/gen_readme_configs.py"
    section = (ROOT / "README.md").read_text(encoding="utf-8").split(module.BEGIN)[1].split(module.END)[0]
    assert all(f"| `{name}` |" in section for name in [*NAMES, "host/native"])


def test_readme_check_fails_when_stale(tmp_path: Path) -> None:
    module = load_script("gen_readme_configs")
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{module.BEGIN}\nold\n{module.END}\noutro\n", encoding="utf-8")
    assert module.main(["--check", "--readme", str(readme)]) == 1
    assert module.main(["--readme", str(readme)]) == 0
    assert module.main(["--check", "--readme", str(readme)]) == 0
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("intro\n") and text.endswith("\noutro\n") and "| `aws/c5` |" in text


def test_base_configs_are_shared_through_extends() -> None:
    extended: dict[str, int] = {}
    for name in NAMES:
        for ref in sources.load_file(CONFIGS / f"{name}.toml").data.get("extends", []):
            path = (CONFIGS / name).parent.joinpath(ref).resolve()
            base = path.relative_to(CONFIGS).with_suffix("").as_posix()
            extended[base] = extended.get(base, 0) + 1
    assert {n for n in NAMES if n.startswith("base/")} <= set(extended)
    assert all(count >= 2 for count in extended.values())


def test_layering_is_visible_in_origins() -> None:
    nano = api.resolve(["nvidia/jetson-nano"])
    assert nano.config.build == {"cross-compiler": "aarch64-linux-gnu-gcc"}
    assert "base/aarch64-linux.toml" in str(nano.origin("/build/cross-compiler"))
    corstone = api.resolve(["boards/corstone-300"]).config
    # pass-config deep-merges: the base's entry and the board's own entries.
    assert corstone.pass_config["tir.disable_vectorize"] is True
    assert corstone.pass_config["tir.usmp.enable"] is True
    assert corstone.executor is not None and corstone.executor["unpacked-api"] is True
    assert [t["kind"] for t in corstone.targets] == ["ethos-u", "cmsis-nn", "c"]
    assert corstone.tvm_version == "<=0.18"  # the board overrides the base's <=0.19


def test_jetson_nano_parts() -> None:
    whole = api.resolve(["nvidia/jetson-nano"]).config
    assert whole.host["mcpu"] == "cortex-a57" and whole.targets[0]["arch"] == "sm_53"
    cuda = api.resolve(["nvidia/jetson-nano:cuda"]).config
    assert [t["kind"] for t in cuda.targets] == ["cuda"] and cuda.host["mcpu"] == "cortex-a57"
    cpu = api.resolve(["nvidia/jetson-nano:cpu"]).config
    assert [(t["kind"], t["mcpu"]) for t in cpu.targets] == [("llvm", "cortex-a57")]


def test_a_config_file_adds_what_its_tag_lacks() -> None:
    # The tag nvidia/jetson-nano has no host; the config of the same name adds the board's CPU.
    tag = api.resolve([], [("--target", "nvidia/jetson-nano")]).config
    assert "host" not in tag.to_dict()["targets"][0] and tag.host["kind"] == "llvm" and "mcpu" not in tag.host
    board = api.resolve(["nvidia/jetson-nano"]).config
    assert board.host["mcpu"] == "cortex-a57" and "host" not in board.targets[0]  # the host is a field


def test_every_tag_is_a_config_name() -> None:
    resolved = api.resolve(["nvidia/geforce-rtx-4090"])
    assert resolved.config.targets[0]["arch"] == "sm_89"
    assert resolved.config.description == "TVM target tag nvidia/geforce-rtx-4090"
    assert api.resolve(["aws/cpu/c5.large:cpu"]).config.targets[0]["num-cores"] == 1


def test_config_list_shows_tags_apart_from_files(app: typer.Typer) -> None:
    plain = runner.invoke(app, ["config", "list"])
    assert plain.exit_code == 0
    assert "aws/c5.large" in plain.stdout and "nvidia/geforce-rtx-4090" not in plain.stdout
    with_tags = runner.invoke(app, ["config", "list", "--tags"])
    files, _, tags = with_tags.stdout.partition("TVM tags (usable as config names):")
    assert tags, with_tags.stdout
    assert "boards/corstone-300" in files and "nvidia/geforce-rtx-4090" not in files
    tag_lines = [line.strip() for line in tags.strip().splitlines()]
    assert tag_lines == registry.tag_names()
    doc = json.loads(runner.invoke(app, ["config", "list", "--tags", "--format", "json"]).stdout)
    assert doc["tags"] == registry.tag_names()
    assert {c["name"] for c in doc["configs"]} >= set(NAMES)
