"""The emit stage: canonical TOML/JSON, the --origin view, and (in submodules) build invocations."""
