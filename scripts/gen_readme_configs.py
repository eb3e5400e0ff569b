#!/usr/bin/env python3
"""Write the catalogue of `configs/` into README.md, between `<!-- configs:begin -->` and
`<!-- configs:end -->`, and the rule table (from the one rule registry) between `<!-- rules:begin -->`
and `<!-- rules:end -->` when the README has that section. With --check, change nothing and exit 1
if the README is stale.

One table row per config: its name (what --config takes), its description, the TVM tags it
builds on (as a target or host) and the configs it extends. One row per rule: its id, the
severity it reports at and its one-line doc (what `tvmc config validate --help` lists).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tvmc import registry, sources
from tvmc.sources import native

ROOT = Path(__file__).resolve().parents[1]

BEGIN, END = "<!-- configs:begin -->", "<!-- configs:end -->"
RULES_BEGIN, RULES_END = "<!-- rules:begin -->", "<!-- rules:end -->"


def _tags(data: dict[str, Any]) -> list[str]:
    """TVM tags the config names: tag strings and `tag =` tables, as targets or host."""
    entries = [*data.get("targets", []), *([data["host"]] if "host" in data else [])]
    found = []
    for entry in entries:
        name = entry if isinstance(entry, str) else entry.get("tag") if isinstance(entry, dict) else None
        if isinstance(name, str) and registry.is_tag(name):
            found.append(name)
    return list(dict.fromkeys(found))


def _extends(layer: sources.Layer, root: Path) -> list[str]:
    extends = layer.data.get("extends", [])
    names = []
    for ref in [extends] if isinstance(extends, str) else extends:
        if sources.is_path_ref(ref) and layer.path is not None:
            path = (layer.path.parent / ref).resolve()
            names.append(path.relative_to(root.resolve()).with_suffix("").as_posix())
        else:
            names.append(ref)
    return names


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render(root: Path) -> str:
    entries = sources.list_configs([sources.SearchDir(root, "shipped")])
    rows = ["| config | what it is | TVM tag | extends |", "|---|---|---|---|"]
    by_name: dict[str, str] = {}
    for entry in entries:
        layer = sources.load_file(entry.path)
        tags = ", ".join(f"`{t}`" for t in _tags(layer.data))
        extends = ", ".join(f"`{e}`" for e in _extends(layer, root))
        by_name[entry.name] = f"| `{entry.name}` | {_cell(entry.description or '')} | {tags} | {extends} |"
    # host/native has no file: it is detected on the machine that first uses it (sources.native).
    by_name.setdefault(native.NATIVE, f"| `{native.NATIVE}` | {_cell(native.DESCRIPTION)} |  |  |")
    rows.extend(by_name[name] for name in sorted(by_name))
    intro = (
        f"{len(entries)} config files, and `{native.NATIVE}`. Each file cites the TVM tag it builds on and "
        "pins `mtriple` for CPU targets, so it means the same on any build machine; `base/` holds what "
        "several configs share through `extends`. Every one of TVM's "
        f"{len(registry.tag_names())} tags is a config name too (`tvmc config list --tags`)."
    )
    return "\n".join([BEGIN, intro, "", *rows, END])


def render_rules() -> str:
    from tvmc.validate.diagnostics import REGISTRY

    rows = ["| rule | severity | what it means |", "|---|---|---|"]
    rows.extend(f"| `{rule.id}` | {rule.severity} | {_cell(rule.doc)} |" for rule in REGISTRY.values())
    return "\n".join([RULES_BEGIN, *rows, RULES_END])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if README.md is not current")
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md")
    parser.add_argument("--configs", type=Path, default=ROOT / "configs")
    args = parser.parse_args(argv)
    text = args.readme.read_text(encoding="utf-8")
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        print(f"{args.readme}: expected one {BEGIN} ... {END} section", file=sys.stderr)
        return 2
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    updated = head + render(args.configs) + tail
    if RULES_BEGIN in updated and RULES_END in updated:
        head, rest = updated.split(RULES_BEGIN, 1)
        _, tail = rest.split(RULES_END, 1)
        updated = head + render_rules() + tail
    if args.check:
        if updated != text:
            print(f"{args.readme}: a generated section is stale; run scripts/gen_readme_configs.py", file=sys.stderr)
            return 1
        return 0
    if updated != text:
        args.readme.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
