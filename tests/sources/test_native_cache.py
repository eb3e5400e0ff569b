"""The `host/native` cache (issue 27, point 9): keyed by what LLVM reports for the CPU (its name and
features), never by the host name or the CPU's marketing name; a cache file is only a cache — one
that is not this user's or that others could write is ignored, only the keys detection writes are
read from it, and a corrupt one (or one detected on another CPU) is detected again with a note.

LLVM and detection are stood in for (`ask_llvm`, `detect.detect`), so these run without TVM and
can play two CPUs on one machine."""

from __future__ import annotations

import os
import platform
import stat
from pathlib import Path
from typing import Any

import pytest
from tvmc import api
from tvmc.sources import detect, native

_EPYC = (
    "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: {}\nmodel\t\t: {}\n"
    + "model name\t: AMD EPYC\nflags\t\t: {}\n"
)
ZEN3 = _EPYC.format(25, 1, "sse avx2")
ZEN5 = _EPYC.format(26, 2, "sse avx2 avx512f")
LLVM = {
    ZEN3: native.Identity("x86_64-linux-gnu", "znver3", ("+avx2", "+sse")),
    ZEN5: native.Identity("x86_64-linux-gnu", "znver5", ("+avx2", "+avx512f", "+sse")),
}


class Machine:
    """One CPU as the kernel and LLVM describe it; counts how often LLVM is asked and detection runs."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        self.monkeypatch, self.tmp_path = monkeypatch, tmp_path
        self.asked = self.detected = 0
        self.cpuinfo = tmp_path / "cpuinfo"
        monkeypatch.setattr(native, "CPUINFO", str(self.cpuinfo))
        monkeypatch.setattr(native, "_tvm_version", lambda: "0.27.0")
        monkeypatch.setattr(native, "ask_llvm", self._ask)
        monkeypatch.setattr(detect, "detect", self._detect)
        monkeypatch.setattr(platform, "node", lambda: "same-name")
        self.notes: list[str] = []
        monkeypatch.setattr(native, "on_note", self.notes.append)
        self.be(ZEN3)

    def be(self, cpuinfo: str) -> None:
        self.cpuinfo.write_text(cpuinfo)

    def _llvm(self) -> native.Identity:
        return LLVM[self.cpuinfo.read_text()]

    def _ask(self) -> native.Identity:
        self.asked += 1
        return self._llvm()

    def _detect(self) -> detect.Detected:
        self.detected += 1
        cpu = self._llvm()
        host = {"kind": "llvm", "mtriple": cpu.triple, "mcpu": cpu.cpu, "num-cores": 2}
        return detect.Detected({"description": f"Detected: {cpu.cpu}", "targets": [host]}, ("test",))

    def resolve(self) -> dict[str, Any]:
        return api.resolve(["host/native"], [], env={}).config.to_dict()

    def cache(self) -> Path:
        return native.cache_path()


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Machine:
    return Machine(monkeypatch, tmp_path)


def _mcpu(config: dict[str, Any]) -> str:
    return str(config["targets"][-1]["mcpu"])


def test_two_amd_epyc_cpus_do_not_share_a_cache(machine: Machine) -> None:
    assert _mcpu(machine.resolve()) == "znver3"
    zen3_cache = machine.cache()
    machine.be(ZEN5)  # same host name, same marketing name, another CPU
    assert machine.cache() != zen3_cache
    assert _mcpu(machine.resolve()) == "znver5" and machine.detected == 2
    machine.be(ZEN3)
    assert _mcpu(machine.resolve()) == "znver3" and machine.detected == 2  # each CPU's cache is kept


def test_the_key_is_what_llvm_reports_not_the_host_name(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    key = native.machine_key()
    monkeypatch.setattr(platform, "node", lambda: "renamed")
    assert native.machine_key() == key
    # The same CPU name with another feature set (another LLVM, a masked feature) is another key.
    monkeypatch.setitem(LLVM, ZEN3, native.Identity("x86_64-linux-gnu", "znver3", ("+sse",)))
    monkeypatch.setattr(native, "cpu_fingerprint", lambda: None)  # no memo: LLVM is asked
    assert native.machine_key() != key


def test_llvm_is_asked_once_per_cpu_and_tvm_version(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    machine.resolve()
    machine.resolve()
    native.cache_path(ask=False)
    assert machine.asked == 1 and machine.detected == 1
    monkeypatch.setattr(native, "_tvm_version", lambda: "0.28.0")  # another TVM: asked again, detected again
    machine.resolve()
    assert machine.asked == 2 and machine.detected == 2


def test_without_tvm_no_cache_of_another_cpu_is_reused(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    machine.resolve()
    detected_here = machine.cache()
    assert native.cache_path(ask=False) == detected_here  # remembered: found without asking LLVM
    machine.be(ZEN5)
    monkeypatch.setattr(native, "ask_llvm", lambda: (_ for _ in ()).throw(detect.deps.missing_error([], "x")))
    monkeypatch.setattr(detect, "detect", lambda: (_ for _ in ()).throw(AssertionError("needs TVM")))
    assert native.identity() is None
    assert native.cache_path() != detected_here
    assert not native.cache_path().exists()


def test_a_planted_cache_runs_nothing_and_only_detected_keys_are_read(machine: Machine) -> None:
    machine.cache().parent.mkdir(parents=True, exist_ok=True)
    machine.cache().write_text(
        'extends = ["/etc/evil.toml"]\ncross-compiler = "/tmp/evil.sh"\ndescription = "mine"\n'
        'targets = [{ kind = "llvm", mtriple = "x86_64-linux-gnu", mcpu = "znver3" }]\n'
        '[pass-config]\n"tir.disable_vectorize" = true\n'
    )
    machine.cache().chmod(0o644)
    config = machine.resolve()
    assert machine.detected == 0 and config["description"] == "mine"
    assert "cross-compiler" not in config and "disable_vectorize" not in str(config)
    assert machine.notes == []


@pytest.mark.parametrize("mode", [0o664, 0o646])
def test_a_cache_others_can_write_is_ignored(machine: Machine, mode: int) -> None:
    _plant(machine, mode)
    config = machine.resolve()
    assert machine.detected == 1 and "cross-compiler" not in config and config["description"] == "Detected: znver3"
    (note,) = machine.notes
    assert str(machine.cache()) in note and "writable by others" in note
    assert stat.S_IMODE(machine.cache().stat().st_mode) == 0o644  # rewritten as the user's alone


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another uid needs root")
def test_another_users_cache_is_ignored(machine: Machine) -> None:
    _plant(machine, 0o644)
    os.chown(machine.cache(), 65534, 65534)
    config = machine.resolve()
    assert machine.detected == 1 and "cross-compiler" not in config
    (note,) = machine.notes
    assert str(machine.cache()) in note and "another user (uid 65534)" in note
    assert machine.cache().stat().st_uid == os.geteuid()


def _plant(machine: Machine, mode: int) -> None:
    path = machine.cache()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        'cross-compiler = "/tmp/evil.sh"\ndescription = "planted"\n'
        'targets = [{ kind = "llvm", mtriple = "x86_64-linux-gnu", mcpu = "znver3" }]\n'
    )
    path.chmod(mode)


@pytest.mark.parametrize("text", ["targets = [", "\xff\xfe", 'targets = "llvm"\n', ""])
def test_a_corrupt_cache_is_detected_again_with_a_note(machine: Machine, text: str) -> None:
    path = machine.cache()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("latin-1"))
    path.chmod(0o644)
    assert _mcpu(machine.resolve()) == "znver3" and machine.detected == 1
    (note,) = machine.notes
    assert str(path) in note and "detecting this machine again" in note and "\n" not in note
    assert _mcpu(machine.resolve()) == "znver3" and machine.detected == 1  # rewritten: read from now on


def test_a_cache_detected_on_another_cpu_is_detected_again(machine: Machine) -> None:
    path = machine.cache()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('targets = [{ kind = "llvm", mtriple = "x86_64-linux-gnu", mcpu = "znver5" }]\n')
    path.chmod(0o644)
    assert _mcpu(machine.resolve()) == "znver3" and machine.detected == 1
    assert "another CPU ('znver5', not 'znver3')" in machine.notes[0]


def test_a_planted_memo_is_not_believed(machine: Machine) -> None:
    """The remembered LLVM answer is a cache too: another user's, or one others could write, is
    ignored and LLVM asked again."""
    machine.resolve()
    (memo,) = machine.cache().parent.glob("cpu-*.json")
    memo.chmod(0o666)
    machine.resolve()
    assert machine.asked == 2 and stat.S_IMODE(memo.stat().st_mode) == 0o644


def test_the_note_goes_to_stderr_as_one_line(
    machine: Machine, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(native, "on_note", native._stderr_note)
    path = machine.cache()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("targets = [")
    path.chmod(0o644)
    machine.resolve()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tvmc: note: the host/native cache ") and str(path) in err


def test_the_kernel_fingerprint_ignores_the_marketing_name(machine: Machine) -> None:
    first = native.cpu_fingerprint()
    machine.be(ZEN3.replace("AMD EPYC", "AMD EPYC 7763 64-Core Processor"))
    assert native.cpu_fingerprint() == first
    assert first is not None and "cpu family=25" in first


def test_a_broken_tvm_identifies_nothing_rather_than_crash(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native, "ask_llvm", lambda: (_ for _ in ()).throw(RuntimeError("libtvm.so: bad ELF")))
    assert native.identity() is None
    assert native.cache_path().name.startswith("native-")


def test_a_cache_that_cannot_be_written_is_a_note(
    machine: Machine, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The cache only saves the next detection: where it cannot be written (a cache directory under
    a file, a read-only HOME), host/native still resolves, with a note; the OSError escaped, and the
    CLI reported it as "cannot write the output"."""
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker / "cache"))
    assert _mcpu(machine.resolve()) == "znver3"
    assert _mcpu(machine.resolve()) == "znver3" and machine.detected == 2  # nothing cached: detected again
    assert any(n.startswith("cannot write the host/native cache ") for n in machine.notes)
