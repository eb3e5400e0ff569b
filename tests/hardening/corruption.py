"""Config files as bytes: generated documents serialized as TOML or JSON, and (in hostile cases)
corrupted: BOM, UTF-16, NUL, stray bytes, truncation, duplicate keys, deep nesting, huge numbers,
spliced hostile text, CRLF, or replaced by random bytes."""

from __future__ import annotations

import json
from typing import Any

import tomli_w
from hypothesis import strategies as st

from .strategies import config_tree, either, hostile_text


def serialize(doc: dict[str, Any], fmt: str) -> bytes:
    if fmt == "json":
        return json.dumps(doc, indent=1, ensure_ascii=False).encode("utf-8", "surrogatepass")
    try:
        return tomli_w.dumps(doc).encode("utf-8", "surrogatepass")
    except (TypeError, ValueError):  # a value tomli_w cannot write: the JSON text is a TOML syntax error
        return json.dumps(doc).encode("utf-8", "surrogatepass")


MUTATIONS = ["bom", "utf16", "nul", "byte", "truncate", "dup", "deep", "bignum", "splice", "crlf"]


def mutate(data: bytes, fmt: str, kind: str, position: int, payload: int, text: str = "") -> bytes:
    """One structured corruption of a config document (`text` is what "splice" inserts)."""
    at = position % (len(data) + 1)
    if kind == "bom":
        return b"\xef\xbb\xbf" + data
    if kind == "utf16":
        return data.decode("utf-8", "replace").encode("utf-16")
    if kind == "nul":
        return data[:at] + b"\0" + data[at:]
    if kind == "byte":
        return data[:at] + bytes([0x80 + payload % 0x80]) + data[at:]
    if kind == "truncate":
        return data[:at]
    if kind == "dup":
        if fmt == "json":
            return data.replace(b"{", b'{"opt-level": 1, "opt-level": 2, ', 1)
        lines = data.split(b"\n")
        index = position % max(1, len(lines))
        return b"\n".join([*lines[: index + 1], lines[index], *lines[index + 1 :]])
    if kind == "deep":
        depth = [65, 200, 10_000][payload % 3]
        opener = b"[" if payload % 2 else b"{"
        inner = b"a = " + b"[" * depth if fmt == "toml" else b'{"a": ' + opener * depth
        return inner if payload % 5 == 0 else data[:at] + opener * depth + data[at:]
    if kind == "bignum":
        return data[:at] + b"9" * [30, 5000][payload % 2] + data[at:]
    if kind == "splice":
        return data[:at] + text.encode("utf-8", "surrogatepass") + data[at:]
    if kind == "crlf":
        return data.replace(b"\n", b"\r\n")
    raise ValueError(kind)


def config_bytes(extends: bool = True) -> st.SearchStrategy[tuple[bytes, str]]:
    """A config document's bytes (TOML or JSON) and its format; hostile ones are corrupted."""

    @st.composite
    def build(draw: st.DrawFn, hostile: bool) -> tuple[bytes, str]:
        fmt = draw(st.sampled_from(["toml", "json"]))
        data = serialize(draw(config_tree(hostile, extends)), fmt)
        if hostile:
            for kind in draw(st.lists(st.sampled_from(MUTATIONS), max_size=2)):
                text = draw(hostile_text(3)) if kind == "splice" else ""
                data = mutate(data, fmt, kind, draw(st.integers(0, 10**6)), draw(st.integers(0, 255)), text)
            if draw(st.integers(0, 9)) == 0:
                data = draw(st.binary(max_size=64))
        return data, fmt

    return either(lambda hostile: build(hostile))
