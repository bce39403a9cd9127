"""The Battle at the Wall (*Walls & Guards*): the wall, the battle procedure, the penalties,
the hiring costs of watchmen and the firing costs of brick tiles, as data and pure functions.

Nothing here knows the engine's ``State`` or a tower model: a battle's chance node is a
``throw`` callable handed in by the caller, so the engine's Walls & Guards module and the
battle checker (:mod:`tower.battle`) share one implementation of the rules. Every component
value carries its provenance (``rulebook``, ``derived`` from the rulebook text, or
``assumed``), and every reading of an unclear sentence is a ``# Ruling:`` comment next to
the rule it settles. Rulebook: *Walls & Guards*, "Battle at the Wall", "Burn bricks &
recruit watchmen" and "Brick Tiles".

Examples
--------
The rulebook's worked battle: 2 brigands, 2 other players' watchmen and 1 own watchman come
out against a wall with 2 repaired sections.

>>> from tower.pieces import NEUTRAL, Kind, Piece
>>> out = [Piece(Kind.BRIGAND, NEUTRAL)] * 2 + [Piece(Kind.WATCHMAN, "blue")] * 2
>>> r = resolve_battle("red", out + [Piece(Kind.WATCHMAN, "red")], Wall(repaired=2))
>>> r.repelled, r.points, [p.value for p in r.penalties]
(3, 3, ['any_keshi'])
>>> firing_cost([3, 4], brickworks_keshis=1)  # tiles 03 (4 wood) and 04 (4 wood)
6
>>> firing_cost([1, 3], brickworks_keshis=1)  # a 3-wood and a 4-wood tile: (3-1) + (4-1)
5
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache, lru_cache
from operator import attrgetter
from typing import Literal, TypeVar

from tower.pieces import NEUTRAL, Kind, Piece
from tower.pieces import PLAYER_COLOURS as PLAYER_COLOURS  # re-exported: seat colours

#: Where a component value comes from.
Provenance = Literal["rulebook", "derived", "assumed"]

# --------------------------------------------------------------------------------------
# The wall
# --------------------------------------------------------------------------------------


class Penalty(StrEnum):
    """The six mali printed on the city wall ("Summary of mali on the city wall")."""

    GOODS_KESHI = "goods_keshi"  # return 1 orange, purple or yellow goods keshi
    TWO_RESOURCES = "two_resources"  # return any 2 resources
    TWO_STEPS = "two_steps"  # 2 steps back on the black OR the white staircase
    LUXURY_GOOD = "luxury_good"  # return 1 luxury good to the box (engine: points, bonuses)
    CITY_GATE = "city_gate"  # put 1 city gate back on a workshop space (engine: guard)
    ANY_KESHI = "any_keshi"  # return any 1 keshi (not a committed brown or beige one)


@dataclass(frozen=True, slots=True)
class WallSection:
    """One section of a player's city wall: the bonus under its brick, the malus on its gap."""

    number: int  # 1-based, from the left
    bonus: str
    penalty: Penalty
    source: Provenance
    note: str = ""


#: The wall, left to right. The rulebook lists the six bonuses and the six mali but not which
#: section prints which. The bonus list is taken as the left-to-right order; the worked battle
#: (2 repaired sections, 1 own watchman, the 4th attacker costs "1 keshi of her choice")
#: confirms that section 4 prints the keshi malus, which is 4th in the bonus list but 6th in
#: the mali list. Each other section is assumed to print the malus that mirrors its bonus.
WALL_SECTIONS: tuple[WallSection, ...] = (
    WallSection(
        1,
        "1 orange, purple or yellow goods keshi",
        Penalty.GOODS_KESHI,
        "assumed",
        "order of the bonus summary; malus mirrors the bonus",
    ),
    WallSection(
        2,
        "any 2 resources",
        Penalty.TWO_RESOURCES,
        "assumed",
        "order of the bonus summary; malus mirrors the bonus",
    ),
    WallSection(
        3,
        "2 steps on the black OR the white staircase",
        Penalty.TWO_STEPS,
        "assumed",
        "order of the bonus summary; malus mirrors the bonus",
    ),
    WallSection(
        4,
        "any 1 keshi (deployed at once)",
        Penalty.ANY_KESHI,
        "rulebook",
        "the worked battle: the 4th attacker costs 1 keshi with 2 sections repaired",
    ),
    WallSection(
        5,
        "1 luxury good of your choice from the display",
        Penalty.LUXURY_GOOD,
        "assumed",
        "order of the bonus summary; malus mirrors the bonus",
    ),
    WallSection(
        6,
        "1 city gate from the two leftmost workshop spaces",
        Penalty.CITY_GATE,
        "assumed",
        "order of the bonus summary; malus mirrors the bonus",
    ),
)

#: Number of wall sections: one per brick tile a player lays out in the Sahara (setup step 9).
SECTIONS = len(WALL_SECTIONS)


@dataclass(frozen=True, slots=True)
class Wall:
    """A player's city wall at battle time.

    Parameters
    ----------
    repaired : int
        Brick tiles built. Tiles fill the wall from the left ("the first tile goes on the
        leftmost space ... Spaces are then filled from left to right"), so the repaired
        sections are always the first ``repaired`` ones.
    watchtower : bool
        The player owns the *Watchtower* special building: its watchman tile protects the
        first not-yet-repaired section, and repelling a brigand there earns 2 extra points.
    """

    repaired: int = 0
    watchtower: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.repaired <= SECTIONS:
            raise ValueError(f"a wall has {SECTIONS} sections; repaired={self.repaired}")

    @property
    def tile_section(self) -> int | None:
        """0-based section guarded by the Watchtower's watchman tile, if any."""
        if self.watchtower and self.repaired < SECTIONS:
            return self.repaired
        return None


# --------------------------------------------------------------------------------------
# One battle
# --------------------------------------------------------------------------------------


class Role(StrEnum):
    """What a piece that fell out does in the battle of ``player``."""

    DEFENDER = "defender"  # the player's own watchman
    ATTACKER = "attacker"  # a brigand, or another player's watchman
    BYSTANDER = "bystander"  # a keshi (or any other piece): no part in the fight


def role(piece: Piece, player: str) -> Role:
    """The role of ``piece`` in the battle of ``player``.

    >>> role(Piece(Kind.WATCHMAN, "blue"), "red"), role(Piece(Kind.BRIGAND, NEUTRAL), "red")
    (<Role.ATTACKER: 'attacker'>, <Role.ATTACKER: 'attacker'>)
    """
    if piece.kind is Kind.WATCHMAN:
        # Ruling: "Other watchmen and brigands: These attack!" -- every watchman of another
        # colour attacks, whoever threw it and in whichever battle it entered the tower.
        return Role.DEFENDER if piece.colour == player else Role.ATTACKER
    if piece.kind is Kind.BRIGAND:
        return Role.ATTACKER
    # Ruling: keshis (and expert keshis of Gems & Experts) only ride along; they are thrown
    # again by the next player and, after the last battle, go into next season's first throw.
    return Role.BYSTANDER


@dataclass(frozen=True, slots=True)
class BattleOutcome:
    """What one player's battle did.

    ``guarded`` are the 0-based sections protected by own watchmen; ``breaches`` are the
    0-based sections where an attacker met a gap. ``points`` includes the Watchtower bonus.
    """

    player: str
    defenders: int
    brigands: int
    other_watchmen: int
    guarded: tuple[int, ...]
    repelled: int
    breaches: tuple[int, ...]
    unopposed: int
    points: int

    @property
    def attackers(self) -> int:
        """Attackers that fell out: brigands and other players' watchmen."""
        return self.brigands + self.other_watchmen

    @property
    def penalties(self) -> tuple[Penalty, ...]:
        """The printed malus of each breached section, left to right."""
        return tuple(WALL_SECTIONS[s].penalty for s in self.breaches)


def resolve_battle(player: str, out: Iterable[Piece], wall: Wall) -> BattleOutcome:
    """Resolve the figures that fell out in ``player``'s battle against ``wall``.

    Own watchmen protect the first not-yet-repaired sections; attackers are placed against
    the wall from the left: each one meeting a brick or a protector is repelled (1 point),
    each one meeting a gap breaks through (the section's printed malus).
    """
    # Keshis, the most of what falls out, are bystanders (role): only the others are asked,
    # in one loop (every battle of the game passes here).
    defenders = attackers = brigands = 0
    for p in out:
        if p.kind is Kind.KESHI:
            continue
        r = role(p, player)
        if r is Role.DEFENDER:
            defenders += 1
        elif r is Role.ATTACKER:
            attackers += 1
            brigands += p.kind is Kind.BRIGAND

    protected = set(range(wall.repaired))
    tile = wall.tile_section
    if tile is not None:
        # Ruling: the Watchtower tile is placed "before the city wall scoring", so own
        # watchmen that fell out take the unrepaired sections to the right of it.
        protected.add(tile)
    gaps = [s for s in range(SECTIONS) if s not in protected]
    # Ruling: own watchmen beyond the last unprotected section have nothing to guard.
    guarded = tuple(gaps[:defenders])
    protected.update(guarded)

    # Ruling: the wall has SECTIONS places; attackers beyond the last section find no wall
    # to attack and neither score nor cost anything (the rulebook is silent; assumed).
    placed = min(attackers, SECTIONS)
    breaches = tuple([s for s in range(placed) if s not in protected])
    repelled = placed - len(breaches)
    points = repelled
    if tile is not None and tile < placed and brigands > 0:
        # Ruling: the player places the attackers, so a brigand takes the tile's section
        # when one fell out ("For repelling a brigand at this wall section ... 2 extra").
        points += 2
    return BattleOutcome(
        player=player,
        defenders=defenders,
        brigands=brigands,
        other_watchmen=attackers - brigands,
        guarded=guarded,
        repelled=repelled,
        breaches=breaches,
        unopposed=attackers - placed,
        points=points,
    )


# --------------------------------------------------------------------------------------
# Paying a malus
# --------------------------------------------------------------------------------------

#: Holdings are a multiset of tokens ``category:name``: ``keshi:<colour>`` (only keshis the
#: player may give up: the engine leaves out brown/green keshis next to an explored or
#: activated brick tile and beige guards committed to a gate), ``resource:water|date|dinar``,
#: ``wood:wood``, ``step:black`` / ``step:white`` (one per step the pawn can go back),
#: ``luxury:<id>``, ``gate:<id>``.
Holdings = Mapping[str, int]

_GOODS = ("keshi:orange", "keshi:purple", "keshi:yellow")
_RESOURCES = ("resource:water", "resource:date", "resource:dinar")


@dataclass(frozen=True, slots=True)
class MalusRule:
    """A malus as data: take ``amount`` tokens from ONE of the ``pools`` (prefix match)."""

    penalty: Penalty
    amount: int
    pools: tuple[tuple[str, ...], ...]
    text: str


MALUS_RULES: dict[Penalty, MalusRule] = {
    rule.penalty: rule
    for rule in (
        MalusRule(Penalty.GOODS_KESHI, 1, (_GOODS,), "return 1 orange, purple or yellow keshi"),
        # Ruling: wood is not a "resource" here: the Woodcutter may give up "1 wood instead of
        # giving up 1 resource of their choice", and brick 03 says "resources ... not wood".
        MalusRule(Penalty.TWO_RESOURCES, 2, (_RESOURCES,), "return any 2 resources"),
        # Ruling: both steps come off ONE staircase ("black ... OR ... white").
        MalusRule(
            Penalty.TWO_STEPS, 2, (("step:black",), ("step:white",)), "2 steps back on a stair"
        ),
        MalusRule(Penalty.LUXURY_GOOD, 1, (("luxury:",),), "return 1 luxury good to the box"),
        MalusRule(Penalty.CITY_GATE, 1, (("gate:",),), "put 1 city gate back on a workshop"),
        # Ruling: goods keshis stand in the souk of the player board, so "any 1 keshi"
        # includes them.
        MalusRule(Penalty.ANY_KESHI, 1, (("keshi:",),), "return any 1 keshi"),
    )
}


@dataclass(frozen=True, slots=True)
class Payment:
    """One legal way to pay a malus: the tokens given up."""

    penalty: Penalty
    taken: tuple[tuple[str, int], ...]

    @property
    def paid(self) -> int:
        """How many tokens are given up."""
        return sum(n for _, n in self.taken)

    @property
    def full(self) -> bool:
        """The malus was paid in full."""
        return self.paid == MALUS_RULES[self.penalty].amount

    @property
    def forfeited(self) -> bool:
        """Nothing could be paid: "it is forfeited (brigands can't take what isn't there)"."""
        return self.paid == 0


@cache
def _in_pool(token: str, pool: tuple[str, ...]) -> bool:
    """Whether ``token`` is one of ``pool``'s tokens or starts with one of its prefixes
    (the entries ending in ``:``). Cached: the tokens are few (colours, resources, steps,
    luxury and gate ids) and every malus asks about all of a player's holdings."""
    return token in pool or token.startswith(_prefixes(pool))


@cache
def _prefixes(pool: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p for p in pool if p.endswith(":"))


def payment_options(penalty: Penalty, holdings: Holdings) -> list[Payment]:
    """Every legal way to pay ``penalty`` from ``holdings``, each as a :class:`Payment`.

    A malus that can be paid in full must be paid in full. Otherwise "they lose everything
    they can pay"; if nothing can be paid the single option is the empty (forfeited) payment.

    >>> [o.taken for o in payment_options(Penalty.TWO_STEPS, {"step:black": 1})]
    [(('step:black', 1),)]
    >>> payment_options(Penalty.LUXURY_GOOD, {}) == [Payment(Penalty.LUXURY_GOOD, ())]
    True
    """
    return [Payment(penalty, taken) for taken in payment_ways(penalty, holdings)]


def payment_ways(penalty: Penalty, holdings: Holdings) -> list[tuple[tuple[str, int], ...]]:
    """The tokens each of :func:`payment_options` takes, in the same order (without a
    :class:`Payment` around each: the engine asks at every malus). Only the tokens of
    the kinds in :func:`token_kinds` matter."""
    # No way takes more of a token than the malus's amount: the holdings, so capped, recur
    # from game to game, and the ways of the latest few thousand are kept.
    amount = MALUS_RULES[penalty].amount
    stock = sorted((t, n if n < amount else amount) for t, n in holdings.items() if n > 0)
    return list(_payment_ways(penalty, tuple(stock)))


@lru_cache(maxsize=4096)
def _payment_ways(
    penalty: Penalty, stock: tuple[tuple[str, int], ...]
) -> tuple[tuple[tuple[str, int], ...], ...]:
    """:func:`payment_ways` of the holdings ``stock`` (sorted ``(token, n)`` pairs, each
    ``n`` between 1 and the malus's amount)."""
    rule = MALUS_RULES[penalty]
    pools = [{t: n for t, n in stock if _in_pool(t, pool)} for pool in rule.pools]
    # Ruling: "lose everything they can pay" means the most that one legal way can take.
    best = max(min(rule.amount, sum(p.values())) for p in pools)
    options: set[tuple[tuple[str, int], ...]] = set()
    for pool in pools:
        if min(rule.amount, sum(pool.values())) < best:
            continue
        options.update(_takings(sorted(pool), pool, best))
    return tuple(sorted(options))


@cache
def token_kinds(penalty: Penalty) -> frozenset[str]:
    """The token kinds (``resource``, ``keshi``, ...) ``penalty`` may take: holdings of
    other kinds never change its payments.

    >>> sorted(token_kinds(Penalty.TWO_STEPS))
    ['step']
    """
    return frozenset(t.partition(":")[0] for pool in MALUS_RULES[penalty].pools for t in pool)


def _takings(
    tokens: list[str], pool: dict[str, int], k: int
) -> Iterator[tuple[tuple[str, int], ...]]:
    """Every way to take ``k`` tokens of ``tokens`` (sorted), at most ``pool[t]`` of each,
    as sorted ``(token, n)`` pairs with ``n > 0``."""
    if k == 0:
        yield ()
        return
    if not tokens:
        return
    first, rest = tokens[0], tokens[1:]
    for n in range(min(k, pool[first]), -1, -1):
        for tail in _takings(rest, pool, k - n):
            yield ((first, n), *tail) if n else tail


def pay(holdings: Holdings, payment: Payment) -> dict[str, int]:
    """The holdings after ``payment``; raises ``ValueError`` if it is not a legal option."""
    if payment not in payment_options(payment.penalty, holdings):
        raise ValueError(f"{payment} is not a legal way to pay {payment.penalty} from {holdings}")
    left = Counter({t: n for t, n in holdings.items() if n > 0})
    left.subtract(dict(payment.taken))
    return {t: n for t, n in sorted(left.items()) if n > 0}


# --------------------------------------------------------------------------------------
# The battles of one season
# --------------------------------------------------------------------------------------

#: Brigands the first player throws: "1st season: 1 brigand ... 3rd season: 3 brigands".
BRIGANDS_PER_SEASON: dict[int, int] = {1: 1, 2: 2, 3: 3}
#: Components: "3 Brigands"; "12 Watchmen, 3 each in red, yellow, green and blue".
BRIGANDS_IN_BOX = 3
WATCHMEN_PER_PLAYER = 3


def brigands_for_season(season: int, available: int = BRIGANDS_IN_BOX) -> int:
    """Brigands the first player throws in ``season`` when ``available`` stand by the tower.

    >>> brigands_for_season(2), brigands_for_season(3, available=2)
    (2, 2)
    """
    if season not in BRIGANDS_PER_SEASON:
        raise ValueError(f"season must be 1, 2 or 3, got {season}")
    # Ruling: a brigand stuck in the tower cannot be taken; the first player throws those
    # that stand next to the tower, up to the season's number.
    return min(BRIGANDS_PER_SEASON[season], available)


def battle_order(players: Sequence[str], round_tracker: str) -> tuple[str, ...]:
    """Players in battle order: the round-tracker holder first, then clockwise.

    ``players`` is the seating order, clockwise ("passes it to their left neighbour").

    >>> battle_order(["red", "yellow", "green", "blue"], "green")
    ('green', 'blue', 'red', 'yellow')
    """
    if round_tracker not in players:
        raise ValueError(f"{round_tracker!r} holds the round tracker but is not in {players}")
    i = list(players).index(round_tracker)
    return tuple(players[i:]) + tuple(players[:i])


def watchmen(colour: str, n: int) -> list[Piece]:
    """``n`` watchmen of ``colour``."""
    return [Piece(Kind.WATCHMAN, colour)] * n


def brigands(n: int) -> list[Piece]:
    """``n`` brigands."""
    return [Piece(Kind.BRIGAND, NEUTRAL)] * n


@dataclass(frozen=True, slots=True)
class BattleStep:
    """One player's battle: what they threw, what fell out, and its outcome."""

    player: str
    thrown: tuple[Piece, ...]
    out: tuple[Piece, ...]
    outcome: BattleOutcome


@dataclass(frozen=True, slots=True)
class Aftermath:
    """Where the pieces in the tower's base go after the last battle of a season."""

    next_throw: tuple[Piece, ...]  # keshis: "tossed back ... with the first toss"
    returned: dict[str, int] = field(default_factory=dict)  # watchmen back to their owners
    brigands: int = 0  # brigands back next to the tower


@dataclass(frozen=True, slots=True)
class SeasonBattles:
    """All battles of one season, in order, and their aftermath."""

    season: int
    steps: tuple[BattleStep, ...]
    aftermath: Aftermath


_PAWNS = (Kind.WATCHMAN, Kind.BRIGAND)
#: A piece's sort key: the fields its dataclass order compares, in the same order.
_ORDER = attrgetter("kind", "colour")

#: The chance node: pieces thrown in -> pieces that fell out (the caller keeps the tower).
Throw = Callable[[list[Piece]], Sequence[Piece]]


def aftermath(base: Iterable[Piece]) -> Aftermath:
    """Sort the tower's base after the last battle.

    Keshis go into the next season's first throw; watchmen return to their owners' boards
    (to be hired again); brigands go back next to the tower. Pieces still inside the tower
    are not in ``base``: they stay there.
    """
    pieces = list(base)
    # Ruling: a watchman stuck in the tower that falls out in a LATER season "joins the
    # brigands next to the tower (... not paid for again)": it stands by the tower ready for
    # battle as its owner's recruited watchman, and in a battle it acts by its colour. That
    # happens during play, so it is the engine's bookkeeping; a watchman that falls out in a
    # battle simply returns to its owner here.
    returned = Counter(p.colour for p in pieces if p.kind is Kind.WATCHMAN)
    return Aftermath(
        # Sorted by (kind, colour), the pieces' own order, read in C rather than by the
        # dataclass's __lt__.
        next_throw=tuple(sorted((p for p in pieces if p.kind not in _PAWNS), key=_ORDER)),
        returned=dict(sorted(returned.items())),
        brigands=sum(1 for p in pieces if p.kind is Kind.BRIGAND),
    )


def battle_throw(
    season: int,
    player: str,
    recruited: int,
    base: Sequence[Piece] | None,
    brigands_available: int = BRIGANDS_IN_BOX,
) -> list[Piece]:
    """The pieces ``player`` throws in their battle.

    ``base`` is ``None`` for the first battle of the season (the player's recruited watchmen
    and the season's brigands), else the pieces in the tower's base: everything that fell
    out of the previous battle, thrown again with the player's recruited watchmen.

    >>> [str(p) for p in battle_throw(2, "red", 1, None)]
    ['watchman:red', 'brigand:neutral', 'brigand:neutral']
    """
    own = watchmen(player, recruited)
    if base is None:
        return own + brigands(brigands_for_season(season, brigands_available))
    return [*base, *own]


def fight_season(
    season: int,
    order: Sequence[str],
    recruited: Mapping[str, int],
    walls: Mapping[str, Wall],
    throw: Throw,
    *,
    brigands_available: int = BRIGANDS_IN_BOX,
    players: int | None = None,
) -> SeasonBattles:
    """Run the battles of ``season`` in ``order`` (round-tracker holder first).

    The first player throws their recruited watchmen with the season's brigands; each next
    player throws ALL watchmen, brigands and keshis that fell out so far (the tower's base)
    together with their own recruited watchmen. ``throw`` is the chance node: it receives
    the pieces thrown in and returns the pieces that fell out, keeping the tower itself.
    ``players`` (default ``len(order)``) stops after that many battles, for analyses that
    only need the first ones.

    Raises ``ValueError`` on an impossible situation (unknown season, more than 3 recruited
    watchmen, a player without a wall, a player listed twice).
    """
    for p in order:
        n = recruited.get(p, 0)
        if not 0 <= n <= WATCHMEN_PER_PLAYER:
            raise ValueError(f"{p} recruited {n} watchmen; a player has {WATCHMEN_PER_PLAYER}")
        if p not in walls:
            raise ValueError(f"no wall given for {p}")
    if len(set(order)) != len(order):
        raise ValueError(f"a player fights once per season: order {list(order)}")
    base: list[Piece] = []
    steps: list[BattleStep] = []
    for i, player in enumerate(order[: len(order) if players is None else players]):
        thrown = battle_throw(
            season,
            player,
            recruited.get(player, 0),
            None if i == 0 else base,
            brigands_available,
        )
        out = tuple(throw(list(thrown)))
        steps.append(
            BattleStep(player, tuple(thrown), out, resolve_battle(player, out, walls[player]))
        )
        base = list(out)
    return SeasonBattles(season, tuple(steps), aftermath(base))


# --------------------------------------------------------------------------------------
# Hiring watchmen and firing bricks
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WatchmanSpace:
    """A space between the brick-tile storage spaces where one watchman waits to be hired."""

    position: str
    cost: tuple[tuple[str, int], ...]
    source: Provenance
    note: str = ""


#: Bottom to top; watchmen return to the board "starting from the bottom one".
WATCHMAN_SPACES: tuple[WatchmanSpace, ...] = (
    WatchmanSpace("bottom", (("dinar", 1),), "rulebook", "example: '1 dinar (bottom)'"),
    WatchmanSpace(
        "middle", (("date", 1), ("water", 1)), "rulebook", "example: '1 water and 1 date (middle)'"
    ),
    # The rulebook text never names the top space's cost: assumed one of each resource,
    # dearer than the middle one (plausible range: 2 to 3 resources).
    WatchmanSpace("top", (("date", 1), ("dinar", 1), ("water", 1)), "assumed", "not in the text"),
)


def standing_spaces(on_board: int) -> tuple[str, ...]:
    """The spaces occupied when ``on_board`` watchmen stand on the board (filled bottom up).

    >>> standing_spaces(2)
    ('bottom', 'middle')
    """
    if not 0 <= on_board <= WATCHMEN_PER_PLAYER:
        raise ValueError(f"0 to {WATCHMEN_PER_PLAYER} watchmen stand on a board, got {on_board}")
    return tuple(s.position for s in WATCHMAN_SPACES[:on_board])


_K = TypeVar("_K", bound=Hashable)


def _distinct_known(
    items: Iterable[_K], known: Collection[_K], repeated: str, noun: str
) -> list[_K]:
    """``items`` as a list; a ``ValueError`` if one stands twice (``repeated``) or is not
    one of ``known`` (``noun`` names them)."""
    chosen = list(items)
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"{repeated}: {chosen}")
    unknown = [x for x in chosen if x not in known]
    if unknown:
        raise ValueError(f"unknown {noun} {unknown}; expected {list(known)}")
    return chosen


def hiring_cost(spaces: Iterable[str], *, watchtower: bool = False) -> dict[str, int]:
    """Resources to hire the watchmen standing on ``spaces``.

    With the *Watchtower* building each watchman costs "exactly 1 resource of their
    choice", returned as ``{"any": n}``.

    >>> hiring_cost(["bottom", "middle"])
    {'date': 1, 'dinar': 1, 'water': 1}
    >>> hiring_cost(["bottom", "middle"], watchtower=True)
    {'any': 2}
    """
    by_name = {s.position: s for s in WATCHMAN_SPACES}
    chosen = _distinct_known(spaces, by_name, "each space holds one watchman", "watchman spaces")
    if watchtower:
        return {"any": len(chosen)} if chosen else {}
    # Ruling: the example "hires 2 watchmen; this costs her 1 dinar (bottom) or 1 water and
    # 1 date (middle)" lists the cost of each watchman's space; hiring both pays both.
    total: Counter[str] = Counter()
    for s in chosen:
        total.update(dict(by_name[s].cost))
    return dict(sorted(total.items()))


def cheapest_hire(n: int, on_board: int = WATCHMEN_PER_PLAYER) -> tuple[str, ...]:
    """The ``n`` cheapest spaces to hire from when ``on_board`` watchmen stand there.

    >>> cheapest_hire(2)
    ('bottom', 'middle')
    """
    # Ruling: the player chooses which of their standing watchmen to hire (1 to 3); the
    # spaces get dearer upwards, so the cheapest choice is the lowest ``n`` spaces.
    standing = standing_spaces(on_board)
    if not 0 <= n <= len(standing):
        raise ValueError(f"cannot hire {n} watchmen when {on_board} stand on the board")
    return standing[:n]


#: Wood cost of each numbered brick tile ("Brick Tiles" list).
BRICK_WOOD: dict[int, int] = {
    1: 3,
    2: 3,
    3: 4,
    4: 4,
    5: 5,
    6: 5,
    7: 3,
    8: 3,
    9: 4,
    10: 4,
    11: 5,
}
#: The brickworks covers the double-oasis space (setup step 10), so it holds 2 keshis (derived).
BRICKWORKS_SPACES = 2


def firing_cost(tiles: Iterable[int], brickworks_keshis: int) -> int:
    """Wood to fire the explored brick ``tiles`` in one action.

    "For every keshi (whether green or brown) placed there, the cost decreases by 1 wood",
    per tile fired.
    """
    if not 0 <= brickworks_keshis <= BRICKWORKS_SPACES:
        raise ValueError(
            f"the brickworks holds 0 to {BRICKWORKS_SPACES} keshis, got {brickworks_keshis}"
        )
    numbers = _distinct_known(tiles, BRICK_WOOD, "each brick tile is fired once", "brick tiles")
    return sum(BRICK_WOOD[t] - brickworks_keshis for t in numbers)
