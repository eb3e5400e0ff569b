"""`--emit plan`: the modern build as JSON — canonical config, TVM target JSON, steps with arguments.

`target` is exactly the dict handed to `tvm.target.Target` (tvmc-only keys such as `compiler`
removed, host nested); `steps` are the calls `tvmc compile` makes, in order. Dynamic input
dimensions are `null`.
"""

from __future__ import annotations

import json
from typing import Any

from tvmc import __version__
from tvmc.backend.plan import BuildPlan


def document(plan: BuildPlan, config: dict[str, Any], output: str | None = None) -> dict[str, Any]:
    library = output or plan.model.default_output(plan.output_format)
    return {
        "tvmc": __version__,
        "tvm": ">=0.25",
        "model": {
            "path": plan.model.path,
            "format": plan.model.format,
            "input-shapes": None if plan.model.shapes is None else {k: list(v) for k, v in plan.model.shapes.items()},
        },
        "config": config,
        "target": plan.target,
        "output": library,
        "steps": plan.steps(library),
        "notes": list(plan.notes),
    }


def render(plan: BuildPlan, config: dict[str, Any], output: str | None = None) -> tuple[str, list[str]]:
    text = json.dumps(document(plan, config, output), indent=2, ensure_ascii=False) + "\n"
    return text, list(plan.notes)
