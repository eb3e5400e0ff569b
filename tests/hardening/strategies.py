"""Hypothesis strategies for every input surface: config bytes, targets, rewrite flags, config trees.

Each generator comes in two variants, chosen half and half at the top of a case (`either`):
*clean* draws only real names (registry kinds, options, tags, executors, config keys, shipped
configs) with well-typed values, so that cases get through to canonicalization and the emitters;
*hostile* mixes in junk at every choice: hostile text (quotes, escapes, separators, NUL,
non-ASCII, lone surrogates as in undecodable argv), wrong types, huge numbers, deep nesting.
(Weighting single choices does not work: hypothesis steers towards novel choices, which evens
out the branches of every `a | b`.)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

from hypothesis import strategies as st
from tvmc import registry
from tvmc.keys import BUILD_OPTIONS, TOP_LEVEL
from tvmc.rewrites import generated_flags

T = TypeVar("T")

# Characters that matter to some parser on the way (legacy targets, comma lists, paths, TOML, shells).
NASTY = [
    "\x1b[31m",  # an ANSI escape: must never reach a terminal raw
    "\x00",
    "\x7f",
    "\u2028",
    "\n::error file=x.py::forged",  # a forged GitHub workflow command
    "'",
    '"',
    "\\",
    "\\'",
    "\n",
    "\r\n",
    "\t",
    " ",
    ",",
    ", ",
    "=",
    "-",
    "--",
    "{",
    "}",
    "[",
    "]",
    ":",
    ".",
    "#",
    "\0",
    "é",
    "😀",
    "\u2028",
    "\x85",
    "~",
    "/",
    "..",
    "$(",
    "`",
    "%s",
    "+",
    "*",
    "?",
    "\ufeff",
]
SHIPPED = [
    "aws/c5",
    "aws/c6g",
    "host/default",
    "base/x86_64-linux",
    "nvidia/jetson-nano",
    "arm/rasp4b",
    "boards/corstone-300",
    "qcom/hexagon-v68",
    "riscv/sifive-u74",
    "nvidia/nvidia-a100",
    "aws/c5:cpu",
    "nvidia/jetson-nano:cuda",
]
BAD_NAMES = [
    "../x",
    "/etc/passwd",
    "a/../../b",
    "./nope.toml",
    "~/x.toml",
    "no/such",
    "aws/c5:gpu",
    "aws/c5:",
    ":cpu",
    "C:\\x.toml",
    "a\\b",
    "",
    " ",
    "x" * 300,
    "aws//c5",
    "aws/./c5",
    "a\nb",
]
VERSIONS = [">=0.25", "<=0.19", "==0.27", ">=0.25,<0.30", "<0.19", "<=0.18", ">0.99"]
BAD_VERSIONS = ["bogus", ">=", "0.27", "", "=>1"]


@cache
def kind_names() -> list[str]:
    return list(registry.all_kinds())


@cache
def tag_names() -> list[str]:
    return list(registry.tag_names())


@cache
def flag_names() -> list[str]:
    return sorted(generated_flags())


def either(make: Callable[[bool], st.SearchStrategy[T]]) -> st.SearchStrategy[T]:
    """A case from the clean or the hostile variant of a generator."""
    return make(False) | make(True)


def pick(good: st.SearchStrategy[T], bad: st.SearchStrategy[T], hostile: bool) -> st.SearchStrategy[T]:
    """`good`, or (in a hostile case) `good` or `bad`."""
    return good | bad if hostile else good


def hostile_text(max_atoms: int = 6, surrogates: bool = False) -> st.SearchStrategy[str]:
    atoms = [st.sampled_from(NASTY), st.text(max_size=4), st.from_regex(r"[a-z0-9_]{1,8}", fullmatch=True)]
    if surrogates:  # what Python makes of undecodable bytes in argv and environment variables
        atoms.append(st.sampled_from(["\udcff", "\udc80", "\ud800"]))
    return st.lists(st.one_of(*atoms), max_size=max_atoms).map("".join)


words = st.from_regex(r"[A-Za-z0-9_.+-]{1,10}", fullmatch=True)
small_ints = st.integers(-5, 300)
big_ints = st.integers(-(2**64), 2**64) | st.sampled_from([2**63 - 1, 2**63, -(2**63), -(2**63) - 1, -(10**400)])
junk = st.one_of(st.booleans(), small_ints, big_ints, st.floats(), hostile_text(4), st.lists(small_ints, max_size=2))


def texts(hostile: bool) -> st.SearchStrategy[str]:
    return pick(words, hostile_text(), hostile)


def value_for(type_: str | None, depth: int, hostile: bool) -> st.SearchStrategy[Any]:
    """A value of a registry type; in hostile cases, sometimes something of another type."""
    typed: st.SearchStrategy[Any]
    if type_ == "int":
        typed = pick(small_ints, big_ints, hostile)
    elif type_ == "bool":
        typed = st.booleans()
    elif type_ == "str":
        typed = texts(hostile)
    elif type_ == "Array<str>":
        typed = st.lists(texts(hostile), max_size=3)
    elif type_ == "Array<int>":
        typed = st.lists(small_ints, max_size=3)
    elif type_ is not None and "Target" in type_ and depth < 2:
        typed = target_values(hostile, depth + 1)
    else:
        typed = words | small_ints | st.booleans()
    return pick(typed, junk, hostile)


@st.composite
def target_table(draw: st.DrawFn, hostile: bool, depth: int = 0) -> dict[str, Any]:
    """A target as a TOML table / JSON object: `{kind, options...}` or `{tag, overrides...}`."""
    table: dict[str, Any] = {}
    if draw(st.integers(0, 5)) == 0:
        table["tag"] = draw(st.sampled_from(tag_names()))
        kind = str((registry.tag_config(table["tag"]) or {}).get("kind", "llvm"))
    else:
        kind = draw(pick(st.sampled_from(kind_names()), st.sampled_from(["", "bogus", "LLVM", "c++"]), hostile))
        if not hostile or draw(st.integers(0, 9)):
            table["kind"] = kind
    spec = registry.kind(kind)
    options = sorted(o for o in spec.options if o not in ("kind", "tag")) if spec is not None else []
    chosen = draw(st.lists(st.sampled_from(options), max_size=min(3, len(options)), unique=True)) if options else []
    if hostile:
        chosen += draw(
            st.lists(
                st.sampled_from(["bogus", "compiler", "host", "keys", "tag", "feature.x", "devices"]),
                max_size=2,
                unique=True,
            )
        )
    elif draw(st.integers(0, 5)) == 0:
        chosen.append("compiler")
    for name in dict.fromkeys(chosen):
        if name == "host" and depth >= 2:
            continue
        if name == "compiler":
            table[name] = draw(pick(st.sampled_from(sorted(registry.compilers())), words, hostile))
        else:
            table[name] = draw(value_for(spec.options.get(name) if spec is not None else None, depth, hostile))
    return table


def legacy_value(hostile: bool) -> st.SearchStrategy[str]:
    clean = st.one_of(
        words,
        small_ints.map(str),
        st.sampled_from(["true", "false", "sm_80", "+avx2,+fma", "cortex-a72"]),
        st.lists(words, min_size=1, max_size=3).map(",".join),
        st.builds(lambda w: f"'{w} x'", words),
        st.builds(lambda k: f"'{k} -mcpu=x'", st.sampled_from(["llvm", "c"])),
    )
    return pick(clean, big_ints.map(str) | st.builds(lambda w: f"'{w}'", hostile_text(3)) | hostile_text(3), hostile)


@st.composite
def legacy_string(draw: st.DrawFn, hostile: bool) -> str:
    """A legacy target string (`llvm -mcpu=x --num-cores 4 -mattr=+a,+b`); mangled when hostile."""
    head = draw(pick(st.sampled_from(kind_names()) | st.sampled_from(tag_names()), words, hostile))
    spec = registry.kind(head)
    options = sorted(o for o in spec.options if o != "kind") if spec is not None else []
    parts = [head]
    for _ in range(draw(st.integers(0, 3))):
        option = draw(pick(st.sampled_from(options), words, hostile)) if options else draw(words)
        styles = ["-{o}={v}", "--{o}={v}", "-{o} {v}"] + (["-{o}", "{v}"] if hostile else [])
        parts.append(draw(st.sampled_from(styles)).format(o=option, v=draw(legacy_value(hostile))))
    return draw(pick(st.just(" "), st.sampled_from(["  ", "\t", " \n "]), hostile)).join(parts)


@st.composite
def comma_list(draw: st.DrawFn, hostile: bool) -> str:
    """Old tvmc's `--target` comma list: `ethos-u -accelerator_config=x, cmsis-nn, c`."""
    entries = draw(st.lists(legacy_string(hostile) | st.sampled_from(tag_names()), min_size=1, max_size=3))
    return draw(pick(st.sampled_from([",", ", "]), st.sampled_from([" , ", ",,"]), hostile)).join(entries)


def target_text(hostile: bool, depth: int = 0) -> st.SearchStrategy[str]:
    """A target as one string: tag, legacy string, comma list, JSON text (or plain junk)."""
    clean = st.one_of(
        st.sampled_from(tag_names()),
        legacy_string(hostile),
        legacy_string(hostile),
        comma_list(hostile),
        target_table(hostile, depth).map(json.dumps),
    )
    bad = target_table(hostile, depth).map(lambda t: json.dumps(t)[:-1]) | hostile_text()
    return pick(clean, bad, hostile)


def target_values(hostile: bool, depth: int = 0) -> st.SearchStrategy[Any]:
    return pick(target_text(hostile, depth) | target_table(hostile, depth), junk, hostile)


@st.composite
def component_table(draw: st.DrawFn, section: str, hostile: bool) -> Any:
    """An executor/runtime: `{kind, options...}` (or a bare name, or junk)."""
    comps = registry.executors() if section == "executor" else registry.runtimes()
    if hostile and draw(st.integers(0, 3)) == 0:
        return draw(words | junk)
    kind = draw(pick(st.sampled_from(sorted(comps)), words, hostile))
    table: dict[str, Any] = {"kind": kind} if not hostile or draw(st.integers(0, 8)) else {}
    comp = comps.get(kind)
    own = sorted(comp.options) if comp is not None else []
    chosen = draw(st.lists(st.sampled_from(own), max_size=min(2, len(own)), unique=True)) if own else []
    if hostile:
        others = sorted({o for c in comps.values() for o in c.options} | {"bogus"})
        chosen += draw(st.lists(st.sampled_from(others), max_size=1))
    for name in dict.fromkeys(chosen):
        option = comp.options.get(name) if comp is not None else None
        typed = value_for(option.type if option is not None else None, 0, hostile)
        table[name] = draw(st.sampled_from(option.enum) | typed if option and option.enum else typed)
    return table


@st.composite
def build_table(draw: st.DrawFn, hostile: bool) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for name in draw(st.lists(st.sampled_from(sorted(BUILD_OPTIONS)), max_size=3, unique=True)):
        spec = BUILD_OPTIONS[name]
        typed = value_for(spec.type, 0, hostile)
        if spec.enum:
            enum = st.sampled_from(spec.enum)
            typed = (
                st.lists(enum, min_size=1, max_size=2, unique=True)
                if spec.type.startswith("Array")
                else pick(enum, typed, hostile)
            )
        table[name] = draw(typed)
    if hostile and draw(st.booleans()):
        table["bogus"] = draw(junk)
    return table


@st.composite
def pass_config_table(draw: st.DrawFn, hostile: bool) -> dict[str, Any]:
    known = registry.pass_configs()
    table: dict[str, Any] = {}
    for name in draw(st.lists(st.sampled_from(sorted(known)), max_size=3, unique=True)):
        table[name] = draw(value_for(known[name], 0, hostile))
    if hostile and draw(st.booleans()):
        table[draw(words | hostile_text(2))] = draw(junk | st.dictionaries(words, junk, max_size=2))
    return table


def config_tree(hostile: bool, extends: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    """A config document as data: real keys with plausible (or, when hostile, wrong) values."""
    fields: dict[str, st.SearchStrategy[Any]] = {
        "targets": pick(st.lists(target_values(hostile), min_size=1, max_size=2), st.just([]) | junk, hostile),
        "host": target_values(hostile),
        "executor": component_table("executor", hostile),
        "runtime": component_table("runtime", hostile),
        "pass-config": pick(pass_config_table(hostile), junk, hostile),
        "disabled-pass": pick(st.lists(texts(hostile), max_size=3), junk, hostile),
        "opt-level": pick(st.integers(0, 3), st.integers(-2, 5) | junk, hostile),
        "build": pick(build_table(hostile), junk, hostile),
        "description": pick(texts(hostile), junk, hostile),
        "tvm-version": pick(st.sampled_from(VERSIONS), st.sampled_from(BAD_VERSIONS) | hostile_text(2), hostile),
    }
    if extends:
        refs = pick(st.sampled_from(SHIPPED) | st.sampled_from(tag_names()), st.sampled_from(BAD_NAMES), hostile)
        fields["extends"] = pick(st.lists(refs, max_size=3) | refs, junk, hostile)
    assert set(fields) <= set(TOP_LEVEL)

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        # Each key on its own (a unique list over few names would be forced onto rare ones).
        chosen = [name for name in sorted(fields) if name == "targets" or draw(st.booleans())]
        if hostile and draw(st.booleans()):
            chosen.remove("targets")
        doc = {name: draw(fields[name]) for name in chosen}
        if hostile and draw(st.integers(0, 4)) == 0:
            doc[draw(words)] = draw(junk)
        return doc

    return build()


# ---- rewrite flags ------------------------------------------------------------------------------


@st.composite
def path_text(draw: st.DrawFn, hostile: bool) -> str:
    """A `--set`/`--unset` PATH: dotted keys, indexes, selectors, quoted keys; malformed when hostile."""
    if hostile and draw(st.integers(0, 4)) == 0:
        return draw(hostile_text(surrogates=True))
    out = draw(pick(st.sampled_from(sorted(TOP_LEVEL)), words, hostile))
    pieces = [
        st.sampled_from(["mcpu", "mattr", "kind", "system-lib", "exec-mode", "num-cores"]).map(lambda w: "." + w),
        st.integers(-2, 2).map(lambda i: f"[{i}]"),
        st.sampled_from(kind_names()).map(lambda k: f"[kind={k}]"),
        st.sampled_from(sorted(registry.pass_configs())).map(lambda n: f'."{n}"'),
    ]
    if hostile:
        pieces += [words.map(lambda w: "." + w), st.sampled_from(["[", "]", ".", '."', "[kind=", "[-]", '.""'])]
    for _ in range(draw(st.integers(0, 3))):
        out += draw(st.one_of(*pieces))
    return out


def literal_text(hostile: bool) -> st.SearchStrategy[str]:
    """A VALUE: TOML literals, bare words, lists, inline tables; deep nesting and junk when hostile."""
    clean = st.one_of(
        words,
        small_ints.map(str),
        st.sampled_from(["true", "false", "yes", "off", "0", "1", "0x10"]),
        st.lists(words, max_size=3).map(lambda ws: "[" + ", ".join(json.dumps(w) for w in ws) + "]"),
        st.lists(words, min_size=1, max_size=3).map(",".join),
        st.sampled_from(kind_names()).map(lambda k: f'{{ kind = "{k}" }}'),
    )
    bad = st.one_of(
        st.integers(1, 3000).map(lambda n: "[" * n),
        st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
        big_ints.map(str),
        st.integers(4000, 6000).map(lambda n: "9" * n),  # past int()'s 4300-digit limit
        st.sampled_from(["1e999", "nan", "inf", '"\\ud800"']),
        hostile_text(surrogates=True),
    )
    return pick(clean, bad, hostile)


def flag_pair(hostile: bool) -> st.SearchStrategy[tuple[str, str]]:
    def generated(name: str) -> st.SearchStrategy[tuple[str, str]]:
        spec = generated_flags()[name]
        typed = {"INT": small_ints.map(str), "BOOL": st.sampled_from(["true", "0", "yes", "off"])}.get(
            spec.type.upper(), words
        )
        return st.tuples(st.just(name), pick(typed, literal_text(hostile), hostile))

    pass_names = pick(st.sampled_from(sorted(registry.pass_configs())), words, hostile)
    components = st.sampled_from(["graph", "aot", "vm", "cpp", "crt"])
    return st.one_of(
        st.tuples(st.just("--target"), target_text(hostile)),
        st.tuples(st.just("--target-host"), target_text(hostile)),
        st.tuples(st.sampled_from(["--executor", "--runtime"]), pick(components, words, hostile)),
        st.tuples(
            st.just("--pass-config"),
            pick(st.tuples(pass_names, literal_text(hostile)).map("=".join), hostile_text(surrogates=True), hostile),
        ),
        st.tuples(
            st.sampled_from(["-O", "--opt-level"]), pick(st.integers(0, 3).map(str), literal_text(True), hostile)
        ),
        st.tuples(
            st.just("--set"),
            st.tuples(
                path_text(hostile),
                pick(st.sampled_from(["=", "+="]), st.sampled_from(["", " = ", "=="]), hostile),
                literal_text(hostile),
            ).map("".join),
        ),
        st.tuples(st.just("--unset"), path_text(hostile)),
        st.sampled_from(flag_names()).flatmap(generated),
        st.sampled_from(flag_names()).flatmap(generated),
    )


def rewrite_case() -> st.SearchStrategy[tuple[list[str], list[tuple[str, str]]]]:
    """(--config references, rewrite flags in order)."""

    def build(hostile: bool) -> st.SearchStrategy[tuple[list[str], list[tuple[str, str]]]]:
        refs = pick(st.sampled_from(SHIPPED) | st.sampled_from(tag_names()), st.sampled_from(BAD_NAMES), hostile)
        return st.tuples(st.lists(refs, max_size=2), st.lists(flag_pair(hostile), max_size=4))

    return either(build)


def config_trees(extends: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    return either(lambda hostile: config_tree(hostile, extends))


def targets_any() -> st.SearchStrategy[Any]:
    return either(target_values)


def target_texts() -> st.SearchStrategy[str]:
    return either(target_text)


def environments() -> st.SearchStrategy[tuple[dict[str, str], list[str]]]:
    """TVMC_* variables (each the rewrite of its flag; TVMC_CONFIG the base configs), and --config."""

    def build(hostile: bool) -> st.SearchStrategy[tuple[dict[str, str], list[str]]]:
        refs = pick(st.sampled_from(SHIPPED), st.sampled_from(BAD_NAMES), hostile)
        values = {
            "TVMC_TARGET": target_text(hostile),
            "TVMC_TARGET_HOST": target_text(hostile),
            "TVMC_EXECUTOR": pick(st.sampled_from(["graph", "aot", "vm"]), words, hostile),
            "TVMC_RUNTIME": pick(st.sampled_from(["cpp", "crt"]), words, hostile),
            "TVMC_OPT_LEVEL": pick(st.integers(0, 3).map(str), literal_text(True), hostile),
            "TVMC_CONFIG": st.lists(refs, min_size=1, max_size=2).map(",".join),
        }
        env = st.fixed_dictionaries({}, optional=values)
        return st.tuples(env, st.lists(refs, max_size=1))

    return either(build)
