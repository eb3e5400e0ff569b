"""`tvmc.lsp.features` in process: what the server answers at any cursor of any text, and the
cursor scanner on the cases an editor produces while a config is typed."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tvmc.lsp.context import cursor_at, siblings_of
from tvmc.lsp.features import Workspace

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p for p in (ROOT / "configs").rglob("*") if p.suffix in (".toml", ".json"))


def at(marked: str, fmt: str = "toml", whole_word: bool = False) -> tuple[object, ...]:
    """The cursor where `|` is in `marked`: (container, at, key, element, prefix, siblings)."""
    offset = marked.index("|")
    text = marked.replace("|", "", 1)
    line = text.count("\n", 0, offset)
    character = offset - (text.rfind("\n", 0, offset) + 1)
    cursor = cursor_at(text, line, character, fmt, whole_word=whole_word)
    return cursor.container, cursor.at, cursor.key, cursor.element, cursor.prefix, siblings_of(text, cursor, fmt)


@pytest.mark.parametrize(
    ("marked", "fmt", "expected"),
    [
        (
            '[[targets]]\nkind = "llvm"\nm|\nmtriple = "aarch64-linux-gnu"\n[build]\n',
            "toml",
            (("targets", 0), "key", None, None, "m", {"kind": "llvm", "mtriple": "aarch64-linux-gnu"}),
        ),
        (
            '[[targets]]\nkind = "llvm"\n[[targets]]\nkind = "cuda"\narch = "sm|"\n',
            "toml",
            (("targets", 1), "value", "arch", None, "sm", {"kind": "cuda", "arch": "sm"}),
        ),
        ('extends = [\n  "a",\n  "aw|"\n]\n', "toml", ((), "value", "extends", 1, "aw", {})),
        (
            '[[targets]]\nkind="llvm"\nmattr = ["+avx2", "+a|"]\n',
            "toml",
            (("targets", 0), "value", "mattr", 1, "+a", {"kind": "llvm"}),
        ),
        ('[pass-config]\n"tir.dis|"\n', "toml", (("pass-config",), "key", None, None, "tir.dis", {})),
        ("executor.|", "toml", (("executor",), "key", None, None, "", {})),
        ('host = { kind = "llvm", mc| }', "toml", (("host",), "key", None, None, "mc", {"kind": "llvm"})),
        (
            '[[targets]]\nkind = "llvm"\n\n[targets.host]\nkind = "llvm"\nmc|',
            "toml",
            (("targets", 0, "host"), "key", None, None, "mc", {"kind": "llvm"}),
        ),
        (
            '{"targets": [{"kind": "llvm", "mcpu": "sk|", "mtriple": "x86_64-linux-gnu"}]}',
            "json",
            (
                ("targets", 0),
                "value",
                "mcpu",
                None,
                "sk",
                {"kind": "llvm", "mcpu": "sk", "mtriple": "x86_64-linux-gnu"},
            ),
        ),
        (
            '{"targets": [{"kind": "llvm", "|"}], "build": {}}',
            "json",
            (("targets", 0), "key", None, None, "", {"kind": "llvm"}),
        ),
        ('{"extends": ["a|"]}', "json", ((), "value", "extends", 0, "a", {})),
    ],
)
def test_cursor(marked: str, fmt: str, expected: tuple[object, ...]) -> None:
    assert at(marked, fmt) == expected


def test_whole_word_reads_the_key_under_the_cursor() -> None:
    assert at('[[targets]]\nkind = "llvm"\nmc|pu = "x"\n', whole_word=True)[:5] == (
        ("targets", 0),
        "key",
        None,
        None,
        "mcpu",
    )


@pytest.fixture(scope="module")
def workspace() -> Workspace:
    return Workspace()


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.relative_to(ROOT / "configs").as_posix())
def test_every_position_of_a_shipped_config_is_answered(workspace: Workspace, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    workspace.open(str(path), text)
    assert workspace.diagnose(str(path)) == []  # the shipped configs are valid
    for number, line in enumerate(text.split("\n")):
        for character in range(0, len(line) + 1, 3):
            workspace.complete(str(path), number, character)
            workspace.definition(str(path), number, character)
        workspace.hover(str(path), number, len(line) // 2)
    workspace.close(str(path))


_PIECES = st.sampled_from(
    [
        "[[targets]]\n",
        "[build]\n",
        "[executor]\n",
        'kind = "llvm"\n',
        "mcpu = ",
        '"',
        "'",
        "[",
        "]",
        "{",
        "}",
        ",",
        "=",
        ":",
        "\n",
        " ",
        "extends = [",
        '"aws/c5"',
        "mattr = [",
        '"+avx2"',
        "#",
        "\\",
        "targets",
        "é",
        "𝄞",
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(_PIECES, max_size=25), fmt=st.sampled_from(["toml", "json"]), data=st.data())
def test_any_text_at_any_cursor_gets_an_answer(
    workspace: Workspace, tmp_path: Path, pieces: list[str], fmt: str, data: st.DataObject
) -> None:
    """Whatever is being typed, every request returns (never raises): the editor must not lose its
    server to a half-written config."""
    text = "targets = []\n" + "".join(pieces)
    path = str(tmp_path / f"typing.{fmt}")
    workspace.open(path, text)
    lines = text.split("\n")
    line = data.draw(st.integers(0, len(lines) - 1))
    character = data.draw(st.integers(0, len(lines[line])))
    workspace.diagnose(path)
    workspace.complete(path, line, character)
    workspace.hover(path, line, character)
    workspace.definition(path, line, character)
    workspace.close(path)


def _labels(workspace: Workspace, path: Path, marked: str) -> list[str]:
    offset = marked.index("|")
    text = marked.replace("|", "", 1)
    line = text.count("\n", 0, offset)
    workspace.open(str(path), text)
    try:
        return [i.label for i in workspace.complete(str(path), line, offset - (text.rfind("\n", 0, offset) + 1))]
    finally:
        workspace.close(str(path))


def test_completion_of_each_kind_of_name(tmp_path: Path) -> None:
    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "pair.toml").write_text(
        '[[targets]]\nkind = "cuda"\n\n[[targets]]\nkind = "llvm"\nkeys = ["arm_cpu", "cpu"]\n', encoding="utf-8"
    )
    from tvmc import sources

    workspace = Workspace([sources.SearchDir(tmp_path, "test"), *sources.search_path()])
    config = tmp_path / "mine.toml"
    assert "team/pair" in _labels(workspace, config, 'extends = ["te|"]\n')
    assert "aws/c5" in _labels(workspace, config, 'extends = ["aws/|"]\n')
    assert set(_labels(workspace, config, 'extends = ["team/pair:|"]\n')) == {
        "team/pair:cuda",
        "team/pair:llvm",
        "team/pair:arm_cpu",
        "team/pair:cpu",
    }
    features = _labels(
        workspace, config, '[[targets]]\nkind = "llvm"\nmtriple = "aarch64-linux-gnu"\nmattr = ["+ne|"]\n'
    )
    assert "+neon" in features and all(f.startswith("+ne") for f in features)
    assert "-neon" in _labels(
        workspace, config, '[[targets]]\nkind = "llvm"\nmtriple = "aarch64-linux-gnu"\nmattr = ["-|"]\n'
    )
    assert "tir.disable_vectorize" in _labels(workspace, config, 'targets = ["llvm"]\n[pass-config]\n"tir.dis|"\n')
    assert {"interface-api", "unpacked-api"} <= set(_labels(workspace, config, '[executor]\nkind = "aot"\n|\n'))
    assert {"aot", "vm"} <= set(_labels(workspace, config, '[executor]\nkind = "|"\n'))
    assert "c" in _labels(workspace, config, '[executor]\nkind = "aot"\ninterface-api = "|"\n')
    assert {"output-format", "cross-compiler"} <= set(_labels(workspace, config, 'targets = ["llvm"]\n[build]\n|\n'))
    assert _labels(workspace, config, 'targets = ["llvm"]\n[build]\noutput-format = "|"\n') == ["so", "tar", "mlf"]
    assert {"targets", "extends", "tvm-version", "pass-config"} <= set(_labels(workspace, config, "|\n"))
    tags = _labels(workspace, config, 'targets = ["nvidia/|"]\n')
    assert "nvidia/nvidia-a100" in tags and all(t.startswith("nvidia/") for t in tags)


def test_hover_on_an_executor_option_and_a_pass_config(tmp_path: Path) -> None:
    workspace = Workspace()
    config = tmp_path / "aot.toml"
    text = (
        'targets = ["llvm"]\n\n[executor]\nkind = "aot"\nunpacked-api = true\n\n'
        '[pass-config]\n"tir.disable_vectorize" = true\n'
    )
    workspace.open(str(config), text)
    shown = workspace.hover(str(config), 4, 2)
    assert shown is not None and "**unpacked-api**: `bool` (executor aot)" in shown
    assert "Resolves to `true`" in shown and "aot.toml:5" in shown
    pass_config = workspace.hover(str(config), 7, 3)
    assert pass_config is not None and "**tir.disable_vectorize**: `bool`" in pass_config
