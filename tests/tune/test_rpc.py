"""Integration: remote measurement through TVM's RPC tracker. A tracker and an RPC server are started
on 127.0.0.1 (free ports in a bounded range, stopped at the end); `tvmc tune --rpc-tracker/--rpc-key`
measures the MLP through them and `tvmc run --rpc-tracker/--rpc-key --check` runs the result there."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from testkit import cli_env

pytestmark = pytest.mark.tvm
tvm = pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -e '.[tvm]')")
pytest.importorskip("tornado", reason="TVM's RPC tracker needs tornado (pip install -e '.[tvm]')")

ROOT = Path(__file__).resolve().parents[2]
KEY = "tvmc-test"
PORTS = range(19190, 19390)  # the range searched for free ports


def free_port(exclude: set[int]) -> int:
    for port in PORTS:
        if port in exclude:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    pytest.fail(f"no free port in {PORTS.start}-{PORTS.stop - 1}")


def ends(port: int) -> list[str]:
    return ["--port-end", str(port + 1), "--silent"]


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def summary(port: int) -> str:
    """TVM's own query of the tracker, in a child (TVM's client leaks sockets when it retries)."""
    query = [sys.executable, "-m", "tvm.exec.query_rpc_tracker", "--host", "127.0.0.1", "--port", str(port)]
    return subprocess.run(query, capture_output=True, text=True, timeout=60).stdout


def stop(proc: subprocess.Popen[bytes]) -> None:
    """End a tracker or server and what it started: TVM runs each in a popen worker of its own, which
    outlives a parent that is only terminated. They were started in a session of their own (their
    own process group), so the whole group goes."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:  # the group's other members (the popen worker)
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)


def said(log: Path, proc: subprocess.Popen[bytes]) -> str:
    """What a helper process printed, for a failure message (its exit status if it ended)."""
    state = "running" if proc.poll() is None else f"exit status {proc.returncode}"
    text = log.read_text("utf-8", "replace").strip() if log.exists() else ""
    return f"({state}) {text[-3000:] or 'no output'}"


@pytest.fixture(scope="module")
def tracker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    tracker_port = free_port(set())
    server_port = free_port({tracker_port})
    python = [sys.executable, "-m"]
    logs = tmp_path_factory.mktemp("rpc")
    tracker_log, server_log = logs / "tracker.log", logs / "server.log"
    with tracker_log.open("wb") as sink:
        procs = [
            subprocess.Popen(
                [
                    *python,
                    "tvm.exec.rpc_tracker",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(tracker_port),
                    *ends(tracker_port),
                ],
                stdout=subprocess.DEVNULL,
                stderr=sink,
                start_new_session=True,
            )
        ]
    try:
        deadline = time.monotonic() + 60
        while True:
            if listening(tracker_port):
                break
            assert procs[0].poll() is None and time.monotonic() < deadline, (
                f"the RPC tracker did not start: {said(tracker_log, procs[0])}"
            )
            time.sleep(0.5)
        with server_log.open("wb") as sink:
            procs.append(
                subprocess.Popen(
                    [
                        *python,
                        "tvm.exec.rpc_server",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        str(server_port),
                        *ends(server_port),
                        "--tracker",
                        f"127.0.0.1:{tracker_port}",
                        "--key",
                        KEY,
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=sink,
                    start_new_session=True,
                )
            )
        while True:
            info = summary(tracker_port)
            if KEY in info:
                break
            assert procs[1].poll() is None and time.monotonic() < deadline, (
                f"the RPC server did not register: {info}; server: {said(server_log, procs[1])}; "
                f"tracker: {said(tracker_log, procs[0])}"
            )
            time.sleep(0.5)
        yield "127.0.0.1", tracker_port
    finally:
        for proc in reversed(procs):
            stop(proc)


def tvmc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tvmc", *args], env=cli_env(), capture_output=True, text=True, timeout=600
    )


def test_tune_and_run_through_the_tracker(tracker: tuple[str, int], tmp_path: Path) -> None:
    host, port = tracker
    remote = ["--rpc-tracker", f"{host}:{port}", "--rpc-key", KEY]
    model = ROOT / "models" / "mlp.onnx"
    common = [str(model), "--config", "host/native", "--input-shapes", "x:[1,8]", "--database", str(tmp_path)]
    tuned = tvmc("tune", *common, "--trials", "2", "-j", "1", *remote)
    assert tuned.returncode == 0, tuned.stdout + tuned.stderr
    # and each task's untuned kernel, measured through the tracker too, as its baseline record
    assert "2 candidates measured, 4 new records" in tuned.stdout
    assert "  end to end  measured on the board" in tuned.stdout
    lib = tmp_path / "mlp.so"
    built = tvmc("compile", *common, "-o", str(lib))
    assert built.returncode == 0 and "kernels from tuning records" in built.stdout, built.stderr
    ran = tvmc("run", str(lib), "--check", str(model), *remote)
    assert ran.returncode == 0 and ": ok" in ran.stdout, ran.stdout + ran.stderr


def two_outputs(path: Path) -> Path:
    """y = relu(x), z = -x: a model with two outputs (a tuple the remote VM returns as one object)."""
    import onnx

    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Relu", ["x"], ["y"]), onnx.helper.make_node("Neg", ["x"], ["z"])],
        "two",
        [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3])],
        [
            onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 3]),
            onnx.helper.make_tensor_value_info("z", onnx.TensorProto.FLOAT, [2, 3]),
        ],
    )
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)]), str(path))
    return path


def test_run_over_rpc_holds(tracker: tuple[str, int], tmp_path: Path) -> None:
    """Issue 27: a multi-output model runs remotely; --profile is refused before anything runs; an
    unknown key and an unreachable tracker are one line each, without waiting or retry warnings."""
    host, port = tracker
    model = two_outputs(tmp_path / "two.onnx")
    lib = tmp_path / "two.so"
    built = tvmc("compile", str(model), "--config", "host/native", "-o", str(lib))
    assert built.returncode == 0, built.stderr
    remote = ["--rpc-tracker", f"{host}:{port}", "--rpc-key", KEY]
    ran = tvmc("run", str(lib), "--check", str(model), *remote)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.splitlines()[:2] == ["y: shape (2, 3) float32", "z: shape (2, 3) float32"]
    assert "check y: " in ran.stdout and "check z: " in ran.stdout
    profiled = tvmc("run", str(lib), "--profile", *remote)
    assert profiled.returncode == 2 and "--profile: " in profiled.stderr and "cannot run over RPC" in profiled.stderr
    started = time.monotonic()
    unknown = tvmc("run", str(lib), "--rpc-tracker", f"{host}:{port}", "--rpc-key", "no-such-device")
    assert unknown.returncode == 1
    assert unknown.stderr == (
        f"tvmc: error: --rpc-key: the tracker has no device with key 'no-such-device' (its keys: {KEY})\n"
    )
    closed = free_port({port})
    unreachable = tvmc("run", str(lib), "--rpc-tracker", f"127.0.0.1:{closed}", "--rpc-key", KEY)
    assert unreachable.returncode == 1
    assert unreachable.stderr.startswith(f"tvmc: error: --rpc-tracker 127.0.0.1:{closed}: cannot reach the RPC tracker")
    assert len(unreachable.stderr.splitlines()) == 1
    assert time.monotonic() - started < 60  # neither waited for TVM's retries


@contextlib.contextmanager
def silent_listener() -> Iterator[int]:
    """A port that accepts connections and never answers: a tracker that hangs (or another service)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock.getsockname()[1]


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tvmc: error: "), result.stderr  # no TVM retry warnings
    return lines[0]


def test_tune_refuses_an_unknown_key_and_an_unreachable_tracker_at_once(
    tracker: tuple[str, int], tmp_path: Path
) -> None:
    """Issue 27: MetaSchedule's runner would wait forever for a key no server registered; tvmc asks
    the tracker first (no TVM retry warnings, no tuning child started)."""
    host, port = tracker
    tune = ["tune", str(ROOT / "models" / "mlp.onnx"), "--config", "host/native", "--input-shapes", "x:[1,8]"]
    tune += ["--database", str(tmp_path / "db"), "--trials", "2", "--rpc-timeout", "5"]
    started = time.monotonic()
    unknown = tvmc(*tune, "--rpc-tracker", f"{host}:{port}", "--rpc-key", "no-such-device")
    assert one_error_line(unknown) == (
        f"tvmc: error: --rpc-key: the tracker has no device with key 'no-such-device' (its keys: {KEY})"
    )
    closed = free_port({port})
    unreachable = tvmc(*tune, "--rpc-tracker", f"127.0.0.1:{closed}", "--rpc-key", KEY)
    assert one_error_line(unreachable).startswith(
        f"tvmc: error: --rpc-tracker 127.0.0.1:{closed}: cannot reach the RPC tracker at 127.0.0.1:{closed}: "
    )
    with silent_listener() as hanging:
        silent = tvmc(*tune, "--rpc-tracker", f"127.0.0.1:{hanging}", "--rpc-key", KEY)
    assert one_error_line(silent) == (
        f"tvmc: error: --rpc-tracker 127.0.0.1:{hanging}: the RPC tracker at 127.0.0.1:{hanging} did not answer "
        "within 5 s; --rpc-timeout SECONDS waits longer"
    )
    assert time.monotonic() - started < 60
    assert not (tmp_path / "db").exists() or not any((tmp_path / "db").rglob("tvmc-run-*"))  # no child ran


def test_run_waits_at_most_the_rpc_timeout(tracker: tuple[str, int], tmp_path: Path) -> None:
    """A tracker that accepts and never answers, and a key whose one device is taken: `run` gives up
    after --rpc-timeout with one line (it waited forever for a device before)."""
    host, port = tracker
    model = two_outputs(tmp_path / "two.onnx")
    lib = tmp_path / "two.so"
    assert tvmc("compile", str(model), "--config", "host/native", "-o", str(lib)).returncode == 0
    with silent_listener() as hanging:
        started = time.monotonic()
        silent = tvmc("run", str(lib), "--rpc-tracker", f"127.0.0.1:{hanging}", "--rpc-key", KEY, "--rpc-timeout", "2")
        assert time.monotonic() - started < 30
    assert one_error_line(silent).endswith("did not answer within 2 s; --rpc-timeout SECONDS waits longer")
    bad = tvmc("run", str(lib), "--rpc-tracker", f"{host}:{port}", "--rpc-key", KEY, "--rpc-timeout", "0")
    assert bad.returncode == 2 and "--rpc-timeout 0: give seconds" in bad.stderr
    taken = tvm.rpc.connect_tracker(host, port).request(KEY, session_timeout=60)  # the one device, held
    try:
        started = time.monotonic()
        busy = tvmc("run", str(lib), "--rpc-tracker", f"{host}:{port}", "--rpc-key", KEY, "--rpc-timeout", "3")
        assert time.monotonic() - started < 40
    finally:
        del taken
    assert one_error_line(busy) == (
        f"tvmc: error: --rpc-tracker {host}:{port}: no '{KEY}' device became free within 3 s "
        "(the tracker's devices are busy); --rpc-timeout SECONDS waits longer"
    )
    deadline = time.monotonic() + 60  # the server registers again for the tests after this one
    while KEY not in summary(port) and time.monotonic() < deadline:
        time.sleep(0.5)
