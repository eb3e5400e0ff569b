"""The PassContext config TVM takes from a config's: `tirx.add_lower_pass` made into TVM objects.

A config writes the lower passes as old tvmc's command line did, (level, pass name) pairs such as
`[[1, "tvm.tirx.transform.UnrollLoop"]]`; TVM registers the option as an array of arrays of objects,
so a plain int or a name there fails the PassContext ("Expect config tirx.add_lower_pass to have type
ffi.Array"). Each name is resolved as old tvmc's `load_function` did it (a registered global function,
else `module.function` imported), then called for its Pass; the level becomes an IntImm.

One function for the build, the tuning child and the scripts `--emit python|relay` write: those copy
it by its source (`inspect.getsource`), so it imports nothing at module level and takes `tvm` as an
argument (TVM >= 0.25 and TVM <= 0.19 alike).
"""

from __future__ import annotations

from typing import Any

LOWER_PASS_CONFIGS = ("tirx.add_lower_pass", "tir.add_lower_pass")


def pass_context_config(tvm: Any, pass_config: dict[str, Any]) -> dict[str, Any]:
    """`pass_config` as `tvm.transform.PassContext(config=...)` takes it: the lower passes' (level,
    pass name) pairs as [IntImm level, Pass]; a name no module of this TVM holds is a LookupError
    naming the config and the pass. A name under TVM's `tir` package that TVM 0.24 moved (to `tirx`
    or `s_tir`, as it did the pass configs themselves) is found under its new package."""
    import importlib

    def candidates(path: str) -> list[str]:
        parts = path.split(".")
        found = [path]
        for i, part in enumerate(parts[:-1]):
            if part == "tir":  # tvm.tir.transform.X (TVM <= 0.23) is tvm.tirx.transform.X or tvm.s_tir.transform.X
                found += [".".join([*parts[:i], moved, *parts[i + 1 :]]) for moved in ("tirx", "s_tir")]
            elif part in ("tirx", "s_tir"):  # and back, for the old releases --emit relay writes for
                found.append(".".join([*parts[:i], "tir", *parts[i + 1 :]]))
        return found

    def load(path: str) -> Any:
        for name in candidates(path):
            function = tvm.get_global_func(name, allow_missing=True)
            if function is not None:
                return function
            module_name, _, function_name = name.rpartition(".")
            if not module_name:
                continue
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                continue
            if callable(getattr(module, function_name, None)):
                return getattr(module, function_name)
        return None

    def make_level(level: int) -> Any:
        tir = getattr(tvm, "tirx", None) or tvm.tir
        return tir.IntImm("int32", level)

    config = dict(pass_config)
    for key in LOWER_PASS_CONFIGS:
        if key not in config:
            continue
        pairs = []
        for level, path in config[key]:
            function = load(path)
            if function is None:
                raise LookupError(
                    f"pass-config {key}: this TVM has no pass {path!r} (a global function or module.function)"
                )
            try:
                made = function()
            except Exception as err:  # a function that is not a pass maker (it wants arguments, ...)
                why = (str(err).strip().splitlines() or [""])[-1]
                raise LookupError(f"pass-config {key}: {path}() failed: {type(err).__name__}: {why}") from None
            if not isinstance(made, tvm.transform.Pass):
                raise LookupError(f"pass-config {key}: {path}() made a {type(made).__name__}, not a TVM Pass")
            pairs.append([make_level(level), made])
        config[key] = pairs
    return config
