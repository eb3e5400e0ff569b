"""`tvmc lsp`: the language server (pygls), speaking LSP over stdio or TCP.

Each request is answered by `tvmc.lsp.features` from the editor's text; this module only converts
between LSP's types (URIs, UTF-16 positions) and those answers. Diagnostics are published when a
document is opened or changed, for it and for every open document that extends it.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from tvmc import __version__
from tvmc.lsp.features import Item, Place, Problem, Workspace

_SEVERITY = {"error": lsp.DiagnosticSeverity.Error, "warning": lsp.DiagnosticSeverity.Warning}
_ITEM_KIND = {
    "key": lsp.CompletionItemKind.Property,
    "value": lsp.CompletionItemKind.Value,
    "file": lsp.CompletionItemKind.File,
}
SOURCE = "tvmc"


class TvmcServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("tvmc", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.configs = Workspace()

    def lines(self, uri: str) -> list[str]:
        return list(self.workspace.get_text_document(uri).lines)

    def to_server(self, uri: str, position: lsp.Position) -> tuple[str, int, int]:
        """(path, line, code-point character) of a client position."""
        lines = self.lines(uri)
        if position.line >= len(lines):  # the empty line after the text's last line break
            return _path(uri), position.line, 0
        at = self.workspace.position_codec.position_from_client_units(lines, position)
        return _path(uri), at.line, at.character

    def to_client(self, uri: str, start: tuple[int, int], end: tuple[int, int]) -> lsp.Range:
        lines = self.lines(uri) if uri in self.workspace.text_documents else []
        server_range = lsp.Range(lsp.Position(*start), lsp.Position(*end))
        if not lines:
            return server_range
        return self.workspace.position_codec.range_to_client_units(lines, server_range)

    def sync(self, uri: str) -> None:
        document = self.workspace.get_text_document(uri)
        self.configs.open(_path(uri), document.source)

    def publish(self, uri: str) -> None:
        """Diagnostics for `uri`, then for the open files that extend it."""
        path = _path(uri)
        for target in [path, *self.configs.dependents(path)]:
            target_uri = uri if target == path else from_fs_path(target) or target
            problems = self.configs.diagnose(target)
            diagnostics = [self.diagnostic(target_uri, p) for p in problems]
            self.text_document_publish_diagnostics(
                lsp.PublishDiagnosticsParams(uri=target_uri, diagnostics=diagnostics)
            )

    def diagnostic(self, uri: str, problem: Problem) -> lsp.Diagnostic:
        related = None
        if problem.elsewhere is not None:
            file, line, char = problem.elsewhere
            where = lsp.Location(
                from_fs_path(file) or file, lsp.Range(lsp.Position(line, char), lsp.Position(line, char))
            )
            related = [lsp.DiagnosticRelatedInformation(where, problem.message)]
        return lsp.Diagnostic(
            range=self.to_client(uri, (problem.line, problem.character), (problem.end_line, problem.end_character)),
            message=problem.message,
            severity=_SEVERITY[problem.severity],
            code=problem.rule,
            source=SOURCE,
            related_information=related,
            data={"suggestion": problem.suggestion} if problem.suggestion else None,
        )


def _path(uri: str) -> str:
    return to_fs_path(uri) or uri


def _item(item: Item) -> lsp.CompletionItem:
    return lsp.CompletionItem(
        label=item.label,
        kind=_ITEM_KIND[item.kind],
        detail=item.detail or None,
        documentation=item.documentation or None,
        insert_text=item.insert,
    )


def _location(place: Place) -> lsp.Location:
    at = lsp.Position(place.line, place.character)
    return lsp.Location(from_fs_path(place.path) or place.path, lsp.Range(at, at))


def create() -> TvmcServer:
    server = TvmcServer()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: TvmcServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.sync(params.text_document.uri)
        ls.publish(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TvmcServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.sync(params.text_document.uri)
        ls.publish(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: TvmcServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.configs.saved()  # parents read from disk may have changed with it

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TvmcServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = _path(uri)
        dependents = ls.configs.dependents(path)
        ls.configs.close(path)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        for other in dependents:  # they now read the file from disk
            ls.publish(from_fs_path(other) or other)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def files_changed(ls: TvmcServer, params: lsp.DidChangeWatchedFilesParams) -> None:
        ls.configs.saved()

    @server.feature(
        lsp.TEXT_DOCUMENT_COMPLETION,
        lsp.CompletionOptions(trigger_characters=['"', "'", "=", ".", ":", "[", "+", "-", "/"]),
    )
    def completion(ls: TvmcServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        path, line, char = ls.to_server(params.text_document.uri, params.position)
        items = ls.configs.complete(path, line, char)
        return lsp.CompletionList(is_incomplete=False, items=[_item(i) for i in items])

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: TvmcServer, params: lsp.HoverParams) -> lsp.Hover | None:
        path, line, char = ls.to_server(params.text_document.uri, params.position)
        text = ls.configs.hover(path, line, char)
        if text is None:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text))

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: TvmcServer, params: lsp.DefinitionParams) -> list[lsp.Location]:
        path, line, char = ls.to_server(params.text_document.uri, params.position)
        return [_location(p) for p in ls.configs.definition(path, line, char)]

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]),
    )
    def code_action(ls: TvmcServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        actions = []
        for diagnostic in params.context.diagnostics:
            suggestion = _suggestion(diagnostic.data)
            if diagnostic.source != SOURCE or suggestion is None:
                continue
            edit = lsp.TextEdit(range=diagnostic.range, new_text=suggestion)
            actions.append(
                lsp.CodeAction(
                    title=f"Change to '{suggestion}'",
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    is_preferred=True,
                    edit=lsp.WorkspaceEdit(changes={params.text_document.uri: [edit]}),
                )
            )
        return actions

    return server


def _suggestion(data: Any) -> str | None:
    if isinstance(data, dict) and isinstance(data.get("suggestion"), str):
        return str(data["suggestion"])
    return None


def serve(tcp: tuple[str, int] | None = None) -> int:
    """Serve one client on stdio (or on a TCP port) until it exits. The exit status is LSP's: 0
    after a `shutdown` request, 1 when the client exited (or went away) without one."""
    server = create()
    if tcp is not None:
        server.start_tcp(*tcp)
    else:
        # pygls closes the stream it writes to on `exit`: give it its own descriptor, so that
        # stdout itself stays open for the interpreter's exit.
        with os.fdopen(os.dup(sys.stdout.fileno()), "wb") as stdout:
            server.start_io(sys.stdin.buffer, stdout)
    return 0 if server.protocol._shutdown else 1
