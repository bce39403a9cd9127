"""The values a battle season is made of: the :class:`Situation` at the wall, the
:class:`TowerStart` before the first battle, and a player's :class:`PlayerStats` as an
:class:`OutcomeTally` accumulates them. Shared by the battle checker
(:mod:`tower.battle.checker`) and its numpy batch path (:mod:`tower.battle.batched`).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from tower.marrakesh.wall_battle import (
    PLAYER_COLOURS,
    WATCHMEN_PER_PLAYER,
    BattleOutcome,
    Penalty,
    Wall,
    brigands_for_season,
)
from tower.model.interface import TowerState

Method = Literal["exact", "monte carlo"]


@dataclass(frozen=True)
class Situation:
    """The state of play at a season's Battle at the Wall.

    Parameters
    ----------
    season : int
        1, 2 or 3: the first player throws that many brigands.
    order : tuple of str
        Player colours in battle order (the round-tracker holder first).
    recruited : dict
        Colour -> watchmen hired this season (0 to 3).
    walls : dict
        Colour -> :class:`~tower.marrakesh.wall_battle.Wall`.
    """

    season: int
    order: tuple[str, ...]
    recruited: Mapping[str, int]
    walls: Mapping[str, Wall]

    def __post_init__(self) -> None:
        brigands_for_season(self.season)  # validates the season
        if not self.order:
            raise ValueError("a battle needs at least one player")
        for p in self.order:
            n = self.recruited.get(p, 0)
            if not 0 <= n <= WATCHMEN_PER_PLAYER:
                raise ValueError(f"{p} recruited {n} watchmen; a player has 0 to 3")
            if p not in self.walls:
                raise ValueError(f"no wall given for {p}")

    @classmethod
    def default(
        cls, players: int = 4, season: int = 2, recruited: int = 2, repaired: int = 2
    ) -> Situation:
        """``players`` players in colour order, each with the same recruits and wall.

        The default wall (2 repaired sections in season 2) is an assumption about a typical
        game, not a rulebook value.
        """
        if not 1 <= players <= len(PLAYER_COLOURS):
            raise ValueError(f"1 to {len(PLAYER_COLOURS)} players, got {players}")
        order = PLAYER_COLOURS[:players]
        return cls(
            season,
            order,
            dict.fromkeys(order, recruited),
            {p: Wall(repaired) for p in order},
        )

    def with_recruited(self, player: str, n: int) -> Situation:
        """The same situation with ``player`` hiring ``n`` watchmen."""
        return replace(self, recruited={**self.recruited, player: n})

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Situation:
        """Inverse of :meth:`to_json`."""
        return cls(
            int(data["season"]),
            tuple(data["order"]),
            {p: int(n) for p, n in data["recruited"].items()},
            {p: Wall(int(w["repaired"]), bool(w["watchtower"])) for p, w in data["walls"].items()},
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return {
            "season": self.season,
            "order": list(self.order),
            "recruited": {p: self.recruited.get(p, 0) for p in self.order},
            "walls": {
                p: {"repaired": w.repaired, "watchtower": w.watchtower}
                for p, w in self.walls.items()
            },
        }


@dataclass(frozen=True)
class TowerStart:
    """The tower before the first battle: each replicate starts from a state drawn
    uniformly from ``states``."""

    label: str
    states: tuple[TowerState, ...]

    def __post_init__(self) -> None:
        if not self.states:
            raise ValueError("a tower start needs at least one state")

    def draw(self, rng: random.Random) -> TowerState:
        """One start state."""
        if len(self.states) == 1:
            return self.states[0]
        return self.states[rng.randrange(len(self.states))]

    def distinct(self) -> Counter[TowerState]:
        """Distinct states and their multiplicities."""
        return Counter(self.states)


@dataclass(frozen=True)
class PlayerStats:
    """One player's battle under the model.

    ``repelled`` and ``breaches`` are laws ``{count: probability}``; ``penalties`` gives the
    expected number of times each printed malus falls due (before partial payment, which
    depends on the player's holdings). Standard errors are 0 for exact results.
    """

    player: str
    recruited: int
    method: Method
    samples: int
    repelled: dict[int, float]
    breaches: dict[int, float]
    points: float
    points_se: float
    breaches_mean: float
    breaches_se: float
    penalties: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return {
            "player": self.player,
            "recruited": self.recruited,
            "method": self.method,
            "samples": self.samples,
            "repelled": {str(k): v for k, v in self.repelled.items()},
            "breaches": {str(k): v for k, v in self.breaches.items()},
            "points": self.points,
            "points_se": self.points_se,
            "breaches_mean": self.breaches_mean,
            "breaches_se": self.breaches_se,
            "penalties": self.penalties,
        }


class OutcomeTally:
    """Weighted accumulator of battle outcomes for one player."""

    def __init__(self) -> None:
        self.weight = 0.0
        self.n = 0
        self.repelled: Counter[int] = Counter()
        self.breaches: Counter[int] = Counter()
        self.pen: Counter[str] = Counter()
        self.sums = [0.0, 0.0, 0.0, 0.0]  # points, points^2, breaches, breaches^2

    def add(self, outcome: BattleOutcome, w: float = 1.0, count: int = 1) -> None:
        """Add ``count`` samples of ``outcome``, each of weight ``w``."""
        b = len(outcome.breaches)
        self.n += count
        w *= count
        self.weight += w
        self.repelled[outcome.repelled] += w
        self.breaches[b] += w
        for pen in outcome.penalties:
            self.pen[pen.value] += w
        pts = outcome.points
        self.sums[0] += w * pts
        self.sums[1] += w * pts * pts
        self.sums[2] += w * b
        self.sums[3] += w * b * b

    def stats(self, player: str, recruited: int, method: Method) -> PlayerStats:
        W = self.weight

        def mean_se(s: float, s2: float) -> tuple[float, float]:
            mean = s / W
            if method == "exact" or self.n < 2:
                return mean, 0.0
            var = max(s2 / W - mean * mean, 0.0) * self.n / (self.n - 1)
            return mean, math.sqrt(var / self.n)

        pts, pts_se = mean_se(self.sums[0], self.sums[1])
        br, br_se = mean_se(self.sums[2], self.sums[3])
        return PlayerStats(
            player=player,
            recruited=recruited,
            method=method,
            samples=self.n if method == "monte carlo" else 0,
            repelled={k: v / W for k, v in sorted(self.repelled.items())},
            breaches={k: v / W for k, v in sorted(self.breaches.items())},
            points=pts,
            points_se=pts_se,
            breaches_mean=br,
            breaches_se=br_se,
            penalties={p.value: self.pen[p.value] / W for p in Penalty if self.pen[p.value]},
        )
