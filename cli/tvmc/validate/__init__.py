"""Validation of config files and resolved configs: schema, semantic rules, diagnostics, reporters.

Stages: `checks` (structural, schema-equivalent, per document), `rules` (semantic, over the resolved
tree with origins), `runner` (files → results, streamed), `reporters` (text/json/github). `schema`
generates the JSON Schema from the same `model` the checks use. Nothing here exits the process.
"""
