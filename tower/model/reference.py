"""The reference sampler of a distilled tower: pure Python, no numpy, one page to port.

A distilled tower is a Markov chain on *groups* of pieces. Before a throw, every piece
belongs to one group: the thrown pieces of one class (``"fresh.keshi"``), or the
residents of one place, class and age (``"floor1.keshi.2"``: keshis on the upper floor
that entered two throws ago; ages above ``age_cap`` share the last bucket). A group never
mixes classes, so every class has its own laws at every level. Groups are visited in a
fixed order (fresh first, then places top to bottom). For each group of ``m`` pieces the
sampler draws a *joint* outcome: how many of them go ``out`` and how many end in each
place inside. The draw is conditioned on a context: ``m``, the throw size ``n``, the
number inside before the throw ``I`` (and ``J``, the same number in coarser buckets), the
occupancy ``P`` of the group's own place, the throw's make-up (``w`` pawns and ``x``
experts thrown; ``tower.model/2``), the tower's age ``t`` (the throws it has seen since
it was empty: the index of this throw; ``tower.model/3``), and ``o``, how many pieces
already came out in this throw (which carries the correlation between groups). Which
members take which destination is uniform (a partial shuffle). Context values other than ``m`` are
bucketed: a value is replaced by the largest edge of ``buckets[field]`` not above it
(exact for small values, coarser for large ones).

Outcome tables are smoothed by back-off: level 0 has the finest context; a key seen
``N`` times with ``D`` distinct outcomes is used with probability ``N / (N + alpha * D)``
(Witten-Bell: contexts that keep showing new outcomes lean more on coarser ones), else
the next, coarser level is asked, and in the end a multinomial with per-piece
destination probabilities (the group's overall law refined by the per-piece counts seen
in the same contexts).

Coupled groups (``copula``, optional; ``tower.model/3``): without it,
the groups of one throw are drawn independently given their contexts, linked only by
``o``. Physics has more covariance between them (residents of one place leave together,
and with the fresh pieces), so a Walls & Guards tower's state spreads more over a sequence
than the model's (calibration/models/README.md). A model section with ``"copula":
{"throw": a, "origin": b, "gate": "pawn"}`` draws the groups of one throw jointly through
a Gaussian copula: one standard normal ``Z`` per throw, one ``Z_o`` per origin (the fresh
pieces, or one place), one ``e`` per group, and the group's number out is the quantile of
its exact out-law (:meth:`~ReferenceSampler.out_law`, the same mixture) at
``u = Phi(a Z + b Z_o + c e)``, ``c = sqrt(1 - a^2 - b^2)``; the destinations of the
pieces that stay come from the same mixture given that number
(:meth:`~ReferenceSampler.law_by_out`). Each ``u`` is uniform on its own, so the first
group keeps its law exactly, and so does every group when ``a = b = 0``; given the
outcomes of the groups before it (and so given ``o``), a group leans their way, which is
the coupling. With ``gate``, only throws where a piece of that class is inside or thrown
are coupled. The draws use other uniforms than :meth:`~ReferenceSampler.throw` without a
copula: equal in law when ``a = b = 0``, not draw for draw. The exact laws here are those
of one group; a coupled throw's is integrated over ``Z`` and the ``Z_o`` by
:meth:`tower.model.distilled.DistilledModel.distribution` (``e`` integrates in closed
form: ``docs/model-format.md``, section 8.1).

Porting notes: a table entry is a flat list ``[count, out, funnel, floor1, floor2, ramp,
count, ...]``; a key is ``group|v1|v2...`` with the level's context values, bucketed.
Only :meth:`ReferenceSampler.throw`, :meth:`~ReferenceSampler.outcome` (with its
:meth:`~ReferenceSampler.fallback`), :meth:`~ReferenceSampler.piece_law` and
:func:`groups` are needed to play; the exact laws (:meth:`~ReferenceSampler.out_law`,
:meth:`~ReferenceSampler.outcome_probability`) serve analysis and tests. A draw takes one
uniform per level that has an entry for its key, finest first, until one is used, then
``m`` uniforms for the multinomial. What it needs in one (group, context) - the entries
hit and the fallback's cumulative law - depends on nothing else, so it is compiled once
(levels looked up only as far as draws reach) and cached (:meth:`~ReferenceSampler.chain`);
a port may skip the cache and look the levels up on every draw, as
``docs/model-format.md`` describes. A ``tower.model/1`` file has no ``w``/``x`` and a
``tower.model/2`` file no ``t`` (their levels cannot name them): a field no level names
changes no draw, so they sample exactly as before.

Examples
--------
>>> import random
>>> from tower.model import load_shipped
>>> sampler = load_shipped("marrakesh").sampler
>>> out, inside = sampler.throw([], [("keshi", i) for i in range(12)], 0, random.Random(1))
>>> sorted([*out, *(payload for *_, payload in inside)]) == list(range(12))
True

Contexts: a throw of 9 keshis and 2 experts into a tower holding one pawn on floor 1
(entered in throw 0, so aged 3 at throw 3, the tower's fourth: ``t`` = 3):

>>> [(name, ctx) for name, _, ctx, _ in groups(
...     [("pawn", "floor1", 0, "p1")], [("keshi", i) for i in range(9)]
...     + [("expert", "e1"), ("expert", "e2")], 3, 7)]
[('fresh.expert', (2, 11, 1, 1, 1, 0, 2, 3)), ('fresh.keshi', (9, 11, 1, 1, 1, 0, 2, 3)), \
('floor1.pawn.3', (1, 11, 1, 1, 1, 0, 2, 3))]

A group's draw appends ``o`` (pieces out so far in the throw) to such a context.
"""

from __future__ import annotations

import random
import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate
from math import comb, erfc, factorial, sqrt
from operator import itemgetter
from typing import Any

#: Places inside the tower, top to bottom, and the destinations of a piece in a throw.
PLACES: tuple[str, ...] = ("funnel", "floor1", "floor2", "ramp")
DESTINATIONS: tuple[str, ...] = ("out", *PLACES)
#: The context fields a level may condition on, in context-tuple order: group size ``m``
#: (exact), throw size ``n``, number inside ``I``, occupancy of the group's place ``P``,
#: number inside again ``J`` (with coarser buckets), the throw's make-up: pawns ``w`` and
#: experts ``x`` thrown (pieces of class ``"pawn"`` and ``"expert"``; new in
#: ``tower.model/2``), the throws ``t`` the tower has seen before this one (new in
#: ``tower.model/3``), and pieces out so far ``o``.
FIELDS: tuple[str, ...] = ("m", "n", "I", "P", "J", "w", "x", "t", "o")
#: The fields of a ``tower.model/2`` file (its ``buckets`` name exactly these but ``m``).
FIELDS_V2: tuple[str, ...] = ("m", "n", "I", "P", "J", "w", "x", "o")
#: The fields of a ``tower.model/1`` file.
FIELDS_V1: tuple[str, ...] = ("m", "n", "I", "P", "J", "o")
#: The classes counted by the make-up fields ``w`` and ``x``.
MAKEUP: dict[str, str] = {"w": "pawn", "x": "expert"}

_SQRT2 = sqrt(2.0)


def normal_cdf(x: float) -> float:
    """The standard normal distribution function (the copula's uniforms), in its erfc
    form: accurate in the lower tail, and the same on every Python (3.11's
    ``NormalDist().cdf`` computes ``1 + erf``)."""
    return 0.5 * erfc(-x / _SQRT2)


#: A group's law split by the number out (:meth:`ReferenceSampler.law_by_out`).
OutSplit = tuple[list[float], list[tuple[list[float], list[Any]]], list[float]]

#: A resident as the sampler sees it: (class, place, since, payload). A fresh piece:
#: (class, payload). Payloads are carried through untouched (pieces, ids, ...).
SampledResident = tuple[str, str, int, Any]


def bucket_table(edges: Sequence[int]) -> list[int]:
    """``table[v]``: the largest edge not above ``v``, for ``v`` in ``0..edges[-1]``.

    >>> bucket_table([0, 1, 2, 4])
    [0, 1, 2, 2, 4]
    """
    table, e = [], 0
    for v in range(edges[-1] + 1):
        if e + 1 < len(edges) and edges[e + 1] <= v:
            e += 1
        table.append(edges[e])
    return table


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
        ``levels`` (list of field lists), ``alpha``, ``buckets`` (field -> edges),
        ``age_cap``, ``classes`` (kind -> class), ``base`` (group -> 5 probabilities),
        ``tables`` (one dict per level: key -> flat entry list), ``piece_levels`` and
        ``piece_tables`` (per-piece destination counts by context), ``prior``.
    """

    def __init__(self, model: dict[str, Any]) -> None:
        self.levels: list[list[str]] = [list(f) for f in model["levels"]]
        self.alpha = float(model["alpha"])
        self.prior = float(model["prior"])
        self.buckets: dict[str, list[int]] = {f: list(e) for f, e in model["buckets"].items()}
        self.age_cap = int(model["age_cap"])
        self.classes: dict[str, str] = dict(model["classes"])
        self.base: dict[str, list[float]] = {g: list(p) for g, p in model["base"].items()}
        #: the copula's entries (loadings and gate), or None (independent groups)
        self.copula: tuple[CopulaEntry, ...] | None = None
        if model.get("copula") is not None:
            self.copula = copula_settings(model["copula"])
        self._splits: dict[tuple[str, tuple[int, ...]], OutSplit] = {}
        # a v1 file has no edges for w and x, a file without t none for t (no level asks)
        self._luts = [bucket_table(self.buckets.get(f, [0])) for f in FIELDS[1:]]
        # per level: positions of its fields in a context tuple (FIELDS), and
        # (group, v1, ...) -> (total count, cumulative counts, outcomes, denominator)
        self._picks = [tuple(FIELDS.index(f) for f in fields) for fields in self.levels]
        # the same picks as functions giving a key's values as a tuple (for chain())
        self._keys = [itemgetter(*p) if len(p) > 1 else _single(p[0]) for p in self._picks]
        self.tables = [_LazyTable(table, self._entry) for table in model["tables"]]
        # per-piece destination counts by context, coarsest level first
        self._piece_picks = [
            tuple(FIELDS.index(f) for f in fields) for fields in model["piece_levels"]
        ][::-1]
        self.piece_tables = [_LazyTable(table, list) for table in model["piece_tables"]][::-1]
        # draw chains by (group, the context fields some level reads), see chain()
        used = {
            FIELDS.index(f) for fields in [*self.levels, *model["piece_levels"]] for f in fields
        }
        self._project = itemgetter(*sorted(used | {0}))
        self._chains: dict[tuple[str, Any], list] = {}

    def _entry(self, flat: list[int]) -> tuple[int, list[int], list[tuple[int, ...]], float]:
        """A table entry as ``(total count, cumulative counts, outcomes, denominator)``."""
        cum, outcomes, acc = [], [], 0
        for i in range(0, len(flat), 6):
            acc += flat[i]
            cum.append(acc)
            outcomes.append(tuple(flat[i + 1 : i + 6]))
        return acc, cum, outcomes, acc + self.alpha * len(outcomes)

    def _bucketed(self, ctx: tuple[int, ...]) -> list[int]:
        return [
            ctx[0],
            *[
                lut[v] if v < len(lut) else lut[-1]
                for v, lut in zip(ctx[1:], self._luts, strict=True)
            ],
        ]

    def piece_law(self, group: str, capped: Sequence[int]) -> list[float]:
        """Per-piece destination probabilities of the base multinomial in a context.

        The group's overall law, refined level by level (coarse to fine) by the
        per-piece counts seen in that context, each pulled towards the coarser law
        with ``prior`` pseudo-pieces.
        """
        law = self.base[group]
        for picks, table in zip(self._piece_picks, self.piece_tables, strict=True):
            counts = table.get((group, *[capped[i] for i in picks]))
            if counts is not None:
                total = sum(counts) + self.prior
                law = [(c + self.prior * q) / total for c, q in zip(counts, law, strict=True)]
        return law

    def _mixture(self, group: str, ctx: tuple[int, ...]) -> tuple[list, float, list[float]]:
        """The exact law of a group: [(weight, entry)] per level hit, base weight, piece law."""
        capped = self._bucketed(ctx)
        parts, reach = [], 1.0  # reach: probability that a draw gets down to this level
        for picks, table in zip(self._picks, self.tables, strict=True):
            entry = table.get((group, *[capped[i] for i in picks]))
            if entry is not None:
                total, denominator = entry[0], entry[3]
                parts.append((reach / denominator, entry))
                reach *= (denominator - total) / denominator
        return parts, reach, self.piece_law(group, capped)

    def chain(self, group: str, ctx: tuple[int, ...]) -> list:
        """What a draw needs, compiled once and cached: ``[entries, fallback, capped,
        level]``: the table entries hit so far (finest first), the fallback's cumulative
        per-piece law once first needed, the bucketed context, and the next level to look
        up. A new chain looks up levels only until the first entry (most draws stop
        there); :meth:`fallback` looks further when a draw gets past the known entries.

        It depends only on the group and the context fields that some level reads, so it
        is cached under that key (a port may skip the cache).
        """
        key = (group, self._project(ctx))
        found = self._chains.get(key)
        if found is None:
            capped = self._bucketed(ctx)
            entries, level = [], 0
            while level < len(self.tables) and not entries:
                entry = self.tables[level].get((group, *self._keys[level](capped)))
                level += 1
                if entry is not None:
                    entries.append(entry)
            if len(self._chains) >= 200_000:  # bound the memory (a chain is a few hundred bytes)
                self._chains.clear()
            found = self._chains[key] = [entries, None, capped, level]
        return found

    def outcome(self, group: str, ctx: tuple[int, ...], rng: random.Random) -> tuple[int, ...]:
        """Destination counts ``(out, funnel, floor1, floor2, ramp)`` for one group.

        ``ctx`` holds the context values in the order of :data:`FIELDS`
        (m, n, I, P, J, w, x, t, o).
        """
        chain = self._chains.get((group, self._project(ctx))) or self.chain(group, ctx)
        for total, entry_cum, outcomes, denominator in chain[0]:
            u = rng.random() * denominator
            if u < total:
                return outcomes[bisect_right(entry_cum, u)]
        return self.fallback(group, ctx, chain, rng)

    def fallback(
        self, group: str, ctx: tuple[int, ...], chain: list, rng: random.Random
    ) -> tuple[int, ...]:
        """The rest of :meth:`outcome` once the chain's known entries were passed: the
        entries of the levels not yet looked up, in order, then the base multinomial."""
        entries, _, capped, level = chain
        while level < len(self.tables):
            entry = self.tables[level].get((group, *self._keys[level](capped)))
            level += 1
            chain[3] = level
            if entry is not None:
                entries.append(entry)
                total, entry_cum, outcomes, denominator = entry
                u = rng.random() * denominator
                if u < total:
                    return outcomes[bisect_right(entry_cum, u)]
        if chain[1] is None:
            cum, acc = [], 0.0
            for q in self.piece_law(group, capped):
                acc += q
                cum.append(acc)
            chain[1] = (cum, acc)
        cum, acc = chain[1]
        counts = [0, 0, 0, 0, 0]
        for _ in range(ctx[0]):
            counts[min(bisect_right(cum, rng.random() * acc), 4)] += 1
        return tuple(counts)

    def out_law(self, group: str, ctx: tuple[int, ...]) -> list[float]:
        """Exact probability that ``k`` of the group's ``m`` pieces go out, ``k = 0..m``."""
        m = ctx[0]
        law = [0.0] * (m + 1)
        parts, reach, piece = self._mixture(group, ctx)
        for weight, (_, cum, outcomes, _) in parts:
            prev = 0
            for c, outcome in zip(cum, outcomes, strict=True):
                law[outcome[0]] += weight * (c - prev)
                prev = c
        p = piece[0] / sum(piece)
        for k in range(m + 1):
            law[k] += reach * comb(m, k) * p**k * (1 - p) ** (m - k)
        return law

    def outcome_probability(self, group: str, ctx: tuple[int, ...], counts: Sequence[int]) -> float:
        """Exact probability of the destination counts ``counts`` for one group."""
        target = tuple(counts)
        parts, reach, piece = self._mixture(group, ctx)
        prob = 0.0
        for weight, (_, cum, outcomes, _) in parts:
            prev = 0
            for c, outcome in zip(cum, outcomes, strict=True):
                if outcome == target:
                    prob += weight * (c - prev)
                prev = c
        multinomial = float(factorial(ctx[0]))
        total = sum(piece)
        for k, q in zip(target, piece, strict=True):
            multinomial *= (q / total) ** k / factorial(k)
        return prob + reach * multinomial

    def throw(
        self,
        residents: Sequence[SampledResident],
        fresh: Sequence[tuple[str, Any]],
        throws: int,
        rng: random.Random,
    ) -> tuple[list[Any], list[SampledResident]]:
        """One throw. ``throws`` is the index of this throw, counted from the empty tower
        (residents have ``since < throws``); it is the context field ``t``.

        Returns the payloads that came out and the residents after the throw (fresh
        pieces that stay get ``since = throws``). Members of a group are taken in the
        order given, then shuffled by ``rng``, so equal inputs and seeds give equal draws.
        Who goes where within a group is uniform: a partial Fisher-Yates shuffle. A model
        with a ``copula`` draws the groups of a throw whose loadings are not ``(0, 0)``
        jointly (:meth:`coupled_throw`).
        """
        if self.copula is not None and self.loadings(residents, fresh) != (0.0, 0.0):
            return self.coupled_throw(residents, fresh, throws, rng)
        gone = 0
        out: list[Any] = []
        after: list[SampledResident] = []
        for name, cls, ctx, members in groups(residents, fresh, throws, self.age_cap):
            m = ctx[0]
            counts = self.outcome(name, (*ctx, gone), rng)
            # Uniform assignment: shuffle just the members of all but the largest share.
            rest = counts.index(max(counts))
            chosen = m - counts[rest]
            for i in range(chosen):
                j = i + int(rng.random() * (m - i))
                members[i], members[j] = members[j], members[i]
            start = 0
            for dest, k in enumerate(counts):
                if k and dest != rest:
                    _emit(dest, cls, members[start : start + k], out, after)
                    start += k
            _emit(rest, cls, members[chosen:], out, after)
            gone += counts[0]
        return out, after

    def law_by_out(self, group: str, ctx: tuple[int, ...]) -> OutSplit:
        """The group's exact law (:meth:`_mixture`) split by the number out, cached:
        ``(cumulative law of the number out, per number out k: (cumulative weights,
        outcomes) of the mixture's outcomes with k out, None standing for the base
        multinomial's, and the cumulative per-piece law of the places for the base's
        pieces that stay)``. Every sum is a running sum, left to right (as a port adds
        up; Python 3.12's ``sum`` of floats compensates)."""
        key = (group, ctx)
        found = self._splits.get(key)
        if found is not None:
            return found
        parts, reach, piece = self._mixture(group, ctx)
        m = ctx[0]
        by_out: list[tuple[list[float], list[Any]]] = [([], []) for _ in range(m + 1)]
        for weight, (_, cum, outcomes, _) in parts:
            prev = 0
            for c, outcome in zip(cum, outcomes, strict=True):
                by_out[outcome[0]][0].append(weight * (c - prev))
                by_out[outcome[0]][1].append(outcome)
                prev = c
        p = piece[0] / _running_sum(piece)
        for k in range(m + 1):
            by_out[k][0].append(reach * comb(m, k) * p**k * (1 - p) ** (m - k))
            by_out[k][1].append(None)
        stay = _running_sum(piece[1:])
        split = [(list(accumulate(w)), outcomes) for w, outcomes in by_out]
        found = (
            list(accumulate(cum[-1] for cum, _ in split)),
            split,
            list(accumulate(q / stay for q in piece[1:])),
        )
        if len(self._splits) >= 300_000:  # bound the memory
            self._splits.clear()
        self._splits[key] = found
        return found

    def loadings(
        self, residents: Sequence[SampledResident], fresh: Sequence[tuple[str, Any]]
    ) -> tuple[float, float]:
        """The copula's loadings ``(throw, origin)`` for a throw: those of its first entry
        whose gate is met (no gate, or a piece of one of its classes inside or thrown);
        ``(0, 0)`` without a copula or when none is. With ``(0, 0)`` the groups are
        independent given ``o`` and the exact laws (:meth:`out_law`, ...) are the throw's."""
        for a, b, gate in self.copula or ():
            if (
                gate is None
                or any(r[0] in gate for r in residents)
                or any(c in gate for c, _ in fresh)
            ):
                return a, b
        return 0.0, 0.0

    def coupled_throw(
        self,
        residents: Sequence[SampledResident],
        fresh: Sequence[tuple[str, Any]],
        throws: int,
        rng: random.Random,
    ) -> tuple[list[Any], list[SampledResident]]:
        """:meth:`throw` with the groups drawn through the model's Gaussian copula.

        Per throw: ``Z``, then per group (visiting order) ``Z_o`` when its origin is met
        first and ``e`` (``rng.gauss``), the number out by inverting the out-law at ``u``,
        one uniform to pick the outcome with that number out (and one per staying piece
        if it is the base multinomial's), then a shuffle of the members (``rng.shuffle``).
        """
        a, b = self.loadings(residents, fresh)
        c = sqrt(1 - a * a - b * b)
        gauss = rng.gauss
        shared = gauss(0, 1)
        origins: dict[str, float] = {}
        gone = 0
        out: list[Any] = []
        after: list[SampledResident] = []
        for name, cls, ctx, members in groups(residents, fresh, throws, self.age_cap):
            origin = name.split(".")[0]
            if origin not in origins:
                origins[origin] = gauss(0, 1)
            u = normal_cdf(a * shared + b * origins[origin] + c * gauss(0, 1))
            out_cum, by_out, stay_cum = self.law_by_out(name, (*ctx, gone))
            k = min(bisect_right(out_cum, u * out_cum[-1]), len(out_cum) - 1)
            cum, outcomes = by_out[k]
            outcome = outcomes[min(bisect_right(cum, rng.random() * cum[-1]), len(cum) - 1)]
            if outcome is None:  # the base multinomial, given k out
                places = [0, 0, 0, 0]
                for _ in range(len(members) - k):
                    places[min(bisect_right(stay_cum, rng.random() * stay_cum[-1]), 3)] += 1
                outcome = (k, *places)
            gone += k
            rng.shuffle(members)
            start = 0
            for dest, count in enumerate(outcome):
                _emit(dest, cls, members[start : start + count], out, after)
                start += count
        return out, after


def _running_sum(values: Sequence[float]) -> float:
    """``values`` added up left to right."""
    total = 0.0
    for v in values:
        total += v
    return total


#: One entry of a copula: its loadings ``(throw, origin)`` and its gate's classes
#: (``None``: every throw).
CopulaEntry = tuple[float, float, tuple[str, ...] | None]


def copula_settings(section: Any) -> tuple[CopulaEntry, ...]:
    """The entries ``(throw, origin, gate)`` of a model's ``copula`` section, or a
    ``ValueError``: one object, or a non-empty list of them (a throw takes the loadings
    of the first whose gate it meets); each gate as the tuple of its classes
    (:func:`gate_classes`).

    >>> copula_settings({"throw": 0.2, "origin": 0.3, "gate": "pawn"})
    ((0.2, 0.3, ('pawn',)),)
    >>> copula_settings(
    ...     [
    ...         {"throw": 0.2, "origin": 0.3, "gate": ["pawn"]},
    ...         {"throw": 0.1, "origin": 0.3, "gate": None},
    ...     ]
    ... )
    ((0.2, 0.3, ('pawn',)), (0.1, 0.3, None))
    """
    entries = section if isinstance(section, list) else [section]
    if not entries:
        raise ValueError("copula: expected an object or a non-empty list of them")
    return tuple(_copula_entry(entry) for entry in entries)


def _copula_entry(section: Any) -> CopulaEntry:
    """One ``{throw, origin, gate}`` of :func:`copula_settings`."""
    if not isinstance(section, dict) or set(section) != {"throw", "origin", "gate"}:
        raise ValueError("copula: expected {throw, origin, gate}")
    a, b, gate = section["throw"], section["origin"], section["gate"]
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b)):
        raise ValueError("copula: throw and origin must be numbers")
    if a < 0 or b < 0 or a * a + b * b >= 1:
        raise ValueError("copula: need throw, origin >= 0 and throw^2 + origin^2 < 1")
    return float(a), float(b), gate_classes(gate)


def gate_classes(gate: Any) -> tuple[str, ...] | None:
    """The classes of a copula's ``gate``: ``null`` (every throw is coupled), one class
    name, or a list of distinct class names (a throw is coupled when a piece of any of
    them is inside or thrown); a ``ValueError`` for anything else.

    >>> gate_classes(None), gate_classes("pawn"), gate_classes(["expert", "pawn"])
    (None, ('pawn',), ('expert', 'pawn'))
    """
    if gate is None:
        return None
    names = [gate] if isinstance(gate, str) else gate
    if not (
        isinstance(names, list) and names and all(isinstance(n, str) for n in names)
        and len(set(names)) == len(names)
    ):  # fmt: skip
        raise ValueError("copula: gate must be a class name, a list of distinct ones, or null")
    return tuple(names)


class _LazyTable:
    """A table of the file (``"group|v1|..."`` -> value) looked up by ``(group, v1, ...)``,
    each value compiled by ``compile`` when first looked up.

    A throw meets a few hundred of the tens of thousands of entries, so a model loads at
    once. A table with a key that is not the plain text of its tuple (a value written
    ``"07"``) is compiled whole.
    """

    def __init__(self, table: dict[str, Any], compile: Callable[[Any], Any]) -> None:
        self._raw, self._compile = table, compile
        self._compiled: dict[tuple, Any] = {}
        keys = "\n".join(table)
        if not keys.isascii() or _LEADING_ZERO.search(keys):
            for key, value in table.items():
                group, *values = key.split("|")
                self._compiled[(group, *map(int, values))] = compile(value)
            self._raw = {}

    def get(self, key: tuple) -> Any:
        """The compiled value of ``key``, or ``None``."""
        value = self._compiled.get(key)
        if value is None:
            raw = self._raw.get("|".join(map(str, key)))
            if raw is None:
                return None
            value = self._compiled[key] = self._compile(raw)
        return value

    def __contains__(self, key: tuple) -> bool:
        return self.get(key) is not None


#: A context value written with a leading zero in a table key.
_LEADING_ZERO = re.compile(r"\|0[0-9]")

_PLACE_INDEX = {p: i for i, p in enumerate(PLACES)}


def _single(i: int) -> Any:
    """``ctx -> (ctx[i],)``: what ``itemgetter`` gives for several indices, for one."""
    return lambda ctx: (ctx[i],)


def groups(
    residents: Sequence[SampledResident],
    fresh: Sequence[tuple[str, Any]],
    throws: int,
    age_cap: int,
) -> list[tuple[str, str, tuple[int, ...], list[tuple[int, Any]]]]:
    """The groups of a throw in visiting order: (name, class, context, members).

    The context is ``(m, n, I, P, J, w, x, t)``, all of :data:`FIELDS` but ``o``: ``P`` is
    the occupancy of the group's place before the throw (for fresh pieces, the number
    inside), ``w`` and ``x`` count the thrown pieces of the classes in :data:`MAKEUP`,
    ``t`` is ``throws`` (the throws the tower has seen since it was empty).
    Members are (since, payload) in the order given. Fresh groups come first, then places
    top to bottom, each by class and age.
    """
    found: dict[tuple[int, str, int], list[tuple[int, Any]]] = {}
    occupancy = [0, 0, 0, 0]
    for cls, payload in fresh:
        members = found.get((-1, cls, 0))
        if members is None:
            members = found[(-1, cls, 0)] = []
        members.append((throws, payload))
    n, inside = len(fresh), len(residents)
    w, x = (len(found.get((-1, MAKEUP[f], 0), ())) for f in ("w", "x"))
    for cls, place, since, payload in residents:
        index = _PLACE_INDEX[place]
        occupancy[index] += 1
        key = (index, cls, min(throws - since, age_cap))
        members = found.get(key)
        if members is None:
            members = found[key] = []
        members.append((since, payload))
    named = sorted(
        (index, group_name(index, cls, age), cls, members)
        for (index, cls, age), members in found.items()
    )
    return [
        (
            name,
            cls,
            (
                len(members),
                n,
                inside,
                occupancy[index] if index >= 0 else inside,
                inside,
                w,
                x,
                throws,
            ),
            members,
        )
        for index, name, cls, members in named
    ]


_NAMES: dict[tuple[int, str, int], str] = {}


def group_name(index: int, cls: str, age: int) -> str:
    """The group name of place ``index`` (-1: fresh), class and capped age, memoised."""
    name = _NAMES.get((index, cls, age))
    if name is None:
        name = fresh_group(cls) if index < 0 else resident_group(PLACES[index], cls, age, age)
        _NAMES[(index, cls, age)] = name
    return name


def _emit(dest: int, cls: str, members: list, out: list, after: list) -> None:
    """Send ``members`` (since, payload) to destination ``dest`` (0 = out)."""
    if dest == 0:
        out.extend(payload for _, payload in members)
    else:
        place = PLACES[dest - 1]
        after.extend((cls, place, since, payload) for since, payload in members)
