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
