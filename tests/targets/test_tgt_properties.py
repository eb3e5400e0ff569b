"""Property tests: round trips through the legacy string and JSON, and parser robustness."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from tvmc import registry
from tvmc.errors import TargetError
from tvmc.targets import canonicalize, parse_target, parse_targets, split_list, to_legacy

SETTINGS = settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)

# Text that stresses the grammar: quotes, escapes, commas, spaces, equals signs, unicode.
_CHARS = st.sampled_from([*"ab-_+.,='\\\" /:{}xyzé\t", "ü", "0", "9"])
TEXT = st.text(_CHARS, max_size=10).filter(lambda s: s == s.strip(" "))
INT = st.integers(-(2**63), 2**63 - 1)
TRIPLES = st.sampled_from(["x86_64-linux-gnu", "aarch64-linux-gnu", "armv7a-linux-gnueabihf", "riscv64-linux"])

_MODERN = sorted(registry.kinds())
_LEGACY = sorted(k for k, v in registry.legacy_kinds().items() if not v.open_options and not v.renamed_to)


def _value(kind: str, opt: str, typ: str) -> st.SearchStrategy[Any]:
    special: dict[tuple[str, str], st.SearchStrategy[Any]] = {
        ("cuda", "arch"): TEXT.map(lambda s: "sm_" + s),
        ("nvptx", "mcpu"): TEXT.map(lambda s: "sm_" + s),
        ("nvptx", "mtriple"): st.just("nvptx64-nvidia-cuda"),
        ("rocm", "mcpu"): TEXT.map(lambda s: "gfx9" + s),
        ("rocm", "mtriple"): st.just("amdgcn-amd-amdhsa-hcc"),
        ("llvm", "mtriple"): TRIPLES | TEXT,
        ("llvm", "mcpu"): st.sampled_from(["cortex-m55", "cortex-m4", "cortex-a72", "skylake"]) | TEXT,
        ("llvm", "jit"): st.sampled_from(["orcjit", "mcjit"]),
        ("llvm", "mfloat-abi"): st.sampled_from(["hard", "soft"]),
        ("llvm", "vector-width"): st.integers(1, 65536),
        ("llvm", "cl-opt"): st.lists(st.sampled_from(["-a", "--b=true", "-c:int=5", "-d:string=x y"])),
        ("webgpu", "thread_warp_size"): st.integers(-3, 1),
    }
    if (kind, opt) in special:
        return special[(kind, opt)]
    return {
        registry.STR: TEXT,
        registry.INT: INT,
        registry.BOOL: st.booleans(),
        registry.STR_ARRAY: st.lists(TEXT, max_size=4),
        registry.INT_ARRAY: st.lists(INT, max_size=3),
    }.get(typ, st.nothing())


@st.composite
def specs(draw: st.DrawFn, depth: int = 0) -> dict[str, Any]:
    kind_name = draw(st.sampled_from(_MODERN + _LEGACY))
    kind = registry.kind(kind_name)
    assert kind is not None
    spec: dict[str, Any] = {"kind": kind_name}
    plain = [(o, t) for o, t in kind.options.items() if o not in ("kind", "host", "from_device", "devices")]
    for opt, typ in draw(st.lists(st.sampled_from(plain), max_size=4, unique=True)) if plain else []:
        spec[opt] = draw(_value(kind_name, opt, typ))
    if depth < 2 and draw(st.booleans()):
        spec["host"] = draw(specs(depth + 1) | st.sampled_from(["llvm", "nvidia/jetson-agx-xavier", "c"]))
    if kind_name == "composite" and depth < 2:
        spec["devices"] = draw(st.lists(specs(depth + 1) | st.sampled_from(["cuda", "nvidia/jetson-nano"]), max_size=3))
    if depth == 0 and draw(st.integers(0, 4)) == 0:
        compilers = [c for c in registry.compilers().values() if kind.device_type in c.device_types]
        if compilers:
            spec["compiler"] = draw(st.sampled_from(compilers)).name
    return spec


TAG_SPECS = st.builds(
    lambda name, over: {"tag": name, **over},
    st.sampled_from(registry.tag_names()),
    st.fixed_dictionaries({}, optional={"keys": st.lists(TEXT, max_size=2), "model": TEXT}),
)


def _canonical(spec: Any) -> dict[str, Any]:
    try:
        return canonicalize(spec)
    except TargetError:
        assume(False)
        raise


@SETTINGS
@given(specs() | TAG_SPECS)
def test_legacy_string_round_trip(spec: dict[str, Any]) -> None:
    canonical = _canonical(spec)
    text = to_legacy(canonical)
    parsed = parse_target(text)
    assert parsed.lifted == {} and parsed.notes == ()
    assert canonicalize(parsed.spec) == canonical, text


@SETTINGS
@given(specs() | TAG_SPECS)
def test_json_round_trip_is_a_fixed_point(spec: dict[str, Any]) -> None:
    canonical = _canonical(spec)
    assert canonicalize(json.loads(json.dumps(canonical))) == canonical


_GRAMMAR = st.lists(st.sampled_from([*" -='\\\",{}+:/[]ab1", "llvm", "cuda", "host", "mcpu", "keys"]), max_size=30).map(
    "".join
)
_PREFIXED = st.builds(
    lambda k, rest: f"{k} {rest}", st.sampled_from([*_MODERN, *_LEGACY, "nvidia/jetson-nano"]), _GRAMMAR
)


@settings(max_examples=500, deadline=None)
@given(_GRAMMAR | _PREFIXED | st.text(max_size=30))
def test_parsers_raise_only_target_errors(text: str) -> None:
    for parse in (parse_target, canonicalize, parse_targets):
        with contextlib.suppress(TargetError):
            parse(text)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
_KEYS = (
    st.sampled_from(
        [
            "kind",
            "tag",
            "host",
            "keys",
            "device",
            "mcpu",
            "mattr",
            "devices",
            "arch",
            "compiler",
            "feature.x",
            "num-cores",
            "from_device",
        ]
    )
    | TEXT
)


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(_KEYS, _JSON | st.sampled_from([*_MODERN, "nvidia/jetson-nano"]), max_size=5))
def test_canonicalize_raises_only_target_errors_on_any_dict(spec: dict[str, Any]) -> None:
    for fn in (canonicalize, parse_target):
        with contextlib.suppress(TargetError):
            fn(spec)


_ENTRY = st.builds(
    lambda kind, opts: " ".join([kind, *opts]),
    st.sampled_from(["llvm", "c", "cuda", "cmsis-nn", "ethos-u", "nvidia/geforce-gt-730-ddr3,128bit"]),
    st.lists(st.sampled_from(["-mattr=+a,+b", "-mcpu x", "--flag", "-v='a, b'", "-keys=x,y"]), max_size=3),
)


@SETTINGS
@given(st.lists(_ENTRY, min_size=1, max_size=4), st.sampled_from([", ", " , ", ",  "]))
def test_split_list_recovers_the_entries(parts: list[str], sep: str) -> None:
    assert [e.strip() for e, _ in split_list(sep.join(parts))] == parts
