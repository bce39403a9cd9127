"""Expansion 3, additional exchange offices: the 6 new offices are mixed with the 12 of the
base game before 3 are drawn."""

from __future__ import annotations

from tower.marrakesh.components import Components


def office_pool(comps: Components) -> list[int]:
    """Ids of the offices to draw from: all 18."""
    return sorted(comps.exchange_offices)
