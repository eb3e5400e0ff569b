"""`tvmc lsp`: start the language server for tvmc's configs (the server is `tvmc.lsp`)."""

from __future__ import annotations

from typing import Annotated

import typer

_Tcp = Annotated[
    str | None,
    typer.Option(
        "--tcp",
        metavar="[HOST:]PORT",
        help="Serve one client on a TCP port (default host 127.0.0.1) instead of standard input/output.",
        show_default=False,
    ),
]

INSTALL = "pip install 'tvmc[lsp]'"


def register(app: typer.Typer) -> None:
    app.command("lsp")(lsp_command)


def lsp_command(tcp: _Tcp = None) -> None:
    """Run the language server for tvmc's configs (diagnostics, completion, hover, definition).

    An editor starts it and speaks LSP on its standard input and output (see the README's Editor
    support for VS Code, Neovim and Helix). Exit 0 after the client's shutdown request.
    """
    address = _address(tcp) if tcp is not None else None
    try:
        from tvmc.lsp.server import serve  # lazy: pygls is an optional dependency
    except ModuleNotFoundError as err:
        package = (err.name or "").split(".")[0]
        if package not in ("pygls", "lsprotocol"):
            raise
        typer.echo(f"tvmc: error: tvmc lsp needs the pygls package (with lsprotocol): {INSTALL}", err=True)
        raise typer.Exit(1) from None
    raise typer.Exit(serve(address))


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise typer.BadParameter(f"expected [HOST:]PORT, got {text!r}", param_hint="'--tcp'")
    return host or "127.0.0.1", int(port)
