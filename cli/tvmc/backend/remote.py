"""A device of TVM's RPC tracker, for `tvmc run` and `tvmc tune` (`--rpc-tracker HOST:PORT --rpc-key
KEY`), asked for within `--rpc-timeout` seconds (issue 27).

TVM's own client waits as long as it takes: an unreachable tracker is retried for a minute with a
warning every 5 s, a key no server registered is waited for forever (the request queues until one
does), a tracker that accepts the connection but does not answer hangs the read. So tvmc first asks
the tracker itself (its protocol is a magic number, then length-prefixed JSON: no TVM needed, so
`tvm tune` asks before starting its child) for the keys it knows, each socket operation bounded by
the timeout; then TVM's request runs with that timeout on its sockets and no retries.
"""

from __future__ import annotations

import json
import socket
import struct
from collections.abc import Mapping
from typing import Any

from tvmc.errors import BuildError, UsageError

DEFAULT_TIMEOUT = 60.0  # seconds: a busy device has this long to become free
TRACKER_MAGIC = 0x2F271  # tvm.rpc.base.RPC_TRACKER_MAGIC
SUCCESS, SUMMARY = 0, 6  # tvm.rpc.base.TrackerCode
MAX_REPLY = 64 * 1024 * 1024  # a summary is kilobytes: a larger length is not a tracker talking

LONGER = "--rpc-timeout SECONDS waits longer"
Remote = tuple[str, int, str]  # tracker host, port, device key


def check_timeout(timeout: float) -> float:
    if not timeout > 0 or timeout > 86400:
        raise UsageError(f"--rpc-timeout {timeout:g}: give seconds, more than 0 and at most a day", "--rpc-timeout")
    return float(timeout)


def tracker_keys(summary: Mapping[str, Any]) -> set[str]:
    """The device keys a tracker's summary knows: its servers' (`server:KEY`) and those queued for."""
    servers = summary.get("server_info") or []
    keys = {str(s.get("key", "")).split(":", 1)[-1] for s in servers if isinstance(s, Mapping)}
    queued = summary.get("queue_info") or {}
    return {k for k in keys | {str(q) for q in queued} if k}


def _receive(sock: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 16))
        if not chunk:
            raise ConnectionError("the connection was closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def summary(host: str, port: int, timeout: float) -> dict[str, Any]:
    """The tracker's summary (its servers and queues), each socket operation within `timeout`.
    BuildError, one line, when it cannot be reached, does not answer, or is not a tracker."""
    where = f"--rpc-tracker {host}:{port}"
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(struct.pack("<i", TRACKER_MAGIC))
            if struct.unpack("<i", _receive(sock, 4))[0] != TRACKER_MAGIC:
                raise BuildError(f"{host}:{port} is not a TVM RPC tracker (it answered otherwise)", where)
            request = json.dumps([SUMMARY]).encode()
            sock.sendall(struct.pack("<i", len(request)) + request)
            (size,) = struct.unpack("<i", _receive(sock, 4))
            if not 0 < size <= MAX_REPLY:
                raise BuildError(f"{host}:{port} is not a TVM RPC tracker (a reply of {size} bytes)", where)
            reply = json.loads(_receive(sock, size))
    except TimeoutError:
        raise BuildError(
            f"the RPC tracker at {host}:{port} did not answer within {timeout:g} s",
            where,
            hint="--rpc-timeout SECONDS waits longer",
        ) from None
    except (OSError, ValueError) as err:
        reason = getattr(err, "strerror", None) or str(err) or type(err).__name__
        raise BuildError(f"cannot reach the RPC tracker at {host}:{port}: {reason}", where) from None
    if not (isinstance(reply, list) and len(reply) == 2 and reply[0] == SUCCESS and isinstance(reply[1], dict)):
        raise BuildError(f"{host}:{port} is not a TVM RPC tracker (its summary is not one)", where)
    return reply[1]


def check_device(remote: Remote, timeout: float) -> None:
    """The tracker answers and knows the key: else a one-line BuildError (TVM would wait forever)."""
    host, port, key = remote
    keys = tracker_keys(summary(host, port, timeout))
    if key not in keys:
        listed = ", ".join(sorted(keys)) or "none"
        raise BuildError(f"the tracker has no device with key {key!r} (its keys: {listed})", "--rpc-key")


def session(tvm: Any, remote: Remote, timeout: float, session_timeout: float = 120) -> Any:
    """A session on a device of the tracker (TVM's `tracker.request`), or a one-line BuildError
    when the tracker does not give one within `timeout` seconds (its devices all busy)."""
    from tvmc.backend.runner import short

    check_device(remote, timeout)
    host, port, key = remote
    where = f"--rpc-tracker {host}:{port}"
    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(timeout)  # TVM's tracker client makes its sockets with socket.socket()
    try:
        tracker = tvm.rpc.connect_tracker(host, port)
        try:
            return tracker.request(key, priority=1, session_timeout=session_timeout, max_retry=1)
        finally:
            tracker.close()
    except Exception as err:  # TVM raises its own error types, and socket errors (a timeout among them)
        if isinstance(err, TimeoutError) or isinstance(err.__context__, TimeoutError) or "timed out" in str(err):
            raise BuildError(
                f"no {key!r} device became free within {timeout:g} s (the tracker's devices are busy)",
                where,
                hint=LONGER,
            ) from None
        raise BuildError(f"cannot get a {key!r} device from the tracker: {short(err)}", where) from None
    finally:
        socket.setdefaulttimeout(previous)
