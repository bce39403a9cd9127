"""The sectors of a player's board, one file each, as the rulebook lays them out
(*Marrakesh*, "Sector Actions"): :mod:`~.river`, :mod:`~.date_orchard`, :mod:`~.souk`,
:mod:`~.main_square`, :mod:`~.mosque_palace`, :mod:`~.madrasa`, :mod:`~.medina` and
:mod:`~.sahara`, with the supply board's :mod:`~.oasis_track` where claimed oases are
stored. :mod:`~.deploy` is what every sector shares: where a keshi may go, deploying it,
the water vendors, and which sector action an assistant performs.

Each file registers its tasks, decisions and the component data's specials that act on
its sector. Movement on the river and the staircases lives in their sectors too, because
bonuses, scrolls and tiles all move pawns through the same two tasks (``river`` and
``stair``).

The helpers the rest of the engine and the modules call are importable from this package.
"""

from tower.marrakesh.sectors import date_orchard  # noqa: F401 (registers its decisions)
from tower.marrakesh.sectors.deploy import (
    CAPACITY,
    UNLIMITED,
    brown_room,
    brown_spaces,
    plain_rooms,
    reached,
    room,
    room_rules,
    take_keshi,
    vendor_water,
)
from tower.marrakesh.sectors.madrasa import scroll_cost, take_scroll
from tower.marrakesh.sectors.main_square import scaled, spectators
from tower.marrakesh.sectors.medina import buy_gate, gate_price
from tower.marrakesh.sectors.mosque_palace import line_spaces, segment, space_effect
from tower.marrakesh.sectors.oasis_track import claim_oasis, returnable
from tower.marrakesh.sectors.river import rapids_crossed
from tower.marrakesh.sectors.sahara import can_claim_oasis, oasis_cost
from tower.marrakesh.sectors.souk import (
    buy_luxury,
    can_buy_luxury,
    discount,
    luxury_cost,
    pay_luxury,
    points_affordable,
    printed_affordable,
)

__all__ = [
    "CAPACITY",
    "UNLIMITED",
    "brown_room",
    "brown_spaces",
    "buy_gate",
    "buy_luxury",
    "can_buy_luxury",
    "can_claim_oasis",
    "claim_oasis",
    "discount",
    "gate_price",
    "line_spaces",
    "luxury_cost",
    "oasis_cost",
    "pay_luxury",
    "plain_rooms",
    "points_affordable",
    "printed_affordable",
    "rapids_crossed",
    "reached",
    "returnable",
    "room",
    "room_rules",
    "scaled",
    "scroll_cost",
    "segment",
    "space_effect",
    "spectators",
    "take_keshi",
    "take_scroll",
    "vendor_water",
]
