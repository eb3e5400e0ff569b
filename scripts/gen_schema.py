#!/usr/bin/env python3
"""Write schemas/compilation-config.schema.json from the registry (the same text as `tvmc config schema`).

python scripts/gen_schema.py            # regenerate (atomically)
python scripts/gen_schema.py --check    # exit 1 if the checked-in file is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "cli"))  # runs from a checkout without installing

from tvmc.fileio import write_atomic  # noqa: E402
from tvmc.validate.schema import SCHEMA_PATH, schema_text  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only check that the file is up to date")
    parser.add_argument("-o", "--output", type=Path, default=ROOT / SCHEMA_PATH, help="where to write it")
    args = parser.parse_args(argv)
    text = schema_text()
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else None
        if current != text:
            print(f"{args.output} is stale: run python scripts/gen_schema.py", file=sys.stderr)
            return 1
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(args.output, text)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
