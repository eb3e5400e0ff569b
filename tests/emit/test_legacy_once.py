"""The legacy emitters take the one canonical value, computed once (issue 26).

`--emit tvmc` / `--emit relay` plan from the resolved `CompilationConfig`: no target is parsed
again, no config canonicalized again, and each target the release is given is narrowed to the
release and written as a legacy string once (the release rules check those strings, the plan
carries them). Before, the planner narrowed every target twice (once for the rules, once for the
plan), each narrowing canonicalizing the target once per attribute.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest
from tvmc import api
from tvmc import config as cfg
from tvmc.backend.model import model_spec
from tvmc.emit import relay, tvmc_argv
from tvmc.emit.legacy import plan_legacy
from tvmc.targets import canonical, parse, system
from tvmc.validate import legacy as gens

WATCHED = {
    parse.parse_target.__code__: "parse_target",
    cfg.canonicalize_config.__code__: "canonicalize_config",
    system.resolve_system.__code__: "resolve_system",
    gens.narrow.__code__: "narrow",
    canonical.canonicalize.__code__: "canonicalize",
}


def _counted(work: Callable[[], Any]) -> Counter[str]:
    calls: Counter[str] = Counter()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in WATCHED:
            calls[WATCHED[frame.f_code]] += 1

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return calls


@pytest.mark.parametrize("render", [tvmc_argv.render, relay.render], ids=["tvmc", "relay"])
@pytest.mark.parametrize(
    ("config", "written"),
    [("boards/nucleo-l4r5zi", 1), ("base/microcontroller-aot", 1), ("boards/corstone-300", 1)],
)
def test_a_legacy_emitter_narrows_each_target_once(config: str, written: int, render: Callable[..., Any]) -> None:
    resolved = api.resolve([config], env={}, isolated=True)
    model = model_spec("model.onnx", None, None)
    calls = _counted(lambda: render(plan_legacy(resolved.config, resolved.origins, model)))
    assert calls["parse_target"] == calls["canonicalize_config"] == calls["resolve_system"] == 0, calls
    assert calls["narrow"] == written, calls  # each target the release is given: narrowed once
    main = resolved.config.targets[-1]
    assert calls["canonicalize"] <= written * len(main), calls  # one trial per attribute, the target itself not again


def test_a_written_host_is_narrowed_once_too(tmp_path: Any) -> None:
    path = tmp_path / "gpu.toml"
    path.write_text('tvm-version = "<=0.19"\ntargets = ["cuda"]\nhost = "llvm -mtriple=aarch64-linux-gnu"\n')
    resolved = api.resolve([str(path)], env={}, isolated=True)
    model = model_spec("model.onnx", None, None)
    calls = _counted(lambda: tvmc_argv.render(plan_legacy(resolved.config, resolved.origins, model)))
    assert calls["narrow"] == 2, calls  # the target and its host, once each
    assert calls["parse_target"] == calls["canonicalize_config"] == 0, calls
