"""Issue 15, items 1, 2, 3, 5, 6, 10: `extends` linearized (each file once), `NAME:PART` the same
wherever a config is named, a `host` replaces whole, a replaced CPU target stays the host.

Every case is checked through resolution (`api.resolve`, as show/compile use it) and through
`config validate`, which must agree with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from tvmc import api
from tvmc.errors import ConfigLayerError, TvmcError
from tvmc.layering import DEFAULT_BASE, Node, base_refs
from tvmc.layering.expand import _c3
from typer.testing import CliRunner

TWO = 'targets = [{ kind = "cuda", arch = "sm_80" }, { kind = "llvm", mcpu = "znver3" }]\n'


def validate(app: typer.Typer, *paths: Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["config", "validate", *map(str, paths)])
    return result.exit_code, result.output


def test_selector_in_extends_selects(cfgdir: Path, app: typer.Typer) -> None:
    (cfgdir / "cpu.toml").write_text('extends = ["nvidia/jetson-nano:cpu"]\n')
    config = api.resolve(["cpu"]).config
    assert [t["kind"] for t in config.targets] == ["llvm"] and config.targets[0]["mcpu"] == "cortex-a57"
    assert validate(app, cfgdir / "cpu.toml")[0] == 0
    (cfgdir / "two.toml").write_text(TWO)
    (cfgdir / "gpu.toml").write_text('extends = ["two.toml:cuda"]\n')
    config = api.resolve(["gpu"]).config
    assert [t["kind"] for t in config.targets] == ["cuda"]
    assert config.host is not None and config.host["mcpu"] == "znver3"  # item 5: the dropped CPU stays the host


def test_bogus_part_and_two_colons_are_errors(cfgdir: Path, app: typer.Typer) -> None:
    (cfgdir / "bad.toml").write_text('extends = ["nvidia/jetson-nano:bogus"]\n')
    with pytest.raises(ConfigLayerError, match="no target matches 'bogus'") as err:
        api.resolve(["bad"])
    assert err.value.location is not None and err.value.location.line == 1
    code, output = validate(app, cfgdir / "bad.toml")
    assert code == 1 and "no target matches 'bogus'" in output and "bad.toml:1:" in output
    with pytest.raises(ConfigLayerError, match="more than one ':'"):
        api.resolve(["nvidia/jetson-nano:bogus:cpu"])
    (cfgdir / "colons.toml").write_text('extends = ["nvidia/jetson-nano:bogus:cpu"]\n')
    code, output = validate(app, cfgdir / "colons.toml")
    assert code == 1 and "more than one ':'" in output


def diamond(cfgdir: Path) -> None:
    (cfgdir / "common.toml").write_text('targets = ["llvm"]\n[runtime]\nkind = "cpp"\nsystem-lib = false\n')
    (cfgdir / "syslib.toml").write_text('extends = ["common"]\n[runtime]\nsystem-lib = true\n')
    (cfgdir / "debug.toml").write_text('extends = ["common"]\nopt-level = 0\n')
    (cfgdir / "mine.toml").write_text('extends = ["syslib", "debug"]\n')


def test_shared_base_is_applied_once(cfgdir: Path) -> None:
    diamond(cfgdir)
    resolved = api.resolve(["mine"])
    assert resolved.config.runtime == {"kind": "cpp", "system-lib": True}
    assert resolved.config.opt_level == 0
    assert resolved.origin("/runtime/system-lib").source.endswith("syslib.toml")
    # The same for several --config sharing a base, and for a config named twice (last place wins).
    assert api.resolve(["syslib", "debug"]).config.runtime == {"kind": "cpp", "system-lib": True}
    (cfgdir / "o1.toml").write_text("opt-level = 1\n")
    assert api.resolve(["o1", "debug", "o1"]).config.opt_level == 1


def test_inconsistent_order_is_an_error(cfgdir: Path, app: typer.Typer) -> None:
    (cfgdir / "b.toml").write_text("opt-level = 1\n")
    (cfgdir / "c.toml").write_text("opt-level = 2\n")
    (cfgdir / "bc.toml").write_text('extends = ["b", "c"]\n')
    (cfgdir / "cb.toml").write_text('extends = ["c", "b"]\n')
    (cfgdir / "x.toml").write_text('extends = ["bc", "cb"]\ntargets = ["llvm"]\n')
    with pytest.raises(ConfigLayerError, match="order their common bases differently"):
        api.resolve(["x"])
    code, output = validate(app, cfgdir / "x.toml")
    assert code == 1 and "extends-order" in output


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.integers(0, 5), max_size=3, unique=True), min_size=6, max_size=6))
def test_linearization_applies_each_file_once_after_its_bases(
    tmp_path_factory: pytest.TempPathFactory, parents: list[list[int]]
) -> None:
    """Generated DAGs (file i extends only files > i): every file that resolves lists each file it
    reaches once, after every base it extends; `validate` agrees on which ones resolve."""
    from tvmc import layering, sources

    root = tmp_path_factory.mktemp("dag")
    for i, ps in enumerate(parents):
        ps = [p for p in ps if p > i]
        (root / f"f{i}.toml").write_text("extends = [" + ", ".join(f'"f{p}.toml"' for p in ps) + "]\n")
    edges = {i: [p for p in ps if p > i] for i, ps in enumerate(parents)}
    problems: list[Any] = []
    nodes = layering.Expander(layering.find([]), problems.append).file(sources.load_file(root / "f0.toml"))
    names = [Path(n.key).stem for n in nodes]
    assert len(names) == len(set(names)) and names[-1] == "f0"
    if not problems:
        for i in range(len(parents)):
            if f"f{i}" in names:
                assert all(names.index(f"f{p}") < names.index(f"f{i}") for p in edges[i])


def textbook_c3(lins: list[list[Node]]) -> list[Node] | None:
    """C3 as Python's MRO states it (lowest first in and out, the last list highest): the head of
    the first sequence found in no sequence's tail, again and again; None when none is."""
    seqs = [lin[::-1] for lin in reversed(lins)] + [[lin[-1] for lin in reversed(lins)]]
    out: list[Node] = []
    while seqs := [seq for seq in seqs if seq]:
        head = next((seq[0] for seq in seqs if not any(seq[0].key in [n.key for n in s[1:]] for s in seqs)), None)
        if head is None:
            return None
        out.append(head)
        seqs = [seq[1:] if seq[0].key == head.key else seq for seq in seqs]
    return out[::-1]


@st.composite
def linearizations(draw: st.DrawFn) -> list[list[Node]]:
    """The linearizations of two or more files of a generated DAG (as the expander hands them to
    C3), at times one of them shuffled or with a key twice; each node names its sequence, so that
    which sequence a node was taken from shows."""
    files = draw(st.integers(2, 16))
    lins: dict[int, list[Node]] = {}
    for i in reversed(range(files)):
        parents = draw(st.lists(st.integers(i + 1, files - 1), max_size=3, unique=True)) if i + 1 < files else []
        below = textbook_c3([lins[p] for p in parents if p in lins]) if parents else []
        if below is not None:
            lins[i] = [*below, Node(f"f{i}", None, ())]
    chosen = draw(st.lists(st.sampled_from(sorted(lins, reverse=True)), min_size=2, max_size=5, unique=True))
    if draw(st.booleans()):
        chosen.sort(reverse=True)  # bases first: an order C3 can keep
    seqs = [[n.key for n in lins[i]] for i in chosen]
    if draw(st.integers(0, 4)) == 0:
        seqs[0] = draw(st.permutations(seqs[0]))
    if draw(st.integers(0, 4)) == 0:
        seqs[-1] = [*seqs[-1], draw(st.sampled_from(seqs[-1]))]
    return [[Node(key, None, (f"seq {j}",)) for key in seq] for j, seq in enumerate(seqs)]


@settings(max_examples=400, deadline=None)
@given(linearizations())
def test_c3_takes_what_the_textbook_rule_takes(lins: list[list[Node]]) -> None:
    """The fast C3 (runs of unshared keys taken as slices) picks the same node at every step as the
    rule it implements, and fails on the same inputs."""
    assert _c3([list(lin) for lin in lins]) == textbook_c3(lins)


def test_c3_of_a_chain_with_leaves_keeps_the_order() -> None:
    """The bench_startup shape: every link extends leaves and the next link; its own leaves go
    lowest, the next link's linearization above them in its own order, the link itself on top."""
    below = [Node(f"c1-{i}", None, ()) for i in range(50)] + [Node("c1", None, ())]
    leaves = [[Node(f"leaf{j}", None, ())] for j in range(3)]
    assert [n.key for n in _c3([*leaves, below]) or []] == ["leaf0", "leaf1", "leaf2", *(n.key for n in below)]
    shared = [[below[0]], below]  # a leaf the next link extends too: applied once, where it was below
    assert [n.key for n in _c3(shared) or []] == [n.key for n in below]


def test_file_host_replaces_whole(cfgdir: Path) -> None:
    (cfgdir / "board.toml").write_text(
        'targets = ["cuda"]\nhost = { kind = "llvm", mtriple = "aarch64-linux-gnu", mcpu = "cortex-a57", '
        'mattr = ["+neon"] }\n'
    )
    (cfgdir / "x86.toml").write_text('extends = ["board"]\nhost = { kind = "llvm", mtriple = "x86_64-linux-gnu" }\n')
    host = api.resolve(["x86"]).config.host
    assert host is not None and host["mtriple"] == "x86_64-linux-gnu"
    assert "mcpu" not in host and "mattr" not in host
    (cfgdir / "c5.toml").write_text('extends = ["board"]\nhost = { tag = "aws/cpu/c5.large" }\n')
    host = api.resolve(["c5"]).config.host
    assert host is not None and host["mcpu"] == "skylake-avx512" and host.get("mtriple") != "aarch64-linux-gnu"


def test_part_keeps_its_host(cfgdir: Path) -> None:
    (cfgdir / "two.toml").write_text(TWO)
    config = api.resolve([str(cfgdir / "two.toml") + ":cuda"]).config
    assert config.host is not None and config.host["mcpu"] == "znver3"
    for board, mcpu in [("nvidia/jetson-agx-orin-64gb", "cortex-a78"), ("nvidia/jetson-agx-xavier", "carmel")]:
        cpu = api.resolve([f"{board}:cpu"]).config
        assert [t["kind"] for t in cpu.targets] == ["llvm"] and cpu.targets[0]["mcpu"] == mcpu
        gpu = api.resolve([f"{board}:cuda"]).config
        assert [t["kind"] for t in gpu.targets] == ["cuda"] and gpu.host is not None and gpu.host["mcpu"] == mcpu


def test_tvmc_config_splits_on_commas_and_names_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    assert base_refs({"TVMC_CONFIG": "nvidia/jetson-nano:cuda, aws/c5 x"}) == (
        ["nvidia/jetson-nano:cuda", "aws/c5", "x"],
        "env TVMC_CONFIG",
    )
    assert base_refs({}) == ([DEFAULT_BASE], "default base config")
    monkeypatch.setenv("TVMC_CONFIG", "nvidia/jetson-nano:cuda")
    config = api.resolve().config
    assert [t["kind"] for t in config.targets] == ["cuda"]
    monkeypatch.setenv("TVMC_CONFIG", "no/such-config")
    with pytest.raises(TvmcError) as err:
        api.resolve()
    assert "env TVMC_CONFIG" in err.value.one_line()


def test_device_config_over_a_cpu_config_keeps_the_cpu_as_host(cfgdir: Path) -> None:
    resolved = api.resolve(["aws/c5", "nvidia/geforce-rtx-4090"])
    host = resolved.config.host
    assert host is not None and host["mcpu"] == "skylake-avx512"
    assert resolved.origin("/host/mcpu").source.endswith("c5.toml")
    # Not when the device brings its own host, nor when a host was written.
    orin = api.resolve(["aws/c5", "nvidia/jetson-agx-orin-64gb"]).config.host
    assert orin is not None and orin["mcpu"] == "cortex-a78"
    a100 = api.resolve(["aws/c5", "nvidia/nvidia-a100"]).config.host
    assert a100 is not None and "mcpu" not in a100
    # A CPU over a CPU is a plain replacement.
    arm = api.resolve(["aws/c5", "aws/c6g"]).config
    assert arm.host is not None and arm.host["mcpu"] == arm.targets[0]["mcpu"] == "neoverse-n1"


def test_caret_name_refines_the_next_config_of_that_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "user"
    (user / "aws").mkdir(parents=True)
    (user / "aws" / "c5.toml").write_text('extends = ["^aws/c5"]\nopt-level = 2\n')
    monkeypatch.setenv("TVMC_CONFIG_PATH", str(user))
    config = api.resolve(["aws/c5"]).config
    assert config.opt_level == 2 and config.targets[0]["mcpu"] == "skylake-avx512"  # the shipped aws/c5 below
    with pytest.raises(ConfigLayerError, match="only valid in extends"):
        api.resolve(["^aws/c5"])
    elsewhere = tmp_path / "x.toml"
    elsewhere.write_text('extends = ["^aws/c5"]\n')
    with pytest.raises(ConfigLayerError, match="not on the search path"):
        api.resolve([str(elsewhere)])


def test_a_host_inside_a_tag_comes_from_the_tag() -> None:
    resolved = api.resolve(["nvidia/jetson-agx-orin-64gb"])
    origin = resolved.origin("/host/mcpu")
    assert origin.kind == "file" and origin.source.endswith("jetson-agx-orin-64gb.toml")


def test_a_chain_too_deep_is_reported_at_the_first_files_entry(tmp_path: Path, app: typer.Typer) -> None:
    for i in range(130):
        text = f'extends = ["c{i + 1}.toml"]\n' if i < 129 else 'targets = ["llvm"]\n'
        (tmp_path / f"c{i}.toml").write_text(text)
    with pytest.raises(ConfigLayerError, match="extends chain deeper than 128") as err:
        api.resolve([str(tmp_path / "c0.toml")], env={})
    assert err.value.location is not None and err.value.location.source.endswith("c0.toml")
    code, output = validate(app, tmp_path / "c0.toml")
    assert code == 1 and output.startswith(f"{tmp_path / 'c0.toml'}:1:") and "deeper than 128" in output
