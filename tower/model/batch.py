"""The numpy fast path: many independent distilled towers thrown in lockstep.

:class:`BatchTowers` keeps, for each of ``n`` towers, the number of residents by place,
class and age bucket, and draws every group's joint outcome for all towers at once with
the same law as :class:`tower.model.reference.ReferenceSampler` (same groups, order,
contexts, back-off and base multinomials; the random streams differ). It tracks counts,
not piece identities: use it for statistics and speed, and the reference sampler (the
:class:`~tower.model.distilled.DistilledModel`) when a game needs to know which piece.

How it is fast: every context field is mapped once per throw to a small index (its
bucketed values seen in the tables, 0 for unseen) by a lookup table; a level's key is a
mixed-radix integer of those indices, found with a vectorised open-addressing hash
(:class:`_Index`, about one probe); a table entry's outcome is drawn with Walker's alias
method from the same uniform that decided the back-off; residents are stored as
``(place, class, age, tower)`` so each group's counts are one contiguous row, and groups
empty in every tower are skipped.

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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from tower.model.reference import FIELDS, MAKEUP, PLACES, bucket_table


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
    """

    out: np.ndarray
    fresh_out: np.ndarray
    out_by_class: np.ndarray


_MULT = np.int64(0x9E3779B97F4A7C15 - 2**64)  # Fibonacci hashing (int64 products wrap)
#: Context fields that are the same for every group of one throw: a level's key starts
#: with them, so that part is computed once per throw, not per group.
SHARED: tuple[str, ...] = ("n", "I", "J", "w", "x")
#: A joint outcome (out, funnel, floor1, floor2, ramp) packed in one integer, 12 bits each
#: (one gather per draw instead of five).
_BITS, _MASK = 12, (1 << 12) - 1
_PACK = np.asarray([1 << (_BITS * d) for d in range(5)], dtype=np.int64)


class _Index:
    """A vectorised open-addressing hash table: non-negative int64 code -> row, or -1."""

    def __init__(self, codes: list[int]) -> None:
        bits = max(4, (4 * len(codes)).bit_length())  # load factor at most 1/4
        self.mask = np.int64((1 << bits) - 1)
        self.shift = np.int64(64 - bits)
        keys, rows = [-1] * (1 << bits), [-1] * (1 << bits)
        slots = self._slots(np.asarray(codes, dtype=np.int64)).tolist()
        for row, (code, slot) in enumerate(zip(codes, slots, strict=True)):
            while keys[slot] != -1:
                slot = (slot + 1) & self.mask
            keys[slot], rows[slot] = code, row
        self.keys = np.asarray(keys, dtype=np.int64)
        self.rows = np.asarray(rows, dtype=np.int64)

    def _slots(self, codes: np.ndarray) -> np.ndarray:
        return ((codes * _MULT) >> self.shift) & self.mask  # array products wrap silently

    def lookup(self, codes: np.ndarray) -> np.ndarray:
        """(k,) rows of ``codes`` (k,), -1 where absent."""
        slot = self._slots(codes)
        key = self.keys.take(slot)
        rows = self.rows.take(slot)
        missed = np.flatnonzero(key != codes)  # usually few: absent keys and collisions
        rows[missed] = -1
        todo = missed[key.take(missed) != -1]  # not an empty slot: probe on
        while len(todo):
            slot[todo] = (slot[todo] + 1) & self.mask
            key = self.keys[slot[todo]]
            hit = key == codes[todo]
            rows[todo[hit]] = self.rows[slot[todo[hit]]]
            todo = todo[~hit & (key != -1)]
        return rows


def _alias(weights: list[float]) -> tuple[list[float], list[int]]:
    """Walker's alias table of ``weights`` (Vose's construction): (probabilities, aliases)."""
    k, total = len(weights), sum(weights)
    scaled = [w * k / total for w in weights]
    prob, alias = [1.0] * k, list(range(k))
    small = [i for i, q in enumerate(scaled) if q < 1.0]
    large = [i for i, q in enumerate(scaled) if q >= 1.0]
    while small and large:
        i, j = small.pop(), large.pop()
        prob[i], alias[i] = scaled[i], j
        scaled[j] -= 1.0 - scaled[i]
        (small if scaled[j] < 1.0 else large).append(j)
    return prob, alias


class _Level:
    """One back-off level: hashed keys, each entry's chance of use and its alias table.

    A key's code is mixed-radix over the level's shared fields (:data:`SHARED`), then the
    group, then the group's own fields (``m``, ``P``, ``o``).
    """

    def __init__(
        self, alpha: float, fields: list[str], table: Mapping[str, list[int]], code
    ) -> None:
        self.shared = [f for f in fields if f in SHARED]
        self.own = [f for f in fields if f not in SHARED]
        # Each entry's alias table has its outcomes (weights: counts) and one more slot,
        # "back off" (weight alpha * D, packed value -1): one uniform decides both.
        codes, starts, sizes, probs, aliases, packed = [], [], [], [], [], []
        for key, flat in table.items():
            codes.append(code(key, fields))
            counts = flat[0::6]
            prob, alias = _alias([*counts, alpha * len(counts)])
            starts.append(len(packed))
            sizes.append(len(prob))
            probs += prob
            aliases += [starts[-1] + a for a in alias]
            packed += [
                sum(int(k) << (_BITS * d) for d, k in enumerate(flat[i + 1 : i + 6]))
                for i in range(0, len(flat), 6)
            ]
            packed.append(-1)
        # row -1 (key absent): a one-slot table that always backs off
        self.starts = np.asarray([*starts, len(packed)], dtype=np.int64)
        self.sizes = np.asarray([*sizes, 1], dtype=np.float64)
        self.prob = np.asarray([*probs, 1.0], dtype=np.float64)
        self.alias = np.asarray([*aliases, len(packed)], dtype=np.int64)
        self.packed = np.asarray([*packed, -1], dtype=np.int64)
        self.codes = codes
        self.index = _Index(codes)

    @classmethod
    def merged(cls, levels: list[_Level]) -> _Level:
        """The entries of ``levels`` in one table, a key ``code * len(levels) + l``.

        The coarser levels are drawn together: each row tries every level at once, and
        the first level whose draw does not back off is used, which is the law of trying
        them one after the other (independent trials).
        """
        merged = cls.__new__(cls)
        codes, parts = [], {f: [] for f in ("starts", "sizes", "prob", "alias", "packed")}
        offset = 0
        for i, level in enumerate(levels):
            codes += [c * len(levels) + i for c in level.codes]
            parts["starts"].append(level.starts[:-1] + offset)
            parts["sizes"].append(level.sizes[:-1])
            parts["prob"].append(level.prob[:-1])
            parts["alias"].append(level.alias[:-1] + offset)
            parts["packed"].append(level.packed[:-1])
            offset += len(level.packed) - 1
        merged.starts = np.concatenate([*parts["starts"], [offset]]).astype(np.int64)
        merged.sizes = np.concatenate([*parts["sizes"], [1.0]])
        merged.prob = np.concatenate([*parts["prob"], [1.0]])
        merged.alias = np.concatenate([*parts["alias"], [offset]]).astype(np.int64)
        merged.packed = np.concatenate([*parts["packed"], [-1]]).astype(np.int64)
        merged.codes = codes
        merged.index = _Index(codes)
        return merged

    def draw(self, e: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Packed outcomes of the entries ``e`` (-1: absent), -1 where the draw backs off."""
        v = rng.random(len(e)) * self.sizes.take(e)  # uniform on [0, slots)
        i = v.astype(np.int64)
        j = self.starts.take(e) + i
        return self.packed.take(np.where(v - i < self.prob.take(j), j, self.alias.take(j)))


class BatchTowers:
    """``n`` independent towers of one distilled model, thrown together.

    Parameters
    ----------
    model : dict
        The ``model`` section of a model file (version 1 or 2).
    n : int
        Number of towers.
    seed : int
        Seed of the numpy generator (PCG64).
    """

    def __init__(self, model: dict[str, Any], n: int, seed: int) -> None:
        self.n = n
        self.rng = np.random.default_rng(seed)
        self.alpha = float(model["alpha"])
        self.age_cap = int(model["age_cap"])
        self.classes: list[str] = sorted(set(model["classes"].values()))
        self._class_index = {c: i for i, c in enumerate(self.classes)}
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
        pairs = [
            *zip(model["levels"], model["tables"], strict=True),
            *zip(model["piece_levels"], model["piece_tables"], strict=True),
        ]
        # per field: the (bucketed) values seen in any key -> index 1.., 0 for unseen
        seen: dict[str, set[int]] = {f: set() for f in FIELDS}
        for fields, table in pairs:
            for key in table:
                for f, v in zip(fields, key.split("|")[1:], strict=True):
                    seen[f].add(int(v))
        index = {f: {v: i + 1 for i, v in enumerate(sorted(vs))} for f, vs in seen.items()}
        self._radix = {f: len(vs) + 1 for f, vs in seen.items()}
        # raw value -> index (values past the end are clipped to the last entry)
        self._index_lut = {
            "m": np.asarray([index["m"].get(v, 0) for v in range(max(seen["m"], default=0) + 2)])
        }
        for f in FIELDS[1:]:
            # a v1 file has no edges for w and x (its levels never ask for them)
            buckets = bucket_table(model["buckets"].get(f, [0]))
            self._index_lut[f] = np.asarray([index[f].get(b, 0) for b in buckets], dtype=np.int64)

        def code(key: str, fields: list[str]) -> int:
            group, *values = key.split("|")
            value = dict(zip(fields, values, strict=True))
            c = 0
            for f in [f for f in fields if f in SHARED]:
                c = c * self._radix[f] + index[f][int(value[f])]
            c = c * len(self.order) + self._group_code[group]
            for f in [f for f in fields if f not in SHARED]:
                c = c * self._radix[f] + index[f][int(value[f])]
            return c

        self.levels = [
            _Level(self.alpha, list(fields), table, code)
            for fields, table in zip(model["levels"], model["tables"], strict=True)
        ]
        self._deep = _Level.merged(self.levels[1:]) if len(self.levels) > 1 else None
        self.prior = float(model["prior"])
        # per-piece counts by context, coarsest first: (fields, index, counts)
        self.piece_levels = []
        for fields, table in zip(model["piece_levels"], model["piece_tables"], strict=True):
            level = _Level(self.alpha, list(fields), {}, code)
            level.index = _Index([code(key, list(fields)) for key in table])
            level.counts = np.asarray(list(table.values()), dtype=np.float64).reshape(-1, 5)
            self.piece_levels.append(level)
        self.piece_levels.reverse()
        # a key's place values: the group's and each own field's (mixed radix, see code())
        for level in [*self.levels, *self.piece_levels]:
            level.strides, stride = [], 1
            for f in reversed(level.own):
                level.strides.insert(0, (f, stride))
                stride *= self._radix[f]
            level.group_stride = stride
        self._own = {f for lv in [*self.levels, *self.piece_levels] for f in lv.own}
        #: _counts[place, class, age bucket - 1, tower], and a spare array of that shape
        #: (the next throw's result); _used: the (class, age bucket - 1) slices that may
        #: hold pieces, so a throw reads and clears only those
        shape = (len(PLACES), len(self.classes), self.age_cap, n)
        self._counts, self._spare = np.zeros(shape, np.int64), np.zeros(shape, np.int64)
        for counts in (self._counts, self._spare):  # touch the memory now, not in the throws
            counts.fill(0)
        self._used: set[tuple[int, int]] = set()
        self._spare_used: set[tuple[int, int]] = set()
        self.throws = 0

    def group_name(self, group: tuple[int, int, int]) -> str:
        place, cls, age = group
        if place < 0:
            return f"fresh.{self.classes[cls]}"
        return f"{PLACES[place]}.{self.classes[cls]}.{age}"

    @property
    def residents(self) -> np.ndarray:
        """(n, places, classes, age buckets) int: residents of each tower (a view)."""
        return self._counts.transpose(3, 0, 1, 2)

    @property
    def inside(self) -> np.ndarray:
        """(n,) int: pieces inside each tower."""
        return self._counts.sum(axis=(0, 1, 2))

    def _index(self, f: str, values: np.ndarray) -> np.ndarray:
        return self._index_lut[f].take(values, mode="clip")  # take: 2x fancy indexing

    def _code(
        self, g: int, level: _Level, prefix: np.ndarray, own: dict[str, np.ndarray]
    ) -> np.ndarray:
        """Keys of group ``g`` at ``level`` for some rows of the group: ``prefix`` is the
        shared key part of those rows, ``own`` their own context indices."""
        code = prefix + g * level.group_stride  # prefix: already scaled (see throw)
        for f, stride in level.strides:
            code += own[f] * stride if stride != 1 else own[f]
        return code

    def _outcomes(
        self,
        g: int,
        prefixes: list[np.ndarray],
        rows: np.ndarray | None,
        own: dict[str, np.ndarray],
        m: np.ndarray,
    ) -> np.ndarray:
        """(k,) packed joint outcomes of group ``g`` for the towers ``rows`` (None: all).

        ``prefixes`` holds each level's shared key part (all towers), ``own`` the group's
        own context indices and ``m`` its sizes (length k).
        """

        def prefix(p: np.ndarray, todo: np.ndarray | None) -> np.ndarray:
            if rows is None:
                return p if todo is None else p.take(todo)
            return p.take(rows if todo is None else rows.take(todo))

        finest = self.levels[0]
        result = finest.draw(
            finest.index.lookup(self._code(g, finest, prefix(prefixes[0], None), own)),
            self.rng,
        )
        todo = np.flatnonzero(result < 0)
        if not len(todo):
            return result
        own = {f: v.take(todo) for f, v in own.items()}  # the rows still to draw
        if self._deep is not None:  # the coarser levels, drawn together
            deep, count = self._deep, len(self.levels) - 1
            codes = np.concatenate(
                [
                    self._code(g, level, prefix(p, todo), own) * count + i
                    for i, (level, p) in enumerate(zip(self.levels[1:], prefixes[1:], strict=False))
                ]
            )
            drawn = deep.draw(deep.index.lookup(codes), self.rng).reshape(count, len(todo))
            hit = drawn >= 0
            first = hit.argmax(axis=0)  # the first level whose draw was used
            drew = hit.any(axis=0)
            used = drew.nonzero()[0]
            result[todo[used]] = drawn[first[used], used]
            if len(used) == len(todo):
                return result
            left = (~drew).nonzero()[0]
            todo = todo.take(left)
            own = {f: v.take(left) for f, v in own.items()}
        law = np.broadcast_to(self.base[g], (len(todo), 5))
        for level, p in zip(self.piece_levels, prefixes[len(self.levels) :], strict=True):
            found_at = level.index.lookup(self._code(g, level, prefix(p, todo), own))
            found = found_at >= 0
            if found.any():
                law = law.copy()
                seen = level.counts[found_at[found]]
                law[found] = (seen + self.prior * law[found]) / (
                    seen.sum(axis=1, keepdims=True) + self.prior
                )
        law = law / law.sum(axis=1, keepdims=True)
        result[todo] = self.rng.multinomial(m.take(todo), law) @ _PACK
        return result

    def throw(self, fresh: Mapping[str, int] | np.ndarray) -> BatchThrow:
        """Throw into every tower: ``{"keshi": 12}`` for all, or an (n, C) count array."""
        if isinstance(fresh, Mapping):
            counts = np.zeros((len(self.classes), self.n), dtype=np.int64)
            for cls, k in fresh.items():
                if cls not in self._class_index:
                    raise ValueError(f"unknown class {cls!r}; the model has {self.classes}")
                counts[self._class_index[cls]] = k
        else:
            counts = np.asarray(fresh, dtype=np.int64)
            if counts.shape != (self.n, len(self.classes)):
                raise ValueError(f"fresh counts must have shape {(self.n, len(self.classes))}")
            counts = np.ascontiguousarray(counts.T)
        before, after = self._counts, self._spare
        for c, a in self._spare_used:
            after[:, c, a] = 0
        used: set[tuple[int, int]] = set()
        occupancy = np.zeros((len(PLACES), self.n), dtype=np.int64)
        for c, a in self._used:
            occupancy += before[:, c, a]
        inside = occupancy.sum(axis=0)
        if int((inside + counts.sum(axis=0)).max(initial=0)) > _MASK:
            raise ValueError(f"at most {_MASK} pieces in a tower")
        zeros = np.zeros(self.n, dtype=np.int64)
        values = {
            "n": counts.sum(axis=0),
            "I": inside,
            "J": inside,
            **{
                f: counts[self._class_index[c]] if c in self._class_index else zeros
                for f, c in MAKEUP.items()
            },
        }
        # each level's shared key part, once for the whole throw
        prefixes = []  # each level's shared key part, times its place value
        for level in [*self.levels, *self.piece_levels]:
            prefix = zeros
            for f in level.shared:
                prefix = prefix * self._radix[f] + self._index(f, values[f])
            prefixes.append(prefix * (level.group_stride * len(self.order)))
        p_index = [self._index("P", inside), *(self._index("P", occ) for occ in occupancy)]
        fresh_any = counts.any(axis=1)
        out = np.zeros(self.n, dtype=np.int64)
        out_by_class = np.zeros((len(self.classes), self.n), dtype=np.int64)
        fresh_out = None
        for g, (place, cls, age) in enumerate(self.order):
            if place < 0:
                if not fresh_any[cls]:
                    continue
                m = counts[cls]
            elif (cls, age - 1) not in self._used:
                continue
            else:
                m = before[place, cls, age - 1]
            k = np.count_nonzero(m)
            if not k:
                continue
            everyone = k == self.n
            if not everyone:
                rows = (m != 0).nonzero()[0]  # 3x np.flatnonzero of an int array
                m = m.take(rows)
            own = {"m": self._index("m", m)}
            if "P" in self._own:
                own["P"] = p_index[place + 1] if everyone else p_index[place + 1].take(rows)
            if "o" in self._own:
                own["o"] = self._index("o", out if everyone else out.take(rows))
            res = self._outcomes(g, prefixes, None if everyone else rows, own, m)
            if place >= 0 and fresh_out is None:  # fresh groups come first
                fresh_out = out.copy()
            if not everyone and 16 * len(rows) > self.n:  # dense enough: update full width
                full = np.zeros(self.n, dtype=np.int64)
                full[rows] = res
                res, everyone = full, True
            gone = res & _MASK
            if everyone:
                out += gone
                out_by_class[cls] += gone
            else:
                out[rows] = out.take(rows) + gone
                by_class = out_by_class[cls]
                by_class[rows] = by_class.take(rows) + gone
            new_age = 0 if place < 0 else min(age, self.age_cap - 1)
            used.add((cls, new_age))
            for dest in range(len(PLACES)):
                k = (res >> (_BITS * (dest + 1))) & _MASK
                if everyone:
                    after[dest, cls, new_age] += k
                else:
                    row = after[dest, cls, new_age]
                    row[rows] = row.take(rows) + k
        if fresh_out is None:
            fresh_out = out.copy()
        self._counts, self._spare = after, before
        self._used, self._spare_used = used, self._used
        self.throws += 1
        return BatchThrow(out, fresh_out, np.ascontiguousarray(out_by_class.T))
