"""Reading the corpus's expectations (`# expect: [FILE:]LINE:COL SEVERITY RULE`, `# args: ...`)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent / "corpus"
Invoke = Callable[..., Any]  # the `tvmc` fixture: tvmc(*argv, input=None, env=None) → click Result
_EXPECT = re.compile(
    r"^(?:#\s*)?expect:\s*(?:(?P<file>[^\s:]+):)?(?P<line>\d+):(?P<col>\d+)\s+"
    r"(?P<severity>error|warning)\s+(?P<rule>[a-z-]+)\s*$"
)
_OK = re.compile(r"^(?:#\s*)?expect:\s*ok\s*$")
_ARGS = re.compile(r"^(?:#\s*)?args:\s*(?P<args>.*)$")

Expected = tuple[str, int, int, str, str]  # file, line, column, severity, rule


@dataclass(frozen=True)
class Case:
    path: str  # relative to the corpus, with '/' separators
    expected: frozenset[Expected]
    args: tuple[str, ...]

    @property
    def has_errors(self) -> bool:
        return any(e[3] == "error" for e in self.expected)


def corpus_files() -> list[str]:
    return sorted(
        p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*") if p.suffix in (".toml", ".json") and p.is_file()
    )


def load_case(rel: str) -> Case:
    path = CORPUS / rel
    source = path.with_name(path.name + ".expect") if path.suffix == ".json" else path
    lines = source.read_bytes().decode("utf-8", errors="replace").splitlines()
    expected: set[Expected] = set()
    args: tuple[str, ...] = ()
    ok = False
    for text in lines:
        text = text.strip()
        if m := _EXPECT.match(text):
            expected.add((m["file"] or rel, int(m["line"]), int(m["col"]), m["severity"], m["rule"]))
        elif _OK.match(text):
            ok = True
        elif m := _ARGS.match(text):
            args = tuple(shlex.split(m["args"]))
    if ok == bool(expected):
        raise ValueError(f"{rel}: give either '# expect: ok' or at least one '# expect:' line")
    return Case(rel, frozenset(expected), args)
