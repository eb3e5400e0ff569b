"""tvmc: layered TVM compilation configs — load, layer, rewrite, validate, canonicalize, emit.

The public Python API lives in `tvmc.api`; this module stays import-light because every CLI
invocation (and every shell-completion keystroke) imports it.
"""

__version__ = "0.1.0"
