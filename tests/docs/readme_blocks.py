"""README.md's fenced examples as test cases: which blocks run, with which files, and what output
they must print. tests/docs/test_readme.py runs them; the conventions are listed there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

DIRECTIVE = re.compile(r"<!--\s*readme-test:\s*(.*?)\s*-->", re.DOTALL)
FENCE = re.compile(r"^( *)(`{3,})\s*([\w+-]*)\s*$")  # indented inside a list item too
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
FILE_HEADER = re.compile(r"^#\s+(\S+\.(?:toml|json))\s*$")  # `# common.toml` starts a file in a toml block
ELLIPSIS = "…"
KEYS = ("skip", "omit", "exit", "ignore", "file", "setup")


class ReadmeError(ValueError):
    """A README block or directive the harness cannot read: the README is wrong, not the code."""


@dataclass
class Block:
    language: str  # "" for a plain block
    text: str
    line: int  # of the opening fence, 1-based
    section: str  # the nearest heading above it
    directives: list[tuple[str, str]] = field(default_factory=list)  # (key, argument), in README order
    output: Block | None = None  # the plain block shown right after an sh block: what it prints

    def directive(self, key: str) -> list[str]:
        return [argument for name, argument in self.directives if name == key]

    @property
    def skip_reason(self) -> str | None:
        reasons = self.directive("skip")
        return reasons[0] if reasons else None

    @property
    def expected_exit(self) -> int:
        values = self.directive("exit")
        try:
            return int(values[-1]) if values else 0
        except ValueError:
            raise ReadmeError(f"README.md:{self.line}: `exit` takes a number, got {values[-1]!r}") from None

    def script(self) -> str:
        """The sh block as run: `omit` texts removed (a line left empty is dropped)."""
        text = self.text
        for omitted in self.omitted():
            if omitted not in text:
                raise ReadmeError(f"README.md:{self.line}: `omit` text {omitted!r} is not in the block")
            text = text.replace(omitted, "")
        return "\n".join(line for line in text.splitlines() if line.strip()) + "\n"

    def omitted(self) -> list[str]:
        return [text for argument in self.directive("omit") for text in _quoted(argument)]

    def ignored_prefixes(self) -> list[str]:
        return [text for argument in self.directive("ignore") for text in _quoted(argument)]

    def files(self) -> dict[str, str]:
        """A toml block as files: the `file PATH` directive names the whole block, else each
        `# NAME.toml` header line at column 0 starts a file (a comment: it stays in the file)."""
        named = self.directive("file")
        if named:
            return {_relative(named[-1], self.line): self.text}
        files: dict[str, list[str]] = {}
        current: list[str] | None = None
        for line in self.text.splitlines():
            header = FILE_HEADER.match(line)
            if header:  # kept as the file's first line, so line numbers are the ones a reader's copy has
                current = files.setdefault(_relative(header.group(1), self.line), [])
            if current is None:
                if line.strip():
                    raise ReadmeError(
                        f"README.md:{self.line}: a toml example needs a file name: start it with a "
                        "`# NAME.toml` line or put <!-- readme-test: file PATH --> before it"
                    )
                continue
            current.append(line)
        return {name: "\n".join(lines).strip("\n") + "\n" for name, lines in files.items()}


def _quoted(argument: str) -> list[str]:
    """The double-quoted strings of a directive's argument (the rest is its reason)."""
    return [match.group(1).replace('\\"', '"') for match in re.finditer(r'"((?:[^"\\]|\\.)*)"', argument)]


def _relative(name: str, line: int) -> str:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts:
        raise ReadmeError(f"README.md:{line}: a file name must stay in the example's folder: {name!r}")
    return path.as_posix()


def parse(markdown: str) -> list[Block]:
    """Every fenced block, with the directives in the HTML comments right above it (only blank
    lines between) and, for an sh block, the plain block right after it as its output."""
    lines = markdown.splitlines()
    blocks: list[Block] = []
    section = ""
    pending: list[tuple[str, str]] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = FENCE.match(line)
        if fence is None:
            heading = HEADING.match(line)
            if heading:
                section = heading.group(2)
            if line.lstrip().startswith("<!--"):
                end = index
                while "-->" not in lines[end] and end + 1 < len(lines):
                    end += 1
                comment = "\n".join(lines[index : end + 1])
                pending.extend(_directives(comment, index + 1))
                index = end + 1
                continue
            if line.strip():
                pending = []  # a directive belongs to the block right below it
            index += 1
            continue
        indent, ticks, language = fence.groups()
        close = index + 1
        while close < len(lines) and lines[close].strip() != ticks:
            close += 1
        if close == len(lines):
            raise ReadmeError(f"README.md:{index + 1}: a ``` block is never closed")
        body = [line.removeprefix(indent) for line in lines[index + 1 : close]]
        block = Block(language, "\n".join(body) + "\n", index + 1, section, pending)
        pending = []
        previous = blocks[-1] if blocks else None
        between = lines[_end_line(previous) : index] if previous is not None else []
        if (
            language == ""
            and previous is not None
            and previous.language == "sh"
            and previous.output is None
            and all(not text.strip() for text in between)
            and not block.directives
        ):
            previous.output = block
        blocks.append(block)
        index = close + 1
    return blocks


def _end_line(block: Block) -> int:
    """The index (0-based) of the line after the block's closing fence."""
    return block.line + block.text.count("\n") + 1


def _directives(comment: str, line: int) -> list[tuple[str, str]]:
    found = []
    for match in DIRECTIVE.finditer(comment):
        key, _, argument = match.group(1).partition(" ")
        if key not in KEYS:
            raise ReadmeError(f"README.md:{line}: unknown readme-test directive {key!r} (known: {', '.join(KEYS)})")
        found.append((key, argument.strip()))
    return found


def output_pattern(expected: str) -> re.Pattern[str]:
    """The shown output as a pattern: `…` inside a line stands for any text on that line, and a
    line that is only `…` for any number of lines (none included)."""
    parts = []
    for line in expected.rstrip("\n").splitlines():
        if line.strip() == ELLIPSIS:
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append("[^\n]*?".join(re.escape(piece) for piece in line.rstrip().split(ELLIPSIS)) + r"\n")
    return re.compile("".join(parts))


def normalize_output(printed: str, ignored_prefixes: Sequence[str]) -> str:
    """What a block printed, as compared: trailing spaces and blank lines at the end dropped, and
    the lines an `ignore` directive names."""
    lines = [line.rstrip() for line in printed.splitlines()]
    lines = [line for line in lines if not any(line.startswith(prefix) for prefix in ignored_prefixes)]
    while lines and not lines[-1]:
        lines.pop()
    return "".join(f"{line}\n" for line in lines)


def matches(expected: str, printed: str, ignored_prefixes: Sequence[str] = ()) -> bool:
    return output_pattern(expected).fullmatch(normalize_output(printed, ignored_prefixes)) is not None
