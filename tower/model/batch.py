"""The numpy fast path: many independent distilled towers thrown in lockstep.

:class:`BatchTowers` keeps, for each of ``n`` towers, the number of residents by place,
label and age bucket, and draws every group's joint outcome for all towers at once with
the same law as :class:`tower.model.reference.ReferenceSampler` (same groups, order,
contexts, back-off and base multinomials; the random streams differ). A label is a kind
of piece the caller tells apart within a class (by default: the class itself); which of
a group's labelled members take which destination is uniform, as in the reference. It
tracks counts, not piece identities: use it for statistics and speed, and the reference
sampler (the :class:`~tower.model.distilled.DistilledModel`) when a game needs to know
which piece.

A model with a ``copula`` draws each throw's groups jointly, with the law of the
reference's :meth:`~tower.model.reference.ReferenceSampler.coupled_throw`: per tower one
normal ``Z`` per throw and one per origin, a group's number out the quantile of its exact
out-law at its ``u``, its outcome given that number a pick among the mixture's outcomes
with it (:meth:`BatchTowers._coupled`); the loadings are each tower's (the gate looks at
its own pieces). The exact laws are assembled for all towers at once from the tables,
whose entries are then also kept split by the number out (:meth:`_Table._split_by_out`).

How it is fast: every context field is mapped once per throw to a small index (its
bucketed values seen in the tables, 0 for unseen) by a lookup table; a level's key is a
mixed-radix integer of those indices (the shared part once per throw, a group's own
fields through lookup tables that hold their place values), found with a vectorised
hash (:class:`_Index`: one gather, and a binary search for the few keys off their home
slot) whose row is the entry's; a table entry's outcome is drawn from the same uniform
that decided the back-off, by one binary search in the cumulative counts of all entries
laid end to end; the coarser levels are drawn together; residents are stored as
``(place, label, age, tower)`` so each group's counts are contiguous rows, groups empty
in every tower are skipped, and a throw adds up its packed outcomes by destination
group, unpacking each sum once at the end of the throw. Building it is array work too
(keys parsed once, codes and hash slots computed on whole arrays), so it takes a small
fraction of a second for the shipped model.

Examples
--------
>>> import numpy as np
>>> from tower.model import load_shipped
>>> towers = BatchTowers(load_shipped("marrakesh").doc["model"], 1000, seed=1)
>>> res = towers.throw({"keshi": 12})
>>> res.out.shape
(1000,)
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

from tower.model.reference import FIELDS, MAKEUP, PLACES, bucket_table, copula_settings


@dataclass(frozen=True)
class BatchThrow:
    """What one lockstep throw did.

    Attributes
    ----------
    out : (n,) int
        Pieces out of each tower.
    fresh_out : (n,) int
        Of those, pieces thrown in this throw.
    out_by_class : (n, C) int
        Pieces out by class (order of :attr:`BatchTowers.classes`).
    out_by_label : (n, L) int
        Pieces out by label (order of :attr:`BatchTowers.labels`).
    """

    out: np.ndarray
    fresh_out: np.ndarray
    out_by_class: np.ndarray
    out_by_label: np.ndarray


_MULT = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing (uint64 products wrap)
#: Context fields that are the same for every group of one throw: a level's key starts
#: with them, so that part is computed once per throw, not per group.
SHARED: tuple[str, ...] = ("n", "I", "J", "w", "x", "t")
#: A joint outcome (out, funnel, floor1, floor2, ramp) packed in one integer, 12 bits each
#: (one gather per draw instead of five). Packed outcomes add up field by field as long
#: as no count exceeds ``_MASK`` (a tower holds at most ``_MASK`` pieces).
_BITS, _MASK = 12, (1 << 12) - 1
_PACK = np.asarray([1 << (_BITS * d) for d in range(5)], dtype=np.int64)
#: Shifts of the places' fields in a packed outcome, as a column (one per place).
_SHIFTS = np.asarray([[_BITS * (d + 1)] for d in range(len(PLACES))], dtype=np.int64)
#: A table entry's first alias slot (low 32 bits) and number of slots (high 32 bits).
_LOW = np.int64((1 << 32) - 1)
#: The bits of a packed outcome; the coarse table tags its outcomes above them with the
#: level's rank (finer: higher), so that one maximum finds the finest level drawn.
_OUTCOME, _RANKS = np.int64((1 << (5 * _BITS)) - 1), 1 << (63 - 5 * _BITS)


class _Index:
    """A vectorised hash table of non-negative int64 codes, with one gather per lookup.

    A code's row is its home slot (the top bits of a Fibonacci hash) if no code placed
    before it took that slot, else one of the overflow rows after the slots, found by
    binary search. Codes are placed in decreasing order of ``weights`` (how often they
    are expected to be looked up), so few lookups reach the overflow. What belongs to a
    code is stored at its row in arrays of ``absent + 1`` rows (:meth:`spread`); every
    code not in the table is sent to the last row, ``absent``.
    """

    def __init__(self, codes: np.ndarray, weights: np.ndarray) -> None:
        codes = np.asarray(codes, dtype=np.int64)
        bits = max(4, (4 * len(codes)).bit_length())  # load factor at most 1/4
        self.shift = np.uint64(64 - bits)
        homes = self._home(codes)
        # the heaviest code of each home slot takes it (ties: the first given)
        by_weight = np.argsort(-np.asarray(weights, dtype=np.float64), kind="stable")
        _, first = np.unique(homes.take(by_weight), return_index=True)
        home_owner = by_weight.take(first)
        self.keys = np.full(1 << bits, -1, dtype=np.int64)
        self.keys[homes.take(home_owner)] = codes.take(home_owner)
        rows = homes.copy()
        spilled = np.ones(len(codes), dtype=bool)
        spilled[home_owner] = False
        overflow = spilled.nonzero()[0]
        overflow = overflow.take(np.argsort(codes.take(overflow), kind="stable"))
        rows[overflow] = np.arange(len(self.keys), len(self.keys) + len(overflow))
        self.absent = len(self.keys) + len(overflow)
        #: the overflow codes, sorted, then a sentinel above every code; their rows
        self.overflow = np.append(codes.take(overflow), np.iinfo(np.int64).max)
        self.overflow_rows = np.arange(len(self.keys), self.absent + 1, dtype=np.int64)
        #: each code's row, in the order given
        self.rows = rows

    def _home(self, codes: np.ndarray) -> np.ndarray:
        """(k,) home slots of ``codes`` (k,) int64: the top bits of a wrapping product."""
        home = codes.view(np.uint64) * _MULT
        home >>= self.shift
        return home.view(np.int64)

    def spread(self, values: np.ndarray, fill: Any) -> np.ndarray:
        """(absent + 1, ...) ``values`` (one row per code, in the order given) by row,
        ``fill`` in the other rows."""
        spread = np.full((self.absent + 1, *values.shape[1:]), fill, dtype=values.dtype)
        spread[self.rows] = values
        return spread

    def lookup(self, codes: np.ndarray) -> np.ndarray:
        """(k,) rows of ``codes`` (k,), ``absent`` where a code is not in the table."""
        row = self._home(codes)
        missed = (self.keys.take(row) != codes).nonzero()[0]  # absent keys, overflow
        if len(missed):
            wanted = codes.take(missed)
            at = self.overflow.searchsorted(wanted)
            found = self.overflow.take(at) == wanted
            row[missed] = np.where(found, self.overflow_rows.take(at), self.absent)
        return row


def _indices(seen: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Index (1..) of each of ``values`` in the sorted ``seen``, 0 where it is not there."""
    at = seen.searchsorted(values)
    found = at < len(seen)
    found[found] = seen.take(at[found]) == values[found]
    return np.where(found, at + 1, 0)


class _Key:
    """How one level's key is made: its shared fields (:data:`SHARED`), then the group,
    then its own fields (``m``, ``P``, ``o``), each a digit of a mixed-radix code.

    ``own`` holds, per own field, a lookup table from raw value (clipped) to the field's
    index times its place value; ``group_stride`` is the group's place value.
    """

    def __init__(self, fields: Sequence[str], radix: Mapping[str, int]) -> None:
        self.fields = list(fields)
        self.shared = tuple(f for f in fields if f in SHARED)
        self.strides: list[tuple[str, int]] = []
        stride = 1
        for f in reversed([f for f in fields if f not in SHARED]):
            self.strides.insert(0, (f, stride))
            stride *= radix[f]
        self.group_stride = stride
        self.own: dict[str, np.ndarray] = {}

    def scale(self, index_lut: Mapping[str, np.ndarray], factor: int = 1) -> None:
        """Fill :attr:`own` from the fields' index tables, all place values times ``factor``."""
        self.own = {f: index_lut[f] * (stride * factor) for f, stride in self.strides}

    def add_own(self, code: np.ndarray, raw: Mapping[str, np.ndarray]) -> np.ndarray:
        """Add the own fields' digits of the raw values ``raw`` to ``code``, in place."""
        for f, lut in self.own.items():
            code += lut.take(raw[f], mode="clip")  # take: 2x fancy indexing
        return code


class _Table:
    """Entries of one or more back-off levels: hashed codes, all outcomes end to end.

    An entry's draw is the reference's: one uniform ``u`` on ``[0, N + alpha * D)``
    picks the first outcome whose cumulative count exceeds ``u``, or backs off (packed
    value -1) when ``u >= N``. The counts of all entries are summed up end to end
    (``cum``), so a draw is one binary search in ``cum`` for ``offset + floor(u)``
    (exact: the counts are integers). Entries are given as :class:`_Entries`; a level's
    rank tags its packed outcomes.
    """

    def __init__(self, alpha: float, parts: Sequence[_Entries], exact: bool = False) -> None:
        codes = np.concatenate([p.codes for p in parts])
        sizes = np.concatenate([p.sizes for p in parts])
        rows = np.concatenate([p.rows for p in parts]).reshape(-1, 6)
        ranks = np.concatenate([np.full(len(p.rows) // 6, p.rank, np.int64) for p in parts])
        # entries lie end to end: an entry's offset is where the one before it ends
        cum = np.cumsum(rows[:, 0])
        ends = cum.take(np.cumsum(sizes) - 1)
        offsets = np.concatenate([[0], ends[:-1]]).astype(np.int64)
        totals = ends - offsets
        self.index = _Index(codes, totals)
        # codes not in the table: no count, a denominator of 1 (always backs off)
        #: by row: the entry's total count, its denominator, its offset in ``cum``
        self.totals = self.index.spread(totals.astype(np.float64), 0.0)
        self.denominators = self.index.spread(totals + alpha * sizes, 1.0)
        self.offsets = self.index.spread(offsets, 0)
        #: the cumulative counts, and by outcome its packed value tagged with its level's
        #: rank; each with one more outcome (count 0, -1) at the end, so neither is empty
        self.cum = np.append(cum, cum[-1] if len(cum) else 0)
        self.packed = np.append(rows[:, 1:] @ _PACK | ranks << (5 * _BITS), -1)
        if exact:
            self._split_by_out(rows, sizes)

    def _split_by_out(self, rows: np.ndarray, sizes: np.ndarray) -> None:
        """The entries' outcomes split by the number out, for exact laws (a copula).

        Each entry has a block of ``span + 2`` slots (``span``: its most pieces out):
        in :attr:`out_counts` the counts with ``k`` out at slot ``k``, in :attr:`bounds`
        where its outcomes with ``k`` out start among all outcomes sorted by (entry,
        number out), ``k = 0..span + 1`` (the last: the entry's end). Sorted that way:
        :attr:`sorted_cum` (the counts summed end to end, after a leading 0) and
        :attr:`sorted_packed`. By row: :attr:`block` (a missing code: 0) and
        :attr:`span`."""
        entry = np.repeat(np.arange(len(sizes)), sizes)
        out = rows[:, 1]
        span = np.zeros(len(sizes), dtype=np.int64)
        np.maximum.at(span, entry, out)
        width = span + 2
        block = np.cumsum(width) - width
        self.block = self.index.spread(block, 0)
        self.span = self.index.spread(span, 0)
        self.out_counts = np.bincount(
            block.take(entry) + out, weights=rows[:, 0], minlength=int(width.sum())
        ).astype(np.float64)
        order = np.lexsort((out, entry))
        self.sorted_cum = np.concatenate([[0.0], np.cumsum(rows[order, 0]).astype(np.float64)])
        self.sorted_packed = (rows[order, 1:] @ _PACK).astype(np.int64)
        top = int(span.max(initial=0)) + 2
        slots = np.repeat(np.arange(len(sizes)), width) * top + _ranges(width)
        self.bounds = (entry.take(order) * top + out.take(order)).searchsorted(slots)

    def draw(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Packed outcomes of the entries of ``codes``, -1 where the draw backs off."""
        row = self.index.lookup(codes)
        u = rng.random(len(codes))
        u *= self.denominators.take(row)
        kept = u < self.totals.take(row)
        at = self.offsets.take(row)
        at += u.astype(np.int64)
        slot = self.cum.searchsorted(at, side="right")
        np.minimum(slot, len(self.cum) - 1, out=slot)  # backed-off draws may run past
        return np.where(kept, self.packed.take(slot), -1)


@dataclass(frozen=True)
class _Entries:
    """One level's table entries as arrays: each entry's code and number of outcomes,
    the outcomes' flat ``[count, out, funnel, floor1, floor2, ramp, ...]`` and the
    level's rank."""

    codes: np.ndarray
    sizes: np.ndarray
    rows: np.ndarray
    rank: int


#: Shared key parts of a throw (see :meth:`BatchTowers._prefixes`).
_Prefixes = tuple[np.ndarray, np.ndarray, list[np.ndarray]]


@dataclass(frozen=True)
class _PieceLevel:
    """One level of per-piece destination counts: its key, hashed codes, counts by row."""

    key: _Key
    index: _Index
    counts: np.ndarray


class _Coupling:
    """The copula of a model section (:class:`BatchTowers` with a ``copula``): its
    entries' loadings ``a``, ``b`` and gate classes."""

    def __init__(self, model: dict[str, Any]) -> None:
        self.entries = copula_settings(model["copula"])

    def loadings(self, gated: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(n,) loadings ``a``, ``b`` and ``c`` of each tower, from its first entry whose
        gate is met; ``gated``: per entry, (n,) whether a piece of its gate's classes is
        inside or thrown (all true without a gate)."""
        a, b = np.zeros(len(gated[0])), np.zeros(len(gated[0]))
        left = np.ones(len(gated[0]), dtype=bool)
        for (ea, eb, _), met in zip(self.entries, gated, strict=True):
            take = left & met
            a[take], b[take] = ea, eb
            left &= ~met
        return a, b, np.sqrt(1.0 - a * a - b * b)


@functools.cache
def _pascal(size: int) -> np.ndarray:
    """(size, size) binomial coefficients, ``[m, k]`` = C(m, k) (exact in doubles up to
    m = 1029), read only."""
    comb = np.zeros((size, size))
    comb[:, 0] = 1.0
    for r in range(1, size):
        comb[r, 1:] = comb[r - 1, 1:] + comb[r - 1, :-1]
    comb.flags.writeable = False
    return comb


def binomial_pmf(ks: np.ndarray, m: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(n, K) probabilities of ``ks`` successes in ``m`` trials of chance ``p``: ``ks``
    (K,), ``m`` and ``p`` (n,); 0 where ``k > m``.

    >>> binomial_pmf(np.arange(4), np.array([2, 3]), np.array([0.5, 0.0])).tolist()
    [[0.25, 0.5, 0.25, 0.0], [1.0, 0.0, 0.0, 0.0]]
    """
    comb = _pascal(max(int(m.max(initial=0)), len(ks) - 1) + 1)
    rest = m[:, None] - ks
    inside = rest >= 0
    law = comb[m[:, None], ks] * p[:, None] ** ks * (1.0 - p[:, None]) ** np.where(inside, rest, 0)
    return np.where(inside, law, 0.0)


def _ranges(sizes: np.ndarray) -> np.ndarray:
    """``0..size-1`` for each of ``sizes``, end to end."""
    starts = np.cumsum(sizes) - sizes
    return np.arange(int(sizes.sum())) - np.repeat(starts, sizes)


class BatchTowers:
    """``n`` independent towers of one distilled model, thrown together.

    Parameters
    ----------
    model : dict
        The ``model`` section of a model file (version 1, 2 or 3). With a ``copula``
        the groups of a throw are drawn jointly (:meth:`_coupled`).
    n : int
        Number of towers.
    seed : int
        Seed of the numpy generator (PCG64).
    labels : dict, optional
        Label -> class: pieces the towers tell apart within a class (a battle's watchmen
        by colour and its brigands, all pawns to the model). A group is still all the
        pieces of its class, and which of them take which destination is uniform, as in
        the reference (a multivariate hypergeometric split of the group's outcome).
        Default: one label per class, named as the class.
    """

    def __init__(
        self, model: dict[str, Any], n: int, seed: int, labels: Mapping[str, str] | None = None
    ) -> None:
        self.rng = np.random.default_rng(seed)
        self.alpha = float(model["alpha"])
        self.age_cap = int(model["age_cap"])
        self.classes: list[str] = sorted(set(model["classes"].values()))
        self._class_index = {c: i for i, c in enumerate(self.classes)}
        labels = {c: c for c in self.classes} if labels is None else dict(labels)
        unknown = sorted(set(labels.values()) - set(self.classes))
        if unknown:
            raise ValueError(f"labels of unknown classes {unknown}; the model has {self.classes}")
        #: label names, and each label's class index
        self.labels: list[str] = list(labels)
        self._label_index = {name: i for i, name in enumerate(self.labels)}
        self._label_class = [self._class_index[labels[name]] for name in self.labels]
        #: per class: its labels' indices
        self._class_labels = [
            [i for i, c in enumerate(self._label_class) if c == cls]
            for cls in range(len(self.classes))
        ]
        # visiting order of the reference sampler: fresh by class, then place/class/age
        self.order: list[tuple[int, int, int]] = [(-1, c, 0) for c in range(len(self.classes))]
        self.order += [
            (p, c, a)
            for p in range(len(PLACES))
            for c in range(len(self.classes))
            for a in range(1, self.age_cap + 1)
        ]
        names = [self.group_name(g) for g in self.order]
        self._group_code = {name: i for i, name in enumerate(names)}
        self.base = np.asarray([model["base"][name] for name in names], dtype=np.float64)
        self.base /= self.base.sum(axis=1, keepdims=True)
        # every table's keys as (group codes, context values by field)
        keyed = [
            (fields, table, *self._key_columns(table, len(fields)))
            for fields, table in [
                *zip(model["levels"], model["tables"], strict=True),
                *zip(model["piece_levels"], model["piece_tables"], strict=True),
            ]
        ]
        # per field: the (bucketed) values seen in any key, sorted: index 1.., 0 unseen
        seen = {
            f: np.unique(
                np.concatenate(
                    [np.zeros(0, np.int64)]
                    + [v[:, j] for fields, _, _, v in keyed for j, g in enumerate(fields) if g == f]
                )
            )
            for f in FIELDS
        }
        self._radix = {f: len(vs) + 1 for f, vs in seen.items()}
        # raw value -> index (values past the end are clipped to the last entry)
        top = int(seen["m"][-1]) if len(seen["m"]) else 0
        self._index_lut = {"m": _indices(seen["m"], np.arange(top + 2))}
        for f in FIELDS[1:]:
            # a v1 file has no edges for w and x, a file without t none for t (no level
            # asks for them)
            buckets = bucket_table(model["buckets"].get(f, [0]))
            self._index_lut[f] = _indices(seen[f], np.asarray(buckets, dtype=np.int64))

        def entries(key_of: _Key, groups: np.ndarray, values: np.ndarray) -> np.ndarray:
            """The codes of a level's keys (its mixed-radix digits, group in between)."""
            column = {f: _indices(seen[f], values[:, j]) for j, f in enumerate(key_of.fields)}
            code = np.zeros(len(groups), dtype=np.int64)
            for f in key_of.shared:
                code = code * self._radix[f] + column[f]
            code = code * len(self.order) + groups
            for f, _ in key_of.strides:
                code = code * self._radix[f] + column[f]
            return code

        def outcomes(table: dict[str, list[int]], code: np.ndarray, rank: int) -> _Entries:
            flat = np.fromiter(chain.from_iterable(table.values()), np.int64)
            sizes = np.fromiter(map(len, table.values()), np.int64, len(table)) // 6
            return _Entries(code, sizes, flat, rank)

        self.levels = [_Key(fields, self._radix) for fields in model["levels"]]
        self.levels[0].scale(self._index_lut)
        finest = self.levels[0]
        _, table, groups, values = keyed[0]
        exact = model.get("copula") is not None  # a copula draws from the exact laws
        self._finest = _Table(
            self.alpha, [outcomes(table, entries(finest, groups, values), 0)], exact
        )
        # the coarser levels, drawn together: an entry's code is ``code * deep + level``
        # (levels counted from 0 after the finest); each row tries every level at once,
        # and the first level whose draw does not back off is used, which is the law of
        # trying them one after the other (independent trials)
        self._deep = len(self.levels) - 1
        if self._deep > _RANKS:
            raise ValueError(f"the batch path takes at most {_RANKS + 1} back-off levels")
        coarse = self.levels[1:]
        for level in coarse:
            level.scale(self._index_lut, self._deep)
        #: the coarser levels' key parts as (deep, ...) arrays: the group's place value,
        #: and each own field's digits by raw value (0 in a level without that field)
        self._coarse_group = np.asarray([[lv.group_stride * self._deep] for lv in coarse])
        self._coarse_own = {
            f: np.stack([lv.own.get(f, 0 * self._index_lut[f]) for lv in coarse])
            for f in sorted({f for lv in coarse for f in lv.own})
        }
        self._coarse = _Table(
            self.alpha,
            [
                outcomes(table, entries(level, groups, values) * self._deep + i, self._deep - 1 - i)
                for i, (level, (_, table, groups, values)) in enumerate(
                    zip(coarse, keyed[1 : len(self.levels)], strict=True)
                )
            ],
            exact,
        )
        self.prior = float(model["prior"])
        # per-piece counts by context, coarsest first
        self.piece_levels = []
        for fields, table, groups, values in keyed[len(self.levels) :]:
            key_of = _Key(fields, self._radix)
            key_of.scale(self._index_lut)
            counts = np.fromiter(chain.from_iterable(table.values()), np.int64).reshape(-1, 5)
            counts = counts.astype(np.float64)
            hashed = _Index(entries(key_of, groups, values), counts.sum(axis=1))
            self.piece_levels.append(_PieceLevel(key_of, hashed, hashed.spread(counts, 0.0)))
        self.piece_levels.reverse()
        #: the keys of every level, per-piece levels last
        self._keys = [*self.levels, *(level.key for level in self.piece_levels)]
        self._own = {f for key_of in self._keys for f, _ in key_of.strides}
        self._coupling = None if model.get("copula") is None else _Coupling(model)
        self.reset(np.zeros((n, len(PLACES), len(self.labels), self.age_cap), np.int64))

    def reset(self, residents: np.ndarray, throws: np.ndarray | int = 0) -> None:
        """Start again from ``residents`` (n, places, labels, age buckets): the residents
        of each of ``n`` towers (any ``n``) by place, label and age bucket (age 1 first,
        the last bucket: ``age_cap`` throws and older), and the throws each tower has
        seen since it was empty (``throws``, one for all or (n,); the context field ``t``
        of a model that reads it)."""
        if residents.shape[1:] != (len(PLACES), len(self.labels), self.age_cap):
            raise ValueError(
                f"residents must have shape (n, {len(PLACES)}, {len(self.labels)}, {self.age_cap})"
            )
        counts = np.ascontiguousarray(residents.transpose(1, 2, 3, 0), dtype=np.int64)
        seen = np.broadcast_to(np.asarray(throws, dtype=np.int64), (len(residents),)).copy()
        if (seen < 0).any():
            raise ValueError("throws must be counts >= 0")
        held = counts.any(axis=(0, 3)).nonzero()
        self._start(counts, set(zip(*(h.tolist() for h in held), strict=True)), seen)

    def tile(self, k: int) -> None:
        """Make ``k`` copies of the towers: tower ``i`` of copy ``j`` is ``j * n + i``."""
        self._start(np.tile(self._counts, (1, 1, 1, k)), self._used, np.tile(self.throws, k))

    def keep(self, start: int, stop: int) -> None:
        """Keep only the towers ``start`` to ``stop - 1``."""
        self._start(
            self._counts[..., start:stop].copy(), self._used, self.throws[start:stop].copy()
        )

    def _start(self, counts: np.ndarray, used: set[tuple[int, int]], throws: np.ndarray) -> None:
        """Hold ``counts`` (places, labels, age buckets, n) and ``throws`` (n,); ``used``
        holds every (label, age bucket) slice with a piece."""
        self.n = counts.shape[-1]
        #: (n,) the throws each tower has seen since it was empty
        self.throws = throws
        #: _counts[place, label, age bucket - 1, tower], and a spare array of that shape
        #: (the next throw's result); _used: the (label, age bucket - 1) slices that may
        #: hold pieces, so a throw reads and clears only those
        self._counts = counts
        self._spare = np.zeros(counts.shape, dtype=np.int64)
        self._used = set(used)
        self._spare_used: set[tuple[int, int]] = set()
        self._inside = counts.sum(axis=(0, 1, 2))

    def _key_columns(self, table: dict[str, Any], width: int) -> tuple[np.ndarray, np.ndarray]:
        """A table's keys (each ``group|v1|...|v<width>``, as a checked model file has
        them) as (group codes (k,), context values (k, width))."""
        parts = "|".join(table).split("|")
        if len(parts) != len(table) * (width + 1):
            raise ValueError(f"table keys must be group|{width} values")
        groups = np.fromiter(map(self._group_code.__getitem__, parts[:: width + 1]), np.int64)
        del parts[:: width + 1]
        values = np.fromiter(map(int, parts), np.int64, len(parts))
        return groups, values.reshape(len(table), width)

    def group_name(self, group: tuple[int, int, int]) -> str:
        place, cls, age = group
        if place < 0:
            return f"fresh.{self.classes[cls]}"
        return f"{PLACES[place]}.{self.classes[cls]}.{age}"

    @property
    def residents(self) -> np.ndarray:
        """(n, places, labels, age buckets) int: residents of each tower (a view)."""
        return self._counts.transpose(3, 0, 1, 2)

    @property
    def inside(self) -> np.ndarray:
        """(n,) int: pieces inside each tower."""
        return self._counts.sum(axis=(0, 1, 2))

    def _prefixes(self, values: Mapping[str, np.ndarray]) -> _Prefixes:
        """Each level's shared key part for every tower, times its place value: the
        finest level's (n,), the coarser levels' (deep, n) (times ``deep``, plus the
        level), the per-piece levels' (n,) each."""
        index: dict[str, np.ndarray] = {}
        shared: dict[tuple[str, ...], np.ndarray] = {(): np.zeros(self.n, dtype=np.int64)}
        prefixes = []
        for i, key_of in enumerate(self._keys):
            prefix = shared.get(key_of.shared)
            if prefix is None:
                prefix = shared[()]
                for f in key_of.shared:
                    if f not in index:
                        index[f] = self._index_lut[f].take(values[f], mode="clip")
                    prefix = prefix * self._radix[f] + index[f]
                shared[key_of.shared] = prefix
            scale = key_of.group_stride * len(self.order)
            if 0 < i < len(self.levels):  # a coarser level
                prefixes.append(prefix * (scale * self._deep) + (i - 1))
            else:
                prefixes.append(prefix * scale)
        coarse = np.asarray(prefixes[1 : len(self.levels)]).reshape(self._deep, self.n)
        return prefixes[0], coarse, prefixes[len(self.levels) :]

    def _outcomes(
        self,
        g: int,
        prefixes: _Prefixes,
        rows: np.ndarray | None,
        raw: dict[str, np.ndarray],
    ) -> np.ndarray:
        """(k,) packed joint outcomes of group ``g`` for the towers ``rows`` (None: all).

        ``prefixes`` holds each level's shared key part (all towers, see
        :meth:`_prefixes`), ``raw`` the group's own context values (``m``, and ``o`` and
        ``P`` if a level reads them) for those towers.
        """
        finest = self.levels[0]
        if rows is None:
            code = prefixes[0] + g * finest.group_stride
        else:
            code = prefixes[0].take(rows)
            code += g * finest.group_stride
        result = self._finest.draw(finest.add_own(code, raw), self.rng)
        todo = (result < 0).nonzero()[0]
        if not len(todo):
            return result
        at = todo if rows is None else rows.take(todo)  # the towers still to draw
        raw = {f: v.take(todo) for f, v in raw.items()}
        deep = self._deep
        if deep:  # the coarser levels, drawn together
            codes = prefixes[1].take(at, axis=1)
            codes += g * self._coarse_group
            for f, lut in self._coarse_own.items():
                codes += lut.take(raw[f], axis=1, mode="clip")
            drawn = self._coarse.draw(codes.reshape(-1), self.rng).reshape(deep, len(todo))
            first = drawn.max(axis=0)  # the finest level drawn (highest rank), or -1
            result[todo] = first & _OUTCOME  # where -1: set by the base multinomial below
            left = (first < 0).nonzero()[0]
            if not len(left):
                return result
            todo, at = todo.take(left), at.take(left)
            raw = {f: v.take(left) for f, v in raw.items()}
        law = self._piece_law(g, prefixes, at, raw)
        result[todo] = self.rng.multinomial(raw["m"], law) @ _PACK
        return result

    def _piece_law(
        self, g: int, prefixes: _Prefixes, at: np.ndarray, raw: dict[str, np.ndarray]
    ) -> np.ndarray:
        """(k, 5) per-piece destination laws of the base multinomial of group ``g`` for
        the towers ``at``, whose own context values are ``raw``."""
        law = np.repeat(self.base[g : g + 1], len(at), axis=0)
        for level, p in zip(self.piece_levels, prefixes[2], strict=True):
            code = p.take(at)
            code += g * level.key.group_stride
            found_at = level.index.lookup(level.key.add_own(code, raw))
            found = (found_at != level.index.absent).nonzero()[0]
            if len(found):
                seen = level.counts.take(found_at.take(found), axis=0)
                law[found] = (seen + self.prior * law[found]) / (
                    seen.sum(axis=1, keepdims=True) + self.prior
                )
        return law / law.sum(axis=1, keepdims=True)

    def throw(self, fresh: Mapping[str, int] | np.ndarray) -> BatchThrow:
        """Throw into every tower: ``{"keshi": 12}`` for all, or an (n, L) count array
        (L: the labels, by default the classes)."""
        if isinstance(fresh, Mapping):
            counts = np.zeros((len(self.labels), self.n), dtype=np.int64)
            for name, k in fresh.items():
                if name not in self._label_index:
                    raise ValueError(f"unknown label {name!r}; the towers have {self.labels}")
                counts[self._label_index[name]] = k
        else:
            counts = np.asarray(fresh, dtype=np.int64)
            if counts.shape != (self.n, len(self.labels)):
                raise ValueError(f"fresh counts must have shape {(self.n, len(self.labels))}")
            counts = np.ascontiguousarray(counts.T)
        before = self._counts
        inside, thrown = self._inside, counts.sum(axis=0)
        if int((inside + thrown).max(initial=0)) > _MASK:
            raise ValueError(f"at most {_MASK} pieces in a tower")
        zeros = np.zeros(self.n, dtype=np.int64)
        by_class = [sum(counts[i] for i in labels) for labels in self._class_labels]
        values = {
            "n": thrown,
            "I": inside,
            "J": inside,
            "t": self.throws,
            **{
                f: by_class[self._class_index[c]] if c in self._class_index else zeros
                for f, c in MAKEUP.items()
            },
        }
        prefixes = self._prefixes(values)
        if "P" in self._own:  # occupancy of each place (for fresh pieces: inside)
            occupancy = np.zeros((len(PLACES), self.n), dtype=np.int64)
            for c, a in self._used:
                occupancy += before[:, c, a]
            p_raw = [inside, *occupancy]
        fresh_any = counts.any(axis=1)
        if self._coupling is not None:
            latent = self._latent(before, counts)
        out = np.zeros(self.n, dtype=np.int64)
        #: packed outcomes added up by (label, new age bucket - 1): the next residents
        sums: dict[tuple[int, int], np.ndarray] = {}
        fresh_out = None
        for g, (place, cls, age) in enumerate(self.order):
            if place < 0:
                members = [counts[i] for i in self._class_labels[cls] if fresh_any[i]]
                labels = [i for i in self._class_labels[cls] if fresh_any[i]]
            else:
                labels = [i for i in self._class_labels[cls] if (i, age - 1) in self._used]
                members = [before[place, i, age - 1] for i in labels]
            if not labels:
                continue
            m = members[0] if len(members) == 1 else sum(members)
            k = np.count_nonzero(m)
            if not k:
                continue
            everyone = k == self.n
            rows = None
            if not everyone:
                rows = (m != 0).nonzero()[0]  # 3x np.flatnonzero of an int array
                m = m.take(rows)
            raw = {"m": m}
            if "o" in self._own:
                raw["o"] = out if everyone else out.take(rows)
            if "P" in self._own:
                raw["P"] = p_raw[place + 1] if everyone else p_raw[place + 1].take(rows)
            if self._coupling is None:
                res = self._outcomes(g, prefixes, rows, raw)
            else:
                res = self._coupled(g, place, prefixes, rows, raw, latent)
            if place >= 0 and fresh_out is None:  # fresh groups come first
                fresh_out = out.copy()
            new_age = 0 if place < 0 else min(age, self.age_cap - 1)
            if len(labels) > 1:  # which members go where: uniform, as in the reference
                parts = self._split(res, [v if rows is None else v.take(rows) for v in members])
            else:
                parts = [res]
            for label, part in zip(labels, parts, strict=True):
                self._add(sums, (label, new_age), part, rows, out)
        if fresh_out is None:
            fresh_out = out.copy()
        after = self._spare
        for c, a in self._spare_used - sums.keys():
            after[:, c, a] = 0
        out_by_label = np.zeros((self.n, len(self.labels)), dtype=np.int64)
        for (c, a), total in sums.items():
            stay = after[:, c, a]
            np.right_shift(total, _SHIFTS, out=stay)
            stay &= _MASK
            out_by_label[:, c] += total & _MASK
        self._counts, self._spare = after, before
        self._used, self._spare_used = set(sums), self._used
        self._inside = inside + thrown - out
        self.throws = self.throws + 1
        out_by_class = np.stack(
            [out_by_label[:, labels].sum(axis=1) for labels in self._class_labels], axis=1
        )
        return BatchThrow(out, fresh_out, out_by_class, out_by_label)

    def _latent(self, before: np.ndarray, counts: np.ndarray) -> dict[Any, np.ndarray]:
        """A throw's copula normals and loadings, by tower: ``"a"``, ``"b"``, ``"c"``,
        ``"Z"``; each origin's ``Z_o`` is added by :meth:`_coupled` when first met."""
        coupling = self._coupling
        assert coupling is not None
        gated = [self._met(gate, before, counts) for *_, gate in coupling.entries]
        a, b, c = coupling.loadings(gated)
        return {"a": a, "b": b, "c": c, "Z": self.rng.standard_normal(self.n)}

    def _met(
        self, gate: tuple[str, ...] | None, before: np.ndarray, counts: np.ndarray
    ) -> np.ndarray:
        """(n,) whether a piece of one of ``gate``'s classes is inside or thrown (all
        true for ``None``)."""
        if gate is None:
            return np.ones(self.n, dtype=bool)
        labels = [i for g in gate for i in self._class_labels[self._class_index[g]]]
        met = counts[labels].any(axis=0)
        for c, a in self._used:
            if c in labels:
                met |= before[:, c, a].any(axis=0)
        return met

    def _coupled(
        self,
        g: int,
        place: int,
        prefixes: _Prefixes,
        rows: np.ndarray | None,
        raw: dict[str, np.ndarray],
        latent: dict[Any, np.ndarray],
    ) -> np.ndarray:
        """:meth:`_outcomes` through the copula: the number out is the quantile of the
        group's exact out-law at ``u = Phi(a Z + b Z_o + c e)`` (``Z_o`` of the group's
        origin, ``place``; -1: fresh), the outcome given it a pick in the mixture's parts
        (each level's entry and the base multinomial) by their mass with that number
        out, then in the part's outcomes with it."""
        from scipy.special import ndtr  # scipy.stats would cost half a second to import

        origin = latent.get(place)
        if origin is None:
            origin = latent[place] = self.rng.standard_normal(self.n)
        at = np.arange(self.n) if rows is None else rows
        m = raw["m"]
        x = latent["a"].take(at) * latent["Z"].take(at) + latent["b"].take(at) * origin.take(at)
        x += latent["c"].take(at) * self.rng.standard_normal(len(m))
        # the mixture's parts: (table, row, weight) per level, finest first, then the base
        finest = self.levels[0]
        code = prefixes[0].take(at)
        code += g * finest.group_stride
        codes = prefixes[1].take(at, axis=1)
        codes += g * self._coarse_group
        for f, lut in self._coarse_own.items():
            codes += lut.take(raw[f], axis=1, mode="clip")
        looked = [(self._finest, self._finest.index.lookup(finest.add_own(code, raw)))]
        if self._deep:
            coarse = self._coarse.index.lookup(codes.reshape(-1)).reshape(-1, len(m))
            looked += [(self._coarse, r) for r in coarse]
        ks = np.arange(int(m.max()) + 1)
        reach = np.ones(len(m))
        law = np.zeros((len(m), len(ks)))
        parts = []
        for table, row in looked:
            total, denominator = table.totals.take(row), table.denominators.take(row)
            weight = np.where(row != table.index.absent, reach / denominator, 0.0)
            reach *= (denominator - total) / denominator
            block = table.block.take(row)
            span = np.minimum(table.span.take(row), m)
            counts = table.out_counts.take(block[:, None] + ks, mode="clip")
            counts[ks > span[:, None]] = 0.0
            law += weight[:, None] * counts
            parts.append((table, block, weight))
        piece = self._piece_law(g, prefixes, at, raw)
        base = binomial_pmf(ks, m, piece[:, 0])
        law += reach[:, None] * base
        # the number out: the first k whose cumulative law exceeds u
        cum = np.cumsum(law, axis=1)
        k = (cum <= ndtr(x)[:, None] * cum[:, -1:]).sum(axis=1)
        np.minimum(k, m, out=k)
        # the part: by its mass with k out
        index = np.arange(len(m))
        mass = np.stack(
            [w * t.out_counts.take(b + k) for t, b, w in parts] + [reach * base[index, k]]
        )
        mass_cum = np.cumsum(mass, axis=0)
        chosen = (mass_cum <= self.rng.random(len(m)) * mass_cum[-1]).sum(axis=0)
        np.minimum(chosen, len(parts), out=chosen)
        result = np.zeros(len(m), dtype=np.int64)
        v = self.rng.random(len(m))
        for i, (table, block, _) in enumerate(parts):
            pick = (chosen == i).nonzero()[0]
            if not len(pick):
                continue
            slot = block.take(pick) + k.take(pick)
            lo, hi = table.bounds.take(slot), table.bounds.take(slot + 1)
            low = table.sorted_cum.take(lo)
            target = low + v.take(pick) * (table.sorted_cum.take(hi) - low)
            j = np.clip(table.sorted_cum.searchsorted(target, side="right") - 1, lo, hi - 1)
            result[pick] = table.sorted_packed.take(j)
        pick = (chosen == len(parts)).nonzero()[0]
        if len(pick):  # the base multinomial given k out
            stay = piece[pick, 1:] + 1e-300  # (all mass out: any place, none is drawn)
            stay /= stay.sum(axis=1, keepdims=True)
            kept = k.take(pick)
            result[pick] = kept + self.rng.multinomial(m.take(pick) - kept, stay) @ _PACK[1:]
        return result

    def _add(
        self,
        sums: dict[tuple[int, int], np.ndarray],
        key: tuple[int, int],
        res: np.ndarray,
        rows: np.ndarray | None,
        out: np.ndarray,
    ) -> None:
        """Add packed outcomes ``res`` of the towers ``rows`` (None: all) to ``sums[key]``
        and their pieces out to ``out``."""
        total = sums.get(key)
        if rows is not None and 16 * len(rows) > self.n:  # dense enough: update full width
            full = np.zeros(self.n, dtype=np.int64)
            full[rows] = res
            res, rows = full, None
        if rows is None:
            if total is None:
                sums[key] = res
            else:
                total += res
            out += res & _MASK
        else:
            if total is None:
                total = sums[key] = np.zeros(self.n, dtype=np.int64)
            total[rows] = total.take(rows) + res
            out[rows] = out.take(rows) + (res & _MASK)

    def _split(self, res: np.ndarray, members: list[np.ndarray]) -> list[np.ndarray]:
        """Packed outcomes per label of a group's packed outcomes ``res``, its members by
        label ``members``: each destination's pieces drawn without replacement from the
        members left (sequential hypergeometric draws), the last destination the rest."""
        left = [v.copy() for v in members]
        pool = sum(left)
        parts = [np.zeros(len(res), dtype=np.int64) for _ in members]
        for d in range(len(PLACES) + 1):
            need = (res >> (_BITS * d)) & _MASK
            if d == len(PLACES):
                taken = left
            elif not need.any():
                continue
            else:
                taken, rest, still = [], pool.copy(), need.copy()
                for v in left[:-1]:
                    rest -= v
                    x = self.rng.hypergeometric(v, rest, still)
                    still -= x
                    taken.append(x)
                taken.append(still)
                pool -= need
            for part, v, x in zip(parts, left, taken, strict=True):
                part += x << (_BITS * d)
                if d < len(PLACES):
                    v -= x
        return parts
