"""Expansion 3, additional exchange offices: the 6 new offices are mixed with the 12 of the
base game before 3 are drawn.

Rulebook: *Marrakesh* (expansion 3). The core draws from
the offices whose ``expansion`` flag is false; this module's ``components`` hook clears
the flag of the 6 new ones, so they join the pool.
"""

from __future__ import annotations

import dataclasses

from tower.marrakesh.components import Components
from tower.marrakesh.hooks import Module, register


@register
class ExchangeOffices(Module):
    name = "exchange_offices"
    title = "Expansion 3: Additional exchange offices"
    rulebook = "Marrakesh"

    def components(self, comps: Components) -> Components:
        offices = {oid: {**o, "expansion": False} for oid, o in comps.exchange_offices.items()}
        return dataclasses.replace(comps, exchange_offices=offices)
