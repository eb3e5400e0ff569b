"""Emitted code is injection-safe: hostile strings stay data (hypothesis).

Hostile values go where users put free text: mcpu and other target strings, module names,
pass-config values, compiler names and options, model paths, input names. The Python scripts
must parse, give back every value with `ast.literal_eval`, and have the same syntax tree as for
harmless strings; the shell line must `shlex.split` back to the same argv.
"""

from __future__ import annotations

import ast
import functools
import os
import shlex
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tvmc.backend.model import model_spec
from tvmc.backend.plan import plan_build
from tvmc.config import CompilationConfig
from tvmc.emit import python, relay, tvmc_argv
from tvmc.emit.legacy import LegacyPlan, plan_legacy
from tvmc.errors import BuildError

NASTY = [
    "'",
    '"',
    "'''",
    '"""',
    "\\",
    "\\'",
    "$(touch /tmp/pwned)",
    "`id`",
    "${HOME}",
    "\n",
    "\r\n",
    "\t",
    "; rm -rf ~",
    "| cat",
    "&&",
    "# not a comment",
    "\u2028",
    "\x85",
    "é",
    "😀",
    "--flag",
    "-",
    "*",
    "?",
    "{}",
    "%s",
    '"""); import os; os.system(\'id\'); ("""',
    "\x00",
    " ",
]
hostile = (
    st.lists(st.one_of(st.sampled_from(NASTY), st.text(max_size=5)), min_size=1, max_size=6).map("".join).filter(bool)
)
FIELDS = ("mcpu", "mattr", "model", "pass", "cc", "ccopt", "path", "input", "module")


def config(v: dict[str, str]) -> CompilationConfig:
    llvm = {"kind": "llvm", "tag": "", "keys": ["cpu"], "mcpu": v["mcpu"], "mattr": [v["mattr"]], "model": v["model"]}
    return CompilationConfig(
        targets=(llvm,),
        host=llvm,
        pass_config={"tirx.UnrollLoop": {"explicit_unroll": v["pass"]}},
        build={"cross-compiler": v["cc"], "cross-compiler-options": [v["ccopt"], "-O2"]},
    )


def skeleton(text: str) -> str:
    """The syntax tree with every string constant blanked: equal trees mean strings stayed data."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = ""
    return ast.dump(tree)


def constants(text: str) -> dict[str, Any]:
    out = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            value = node.value.orelse if isinstance(node.value, ast.IfExp) else node.value
            out[node.targets[0].id] = ast.literal_eval(value)
    return out


def harmless() -> dict[str, str]:
    return {field: f"a{i}" for i, field in enumerate(FIELDS)}


def python_script(v: dict[str, str]) -> tuple[str, Any]:
    plan = plan_build(config(v), {}, model_spec(v["path"], "onnx", {v["input"]: (1, None)}))
    return python.render(plan)[0], plan


# The harmless scripts' trees, the reference every example is compared with: rendered and parsed
# once (doing it again for each example was half of these tests' time).
@functools.cache
def harmless_python_skeleton() -> str:
    return skeleton(python_script(harmless())[0])


@functools.cache
def harmless_relay_skeleton() -> str:
    return skeleton(relay.render(legacy_plan(harmless()))[0])


@settings(max_examples=60, deadline=None)
@given(st.fixed_dictionaries({field: hostile for field in FIELDS}))
def test_python_script(values: dict[str, str]) -> None:
    text, plan = python_script(values)
    got = constants(text)
    assert got["TARGET"] == plan.target and got["TARGET"]["mcpu"] == values["mcpu"]
    assert got["MODEL"] == os.path.abspath(values["path"]) and got["SHAPES"] == {values["input"]: [1, None]}
    assert got["PASS_CONFIG"] == {"tirx.UnrollLoop": {"explicit_unroll": values["pass"]}}
    assert got["EXPORT_OPTIONS"] == {"cc": values["cc"], "options": [values["ccopt"], "-O2"]}
    assert skeleton(text) == harmless_python_skeleton()


def legacy_plan(v: dict[str, str]) -> LegacyPlan:
    llvm = {"kind": "llvm", "tag": "", "keys": ["cpu"]}
    ethos = {"kind": "ethos-u", "tag": "", "keys": [], "accelerator_config": v["model"]}
    cfg = CompilationConfig(
        targets=(ethos, llvm),
        host=llvm,
        pass_config={"relay.backend.tir_converter": v["pass"]},
        tvm_version="<=0.18",  # ethos-u: the tvmc of TVM 0.19 has no such codegen
        build={
            "module-name": v["module"],
            "cross-compiler": v["cc"],
            "cross-compiler-options": [v["ccopt"]],
            "tuning-records": v["mcpu"],
        },
    )
    return plan_legacy(cfg, {}, model_spec(v["path"], "onnx", {v["input"]: (1, None)}))


@settings(max_examples=60, deadline=None)
@given(st.fixed_dictionaries({field: hostile for field in FIELDS}))
def test_relay_script(values: dict[str, str]) -> None:
    text = relay.render(legacy_plan(values))[0]
    got = constants(text)
    assert got["MODULE_NAME"] == values["module"] and got["MODEL"] == values["path"]
    assert (
        got["PASS_CONFIG"] == {"relay.backend.tir_converter": values["pass"]}
        and got["TUNING_RECORDS"] == values["mcpu"]
    )
    assert got["SHAPES"] == {values["input"]: [1, None]} and got["CROSS_COMPILER"] == values["cc"]
    assert skeleton(text) == harmless_relay_skeleton()
    options = [
        n
        for n in ast.walk(ast.parse(text))
        if isinstance(n, ast.Dict)
        and any(isinstance(k, ast.Constant) and k.value == "accelerator_config" for k in n.keys)
    ]
    assert options and all(ast.literal_eval(d) == {"accelerator_config": values["model"]} for d in options)


# What old tvmc takes verbatim: no '=' (it splits pass-config on it), no surrounding or inner
# whitespace where it splits on spaces, no NUL (no command line can hold one).
verbatim = hostile.filter(lambda s: "=" not in s and "\0" not in s and s == s.strip())
no_space = hostile.filter(lambda s: "\0" not in s and not any(c.isspace() for c in s))


@settings(max_examples=100, deadline=None)
@given(verbatim, verbatim, no_space, verbatim, verbatim)
def test_shell_line(module: str, value: str, option: str, cc: str, records: str) -> None:
    values = {**harmless(), "module": module, "pass": value, "ccopt": option, "cc": cc, "mcpu": records}
    argv, _ = tvmc_argv.tvmc_argv(legacy_plan(values))
    line = tvmc_argv.render(legacy_plan(values))[0]
    assert line.endswith("\n") and shlex.split(line) == argv
    for expected in (
        f"--module-name={module}",
        f"--pass-config=relay.backend.tir_converter={value}",
        f"--cross-compiler={cc}",
        f"--cross-compiler-options={option}",
        f"--tuning-records={records}",
    ):
        assert expected in argv


@settings(max_examples=100, deadline=None)
@given(hostile, hostile)
def test_shell_line_module_name_and_path(module: str, path: str) -> None:
    """These two are never refused (unless they hold NUL): every other character is quoted."""
    values = {**harmless(), "module": module, "path": path}
    try:
        argv, _ = tvmc_argv.tvmc_argv(legacy_plan(values))
    except BuildError as err:
        assert "\0" in module + path and "NUL" in str(err)
        return
    assert shlex.split(tvmc_argv.render(legacy_plan(values))[0]) == argv
    assert argv[-1] in (path, f"./{path}")
