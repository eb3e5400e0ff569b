"""A real LSP client (pygls's own) driving `python -m tvmc lsp` over stdio, for the tests."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

TIMEOUT = 60.0  # generous: the machine is shared; a hang still fails


def uri(path: Path | str) -> str:
    found = from_fs_path(str(path))
    assert found is not None
    return found


class Session:
    """One server process and what it published."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.published: dict[str, list[list[lsp.Diagnostic]]] = {}
        self.changed = asyncio.Condition()
        self.versions: dict[str, int] = {}

        @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        async def diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
            async with self.changed:
                self.published.setdefault(params.uri, []).append(list(params.diagnostics))
                self.changed.notify_all()

    def count(self, path: Path) -> int:
        return len(self.published.get(uri(path), []))

    async def diagnostics(self, path: Path, after: int) -> list[lsp.Diagnostic]:
        """The first diagnostics published for `path` after the `after`-th. Count `after` only once
        every publication an earlier action causes has arrived (opening or changing a file publishes
        for it first, then for each open file that extends it), or this returns one of those."""
        key = uri(path)

        async def wait() -> list[lsp.Diagnostic]:
            async with self.changed:
                await self.changed.wait_for(lambda: len(self.published.get(key, [])) > after)
                return self.published[key][after]

        return await asyncio.wait_for(wait(), TIMEOUT)

    async def open(self, path: Path, text: str | None = None) -> list[lsp.Diagnostic]:
        before = self.count(path)
        body = path.read_text(encoding="utf-8") if text is None else text
        language = "json" if path.suffix == ".json" else "toml"
        self.versions[uri(path)] = 1
        self.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(
                lsp.TextDocumentItem(uri=uri(path), language_id=language, version=1, text=body)
            )
        )
        return await self.diagnostics(path, before)

    def change(self, path: Path, text: str) -> None:
        key = uri(path)
        self.versions[key] += 1
        self.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=key, version=self.versions[key]),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    async def request(self, method: str, params: Any) -> Any:
        call = getattr(self.client, method)
        return await asyncio.wait_for(call(params), TIMEOUT)

    async def completion(self, path: Path, line: int, character: int) -> list[str]:
        found = await self.request(
            "text_document_completion_async",
            lsp.CompletionParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri(path)),
                position=lsp.Position(line=line, character=character),
            ),
        )
        items = found.items if isinstance(found, lsp.CompletionList) else found or []
        return [item.label for item in items]

    async def hover(self, path: Path, line: int, character: int) -> str | None:
        found = await self.request(
            "text_document_hover_async",
            lsp.HoverParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri(path)),
                position=lsp.Position(line=line, character=character),
            ),
        )
        if found is None:
            return None
        assert isinstance(found.contents, lsp.MarkupContent)
        return str(found.contents.value)

    async def definition(self, path: Path, line: int, character: int) -> list[lsp.Location]:
        found = await self.request(
            "text_document_definition_async",
            lsp.DefinitionParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri(path)),
                position=lsp.Position(line=line, character=character),
            ),
        )
        return list(found or [])


@asynccontextmanager
async def session(cwd: Path) -> AsyncIterator[Session]:
    """`python -m tvmc lsp` started, initialized; shut down and exited (and reaped) at the end."""
    client = LanguageClient("tvmc-tests", "1")
    live = Session(client)
    await client.start_io(sys.executable, "-m", "tvmc", "lsp", cwd=str(cwd), env=dict(os.environ))
    server = client._server
    assert server is not None
    try:
        await asyncio.wait_for(
            client.initialize_async(
                lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=uri(cwd), process_id=os.getpid())
            ),
            TIMEOUT,
        )
        client.initialized(lsp.InitializedParams())
        yield live
        await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
        client.exit(None)
        await asyncio.wait_for(server.wait(), TIMEOUT)
        assert server.returncode == 0, f"the server exited with {server.returncode}"
        await asyncio.wait_for(client.stop(), TIMEOUT)
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
