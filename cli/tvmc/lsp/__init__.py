"""`tvmc lsp`: the language server for tvmc's configs (the editor layer, above the API).

`context` finds what surrounds a cursor in text being typed, `features` answers diagnostics (the
one rule engine, `tvmc.validate`), completion, hover (`tvmc.api.explain`) and definitions on the
editor's text, and `server` speaks LSP (pygls, the optional `lsp` extra). Only `server` imports
pygls, so the rest works (and is tested) without it.
"""
