"""RFC 6901 JSON pointers: how a problem record and an origin name a value (`/targets/0/mcpu`), and
how users read one (`targets[0].mcpu`). Below `errors`, which prints a problem's pointer."""

from __future__ import annotations

from collections.abc import Iterable


def escape(token: str | int) -> str:
    """One pointer reference token, escaped per RFC 6901 (`~` → `~0`, `/` → `~1`)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def join(pointer: str, token: str | int) -> str:
    # The checks join a pointer for every node they visit: skip the escaping when there is none.
    if type(token) is str:
        if "~" not in token and "/" not in token:
            return f"{pointer}/{token}"
    elif type(token) is int:  # an index never needs it
        return f"{pointer}/{token}"
    return f"{pointer}/{escape(token)}"


def make_pointer(tokens: Iterable[str | int]) -> str:
    """`["targets", 0, "mcpu"]` → `"/targets/0/mcpu"`."""
    return "".join("/" + escape(t) for t in tokens)


def split(pointer: str) -> list[str]:
    """`"/a~1b/0"` → `["a/b", "0"]`; "" (the document) → []."""
    return [unescape(t) for t in pointer.split("/")[1:]] if pointer else []


def display_path(pointer: str) -> str:
    """`/targets/0/mcpu` → `targets[0].mcpu`; keys with dots or odd characters are quoted."""
    out = ""
    for token in split(pointer):
        if token.isdigit():
            out += f"[{token}]"
        elif token and all(c.isalnum() or c in "-_" for c in token):
            out += ("." if out else "") + token
        else:
            quoted = token.replace("\\", "\\\\").replace('"', '\\"')
            out += ("." if out else "") + f'"{quoted}"'
    return out
