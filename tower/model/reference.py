"""The reference sampler of a distilled tower: pure Python, no numpy, one page to port.

A distilled tower is a Markov chain on *groups* of pieces. Before a throw, every piece
belongs to one group: the thrown pieces of one class (``"fresh.keshi"``), or the
residents of one place, class and age (``"floor1.keshi.2"``: keshis on the upper floor
that entered two throws ago; ages above ``age_cap`` share the last bucket). Groups are
visited in a fixed order (fresh first, then places top to bottom). For each group of
``m`` pieces the sampler draws a *joint* outcome: how many of them go ``out`` and how
many end in each place inside. The draw is conditioned on a context: ``m``, the throw
size ``n``, the number inside before the throw ``I``, the occupancy ``P`` of the group's
own place, and ``o``, how many pieces already came out in this throw (which carries the
correlation between groups). Which members take which destination is uniform (a shuffle).

Outcome tables are smoothed by back-off: level 0 has the finest context; a key seen
``N`` times is used with probability ``N / (N + alpha)``, otherwise the next, coarser
level is asked, and in the end a multinomial with per-piece destination probabilities.

Porting notes: a table entry is a flat list ``[count, out, funnel, floor1, floor2, ramp,
count, ...]``; a key is ``group|v1|v2...`` with the level's context values, capped.

Examples
--------
>>> import random
>>> from tower.model import load_shipped
>>> sampler = load_shipped("marrakesh").sampler  # doctest: +SKIP
>>> out, inside = sampler.throw([], [("keshi", i) for i in range(12)], 0, random.Random(1))
... # doctest: +SKIP
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

#: Places inside the tower, top to bottom, and the destinations of a piece in a throw.
PLACES: tuple[str, ...] = ("funnel", "floor1", "floor2", "ramp")
DESTINATIONS: tuple[str, ...] = ("out", *PLACES)
#: The context fields a level may condition on.
FIELDS: tuple[str, ...] = ("m", "n", "I", "P", "o")

#: A resident as the sampler sees it: (class, place, since, payload). A fresh piece:
#: (class, payload). Payloads are carried through untouched (pieces, ids, ...).
Resident = tuple[str, str, int, Any]


def fresh_group(cls: str) -> str:
    """Name of the group of thrown pieces of class ``cls``."""
    return f"fresh.{cls}"


def resident_group(place: str, cls: str, age: int, age_cap: int) -> str:
    """Name of the group of residents at ``place`` of class ``cls`` aged ``age`` throws."""
    return f"{place}.{cls}.{min(age, age_cap)}"


class ReferenceSampler:
    """Draws throws from the ``model`` section of a distilled model file.

    Parameters
    ----------
    model : dict
        ``levels`` (list of field lists), ``alpha``, ``caps`` (field -> max value),
        ``age_cap``, ``classes`` (kind -> class), ``base`` (group -> 5 probabilities),
        ``tables`` (one dict per level: key -> flat entry list).
    """

    def __init__(self, model: dict[str, Any]) -> None:
        self.levels: list[list[str]] = [list(f) for f in model["levels"]]
        self.alpha = float(model["alpha"])
        self.caps: dict[str, int] = dict(model["caps"])
        self.age_cap = int(model["age_cap"])
        self.classes: dict[str, str] = dict(model["classes"])
        self.base: dict[str, list[float]] = {}
        for group, probs in model["base"].items():
            cum, acc = [], 0.0
            for p in probs:
                acc += p
                cum.append(acc)
            self.base[group] = [c / acc for c in cum]
        # key -> (total count, cumulative counts, outcomes)
        self.tables: list[dict[str, tuple[int, list[int], list[tuple[int, ...]]]]] = []
        for table in model["tables"]:
            compiled = {}
            for key, flat in table.items():
                cum, outcomes, acc = [], [], 0
                for i in range(0, len(flat), 6):
                    acc += flat[i]
                    cum.append(acc)
                    outcomes.append(tuple(flat[i + 1 : i + 6]))
                compiled[key] = (acc, cum, outcomes)
            self.tables.append(compiled)

    def outcome(self, group: str, ctx: dict[str, int], rng: random.Random) -> tuple[int, ...]:
        """Destination counts ``(out, funnel, floor1, floor2, ramp)`` for one group."""
        caps = self.caps
        for fields, table in zip(self.levels, self.tables, strict=True):
            key = group + "".join(f"|{min(ctx[f], caps.get(f, ctx[f]))}" for f in fields)
            entry = table.get(key)
            if entry is None:
                continue
            total, cum, outcomes = entry
            u = rng.random() * (total + self.alpha)
            if u < total:
                return outcomes[bisect_right(cum, u)]
        counts = [0, 0, 0, 0, 0]
        cum = self.base[group]
        for _ in range(ctx["m"]):
            counts[min(bisect_right(cum, rng.random()), 4)] += 1
        return tuple(counts)

    def throw(
        self,
        residents: Sequence[Resident],
        fresh: Sequence[tuple[str, Any]],
        throws: int,
        rng: random.Random,
    ) -> tuple[list[Any], list[Resident]]:
        """One throw. ``throws`` is the index of this throw (residents have ``since < throws``).

        Returns the payloads that came out and the residents after the throw (fresh
        pieces that stay get ``since = throws``). Members of a group are taken in the
        order given, then shuffled by ``rng``, so equal inputs and seeds give equal draws.
        """
        groups: dict[tuple[int, str], list[tuple[int, Any]]] = {}
        occupancy = dict.fromkeys(PLACES, 0)
        for cls, payload in fresh:
            groups.setdefault((-1, fresh_group(cls)), []).append((throws, payload))
        for cls, place, since, payload in residents:
            occupancy[place] += 1
            name = resident_group(place, cls, throws - since, self.age_cap)
            groups.setdefault((PLACES.index(place), name), []).append((since, payload))
        ctx = {"n": len(fresh), "I": len(residents), "o": 0}
        out: list[Any] = []
        after: list[Resident] = []
        for (place_index, name), members in sorted(groups.items()):
            ctx["m"] = len(members)
            ctx["P"] = len(residents) if place_index < 0 else occupancy[PLACES[place_index]]
            counts = self.outcome(name, ctx, rng)
            if len(members) > 1:
                rng.shuffle(members)
            cls = name.split(".")[1]
            out.extend(payload for _, payload in members[: counts[0]])
            start = counts[0]
            for place, k in zip(PLACES, counts[1:], strict=True):
                after.extend((cls, place, since, p) for since, p in members[start : start + k])
                start += k
            ctx["o"] += counts[0]
        return out, after
