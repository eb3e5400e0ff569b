"""A CI-sized sample of the hardening properties (scripts/fuzz.py runs them for as long as asked).

About 600 cases over all surfaces, a few seconds per property. A failure is shrunk by hypothesis
to a small input; `scripts/fuzz.py --surface SURFACE --seed S` reproduces and extends the search.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from .properties import PROPERTIES, Property

CASES_PER_WEIGHT = 25  # x weight 1-4: 25 cases for each CLI property, up to 100 for core ones


@pytest.mark.parametrize("prop", PROPERTIES, ids=[p.name for p in PROPERTIES])
def test_property(prop: Property) -> None:
    @settings(
        max_examples=CASES_PER_WEIGHT * prop.weight,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(prop.strategy)
    def run(case: Any) -> None:
        prop.check(case)

    run()


def test_every_surface_has_properties() -> None:
    from .properties import SURFACES

    assert {p.surface for p in PROPERTIES} == set(SURFACES)
