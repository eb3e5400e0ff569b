"""A hypothesis strategy that writes a config dict as TOML in many styles — header tables,
arrays of tables, dotted keys, inline tables, bare/basic/literal keys, every string kind,
multi-line arrays with comments — which tomli_w (one style) never produces."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import strategies as st

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_ML_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # multi-line literals may hold tabs and newlines

# TOML forbids raw DEL in strings and surrogates anywhere, and tvmc refuses NUL (even escaped);
# everything else is fair game.
toml_chars = st.characters(codec="utf-8", exclude_characters="\x7f\x00")


class _Writer:
    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def pick(self, *options: str) -> str:
        return self.draw(st.sampled_from(options))

    def key(self, key: str) -> str:
        styles = ["basic"]
        if _BARE.fullmatch(key):
            styles.append("bare")
        if "'" not in key and not _CONTROL.search(key):
            styles.append("literal")
        style = self.pick(*styles)
        if style == "bare":
            return key
        if style == "literal":
            return f"'{key}'"
        return json.dumps(key, ensure_ascii=False)  # JSON escapes are TOML escapes

    def string(self, value: str) -> str:
        escaped = json.dumps(value, ensure_ascii=False)  # JSON escapes are TOML escapes
        styles = ["basic", "ml_basic"]
        if "'" not in value and not _CONTROL.search(value):
            styles.append("literal")
        if "'''" not in value and not value.endswith("'") and not _ML_CONTROL.search(value):
            styles.append("ml_literal")
        style = self.pick(*styles)
        if style == "literal":
            return f"'{value}'"
        if style == "ml_literal":
            # a newline right after the opening quotes is dropped by TOML
            first = "\n" if value.startswith("\n") else self.pick("", "\n")
            return f"'''{first}{value}'''"
        if style == "ml_basic":
            return f'"""{self.pick("", chr(10))}{escaped[1:-1]}"""'
        return escaped

    def comment(self) -> str:
        return self.pick("", "", " # c", ' # [x] = "y" {')

    def value(self, value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return repr(value)
        if isinstance(value, str):
            return self.string(value)
        if isinstance(value, list):
            if not value:
                return self.pick("[]", "[ ]", "[\n]")
            sep = self.pick(", ", ",", ",\n  ", f",{self.comment()}\n  ")
            trailing = self.pick("", ",", ",\n")
            return "[" + self.pick("", " ", "\n  ") + sep.join(self.value(v) for v in value) + trailing + "]"
        assert isinstance(value, dict)
        # TOML 1.0 inline tables are one line, without comments
        items = ", ".join(f"{self.key(k)}{self.pick(' = ', '=')}{self.value(v)}" for k, v in value.items())
        return "{" + self.pick("", " ") + items + self.pick("", " ") + "}"

    def table(self, path: list[str], table: dict[str, Any]) -> str:
        body: list[str] = []
        sections: list[str] = []
        for key, value in table.items():
            k = self.key(key)
            if isinstance(value, dict) and value and self.draw(st.booleans()):
                if self.draw(st.booleans()):
                    header = f"[{self.pick('', ' ')}{'.'.join([*path, k])}]{self.comment()}"
                    sections.append(f"\n{header}\n" + self.table([*path, k], value))
                else:
                    body.extend(self.dotted(k, value))
            elif (
                isinstance(value, list)
                and value
                and all(isinstance(v, dict) for v in value)
                and self.draw(st.booleans())
            ):
                header = ".".join([*path, k])
                for element in value:
                    sections.append(f"\n[[{header}]]{self.comment()}\n" + self.table([*path, k], element))
            else:
                body.append(f"{k}{self.pick(' = ', '=', chr(9) + '=  ')}{self.value(value)}{self.comment()}")
        return "".join(line + "\n" for line in body) + "".join(sections)

    def dotted(self, prefix: str, table: dict[str, Any]) -> list[str]:
        lines: list[str] = []
        for key, value in table.items():
            k = f"{prefix}{self.pick('.', ' . ')}{self.key(key)}"
            if isinstance(value, dict) and value and self.draw(st.booleans()):
                lines.extend(self.dotted(k, value))
            else:
                lines.append(f"{k} = {self.value(value)}{self.comment()}")
        return lines


@st.composite
def toml_documents(draw: st.DrawFn, documents: st.SearchStrategy[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """(data, TOML text that parses to data)."""
    data = draw(documents)
    return data, _Writer(draw).table([], data)
