"""The repository is self-contained (issue 12): no code, script or test reads files outside it or
cites documents that are not in it (they cite the TVM source and version instead)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Spelled in pieces so that this file does not match itself.
OUTSIDE = re.compile(
    "|".join([r"\.\./" + "shared", "tvm-targets" + r"\.md", "config-tools" + r"\.md", r"\bspec " + "§"])
)
CITATION = re.compile(r"\btvmc\.md\b|§\d")


def test_nothing_cites_or_reads_documents_outside_the_repository() -> None:
    found = []
    for folder in ("cli", "scripts", "tests", ".ci"):
        for path in sorted((ROOT / folder).rglob("*")):
            if not path.is_file() or path.suffix not in (".py", ".sh", "") or path == Path(__file__):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for n, line in enumerate(text.splitlines(), 1):
                if OUTSIDE.search(line) or CITATION.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == []
