"""One voice for errors (issue 26): the same bad input exits with the same code in every command
(1: the rule engine refuses the config, wherever the value came from; 2: the command line itself
is malformed), a message names only what the user typed, and a parent's error is reported once."""

from __future__ import annotations

from pathlib import Path

import pytest
from tvmc.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()

MODEL = "m.onnx"  # never read: every case fails while resolving the config


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout + result.stderr


def commands(flags: list[str], tmp_path: Path) -> dict[str, list[str]]:
    model = str(tmp_path / MODEL)
    (tmp_path / MODEL).write_bytes(b"not read")
    return {
        "validate": ["config", "validate", *flags],
        "show": ["config", "show", *flags],
        "get": ["config", "get", "opt-level", *flags],
        "explain": ["config", "explain", "opt-level", *flags],
        "compile": ["compile", model, *flags, "-o", str(tmp_path / "m.so")],
    }


@pytest.mark.parametrize(
    ("flags", "code"),
    [
        (["--target", "bogus"], 1),  # an unknown target kind: invalid-target
        (["--target", "llvm", "-O", "7"], 1),  # an integer out of range: invalid-value
        (["--target", "llvm -mcpu=notacpu"], 1),  # unknown-cpu
        (["-c", "aws/c5", "--set", "executor.kind=bogus"], 1),  # unknown-executor
        (["-c", "aws/c5", "--executor", "bogus"], 1),  # the same value by its own flag
        (["-c", "aws/c5", "--runtime", "bogus"], 1),  # unknown-runtime
        (["-c", "aws/c55"], 1),  # config-not-found
        (["--target", "llvm", "-O", "x"], 2),  # not an integer: the flag's own type
        (["-c", "aws/c5", "--set", "targets[0].mcpu+=x"], 2),  # a rewrite that cannot apply
        (["-c", "aws/c5", "--set", "opt-level"], 2),  # not PATH=VALUE
    ],
)
def test_the_same_bad_input_exits_with_the_same_code_in_every_command(
    flags: list[str], code: int, tmp_path: Path
) -> None:
    for name, args in commands(flags, tmp_path).items():
        exit_code, output = run(*args)
        assert exit_code == code, (name, output)
        assert "Traceback" not in output
    assert not (tmp_path / "m.so").exists()


@pytest.mark.parametrize(
    ("variable", "flag", "rule"),
    [("TVMC_EXECUTOR", "--executor", "executor"), ("TVMC_RUNTIME", "--runtime", "runtime")],
)
def test_an_unknown_executor_is_refused_as_the_rule_engine_refuses_it_in_a_file(
    variable: str, flag: str, rule: str, tmp_path: Path
) -> None:
    # `--executor bogus` and TVMC_EXECUTOR=bogus exited 2 (a usage error) while `--set
    # executor.kind=bogus` and the same value in a file exit 1: the rule engine decides, once.
    message = f"{rule}.kind: unknown {rule} 'grph' (known: "
    (tmp_path / "c.toml").write_text(f'targets = ["llvm"]\n{rule} = "grph"\n', encoding="utf-8")
    code, output = run("config", "validate", str(tmp_path / "c.toml"))
    assert code == 1 and f"[unknown-{rule}]" in output
    for args, env, source in (
        (["config", "show", "-c", "aws/c5", flag, "grph"], {}, f"{flag}=grph"),
        (["config", "show", "-c", "aws/c5", "--set", f"{rule}.kind=grph"], {}, f"--set={rule}.kind=grph"),
        (["config", "get", "opt-level", "-c", "aws/c5"], {variable: "grph"}, f"env {variable}"),
    ):
        result = runner.invoke(app, args, env=env)
        assert result.exit_code == 1, (args, result.output)
        assert result.stderr.startswith(f"tvmc: error: {source}: {message}"), result.stderr
        assert len(result.stderr.splitlines()) == 1


def test_diff_names_the_argument_not_a_flag_the_user_did_not_type() -> None:
    code, output = run("config", "diff", "aws/c5", "aws/c55")
    assert code == 2  # diff(1): 1 means "different", trouble is 2 (README)
    assert "--config" not in output
    assert output.startswith("tvmc: error: aws/c55: config 'aws/c55' not found")


def test_run_refuses_a_device_that_is_none_as_a_usage_error(tmp_path: Path) -> None:
    library = tmp_path / "lib.so"
    library.write_bytes(b"not read: the device is refused first")
    code, output = run("run", str(library), "--device", "tpu")
    assert code == 2
    assert output == (
        "tvmc: error: --device: unknown device 'tpu' (cpu, cuda, rocm, vulkan, opencl, metal) (did you mean 'cpu'?)\n"
    )


def _family(tmp_path: Path, base: str, children: int = 3) -> Path:
    (tmp_path / "base.toml").write_text(base, encoding="utf-8")
    for index in range(children):
        (tmp_path / f"c{index}.toml").write_text(f'extends = "./base.toml"\ndescription = "c{index}"\n')
    return tmp_path


@pytest.mark.parametrize(
    ("base", "rule"),
    [('targets = ["llvm"]\nopt-level = 9\n', "invalid-value"), ('targets = ["llvm"]\n[[ \n', "syntax")],
)
def test_a_parents_error_is_reported_once(tmp_path: Path, base: str, rule: str) -> None:
    folder = _family(tmp_path, base)
    code, output = run("config", "validate", "--jobs", "1", str(folder))
    assert code == 1
    lines = output.splitlines()
    assert sum(1 for line in lines if line.endswith(f"[{rule}]")) == 1, output
    assert lines[0].startswith(f"{folder / 'base.toml'}:")  # the base's own report, in full
    for index in range(3):  # each child is still invalid, at its own extends entry, naming the base
        mine = [line for line in lines if line.startswith(f"{folder / f'c{index}.toml'}:1:")]
        assert len(mine) == 1 and "[extends-invalid]" in mine[0] and "base.toml" in mine[0], output
    assert "3 files" not in output and "checked 4 files: 0 valid, 4 invalid" in output


@pytest.mark.parametrize(
    "args",
    [["run", "lib.so"], ["inspect", "lib.so"], ["model", "inspect", "m.onnx"], ["config", "detect"]],
)
def test_format_is_declared_once_and_refused_by_the_parser(args: list[str]) -> None:
    code, output = run(*args, "--format", "xml")
    assert code == 2 and output.startswith("tvmc: error: Invalid value for '--format' / '-f': 'xml' is not one of")
    assert len(output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "line"),
    [  # click wrote `Did you mean '--jobs'?` or `(Did you mean one of: …?)`, before tvmc's `(see …)`
        (
            ["config", "validate", "--bogus"],
            "No such option '--bogus'; see tvmc config validate --help (did you mean '--jobs'?)",
        ),
        (
            ["config", "show", "--orign"],
            "No such option '--orign'; see tvmc config show --help (did you mean '--origin' or '--config'?)",
        ),
        (["config", "shwo"], "No such command 'shwo'; see tvmc config --help (did you mean 'show'?)"),
        (["confg"], "No such command 'confg'; see tvmc --help (did you mean 'config'?)"),
        (["config", "show", "--bogus"], "No such option '--bogus'; see tvmc config show --help"),
        (["config", "get"], "Missing argument 'PATH'; see tvmc config get --help"),
        # The parser gives these no command: they said no `see … --help`
        (["config", "show", "-O"], "Option '-O' requires an argument; see tvmc config show --help"),
        (["compile", "m.onnx", "--output"], "Option '--output' requires an argument; see tvmc compile --help"),
        (
            ["tune", "db", "show", "--database"],
            "Option '--database' requires an argument; see tvmc tune db show --help",
        ),
    ],
)
def test_a_usage_error_of_the_parser_reads_as_every_error(args: list[str], line: str) -> None:
    """The message, `; hint`, then the did-you-mean: as `config show`, `compile` and `run --device`
    word theirs (`--device: unknown device 'tpu' (…) (did you mean 'cpu'?)`)."""
    code, output = run(*args)
    assert code == 2
    assert output == f"tvmc: error: {line}\n"


@pytest.mark.parametrize("bad", ["missing", "directory"])
def test_a_missing_or_irregular_input_file_is_exit_1_in_the_same_words_in_every_command(
    bad: str, tmp_path: Path
) -> None:
    """`run` and `model inspect` exited 2 with `is not a file`, `inspect` 1 with `does not exist`,
    `compile` 1 with `model file '…' does not exist`, `run --check`/`--inputs` 2: one check now."""
    path = tmp_path / "input.bin"
    if bad == "directory":
        path.mkdir()
    said = f"{path} does not exist" if bad == "missing" else f"{path} is a directory, not a regular file"
    library = tmp_path / "lib.so"
    library.write_bytes(b"never loaded: the input file is refused first")
    for args, source in (
        (["run", str(path)], "LIBRARY"),
        (["inspect", str(path)], "LIBRARY"),
        (["model", "inspect", str(path)], "MODEL"),
        (["compile", str(path), "--model-format", "onnx", "--target", "llvm", "-o", str(tmp_path / "o.so")], "MODEL"),
        (["tune", str(path), "--model-format", "onnx", "--target", "llvm", "--database", str(tmp_path)], "MODEL"),
        (["run", str(library), "--check", str(path), "--force"], "--check"),
        (["run", str(library), "--inputs", str(path), "--force"], "--inputs"),
        (["config", "show", "--from", str(path)], "--from"),  # was LIBRARY, a name the user never typed
        (["compile", "--reproduce", str(path), str(library)], "--reproduce"),
    ):
        code, output = run(*args)
        assert (code, output) == (1, f"tvmc: error: {source}: {said}\n"), args


def test_tune_names_the_input_at_fault_as_compile_does(tmp_path: Path) -> None:
    """The tuning child's tvmc error reached the user as `tune: --input-shapes: …; run with --verbose
    for TVM's output` (located at `tune`, and a hint about TVM's output for an error of tvmc's own)."""
    pytest.importorskip("tvm")
    model = str(Path(__file__).resolve().parents[2] / "models" / "mlp.onnx")
    shapes = ["--target", "llvm", "--input-shapes", "z:[1]"]
    said = "tvmc: error: --input-shapes: the model has no input 'z' (inputs: x)\n"
    assert run("compile", model, *shapes, "-o", str(tmp_path / "m.so")) == (1, said)
    assert run("tune", model, *shapes, "--database", str(tmp_path / "db")) == (1, said)


def test_a_database_that_is_a_file_is_refused_alike_by_every_command(tmp_path: Path) -> None:
    """`--database FILE`: `tune` failed on `FILE/<fingerprint>/.lock: Not a directory` (exit 1),
    `compile` warned once per file it could not read and built (exit 0), `tune db` refused it (2)."""
    pytest.importorskip("tvm")
    model = str(Path(__file__).resolve().parents[2] / "models" / "mlp.onnx")
    database = tmp_path / "db.toml"
    database.write_text("not a database\n", encoding="utf-8")
    said = f"tvmc: error: --database: {database} is not a directory (a tuning database is one)\n"
    build = [model, "--target", "llvm", "--input-shapes", "x:[1,8]", "--database", str(database)]
    for args in (
        ["compile", *build, "-o", str(tmp_path / "m.so")],
        ["tune", *build, "--trials", "1"],
        ["tune", "db", "list", "--database", str(database)],
        ["tune", "db", "show", "0123456789abcdef", "--database", str(database)],
    ):
        assert run(*args) == (2, said), args
    assert not (tmp_path / "m.so").exists()


def test_a_trial_count_below_one_is_refused_by_the_parser_in_compile_as_in_tune() -> None:
    """`compile --tune 0` said `--tune: --tune 0: give a number of trials per task, 1 or more` (the
    flag twice) where `tune --trials-per-task 0` is the parser's range error: one range, declared."""
    for args, flag, command in (
        (["compile", "m.onnx", "--tune", "0"], "--tune", "compile"),
        (["tune", "m.onnx", "--trials-per-task", "0"], "--trials-per-task", "tune"),
    ):
        assert run(*args) == (
            2,
            f"tvmc: error: Invalid value for '{flag}': 0 is not in the range x>=1; see tvmc {command} --help\n",
        )
