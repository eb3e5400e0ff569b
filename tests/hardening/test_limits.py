"""Every documented limit exists, has its documented default, and is refused with a clear error,
quickly and with bounded memory (README "Limits")."""

from __future__ import annotations

import io
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from tvmc import api, layering, rewrites, sources
from tvmc.errors import ConfigLayerError, ConfigNotFoundError, LimitError, TvmcError, UsageError
from tvmc.sources import limits

from .harness import run_cli

MB = 1024 * 1024


def test_documented_defaults() -> None:
    assert (limits.MAX_FILE_BYTES, limits.MAX_DEPTH, limits.MAX_STRING) == (1_000_000, 64, 65_536)
    assert (limits.INT_MIN, limits.INT_MAX) == (-(2**63), 2**63 - 1)
    assert limits.MAX_LIST_ENTRIES == 20_000
    assert (layering.MAX_EXTENDS_DEPTH, layering.MAX_EXTENDS_FANOUT, layering.MAX_LAYERS) == (128, 32, 1024)
    assert (rewrites.MAX_REWRITES, rewrites.MAX_PATH_LENGTH) == (10_000, 1_000)


@contextmanager
def bounded(seconds: float, megabytes: float) -> Iterator[None]:
    """The block runs within `seconds` and allocates at most `megabytes` at its peak."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        yield
    finally:
        elapsed = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1] / MB
        tracemalloc.stop()
    assert elapsed < seconds, f"took {elapsed:.2f} s"
    assert peak < megabytes, f"peak allocation {peak:.1f} MB"


def refused(call: Callable[[], Any], error: type[TvmcError], match: str) -> TvmcError:
    with pytest.raises(error, match=match) as info:
        call()
    return info.value


def test_a_100_mb_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    with big.open("wb") as f:  # sparse: no 100 MB on disk, none in this process
        f.truncate(100 * MB)
    with bounded(seconds=1, megabytes=2):
        err = refused(lambda: sources.load_file(big), LimitError, "larger than 1000000 bytes")
    assert "big.toml" in err.one_line()
    result = run_cli(["config", "show", "--config", str(big)])
    assert result.exit_code == 1 and "larger than 1000000 bytes" in result.stderr


class Endless(io.RawIOBase):
    """A stream of zeros without end, like `cat /dev/zero | tvmc config validate -`."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer)
        view[:] = b"\0" * len(view)
        return len(view)


def test_an_endless_stream_is_refused_after_the_limit_and_a_device_unread() -> None:
    with bounded(seconds=2, megabytes=8):
        refused(lambda: sources.load_stdin(io.BufferedReader(Endless())), LimitError, "larger than 1000000")
    if Path("/dev/zero").exists():  # only regular files are configs: a device is not read at all
        with bounded(seconds=2, megabytes=8):
            refused(lambda: sources.load_file("/dev/zero"), ConfigNotFoundError, "is a device, not a config file")


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ("[" * 10_000, "json"),
        ('{"a": ' + "[" * 10_000 + "]" * 10_000 + "}", "json"),
        ("a = " + "[" * 10_000, "toml"),
        ("a = " + "{b = " * 10_000, "toml"),
        (".".join(["a"] * 10_000) + " = 1", "toml"),
    ],
    ids=["json-array", "json-member", "toml-array", "toml-inline-table", "toml-dotted-key"],
)
def test_deep_nesting_is_refused_quickly(text: str, fmt: str) -> None:
    with bounded(seconds=1, megabytes=8):
        err = refused(
            lambda: sources.load_bytes(text.encode(), source="deep", format=fmt), LimitError, "deeper than 64 levels"
        )
    assert err.location is not None and err.location.line == 1


def test_strings_keys_and_integers_beyond_the_limits() -> None:
    refused(lambda: sources.load_bytes(b'a = "' + b"x" * 65_537 + b'"', source="s"), LimitError, "longer than 65536")
    refused(lambda: sources.load_bytes(b'"' + b"k" * 65_537 + b'" = 1', source="s"), LimitError, "key of 65537")
    refused(lambda: sources.load_bytes(b"a = 9223372036854775808", source="s"), LimitError, "64-bit range")
    assert sources.load_bytes(b'a = "' + b"x" * 65_536 + b'"', source="s").data["a"] == "x" * 65_536


def chain(tmp_path: Path, length: int) -> Path:
    for i in range(length):
        text = f'extends = ["c{i + 1}.toml"]\n' if i + 1 < length else 'targets = ["llvm"]\n'
        (tmp_path / f"c{i}.toml").write_text(text)
    return tmp_path / "c0.toml"


def test_extends_depth(tmp_path: Path) -> None:
    (tmp_path / "ok").mkdir()
    (tmp_path / "deep").mkdir()
    assert api.resolve([str(chain(tmp_path / "ok", 128))], env={}).config.targets[0]["kind"] == "llvm"
    refused(
        lambda: api.resolve([str(chain(tmp_path / "deep", 130))], env={}),
        ConfigLayerError,
        "extends chain deeper than 128",
    )


def test_extends_fanout_and_total_layers(tmp_path: Path) -> None:
    (tmp_path / "leaf.toml").write_text('targets = ["llvm"]\n')
    (tmp_path / "wide.toml").write_text("extends = [" + ", ".join(['"leaf.toml"'] * 33) + "]\n")
    refused(lambda: api.resolve([str(tmp_path / "wide.toml")], env={}), ConfigLayerError, "more than 32 configs")
    # A lattice: every level extends both files of the level below. Each file is applied once
    # (issue 15.2), so 2 * 40 files resolve at once where re-expansion would take 2**40 layers.
    for level in range(40):
        for side in "ab":
            below = f'"l{level + 1}a.toml", "l{level + 1}b.toml"' if level < 39 else '"leaf.toml"'
            (tmp_path / f"l{level}{side}.toml").write_text(f"extends = [{below}]\nopt-level = {level % 4}\n")
    with bounded(seconds=10, megabytes=64):
        assert api.resolve([str(tmp_path / "l0a.toml")], env={}).config.opt_level == 0
    # 1 + 32 + 32 * 32 distinct files: the fan-out is fine at every level, the total is not.
    for m in range(32):
        for leaf in range(32):
            (tmp_path / f"leaf{m}_{leaf}.toml").write_text('targets = ["llvm"]\n')
        refs = ", ".join(f'"leaf{m}_{leaf}.toml"' for leaf in range(32))
        (tmp_path / f"mid{m}.toml").write_text(f"extends = [{refs}]\n")
    (tmp_path / "top.toml").write_text("extends = [" + ", ".join(f'"mid{m}.toml"' for m in range(32)) + "]\n")
    with bounded(seconds=10, megabytes=64):
        refused(
            lambda: api.resolve([str(tmp_path / "top.toml")], env={}), ConfigLayerError, "more than 1024 config files"
        )


def test_number_of_rewrites() -> None:
    ok = [("-O", "1")] * 10_000
    assert api.resolve(["aws/c5"], ok, env={}).config.opt_level == 1
    refused(lambda: api.resolve(["aws/c5"], [*ok, ("-O", "2")], env={}), UsageError, "more than 10000 rewrites")


def test_rewrite_path_length() -> None:
    refused(
        lambda: api.resolve(["aws/c5"], [("--unset", "build." + "x" * 1000)], env={}),
        UsageError,
        "path longer than 1000 characters",
    )


def test_big_legal_files_resolve_in_linear_time(tmp_path: Path) -> None:
    """60 000 keys once took minutes (each merged key rescanned every origin)."""
    table = '[pass-config."tirx.UnrollLoop"]'  # a pass config whose value is a table
    (tmp_path / "base.toml").write_text(f'targets = ["llvm"]\n{table}\n"p" = 0\n')
    many = tmp_path / "many.toml"  # its table is merged key by key into the one it extends
    many.write_text(f'extends = ["base.toml"]\n{table}\n' + "".join(f'"p{i}" = {i}\n' for i in range(20_000)))
    started = time.perf_counter()
    # Layering (load, merge, origins) is what scaled badly; the rule engine then refuses the
    # fields TVM's UnrollLoopConfig does not have (issue 26, row 12), once, at the first one.
    assert len(api.resolve_tree([str(many)], env={}).data["pass-config"]["tirx.UnrollLoop"]) == 20_001
    with pytest.raises(TvmcError, match="UnrollLoopConfig has no field 'p'"):
        api.resolve([str(many)], env={})
    assert time.perf_counter() - started < 5  # quadratically: about 2 minutes
