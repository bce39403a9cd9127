"""Expansion 4, spectators: every audience disc is played on its purple side (one section
without spectators, one with 4).

Rulebook: *Marrakesh* (expansion 4). The core reads the
side named by ``audience_disc.side`` in the components; this module turns it over.
"""

from __future__ import annotations

import copy
import dataclasses

from tower.marrakesh.components import Components
from tower.marrakesh.hooks import Module, register


@register
class Spectators(Module):
    name = "spectators"
    title = "Expansion 4: Spectators"
    rulebook = "Marrakesh"

    def components(self, comps: Components) -> Components:
        raw = copy.deepcopy(comps.raw)
        raw["audience_disc"]["side"] = "purple"
        return dataclasses.replace(comps, raw=raw)
