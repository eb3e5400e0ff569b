"""`--config -` reads one config (TOML, or JSON when it starts with `{`) from standard input (issue 15)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from tvmc import api, sources
from tvmc.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()


def run(args: list[str], stdin: str) -> tuple[int, str, str]:
    result = runner.invoke(app, args, input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_toml_from_stdin_layers_like_a_file() -> None:
    code, out, err = run(["config", "get", "opt-level", "-c", "aws/c5", "-c", "-", "--origin"], "opt-level = 1\n")
    assert (code, err) == (0, "")
    assert out == "<stdin>:1:1 (via --config -)\t1\n"


def test_json_is_detected() -> None:
    code, out, _ = run(["config", "show", "-c", "-", "--format", "json"], '{"targets": ["cuda"], "opt-level": 2}')
    assert code == 0
    doc = json.loads(out)
    assert doc["targets"][0]["kind"] == "cuda" and doc["opt-level"] == 2


def test_extends_from_stdin_and_the_origin_chain() -> None:
    code, out, _ = run(["config", "show", "-c", "-", "--origin"], 'extends = ["aws/c5"]\n')
    assert code == 0
    assert "configs/aws/c5.toml:10:1 (via --config -, <stdin> extends aws/c5)\ttargets[0].mcpu" in out


def test_explain_and_compile_style_commands_read_it_too() -> None:
    code, out, _ = run(["config", "explain", "opt-level", "-c", "-"], 'targets = ["llvm"]\nopt-level = 0\n')
    assert code == 0
    assert "<stdin>:2:1 (via --config -)\topt-level = 0" in out.splitlines()
    code, out, _ = run(["config", "validate", "-c", "-"], 'targets = ["llvm"]\n')
    assert code == 0, out


@pytest.mark.parametrize(
    ("stdin", "args", "code", "message"),
    [
        ("", ["-c", "-"], 1, "<stdin>: standard input is empty (--config - reads a TOML or JSON config)"),
        ("x = ", ["-c", "-"], 1, "<stdin>:1:5: invalid TOML"),
        ('{"targets": [}', ["-c", "-"], 1, "<stdin>:1:14: invalid JSON"),
        ("opt-level = 1\n", ["-c", "-", "-c", "-"], 2, "'-' (stdin) can be given once"),
    ],
)
def test_bad_stdin_is_one_line(stdin: str, args: list[str], code: int, message: str) -> None:
    got, out, err = run(["config", "show", *args], stdin)
    assert (got, out) == (code, "")
    assert message in err and err.count("\n") == 1


def test_api_reads_a_given_stream_once_and_takes_a_layer() -> None:
    stream = io.BytesIO(b'targets = ["llvm -mcpu=znver3"]\n')
    assert api.resolve(["-"], stdin=stream).config.targets[0]["mcpu"] == "znver3"
    layer = sources.load_bytes(b'targets = ["cuda"]\n', source="<stdin>")
    assert api.resolve("-", stdin=layer).config.targets[0]["kind"] == "cuda"
    with pytest.raises(TypeError, match="stdin: expected a binary stream"):
        api.resolve(["-"], stdin=b"opt-level = 1")  # type: ignore[arg-type]


def test_dash_in_extends_is_not_stdin(tmp_path: Path) -> None:
    child = tmp_path / "child.toml"
    child.write_text('extends = ["-"]\n', encoding="utf-8")
    code, _, err = run(["config", "show", "-c", str(child)], "opt-level = 1\n")
    assert code == 1 and "'-'" in err
