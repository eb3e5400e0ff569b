"""The small integer codes of a kind's options (`registry.Kind.codes`), on which the canonicalizer's
hot loop dispatches: a type code per TVM option type, or a role code for the options the
canonicalizer consumes itself. `tvmc.targets.tables` re-exports them (`T.STR`, `T.KIND`, ...)."""

from __future__ import annotations

# Type codes. Keep the common ones small: the canonicalizer tests them in this order.
STR, INT, BOOL, STR_ARRAY, INT_ARRAY, TARGET, TARGET_ARRAY, ANY = range(8)
# Options with a role beyond their value (consumed by the canonicalizer itself).
KIND, KEYS, TAG, HOST, FROM_DEVICE = range(100, 105)
