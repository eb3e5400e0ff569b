"""Tag configs of an old TVM release from its src/target/tag.cc (used by extract_legacy_tvm.py).

tag.cc registers tags with `TVM_REGISTER_TARGET_TAG(name).set_config({{"kind", String("cuda")}, ...})`,
directly or through macros (`TVM_REGISTER_CUDA_TAG(Name, Arch, SharedMem, RegPerBlock)`); this
expands the macros and reads the C++ initializers into JSON values. Only the data is kept.
"""

from __future__ import annotations

import re
from typing import Any


def _preprocess(text: str) -> tuple[str, dict[str, tuple[list[str], str]]]:
    """Continuations joined, `#define NAME(args) body` collected, and of each `#if`/`#else` the first
    branch kept (tag.cc's build conditions: an AArch64 LLVM, LLVM >= 11, LLVM >= 19 for Apple tags)."""
    text = text.replace("\\\n", " ")
    lines: list[str] = []
    macros: dict[str, tuple[list[str], str]] = {}
    taken: list[bool] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#if"):
            taken.append(True)
        elif stripped.startswith(("#else", "#elif")):
            taken[-1] = False
        elif stripped.startswith("#endif"):
            taken.pop()
        elif all(taken):
            if m := re.match(r"#define\s+(\w+)\(([^)]*)\)\s*(.*)", stripped):
                macros[m.group(1)] = ([a.strip() for a in m.group(2).split(",")], m.group(3))
            elif not stripped.startswith("#"):
                lines.append(line)
    return "\n".join(lines), macros


def _call_args(text: str) -> list[str]:
    args: list[str] = []
    depth, current, quoted = 0, "", False
    for c in text:
        quoted = not quoted if c == '"' else quoted
        if not quoted and c in "({":
            depth += 1
        elif not quoted and c in ")}":
            depth -= 1
        if c == "," and depth == 0 and not quoted:
            args.append(current.strip())
            current = ""
        else:
            current += c
    return [*args, current.strip()]


def _expand(text: str, macros: dict[str, tuple[list[str], str]]) -> str:
    for name, (params, body) in macros.items():
        call = re.compile(rf"\b{name}\(")
        while m := call.search(text):
            end, depth = m.end(), 1
            while depth:
                depth += {"(": 1, ")": -1}.get(text[end], 0)
                end += 1
            expanded = body
            for param, arg in zip(params, _call_args(text[m.end() : end - 1]), strict=True):
                expanded = re.sub(rf"\b{param}\b", arg, expanded)
            text = text[: m.start()] + expanded + text[end:]
    return text


class _Init:
    """A C++ initializer of a tag config: {{"key", String("v")}, {"k", runtime::Int(4)}, ...}."""

    VALUE = re.compile(
        r"(String|runtime::Int|Integer|runtime::Bool|Bool|Array<[\w:]+>|Map<String, ObjectRef>)\s*(?=[({])"
    )

    def __init__(self, text: str, at: int) -> None:
        self.text, self.at = text, at

    def skip(self, token: str = "") -> None:
        while self.text[self.at].isspace():
            self.at += 1
        if token:
            assert self.text.startswith(token, self.at), (token, self.text[self.at : self.at + 40])
            self.at += len(token)

    def peek(self) -> str:
        self.skip()
        return self.text[self.at]

    def string(self) -> str:
        self.skip('"')
        end = self.text.index('"', self.at)
        value, self.at = self.text[self.at : end], end + 1
        return value

    def value(self) -> Any:
        if self.peek() == '"':
            return self.string()
        m = self.VALUE.match(self.text, self.at)
        assert m is not None, self.text[self.at : self.at + 60]
        self.at = m.end()
        if m.group(1).startswith("Map"):
            return self.mapping()
        if m.group(1).startswith("Array"):
            self.skip("{")
            items = []
            while self.peek() != "}":
                items.append(self.value())
                if self.peek() == ",":
                    self.skip(",")
            self.skip("}")
            return items
        self.skip("(")
        end = self.text.index(")", self.at)
        raw, self.at = self.text[self.at : end].strip(), end + 1
        return raw.strip('"') if m.group(1) == "String" else raw == "true" if "Bool" in m.group(1) else int(raw)

    def mapping(self) -> dict[str, Any]:
        self.skip("{")
        out: dict[str, Any] = {}
        while self.peek() != "}":
            self.skip("{")
            key = self.string()
            self.skip(",")
            out[key] = self.value()
            self.skip("}")
            if self.peek() == ",":
                self.skip(",")
        self.skip("}")
        return out


def tag_configs(source: str) -> dict[str, Any]:
    """src/target/tag.cc (comments stripped): every `TVM_REGISTER_TARGET_TAG(name).set_config({...})`,
    its macros expanded, as JSON values."""
    text, macros = _preprocess(source)
    text = _expand(text, macros)
    out: dict[str, Any] = {}
    for m in re.finditer(r'TVM_REGISTER_TARGET_TAG\("([^"]+)"\)\s*\.set_config\(', text):
        out[m.group(1)] = _Init(text, m.end()).mapping()
    return out
