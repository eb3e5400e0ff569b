"""Hardening: hostile input, limits, files, determinism, start-up and scale (issue 7).

`strategies` and `properties` are shared with `scripts/fuzz.py`, which runs the same properties
for as many cases as asked; the tests here run a CI-sized sample of them.
"""
