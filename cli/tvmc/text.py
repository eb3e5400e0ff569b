"""Text shown to people (messages, reports, listings): config-derived strings on one printable line.

A key like "x\n::error file=evil.py::PWNED" must not forge a report line (GitHub Actions runs such
lines as workflow commands) and an ESC sequence must not reach the terminal: line breaks and every
other unprintable character are shown escaped, as in a Python string literal."""

from __future__ import annotations


def one_line(text: str) -> str:
    """`text` with line breaks and other control characters escaped (`\\n`, `\\x1b`, `\\u2028`)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def has_surrogate(text: str) -> bool:
    """Whether `text` holds a lone surrogate (U+D800-U+DFFF): Python's stand-in for argv or
    environment bytes that are not UTF-8, and what JSON's "\\ud800" decodes to. No UTF-8 output
    can hold one; strict UTF-8 encoding refuses exactly these (without a pattern to compile)."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
