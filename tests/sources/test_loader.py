"""load_file / load_bytes / load_stdin: formats, errors with exact positions, limits."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

import pytest
from tvmc.errors import ConfigNotFoundError, ConfigSyntaxError, LimitError, TvmcError
from tvmc.sources import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_STRING,
    load_bytes,
    load_file,
    load_stdin,
    sniff_format,
)


def error_of(data: bytes, fmt: str | None = None, source: str = "f") -> TvmcError:
    with pytest.raises(TvmcError) as info:
        load_bytes(data, source=source, format=fmt)
    return info.value


def line_of(data: bytes, fmt: str | None = None) -> str:
    err = error_of(data, fmt)
    return f"{type(err).__name__}: {err}"


# --- formats -----------------------------------------------------------------------------


def test_load_toml_and_json_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.toml").write_text('[[targets]]\nkind = "llvm"\n')
    (tmp_path / "c.json").write_text('{"targets": [{"kind": "cuda"}]}')
    toml = load_file("c.toml")
    assert (toml.source, toml.path, toml.format, toml.name) == ("c.toml", tmp_path / "c.toml", "toml", None)
    assert toml.data == {"targets": [{"kind": "llvm"}]}
    json_layer = load_file(tmp_path / "c.json")
    assert (json_layer.source, json_layer.format) == ("c.json", "json")
    assert json_layer.data == {"targets": [{"kind": "cuda"}]}


@pytest.mark.parametrize(
    ("content", "fmt"),
    [("{}", "json"), ('\n  {"a": 1}', "json"), ("a = 1", "toml"), ("", "toml"), ("# {\n[a]", "toml")],
)
def test_format_is_sniffed_without_a_suffix(tmp_path: Path, content: str, fmt: str) -> None:
    (tmp_path / "config").write_text(content)
    assert load_file(tmp_path / "config").format == fmt
    assert sniff_format(content) == fmt


def test_suffix_wins_over_content(tmp_path: Path) -> None:
    (tmp_path / "c.TOML").write_text("a = 1")
    assert load_file(tmp_path / "c.TOML").format == "toml"
    (tmp_path / "x.json").write_text("a = 1")  # TOML in a .json file is a JSON error
    with pytest.raises(ConfigSyntaxError, match=r"x\.json:1:1: invalid JSON: Expecting value"):
        load_file(tmp_path / "x.json")


def test_explicit_format_and_unknown_format() -> None:
    assert load_bytes(b"{}", source="s", format="json").data == {}
    with pytest.raises(ConfigSyntaxError):
        load_bytes(b"{}", source="s", format="toml")
    with pytest.raises(ValueError, match="unknown config format"):
        load_bytes(b"{}", source="s", format="yaml")


def test_display_is_relative_to_cwd_only_under_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.toml").write_text("a = 1")
    (tmp_path / "other").mkdir()
    monkeypatch.chdir(tmp_path / "other")
    assert load_file("../sub/c.toml").source == str(tmp_path / "sub" / "c.toml")
    monkeypatch.chdir(tmp_path)
    layer = load_file(tmp_path / "sub" / "c.toml")
    assert layer.source == os.path.join("sub", "c.toml")
    assert layer.path == tmp_path / "sub" / "c.toml"
    assert load_file("sub/c.toml", display="shown.toml").source == "shown.toml"


def test_stdin_is_read_with_a_limit() -> None:
    layer = load_stdin(io.BytesIO(b'{"a": 1}'))
    assert (layer.source, layer.path, layer.format, layer.data) == ("<stdin>", None, "json", {"a": 1})
    named = load_stdin(io.BytesIO(b"a = 1"), source="cfg.toml", format="toml", path=Path("/x/cfg.toml"))
    assert (named.source, named.path) == ("cfg.toml", Path("/x/cfg.toml"))
    big = io.BytesIO(b" " * (3 * MAX_FILE_BYTES))
    with pytest.raises(LimitError, match=r"^<stdin>: config file is larger than 1000000 bytes"):
        load_stdin(big)
    assert big.tell() == MAX_FILE_BYTES + 1  # never read further


# --- syntax errors -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "fmt", "expected"),
    [
        (b"a = 1\nb = \n", "toml", "f:2:5: invalid TOML: Invalid value"),
        (b'a = 1\nb = "x\n', "toml", "f:2:7: invalid TOML: Illegal character '\\n'"),
        (b'a = "x', "toml", "f:1:7: invalid TOML: Unterminated string"),  # "at end of document"
        (b'a = 1\r\nb = "x', "toml", "f:2:7: invalid TOML: Unterminated string"),
        (b"a = 1\na = 2\n", "toml", "f:2:1: invalid TOML: key 'a' is set twice (first on line 1)"),
        (b"a = [1,\n  2\n", "toml", "f:3:1: invalid TOML: Unclosed array"),
        (b'{\n  "a": 1,\n  "b": [1 2]\n}', "json", "f:3:11: invalid JSON: Expecting ',' delimiter"),
        (b'{"a": 1,}', "json", "f:1:8: invalid JSON: trailing comma before the end of the object"),
        (b"", "json", "f:1:1: invalid JSON: Expecting value"),
    ],
)
def test_syntax_errors_have_the_parsers_position(data: bytes, fmt: str, expected: str) -> None:
    err = error_of(data, fmt)
    assert isinstance(err, ConfigSyntaxError)
    assert str(err) == expected
    assert "\n" not in err.one_line()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'{\n  "x": {"k": 1, "k": 2},\n  "k": 3\n}', "f:2:17: duplicate key 'k' (first defined at line 2, column 9)"),
        (b'{"a": {"b": 1}, "c": 2, "a": 3}', "f:1:25: duplicate key 'a' (first defined at line 1, column 2)"),
        (b'{"a": [{"\\u0062": 1, "b": 2}]}', "f:1:22: duplicate key 'b' (first defined at line 1, column 9)"),
    ],
)
def test_duplicate_json_keys_are_errors_at_the_second_occurrence(data: bytes, expected: str) -> None:
    err = error_of(data, "json")
    assert isinstance(err, ConfigSyntaxError)
    assert str(err) == expected


def test_duplicate_toml_keys_are_tomllib_errors() -> None:
    assert (
        line_of(b"[t]\nx = 1\n[t]\n")
        == "ConfigSyntaxError: f:3:1: invalid TOML: table [t] is set twice (first on line 1)"
    )


def test_bom_is_skipped_and_positions_are_unchanged() -> None:
    assert load_bytes(b"\xef\xbb\xbfa = 1", source="f").data == {"a": 1}
    assert load_bytes(b'\xef\xbb\xbf {"a": 1}', source="f").format == "json"
    assert line_of(b"\xef\xbb\xbfa = 1\nb = \n") == line_of(b"a = 1\nb = \n")
    assert str(error_of(b'\xef\xbb\xbf{"a": 1, "a": 2}')).startswith("f:1:10: duplicate key 'a'")
    layer = load_bytes(b"\xef\xbb\xbfx = [1, 2]", source="f")
    loc = layer.locate("/x/1")
    assert (loc.line, loc.col) == (1, 9)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'x = "\xc3\xa9\xff"', "f:1:7: invalid UTF-8 (byte 0xff)"),  # é is one column
        (b"a = 1\n  # \xe2\x82\n", "f:2:5: invalid UTF-8 (byte 0xe2)"),  # truncated sequence
        (b"\xef\xbb\xbf\xc0", "f:1:1: invalid UTF-8 (byte 0xc0)"),
        (b"\xff\xfea\x00", "f:1:1: invalid UTF-8 (byte 0xff); the file looks UTF-16 encoded; save it as UTF-8"),
        (b'a = 1\nb = "a\x00"', "f:2:7: NUL character in config file"),
        (b'{"a": "\xc3\xa9\x00"}', "f:1:9: NUL character in config file"),
    ],
)
def test_encoding_errors(data: bytes, expected: str) -> None:
    err = error_of(data)
    assert isinstance(err, ConfigSyntaxError)
    assert str(err) == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"  [1]", "f:1:3: the top-level value must be an object, not an array"),
        (b'\n"x"', "f:2:1: the top-level value must be an object, not a string"),
        (b"null", "f:1:1: the top-level value must be an object, not null"),
        (b"true", "f:1:1: the top-level value must be an object, not a boolean"),
        (b"1.5", "f:1:1: the top-level value must be an object, not a number"),
        (b"1" * 30, "f:1:1: the top-level value must be an object, not a number"),
    ],
)
def test_top_level_must_be_an_object(data: bytes, expected: str) -> None:
    assert str(error_of(data, "json")) == expected


@pytest.mark.parametrize(
    ("data", "fmt", "expected"),
    [
        (b'{"a": NaN}', "json", "ConfigSyntaxError: f:1:2: a: non-finite number nan is not allowed"),
        (b'{"a": [1, -Infinity]}', "json", "ConfigSyntaxError: f:1:11: a[1]: non-finite number -inf is not allowed"),
        (b'{"a": 1e400}', "json", "ConfigSyntaxError: f:1:2: a: non-finite number inf is not allowed"),
        (b"[x]\na = nan\n", "toml", "ConfigSyntaxError: f:2:1: x.a: non-finite number nan is not allowed"),
        (
            b"a = 1979-05-27\n",
            "toml",
            "ConfigSyntaxError: f:1:1: a: TOML dates and times are not supported; quote the value as a string",
        ),
        (
            b"a = [07:32:00]\n",
            "toml",
            "ConfigSyntaxError: f:1:6: a[0]: TOML dates and times are not supported; quote the value as a string",
        ),
    ],
)
def test_unsupported_values(data: bytes, fmt: str, expected: str) -> None:
    assert line_of(data, fmt) == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'{"a": ["x\\ud800"]}', "f:1:8: a[0]: string with an unpaired surrogate escape"),
        (b'{\n "\\udc00": 1}', "f:2:2: key with an unpaired surrogate escape"),
    ],
)
def test_lone_surrogates_are_refused(data: bytes, expected: str) -> None:
    assert str(error_of(data, "json")).startswith(expected)
    assert load_bytes(b'{"a": "\\ud83d\\ude00"}', source="f").data == {"a": "\U0001f600"}  # a pair is fine


# --- limits ------------------------------------------------------------------------------


def test_limits_have_documented_defaults() -> None:
    assert (MAX_FILE_BYTES, MAX_DEPTH, MAX_STRING) == (1_000_000, 64, 65_536)


def test_size_limit_on_bytes() -> None:
    assert load_bytes(b" " * MAX_FILE_BYTES, source="f").data == {}
    assert line_of(b" " * (MAX_FILE_BYTES + 1)) == (
        "LimitError: f: config file is larger than 1000000 bytes (1000001 bytes); refusing to read it"
    )


def test_huge_file_is_refused_without_reading_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.toml"
    with big.open("wb") as f:
        f.truncate(100_000_000)  # sparse: costs no disk
    monkeypatch.chdir(tmp_path)

    def no_open(*args: object, **kwargs: object) -> None:
        raise AssertionError("the file was opened")

    monkeypatch.setattr(Path, "open", no_open)
    start = time.perf_counter()
    with pytest.raises(LimitError, match=r"^big\.toml: config file is larger than 1000000 bytes \(100000000"):
        load_file(big)
    assert time.perf_counter() - start < 0.5


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_not_read_as_a_config() -> None:
    with pytest.raises(ConfigNotFoundError, match="is a device, not a config file"):
        load_file("/dev/zero")


def nested_json(depth: int) -> bytes:
    return b'{"a": ' + b"[" * (depth - 1) + b"]" * (depth - 1) + b"}"


def test_json_depth_limit() -> None:
    assert load_bytes(nested_json(MAX_DEPTH), source="f").data["a"] is not None
    assert line_of(nested_json(MAX_DEPTH + 1)) == "LimitError: f:1:70: nesting deeper than 64 levels"


@pytest.mark.parametrize("fmt", ["json", "toml"])
def test_ten_thousand_brackets_never_reach_the_parser(fmt: str) -> None:
    data = (b"a = " if fmt == "toml" else b"") + b"[" * 10_000 + b"]" * 10_000
    col = 4 + 64 if fmt == "toml" else 65  # the bracket opening level 65 (the document is level 1)
    assert line_of(data, fmt) == f"LimitError: f:1:{col}: nesting deeper than 64 levels"
    # unterminated and inside an object, too
    assert isinstance(error_of(b'{"x": ' + b"[{" * 50_000, "json"), LimitError)


def test_brackets_inside_strings_and_comments_do_not_count() -> None:
    deep = "[" * 200
    assert load_bytes(f'a = "{deep}" # {deep}\nb = \'{deep}\'\nc = """\n{deep}"""\n'.encode(), source="f")
    assert load_bytes(f'{{"a": "{deep}\\"{deep}"}}'.encode(), source="f")


def test_toml_dotted_keys_and_headers_are_depth_checked_before_parsing() -> None:
    parts = [f"k{i}" for i in range(70)]
    ok = ".".join(parts[:MAX_DEPTH]) + " = 1"  # 63 tables below the document
    assert load_bytes(ok.encode(), source="f").data
    too_many = "x = 1\n" + ".".join(parts[: MAX_DEPTH + 1]) + " = 1"
    assert line_of(too_many.encode()) == (
        "LimitError: f:2:1: dotted key with too many parts (nesting deeper than 64 levels)"
    )
    header = "[ " + ".".join(parts[:MAX_DEPTH]) + "]"  # the table itself is level 65
    assert line_of(header.encode()) == (
        "LimitError: f:1:3: dotted key with too many parts (nesting deeper than 64 levels)"
    )
    # 500 000 parts would take tomllib minutes (it is quadratic): refused at once
    start = time.perf_counter()
    assert isinstance(error_of(b"a." * 490_000 + b"b = 1"), LimitError)
    assert time.perf_counter() - start < 2


def test_toml_depth_through_tables_and_arrays_is_checked_after_parsing() -> None:
    header = "[" + ".".join(f"t{i}" for i in range(40)) + "]\n"  # /t0…/t39 is level 41
    data = header + "x = " + "[" * 24 + "]" * 24 + "\n"  # /x is level 42, /x/0/…/0 (23 deep) is 65
    err = error_of(data.encode())
    assert isinstance(err, LimitError)
    assert str(err).startswith("f:2:28: …")  # the `[` of /x/0/…/0, 5 + 23 columns in
    assert str(err).endswith(": …" + "[0]" * 16 + ": nesting deeper than 64 levels")  # x[0]…[0], its last 16 shown


def test_string_limit_on_values_and_keys() -> None:
    ok = "x" * MAX_STRING
    assert load_bytes(f'a = "{ok}"'.encode(), source="f").data["a"] == ok
    # escapes count as the characters they decode to
    assert load_bytes(('{"a": "' + "\\u0041" * MAX_STRING + '"}').encode(), source="f").data["a"] == "A" * MAX_STRING
    assert line_of(f'[t]\nb = [1, "{ok}x"]'.encode()) == (
        "LimitError: f:2:9: t.b[1]: string of 65537 characters is longer than 65536"
    )
    assert line_of(f'{{\n "{ok}y": 1}}'.encode()) == ("LimitError: f:2:2: key of 65537 characters is longer than 65536")


@pytest.mark.parametrize(
    ("data", "fmt", "expected"),
    [
        (
            b'{"a": [9223372036854775807, -9223372036854775808, 9223372036854775808]}',
            "json",
            "f:1:51: a[2]: integer 9223372036854775808 is outside the 64-bit range TVM stores",
        ),
        (
            b"a = -9223372036854775809",
            "toml",
            "f:1:1: a: integer -9223372036854775809 is outside the 64-bit range TVM stores",
        ),
        (
            b"a = 0x8000_0000_0000_0000",
            "toml",
            "f:1:1: a: integer 9223372036854775808 is outside the 64-bit range TVM stores",
        ),
        (
            b'{"a": 1,\n "b": ' + b"9" * 5000 + b"}",
            "json",
            "f:2:2: b: integer 9999999999…9999999999 (5000 digits) is outside the 64-bit range TVM stores",
        ),
        (b"a = 1\nb = [1, " + b"9" * 5000 + b"]", "toml", "f:2:9: integer is outside the 64-bit range TVM stores"),
        # hexadecimal has no int() digit limit; its decimal form would be too long to print
        (b"a = 0x" + b"f" * 5000, "toml", "f:1:1: a: integer of 20000 bits is outside the 64-bit range TVM stores"),
        (
            b"a = 0x1" + b"0" * 30,
            "toml",
            "f:1:1: a: integer 1329227995…0280344576 (37 digits) is outside the 64-bit range TVM stores",
        ),
    ],
)
def test_integers_beyond_int64_are_refused_with_position(data: bytes, fmt: str, expected: str) -> None:
    err = error_of(data, fmt)
    assert isinstance(err, LimitError)
    assert str(err) == expected


def test_int64_bounds_are_accepted() -> None:
    data = b"a = [9223372036854775807, -9223372036854775808]"
    assert load_bytes(data, source="f").data == {"a": [2**63 - 1, -(2**63)]}


# --- file system errors ------------------------------------------------------------------


def test_missing_file_and_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigNotFoundError, match=r"^nope\.toml: no such config file$"):
        load_file("nope.toml")
    (tmp_path / "d.toml").mkdir()
    with pytest.raises(ConfigNotFoundError, match=r"^d\.toml: is a directory, not a config file$"):
        load_file("d.toml")


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = write_file(tmp_path / "s.toml", "a = 1")

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    # The loader's own open: portable, and works when the tests run as root.
    monkeypatch.setattr("tvmc.sources.loader.os.open", denied)
    with pytest.raises(ConfigNotFoundError, match=r"s\.toml: cannot read config file: Permission denied$"):
        load_file(secret)


def write_file(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("data", "fmt", "expected"),
    [
        (b'{"a": "x\\u0000"}', "json", "f:1:2: a: string with a NUL character"),
        (b'{"\\u0000": 1}', "json", "f:1:2: key with a NUL character"),
        (b'a = "x\\u0000"\n', "toml", "f:1:1: a: string with a NUL character"),
    ],
)
def test_nul_escapes_are_refused_like_nul_bytes(data: bytes, fmt: str, expected: str) -> None:
    with pytest.raises(ConfigSyntaxError) as err:
        load_bytes(data, source="f", format=fmt)
    assert err.value.one_line().startswith(expected)
