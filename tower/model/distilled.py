"""The distilled tower: a state-based model fitted from simulator traces.

The state is the :class:`~tower.model.interface.TowerState` itself: every resident's
place and entry throw. A throw draws joint group outcomes from the fitted tables (see
:mod:`tower.model.reference`, which does the sampling) and maps pieces to classes by
kind. The shipped model of the ``marrakesh`` preset loads with :func:`load_shipped`.

Examples
--------
>>> import random
>>> from tower.model import load_shipped
>>> from tower.pieces import mixed_keshis
>>> model = load_shipped("marrakesh")
>>> out, state = model.throw(model.new_state(), mixed_keshis(12), random.Random(3))
>>> len(out) + len(state.residents)
12
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from importlib import resources
from itertools import product
from math import ceil, comb, prod, sqrt
from operator import attrgetter
from pathlib import Path
from typing import Any

from tower.errors import TowerError
from tower.model import fileformat
from tower.model.interface import Resident, TowerModel, TowerState
from tower.model.reference import (
    MAKEUP,
    PLACES,
    ReferenceSampler,
    _running_sum,
    bucket_table,
    group_name,
    groups,
)
from tower.pieces import Kind, Piece, Place

#: Where shipped models live: package data, so an installed ``tower`` has them.
SHIPPED_DIR = "shipped"

_INSIDE = [Place(p) for p in PLACES]
#: Ages past ``age_cap`` whose group ids a model keeps at hand (older: a slower lookup).
_AGES = 64


class UnknownPieceError(TowerError, ValueError):
    """A piece of a kind that a model has no class for."""


class DistilledModel(TowerModel):
    """A tower fitted from traces; ``throw`` runs the pure-Python reference sampler.

    Parameters
    ----------
    doc : dict
        A whole model file document (see :mod:`tower.model.fileformat`).
    checked : bool
        ``doc`` comes from :func:`~tower.model.fileformat.loads`, which checked it: it is
        not checked again.
    """

    name = "distilled"

    def __init__(self, doc: dict[str, Any], *, checked: bool = False) -> None:
        if not checked:
            version = doc.get("schema", fileformat.SCHEMA)
            fields = fileformat.SUPPORTED.get(version)
            if fields is None:
                raise ValueError(f"unsupported model version {version!r}: {fileformat.REDISTIL}")
            newer = fileformat.newer_field(doc.get("model"), version)
            if newer:
                raise fileformat.NewerFieldError("<model>", newer[1], field=f"model.{newer[0]}")
            problem = fileformat.validate_model_section(doc.get("model"), fields, version=version)
            if problem:
                raise ValueError(f"model.{problem[0]}: {problem[1]}")
        self.doc = doc
        self.name = str(doc.get("name", "distilled"))
        self.sampler = ReferenceSampler(doc["model"])
        self._class = {Kind(k): c for k, c in self.sampler.classes.items() if k in set(Kind)}
        self._compile_groups()
        #: draw chains by the throw's shared context (n, I, w, x, t's bucket if a level
        #: reads t, and the occupancies if one reads P), then by (group id, m, o): the
        #: sampler's chains, reached with one small key per group
        self._chains: dict[tuple[int, ...], dict[tuple[int, int, int], tuple]] = {}
        self._plans: dict[int, tuple] = {}

    def _compile_groups(self) -> None:
        """Number every group the model can meet in the reference's visiting order.

        A group id is an ``int``, so a throw groups and orders its pieces with plain ints:
        ``_fresh_gid[kind]`` for thrown pieces, ``_gids[place][kind][age]`` for residents
        (ages up to ``age_cap`` + :data:`_AGES`, older ones: :meth:`_old`), and per id its
        place index (-1: fresh) and name.
        """
        cap = self.sampler.age_cap
        classes = sorted(set(self._class.values()))
        keys = [(-1, c, 0) for c in classes]
        keys += [(i, c, a) for i in range(len(PLACES)) for c in classes for a in range(cap + 1)]
        keys.sort(key=lambda k: (k[0], group_name(*k)))
        gid = {k: i for i, k in enumerate(keys)}
        self._place_of = [k[0] for k in keys]
        self._names = [group_name(*k) for k in keys]
        self._fresh_gid = {kind: gid[(-1, c, 0)] for kind, c in self._class.items()}
        self._gids = {
            place: {
                kind: {a: gid[(i, c, min(a, cap))] for a in range(cap + _AGES)}
                for kind, c in self._class.items()
            }
            for i, place in enumerate(_INSIDE)
        }
        #: ids of the fresh groups that the make-up fields count (-1: no such class)
        self._makeup = [gid.get((-1, MAKEUP[f], 0), -1) for f in ("w", "x")]
        used = {
            f
            for fields in [*self.sampler.levels, *self.doc["model"]["piece_levels"]]
            for f in fields
        }
        #: whether a level reads ``P`` (if not, a chain does not depend on it, see throw)
        self._uses_p = "P" in used
        #: ``t``'s bucket by value if a level reads it, else empty (see throw)
        self._t_bucket = bucket_table(self.sampler.buckets["t"]) if "t" in used else []

    @classmethod
    def from_tables(
        cls,
        model: dict[str, Any],
        *,
        name: str = "distilled",
        tower: dict[str, Any] | None = None,
        params: dict[str, Any] | None = None,
        provenance: dict[str, Any] | None = None,
    ) -> DistilledModel:
        """A model from a fitted ``model`` section and its descriptive fields."""
        doc = {
            "schema": fileformat.schema_of(model),
            "name": name,
            "tower": tower or {"preset": None, "spec": None},
            "params": params,
            "provenance": provenance or {},
            "model": model,
        }
        doc["sha256"] = fileformat.checksum(doc)
        return cls(doc)

    @classmethod
    def load(cls, path: str | Path) -> DistilledModel:
        """Read a model file; a bad file raises :class:`~tower.errors.InputFileError`."""
        return cls(fileformat.read_model_file(path), checked=True)

    def save(self, path: str | Path, *, force: bool = False) -> None:
        """Write the model file atomically (:func:`tower.files.outputs.write_text`); an
        existing file is replaced only with ``force``."""
        from tower.files.outputs import write_text

        write_text(path, self.dumps(), force=force)

    def dumps(self) -> str:
        """The model file text."""
        return fileformat.dumps(self.doc)

    def piece_class(self, piece: Piece) -> str:
        """The class this model throws ``piece`` as."""
        try:
            return self._class[piece.kind]
        except KeyError:
            raise UnknownPieceError(
                f"model {self.name!r} has no class for {piece.kind.value} pieces "
                f"(it knows {sorted(self._class)})"
            ) from None

    def throw(
        self, state: TowerState, pieces: Sequence[Piece], rng: random.Random
    ) -> tuple[list[Piece], TowerState]:
        """One throw: the same draws as ``self.sampler.throw`` (the reference), faster.

        Groups are numbered in visiting order (:meth:`_compile_groups`), so grouping and
        ordering them is done on ints; they hold the :class:`Piece` and
        :class:`Resident` objects themselves, and a resident that stays where it was is
        kept as it is. The draw of each group is :meth:`~ReferenceSampler.outcome`: its
        chain is found under one small key per group (the throw's shared context is
        looked up once), and each outcome carries its assignment plan. Tested to give
        the reference's pieces out and state, draw for draw.

        A model with a ``copula`` (``tower.model/3``) hands every throw it couples (its
        loadings are not ``(0, 0)``) to the reference's
        :meth:`~ReferenceSampler.coupled_throw` itself (:meth:`_coupled`): the same draws
        by construction, at the reference's speed.
        """
        if self.sampler.copula is not None:
            sampled = self._sampled(state, pieces)
            if self.sampler.loadings(*sampled) != (0.0, 0.0):
                return self._coupled(*sampled, state.throws, rng)
        sampler, throws = self.sampler, state.throws
        residents = state.residents
        found: dict[int, list] = {}
        try:
            kinds = set(map(_KIND, pieces))
            if len(kinds) == 1:  # the usual throw: one kind
                [kind] = kinds
                found[self._fresh_gid[kind]] = list(pieces)
            else:
                fresh_gid = self._fresh_gid
                for p in pieces:
                    gid = fresh_gid[p.kind]
                    members = found.get(gid)
                    if members is None:
                        found[gid] = [p]
                    else:
                        members.append(p)
            gids, group = self._gids, found.setdefault
            for r in residents:  # (a resident's group id is never 0: fresh groups come first)
                gid = gids[r.place][r.piece.kind].get(throws - r.since) or self._old(r, throws)
                group(gid, []).append(r)
        except KeyError:
            for p in [*state.pieces, *pieces]:
                self.piece_class(p)
            raise
        n, inside, gone = len(pieces), len(residents), 0
        w, x = len(found.get(self._makeup[0], ())), len(found.get(self._makeup[1], ()))
        place_of, names = self._place_of, self._names
        # P by place index (the last, index -1: fresh groups, the number inside); all 0
        # when no level reads P, as a chain then does not depend on it
        occupancy = [0, 0, 0, 0, 0]
        shared: tuple[int, ...] = (n, inside, w, x)
        if self._t_bucket:  # a level reads t: its bucket, as the chain depends on it
            shared += (self._t_bucket[min(throws, len(self._t_bucket) - 1)],)
        if self._uses_p:
            occupancy[-1] = inside
            for gid, members in found.items():
                if place_of[gid] >= 0:
                    occupancy[place_of[gid]] += len(members)
            shared += tuple(occupancy)
        # the chains of this throw's shared context, by (group, m, o)
        chains = self._chains.get(shared)
        if chains is None:
            if len(self._chains) >= 20_000:  # bound the memory
                self._chains.clear()
            chains = self._chains[shared] = {}
        out: list[Piece] = []
        stay: list[Resident] = []
        draw = rng.random
        new_resident, set_piece, set_place, set_since = _NEW, _SET_PIECE, _SET_PLACE, _SET_SINCE
        for gid, members in sorted(found.items()) if len(found) > 1 else found.items():
            index = place_of[gid]
            m = len(members)
            # sampler.outcome, inlined, with each outcome's assignment plan at hand
            chain = chains.get((gid, m, gone))
            if chain is None:
                ctx = (m, n, inside, occupancy[index], inside, w, x, throws, gone)
                chain = chains[(gid, m, gone)] = self._planned(sampler.chain(names[gid], ctx))
            # the first entry (total 0: none), then the rest (_fallback)
            if (total := chain[0]) and (u := draw() * chain[3]) < total:
                plans = chain[2]
                plan = plans[k := bisect_right(chain[1], u)] or _fill(plans, k, chain[4][k])
            else:
                ctx = (m, n, inside, occupancy[index], inside, w, x, throws, gone)
                plan = self._fallback(names[gid], ctx, chain, rng)
            # the reference's uniform assignment: shuffle all but the largest share
            out_k, rest, chosen, parts = plan
            if chosen:
                for i in range(chosen):
                    j = i + int(draw() * (m - i))
                    members[i], members[j] = members[j], members[i]
            elif rest == index + 1 and index >= 0:  # all stay where they were
                stay.extend(members)
                continue
            for dest, cut in parts:  # send each part to its destination
                part = members[cut]
                if dest == 0:
                    out.extend(part if index < 0 else [r.piece for r in part])
                elif dest - 1 == index:  # residents that stay where they were
                    stay.extend(part)
                else:
                    place = _INSIDE[dest - 1]
                    for r in part:
                        new = new_resident(Resident)
                        if index < 0:
                            set_piece(new, r)
                            set_since(new, throws)
                        else:
                            set_piece(new, r.piece)
                            set_since(new, r.since)
                        set_place(new, place)
                        stay.append(new)
            gone += out_k
        # sorted by kind and colour (only colour if all are of one kind: the same order)
        kinds.update(map(_RESIDENT_KIND, residents))
        one_kind = len(kinds) == 1
        out.sort(key=_COLOUR if one_kind else _piece_key)
        # the order TowerState keeps, so it need not sort
        stay.sort(key=_RESIDENT_BY_COLOUR if one_kind else _resident_key)
        new_state = new_resident(TowerState)
        _SET_RESIDENTS(new_state, tuple(stay))
        _SET_THROWS(new_state, throws + 1)
        return out, new_state

    def _coupled(
        self,
        residents: list[tuple[str, str, int, Piece]],
        fresh: list[tuple[str, Piece]],
        throws: int,
        rng: random.Random,
    ) -> tuple[list[Piece], TowerState]:
        """:meth:`throw` through :meth:`ReferenceSampler.coupled_throw`, given the throw
        as :meth:`_sampled` gives it: residents in the state's order, pieces in the order
        given, as the fast path groups them."""
        out, after = self.sampler.coupled_throw(residents, fresh, throws, rng)
        stay = [Resident(piece, Place(place), since) for _, place, since, piece in after]
        return sorted(out, key=_piece_key), TowerState(tuple(stay), throws + 1)

    def _sampled(
        self, state: TowerState, pieces: Sequence[Piece]
    ) -> tuple[list[tuple[str, str, int, Piece]], list[tuple[str, Piece]]]:
        """The residents and pieces as the reference sampler takes them (by class); a
        ``ValueError`` for a resident that entered after the tower's last throw."""
        cls_of = self.piece_class
        residents = [(cls_of(r.piece), r.place.value, r.since, r.piece) for r in state.residents]
        for r in state.residents:
            _entered_before(r, state.throws)
        return residents, [(cls_of(p), p) for p in pieces]

    def _loadings(self, state: TowerState, pieces: Sequence[Piece]) -> tuple[float, float]:
        """The copula's loadings of a throw (:meth:`~ReferenceSampler.loadings`):
        ``(0, 0)`` when its groups are independent given ``o``."""
        if self.sampler.copula is None:
            return 0.0, 0.0
        return self.sampler.loadings(*self._sampled(state, pieces))

    def couples(self, state: TowerState, pieces: Sequence[Piece]) -> bool:
        """Whether the model's copula couples the groups of this throw (its exact laws
        are then integrated numerically, :meth:`_coupled_law`)."""
        return self._loadings(state, pieces) != (0.0, 0.0)

    def _coupled_law(
        self,
        state: TowerState,
        pieces: Sequence[Piece],
        loadings: tuple[float, float],
        start: tuple,
        step: Callable[[tuple, int, list[Piece], int], list[tuple[tuple, float]]],
    ) -> dict[tuple, float]:
        """The exact law of a coupled throw, by the dynamic programming of
        :meth:`distribution` given the copula's normals, integrated numerically.

        Given ``Z`` and the group's ``Z_o``, ``e`` integrates out: ``k`` out has
        probability ``Phi((t_k - s) / c) - Phi((t_(k-1) - s) / c)`` with ``s = a Z +
        b Z_o`` and ``t_k = Phi^-1(F(k))``, ``F`` the group's cumulative out-law given its
        context (``o`` included). Laws are kept as arrays over ``QUADRATURE / c``
        (:data:`QUADRATURE`, rounded up) Gauss-Hermite nodes of ``Z`` (times those of
        ``Z_o`` within an origin's groups, which come one after another in visiting
        order, so each ``Z_o`` is integrated out when its origin's groups are done), then
        summed with the nodes' weights and normalised. From ``start``, ``step(key, k,
        members, i)`` gives the keys (pieces out so far first) a key goes to when ``k``
        of group ``i``'s ``members`` go out, with their probabilities.
        """
        import numpy as np
        from scipy.special import ndtr, ndtri

        a, b = loadings
        c = sqrt(1.0 - a * a - b * b)
        nodes, weights = _gauss_hermite(ceil(QUADRATURE / c))
        zs, wz = (nodes, weights) if a else ([0.0], [1.0])
        zo, wo = (nodes, weights) if b else ([0.0], [1.0])
        shift = a * np.asarray(zs)[:, None] + b * np.asarray(zo)[None, :]
        law: dict[tuple, Any] = {start: np.ones(len(zs))}
        found = self._groups(state, pieces)
        origins = [name.split(".")[0] for name, _, _ in found]
        for i, (name, ctx, members) in enumerate(found):
            if i == 0 or origins[i] != origins[i - 1]:  # an origin's first group
                law = {key: p[:, None] * np.ones(len(zo)) for key, p in law.items()}
            new: dict[tuple, Any] = {}
            by_gone: dict[int, tuple] = {}
            for key, p in law.items():
                if key[0] not in by_gone:
                    out = self.sampler.out_law(name, (*ctx, key[0]))
                    cum = np.minimum(np.cumsum(out[:-1]) / _running_sum(out), 1.0)
                    # P(k out or fewer | Z, Z_o), k < m
                    by_gone[key[0]] = out, ndtr((ndtri(cum)[:, None, None] - shift) / c)
                out, below = by_gone[key[0]]
                for k, pk in enumerate(out):
                    if pk == 0.0:
                        continue
                    given = (below[k] if k < len(below) else 1.0) - (below[k - 1] if k else 0.0)
                    for to, q in step(key, k, members, i):
                        add = p * given * q
                        have = new.get(to)
                        new[to] = add if have is None else have + add
            law = new
            if i + 1 == len(found) or origins[i + 1] != origins[i]:  # its last: Z_o out
                law = {key: p @ np.asarray(wo) for key, p in law.items()}
        result = {key: float(p @ np.asarray(wz)) for key, p in law.items()}
        total = _running_sum(result.values())
        return {key: p / total for key, p in result.items()}

    def _old(self, resident: Resident, throws: int) -> int:
        """The group id of a resident older than ``_gids`` lists (or a ``ValueError``)."""
        _entered_before(resident, throws)
        return self._gids[resident.place][resident.piece.kind][self.sampler.age_cap]

    def _planned(self, chain: list) -> tuple:
        """``(total, cum, plans, denominator, outcomes, chain)``: a sampler chain with its
        first entry (:meth:`_entry_plans`; total 0 if it has none) at hand, for the
        draws of :meth:`throw`."""
        return (*(self._entry_plans(chain[0][0]) if chain[0] else _NO_ENTRY), chain)

    def _entry_plans(self, entry: tuple) -> tuple:
        """A table entry ``(total, cum, outcomes, denominator)`` as ``(total, cum, plans,
        denominator, outcomes)``, each outcome's plan filled in when first drawn
        (:func:`_fill`), memoised by the entry (the sampler's tables keep it alive)."""
        planned = self._plans.get(id(entry))
        if planned is None:
            total, cum, outcomes, denominator = entry
            planned = (total, cum, [None] * len(outcomes), denominator, outcomes)
            self._plans[id(entry)] = planned
        return planned

    def _fallback(
        self, name: str, ctx: tuple[int, ...], planned: tuple, rng: random.Random
    ) -> Plan:
        """The plan of a draw that got past the first entry of a planned chain (or found
        none, then it never will: :meth:`~ReferenceSampler.chain` looked up every level):
        the sampler chain's further entries, then :meth:`~ReferenceSampler.fallback`.
        The chain may have grown since it was planned (its entries are looked up lazily,
        also by the reference's draws)."""
        chain = planned[-1]
        for total, cum, outcomes, denominator in chain[0][1:]:
            u = rng.random() * denominator
            if u < total:
                counts = outcomes[bisect_right(cum, u)]
                break
        else:
            counts = self.sampler.fallback(name, ctx, chain, rng)
        return _PLANS.get(counts) or _plan(counts)

    def distribution(
        self, state: TowerState, pieces: Sequence[Piece], limit: int = 100_000
    ) -> dict[tuple[Piece, ...], float]:
        """Exact law of the pieces out, by dynamic programming over the groups.

        The state of the recursion is (pieces out so far, their multiset); each group
        adds ``k`` out with its exact back-off law and picks which members uniformly
        (multivariate hypergeometric). Raises ``NotImplementedError`` when the number of
        possible multisets out exceeds ``limit`` (large, varied states): then use
        :meth:`count_distribution`, or sample.

        A throw that the model's copula couples (:meth:`~ReferenceSampler.loadings`) is
        integrated over the copula's normals (:meth:`_coupled_law`); its probabilities
        are normalised to sum to 1.
        """
        loadings = self._loadings(state, pieces)
        kinds = sorted({*state.pieces, *pieces}, key=_piece_key)
        have = Counter([*state.pieces, *pieces])
        if prod(have[p] + 1 for p in kinds) > limit:
            raise NotImplementedError(
                f"more than {limit} possible multisets out; use count_distribution or sample"
            )
        index = {p: i for i, p in enumerate(kinds)}
        if loadings != (0.0, 0.0):
            return self._coupled_distribution(state, pieces, loadings, kinds, index)
        law: dict[tuple[int, tuple[int, ...]], float] = {(0, (0,) * len(kinds)): 1.0}
        for name, ctx, members in self._groups(state, pieces):
            picks = _hypergeometric(Counter(index[p] for p in members), len(kinds))
            new: dict[tuple[int, tuple[int, ...]], float] = defaultdict(float)
            for (gone, vec), p in law.items():
                for k, pk in enumerate(self.sampler.out_law(name, (*ctx, gone))):
                    if pk == 0.0:
                        continue
                    for sub, ps in picks[k]:
                        key = (gone + k, tuple(a + b for a, b in zip(vec, sub, strict=True)))
                        new[key] += p * pk * ps
            law = new
        result: dict[tuple[Piece, ...], float] = defaultdict(float)
        for (_, vec), p in law.items():
            result[tuple(kinds[i] for i, c in enumerate(vec) for _ in range(c))] += p
        return dict(result)

    def _coupled_distribution(
        self,
        state: TowerState,
        pieces: Sequence[Piece],
        loadings: tuple[float, float],
        kinds: list[Piece],
        index: dict[Piece, int],
    ) -> dict[tuple[Piece, ...], float]:
        """:meth:`distribution` of a throw the copula couples (:meth:`_coupled_law`)."""
        picks: dict[int, list] = {}

        def step(key: tuple, k: int, members: list[Piece], i: int) -> list[tuple[tuple, float]]:
            if i not in picks:
                picks[i] = _hypergeometric(Counter(index[p] for p in members), len(kinds))
            return [
                ((key[0] + k, *(a + b for a, b in zip(key[1:], sub, strict=True))), ps)
                for sub, ps in picks[i][k]
            ]

        start = (0,) * (len(kinds) + 1)
        result: dict[tuple[Piece, ...], float] = defaultdict(float)
        for key, p in self._coupled_law(state, pieces, loadings, start, step).items():
            result[tuple(kinds[i] for i, c in enumerate(key[1:]) for _ in range(c))] += p
        return dict(result)

    def count_distribution(self, state: TowerState, pieces: Sequence[Piece]) -> list[float]:
        """Exact law of the number of pieces out: ``law[k]``, ``k = 0..inside + thrown``
        (integrated over the copula's normals for a throw it couples, as
        :meth:`distribution`).

        >>> import random
        >>> from tower.pieces import mixed_keshis
        >>> model = load_shipped("marrakesh")
        >>> round(sum(model.count_distribution(model.new_state(), mixed_keshis(12))), 9)
        1.0
        """
        total = len(state.residents) + len(pieces)
        loadings = self._loadings(state, pieces)
        if loadings != (0.0, 0.0):
            found = self._coupled_law(
                state, pieces, loadings, (0,), lambda key, k, _, __: [((key[0] + k,), 1.0)]
            )
            return [found.get((k,), 0.0) for k in range(total + 1)]
        law = [1.0] + [0.0] * total
        for name, ctx, _ in self._groups(state, pieces):
            new = [0.0] * (total + 1)
            for gone, p in enumerate(law):
                if p == 0.0:
                    continue
                for k, pk in enumerate(self.sampler.out_law(name, (*ctx, gone))):
                    new[gone + k] += p * pk
            law = new
        return law

    def _groups(
        self, state: TowerState, pieces: Sequence[Piece]
    ) -> list[tuple[str, tuple[int, ...], list[Piece]]]:
        """(group name, context without ``o``, member pieces) in the sampler's order."""
        cls_of = self.piece_class
        residents = [(cls_of(r.piece), r.place, r.since, r.piece) for r in state.residents]
        fresh = [(cls_of(p), p) for p in pieces]
        return [
            (name, ctx, [p for _, p in members])
            for name, _, ctx, members in groups(
                residents, fresh, state.throws, self.sampler.age_cap
            )
        ]


#: The reference's assignment of a joint outcome: (pieces out, rest, chosen, parts). The
#: largest share, first if tied, is the rest; the ``chosen`` members before it are
#: shuffled; parts are (destination, slice of the members): the other shares in
#: destination order, then the rest.
Plan = tuple[int, int, int, tuple[tuple[int, slice], ...]]
#: counts -> its plan
_PLANS: dict[tuple[int, ...], Plan] = {}
#: The first entry of a planned chain that has none (see DistilledModel._planned).
_NO_ENTRY = (0, None, None, None, None)


def _fill(plans: list, k: int, counts: tuple[int, ...]) -> Plan:
    """``plans[k]``, the plan of ``counts``, filled in."""
    plan = plans[k] = _PLANS.get(counts) or _plan(counts)
    return plan


def _plan(counts: tuple[int, ...]) -> Plan:
    rest = counts.index(max(counts))
    parts, start = [], 0
    for d, k in enumerate(counts):
        if k and d != rest:
            parts.append((d, slice(start, start + k)))
            start += k
    parts.append((rest, slice(start, None)))
    if len(_PLANS) >= 100_000:  # bound the memory (huge groups have many outcomes)
        _PLANS.clear()
    plan = _PLANS[counts] = (counts[0], rest, start, tuple(parts))
    return plan


def _entered_before(resident: Resident, throws: int) -> None:
    """A ``ValueError`` unless ``resident`` entered by the tower's last throw."""
    if resident.since > throws:
        raise ValueError(f"{resident} entered after throw {throws}, the tower's last")


#: Gauss-Hermite nodes per copula normal in the exact law of a coupled throw, times
#: ``1 / c`` (the integrand steepens as ``c`` shrinks): see DistilledModel._coupled_law
#: and docs/model-format.md, section 8.1, for the accuracy measured.
QUADRATURE = 24


def _gauss_hermite(order: int) -> tuple[list[float], list[float]]:
    """Nodes and weights (summing to 1) of Gauss-Hermite quadrature for the standard
    normal law with ``order`` nodes: exact for polynomials of degree below ``2 order``."""
    from numpy.polynomial.hermite_e import hermegauss

    nodes, weights = hermegauss(order)
    return nodes.tolist(), (weights / weights.sum()).tolist()


def _hypergeometric(have: Counter[int], width: int) -> list[list[tuple[tuple[int, ...], float]]]:
    """For each ``k``: every way to draw ``k`` of the members (by piece index) and its chance."""
    m = sum(have.values())
    items = sorted(have.items())
    ways: list[list[tuple[tuple[int, ...], float]]] = [[] for _ in range(m + 1)]
    for take in product(*(range(c + 1) for _, c in items)):
        k = sum(take)
        weight = 1
        vec = [0] * width
        for (i, c), x in zip(items, take, strict=True):
            weight *= comb(c, x)
            vec[i] = x
        ways[k].append((tuple(vec), weight / comb(m, k)))
    return ways


#: Sort keys: a piece by (kind, colour), a resident by (kind, colour, place, since); the
#: same without the kind, for pieces all of one kind (half the work).
_piece_key = attrgetter("kind", "colour")
_resident_key = attrgetter("piece.kind", "piece.colour", "place", "since")
_COLOUR = attrgetter("colour")
_RESIDENT_BY_COLOUR = attrgetter("piece.colour", "place", "since")
_RESIDENT_KIND = attrgetter("piece.kind")


#: ``Resident(piece, place, since)`` through its slots: the frozen dataclass's
#: ``__init__`` sets each field with ``object.__setattr__``; the slot descriptors do the
#: same in C, 40 % faster (an equal, equally hashed value).
_NEW = object.__new__
_SET_PIECE, _SET_PLACE, _SET_SINCE = (
    Resident.piece.__set__,  # type: ignore[attr-defined]
    Resident.place.__set__,  # type: ignore[attr-defined]
    Resident.since.__set__,  # type: ignore[attr-defined]
)


_SET_RESIDENTS = TowerState.residents.__set__  # type: ignore[attr-defined]
_SET_THROWS = TowerState.throws.__set__  # type: ignore[attr-defined]
_KIND = attrgetter("kind")


def load_model(path: str | Path) -> DistilledModel:
    """Read a distilled model file."""
    return DistilledModel.load(path)


def shipped_path(name: str) -> Path:
    """Path of the shipped model ``name`` (package data ``tower/model/shipped``)."""
    path = Path(str(resources.files("tower.model") / SHIPPED_DIR / f"{name}.json"))
    if not path.is_file():
        available = sorted(p.stem for p in path.parent.glob("*.json"))
        raise TowerError(f"no shipped model {name!r}; available: {available}")
    return path


def load_shipped(name: str = "marrakesh") -> DistilledModel:
    """Load a model shipped with the package, e.g. ``load_shipped("marrakesh")``."""
    return DistilledModel.load(shipped_path(name))
