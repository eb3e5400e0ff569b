"""`tvmc lsp` end to end: pygls's own LSP client drives `python -m tvmc lsp` over stdio through
initialize, didOpen, publishDiagnostics, completion, hover, definition, codeAction, didChange,
shutdown and exit."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lspclient import session, uri
from lsprotocol import types as lsp

BASE = """\
[[targets]]
kind = "llvm"
mtriple = "x86_64-linux-gnu"
mcpu = "skylake"

[build]
output-format = "tar"
"""

CHILD = """\
extends = ["base"]
opt-level = 2

[build]
module-name = "m"
"""


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.split("\n")) if needle in line)


def test_a_session_in_an_editor(cfgdir: Path) -> None:
    base = cfgdir / "base.toml"
    child = cfgdir / "child.toml"
    base.write_text(BASE, encoding="utf-8")
    child.write_text(CHILD, encoding="utf-8")

    async def scenario() -> None:
        async with session(cfgdir) as s:
            assert await s.open(child) == []
            child_seen = s.count(child)
            assert await s.open(base) == []
            # Opening a parent validates the open files that extend it again (the editor's text may
            # not be the one on disk): the child's publication follows the base's, so it is awaited
            # before the child's publications are counted again below.
            assert await s.diagnostics(child, child_seen) == []

            # A typo in the base, not yet saved: both the base and the child that extends it say so.
            child_seen = s.count(child)
            broken = BASE.replace('"skylake"', '"skylak"')
            base_seen = s.count(base)
            s.change(base, broken)
            found = await s.diagnostics(base, base_seen)
            assert [(d.code, d.severity) for d in found] == [("unknown-cpu", lsp.DiagnosticSeverity.Error)]
            typo = found[0]
            assert typo.source == "tvmc"
            mcpu = line_of(broken, "mcpu")
            column = broken.split("\n")[mcpu].index("skylak")
            assert (typo.range.start.line, typo.range.start.character) == (mcpu, column)
            assert typo.range.end.character == column + len("skylak")
            inherited = await s.diagnostics(child, child_seen)
            assert [d.code for d in inherited] == ["unknown-cpu"]
            assert inherited[0].range.start.line == 0  # at the child's `extends`
            assert "base.toml" in inherited[0].message

            # The did-you-mean is a quick fix that replaces the misspelt name.
            actions = await s.request(
                "text_document_code_action_async",
                lsp.CodeActionParams(
                    text_document=lsp.TextDocumentIdentifier(uri=uri(base)),
                    range=typo.range,
                    context=lsp.CodeActionContext(diagnostics=[typo]),
                ),
            )
            assert len(actions) == 1 and actions[0].kind == lsp.CodeActionKind.QuickFix
            (edit,) = actions[0].edit.changes[uri(base)]
            assert edit.new_text == "skylake" and edit.range == typo.range

            # Fixed: both clean again.
            base_seen, child_seen = s.count(base), s.count(child)
            s.change(base, BASE)
            assert await s.diagnostics(base, base_seen) == []
            assert await s.diagnostics(child, child_seen) == []

            # Completion: CPU names of the target's triple, keys of the kind, build keys, names in extends.
            cpus = await s.completion(base, mcpu, BASE.split("\n")[mcpu].index('"') + 1)
            assert {"skylake-avx512", "znver3"} <= set(cpus)
            assert "cortex-a72" not in cpus  # an aarch64 CPU, not x86_64's
            with_key = BASE.replace('mcpu = "skylake"', 'mcpu = "skylake"\nm')
            base_seen, child_seen = s.count(base), s.count(child)
            s.change(base, with_key)
            keys = await s.completion(base, mcpu + 1, 1)
            assert {"mattr", "mtriple", "mabi"} <= set(keys) and "kind" not in keys
            s.change(base, BASE)
            # Each change published for the base and the child: the second ones say all is well again.
            assert await s.diagnostics(base, base_seen + 1) == []
            assert await s.diagnostics(child, child_seen + 1) == []
            # On the empty line after the last line break (past the lines the client's text has).
            at_end = await s.completion(child, len(CHILD.split("\n")) - 1, 0)
            assert {"output-format", "cross-compiler"} <= set(at_end)
            extends = await s.completion(child, 0, len('extends = ["'))
            assert "base" in extends and "child" not in extends

            # Hover: the option's type and description, the value as it resolves and where it is set.
            shown = await s.hover(base, mcpu, 1)
            assert shown is not None
            assert "**mcpu**: `str`" in shown and "llc -mcpu" in shown
            assert 'Resolves to `"skylake"`' in shown and "base.toml:4" in shown
            level = await s.hover(child, 1, 2)
            assert level is not None and "Default: `3`" in level and "Resolves to `2`" in level
            assert "child.toml:2" in level

            named = await s.hover(child, 0, len('extends = ["b'))
            assert named is not None and str(base) in named

            # Go to definition: an extends entry is the file; an inherited value is where it was set.
            (target,) = await s.definition(child, 0, len('extends = ["b'))
            assert target.uri == uri(base)
            places = await s.definition(child, line_of(CHILD, "[build]"), 2)
            assert [(p.uri, p.range.start.line) for p in places] == [(uri(base), line_of(BASE, "output-format"))]

            # Closing the base: the child reads it from disk again (where it is still valid), and a
            # change saved by another program is seen at the next validation.
            base_seen, child_seen = s.count(base), s.count(child)
            s.change(base, BASE.replace('"skylake"', '"skylak"'))
            await s.diagnostics(base, base_seen)
            assert [d.code for d in await s.diagnostics(child, child_seen)] == ["unknown-cpu"]
            child_seen = s.count(child)
            s.client.text_document_did_close(
                lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri(base)))
            )
            assert await s.diagnostics(child, child_seen) == []
            base.write_text(BASE.replace("mcpu", "mcpux"), encoding="utf-8")
            os.utime(base, ns=(1, 1))  # another modification time than the one read, however fast
            child_seen = s.count(child)
            s.change(child, CHILD + "\n")
            assert [d.code for d in await s.diagnostics(child, child_seen)] == ["unknown-option"]

    asyncio.run(scenario())


def test_json_config(cfgdir: Path) -> None:
    config = cfgdir / "gpu.json"
    text = '{\n  "targets": [{"kind": "cuda", "arch": "sm_8"}],\n  "executor": {"kind": "vm"}\n}\n'
    config.write_text(text, encoding="utf-8")

    async def scenario() -> None:
        async with session(cfgdir) as s:
            found = await s.open(config)
            assert [d.code for d in found] == ["unknown-cpu"]
            assert found[0].data == {"suggestion": "sm_89"}
            arches = await s.completion(config, 1, text.split("\n")[1].index("sm_8"))
            assert {"sm_80", "sm_90"} <= set(arches)
            kinds = await s.completion(config, 2, text.split("\n")[2].index("vm"))
            assert {"graph", "vm", "aot"} <= set(kinds)
            # Half-typed: a syntax error where the parser stopped, and completion still answers.
            seen = s.count(config)
            typing = text.replace('"sm_8"}]', '"sm_8"}, {"kind": "')
            s.change(config, typing)
            assert [d.code for d in await s.diagnostics(config, seen)] == ["syntax"]
            where = typing.split("\n")[1].rindex('"') + 1  # inside the string just opened
            assert "llvm" in await s.completion(config, 1, where)

    asyncio.run(scenario())


def test_without_pygls_one_line_and_exit_1(tmp_path: Path) -> None:
    blocker = tmp_path / "block"
    blocker.mkdir()
    # A meta path finder that refuses pygls, as if it were not installed.
    (blocker / "sitecustomize.py").write_text(
        "import sys\n"
        "class _NoPygls:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('pygls', 'lsprotocol'):\n"
        "            raise ModuleNotFoundError(name, name=name)\n"
        "        return None\n"
        "sys.meta_path.insert(0, _NoPygls())\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(blocker)}
    done = subprocess.run(
        [sys.executable, "-m", "tvmc", "lsp"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == "tvmc: error: tvmc lsp needs the pygls package (with lsprotocol): pip install 'tvmc[lsp]'\n"


def test_files_that_are_not_configs_are_left_alone(tmp_path: Path, cfgdir: Path) -> None:
    # An editor starts the server for every TOML/JSON file; pyproject.toml is none of tvmc's business.
    project = tmp_path / "project"
    project.mkdir()
    pyproject = project / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\n', encoding="utf-8")
    package = project / "package.json"
    package.write_text('{"name": "x", "version": "1.0.0"}\n', encoding="utf-8")
    # The same kind of file is a config when it says what configs say.
    config = project / "gpu.toml"
    config.write_text('[[targets]]\nkind = "cudax"\n', encoding="utf-8")

    async def scenario() -> None:
        async with session(project) as s:
            assert await s.open(pyproject) == []
            assert await s.completion(pyproject, 1, 0) == []
            assert await s.hover(pyproject, 1, 1) is None
            assert await s.open(package) == []
            assert [d.code for d in await s.open(config)] == ["unknown-kind"]

    asyncio.run(scenario())


def test_tcp_serves_one_client(cfgdir: Path) -> None:
    import socket

    with socket.socket() as probe:  # a free port
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "tvmc", "lsp", "--tcp", f"127.0.0.1:{port}"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )

    async def scenario() -> None:
        from pygls.lsp.client import LanguageClient

        client = LanguageClient("tvmc-tests", "1")
        for _ in range(600):  # the server takes a moment to listen
            try:
                await client.start_tcp("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.1)
        result = await asyncio.wait_for(
            client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities())), 60
        )
        assert result.server_info is not None and result.server_info.name == "tvmc"
        assert result.capabilities.hover_provider and result.capabilities.definition_provider
        await asyncio.wait_for(client.shutdown_async(None), 60)
        client.exit(None)
        await asyncio.wait_for(client.stop(), 60)

    try:
        asyncio.run(scenario())
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        assert server.stderr is not None
        server.stderr.close()


@pytest.mark.parametrize("address", ["x", "127.0.0.1:0", "host:99999", ":"])
def test_a_bad_tcp_address_is_a_usage_error(address: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tvmc", "lsp", "--tcp", address],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "--tcp" in done.stderr and "Traceback" not in done.stderr
