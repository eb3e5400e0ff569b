"""The real compile through TVM >= 0.25, and the plan it follows.

`plan` and `model` are pure (the emitters use them too); `runner` and `frontends` import TVM and
the model frameworks, and only `tvmc compile` without `--emit` imports them.
"""
