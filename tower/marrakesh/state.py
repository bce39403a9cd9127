"""The game state: a plain value that is written to JSON and read back exactly.

A :class:`State` holds the board, the players, the tower's :class:`TowerState`, the
engine's random generator and the *stack* of pending work. The stack holds tasks (small
dicts such as ``{"t": "deploy", "p": 0, "c": "pink"}``) and pending decisions
(``{"t": "ask", "k": "place_pink", "p": 0}``); :mod:`tower.marrakesh.rules` runs tasks
until a decision, a chance node or the end of the game is on top.

Examples
--------
>>> from tower.marrakesh import Game, GameConfig
>>> s = Game(GameConfig(players=2)).new_initial_state(seed=3)
>>> t = State.from_json(s.game, s.to_json())
>>> t.to_json() == s.to_json()
True
"""

from __future__ import annotations

import copy
import random
from dataclasses import MISSING, dataclass, field, fields
from typing import TYPE_CHECKING, Any

from tower.marrakesh import rules
from tower.marrakesh.actions import ACTIONS, Action
from tower.marrakesh.rules import CHANCE, SIMULTANEOUS, TERMINAL
from tower.model.interface import TowerState
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.game import Game

__all__ = ["CHANCE", "SIMULTANEOUS", "TERMINAL", "Player", "State"]

JSON_VERSION = "tower.marrakesh.state/1"


@dataclass
class Player:
    """One player's board, supply board, screen and pawns.

    ``keshis`` counts the keshis of each colour on the board (the 8 sector colours and the
    goods colours in the souk; red keshis are the ``vendors``). ``beige`` counts all guards,
    on the watchtower or committed to a gate (``gates``).
    """

    score: int = 0  # setup logs the start score (space 10) as a score event
    water: int = 1
    dates: int = 1
    dinars: int = 1
    screen: list[str] = field(default_factory=list)
    hand: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)  # claimed or gained, not yet deployed
    assistants: dict[str, int] = field(default_factory=dict)  # sector -> unused assistants
    keshis: dict[str, int] = field(default_factory=lambda: {c: 0 for c in KESHI_COLOURS})
    vendors: dict[str, int] = field(default_factory=dict)  # sector -> 1 active, 2 placed now
    souk_vendor: int = 0  # scroll 57: 0 none, 1 active, 2 placed this turn
    square: list[bool] = field(default_factory=lambda: [False] * 8)
    disc: int = 0  # rotation of the audience disc
    sahara: list[bool] = field(default_factory=lambda: [False] * 10)
    oases: list[int] = field(default_factory=list)  # oasis ids at path spaces 2..7
    revealed: list[bool] = field(default_factory=lambda: [False] * 6)
    claimed_at: list[bool] = field(default_factory=lambda: [False] * 6)
    claimed: list[int] = field(default_factory=list)  # claimed oasis ids, in track order
    towns: list[int] = field(default_factory=lambda: [0, 0])  # desert town per path, 0 none
    towns_claimed: list[bool] = field(default_factory=lambda: [False, False])
    gates: list[str | None] = field(default_factory=lambda: [None] * 8)
    river: int = 0
    river_tick: int = 0
    river_total: int = 0
    jetty: int = -1
    mosque: int = 0
    palace: int = 0
    scrolls: list[int] = field(default_factory=list)
    luxuries: list[int] = field(default_factory=list)
    provisions: list[list[Any]] = field(default_factory=list)  # [[tile id, revealed]]
    track: dict[str, str] = field(default_factory=dict)  # oasis-track slot -> keshi colour
    swapped: bool = False
    forfeit: bool = False
    crocodile: bool = False
    # Walls & Guards fields, older than the module slots (``ext``) and kept on Player for
    # JSON compatibility; unused without the module.
    wood: int = 0
    bricks: list[int] = field(default_factory=list)  # brick tile at sahara spaces 2..7
    explored: list[bool] = field(default_factory=lambda: [False] * 6)
    wall: list[int] = field(default_factory=list)  # fired brick tiles, left to right
    posts: list[bool] = field(default_factory=lambda: [False] * 3)  # watchmen on the board
    recruited: int = 0  # watchmen next to the tower, ready for battle
    orchard_brown: int = 0  # caravan keshis in the date orchard (counted in keshis)
    sahara_green: list[int] = field(default_factory=list)  # sahara spaces with a date picker
    wall_town: int = 0  # desert town on the city-wall board, 0 none
    #: Per-module slots (module name -> plain JSON data) the core never reads.
    ext: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {f.name: copy.deepcopy(getattr(self, f.name)) for f in fields(self)}

    def copy(self) -> Player:
        other = copy.copy(self)
        for name in _PLAYER_CONTAINERS:
            setattr(other, name, _copy_plain(getattr(self, name)))
        return other

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Player:
        return cls(**copy.deepcopy(data))

    @property
    def watchtower(self) -> int:
        """Guards not yet committed to a city gate."""
        return self.keshis["beige"] - sum(g is not None for g in self.gates)

    def resource(self, name: str) -> int:
        return getattr(self, name)


def _copy_plain(value: Any) -> Any:
    """A deep copy of plain JSON-like data (dicts, lists, scalars), faster than deepcopy."""
    if isinstance(value, dict):
        return {k: _copy_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_plain(v) for v in value]
    return value


#: Player fields holding lists or dicts (copied by :meth:`Player.copy`).
_PLAYER_CONTAINERS = tuple(
    f.name for f in fields(Player) if f.default is MISSING and f.default_factory is not MISSING
)
#: Global fields added with Walls & Guards and the module slots (older states lack them).
_ADDED_FIELDS = frozenset({"brigands", "battle_base", "carry", "wall_protected", "ext"})
#: Global fields that are only ever appended to; a clone shares their entries.
_APPEND_ONLY = frozenset({"history", "score_events"})

#: The global fields of a state, serialized as they are.
_GLOBAL_FIELDS = (
    "season",
    "round",
    "start",
    "season_start",
    "display",
    "stacks",
    "stack_open",
    "offices",
    "shops",
    "shop_open",
    "workshops",
    "river_tiles",
    "leftover_oases",
    "jetty_taken",
    "towns_display",
    "covers",
    "pawns",
    "brigands",
    "battle_base",
    "carry",
    "wall_protected",
    "ext",
    "issued",
    "tick",
    "turn",
    "stack",
    "score_events",
    "history",
)


class State:
    """A Marrakesh position. Build one with :meth:`Game.new_initial_state`.

    ``current_player`` is a player index, or :data:`CHANCE` (the tower throw: call
    :meth:`sample_chance`), :data:`SIMULTANEOUS` (phase 1: every player in
    :meth:`pending_players` picks 3 keshis) or :data:`TERMINAL`.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        n = game.config.players
        self.players: list[Player] = [Player() for _ in range(n)]
        self.rng = random.Random(0)
        self.tower: TowerState = game.config.tower.new_state()
        self.season = 1
        self.round = 1
        self.start = 0
        self.season_start = 0
        self.display: dict[str, int] = {c: 0 for c in KESHI_COLOURS}
        self.stacks: list[list[int]] = []
        self.stack_open: list[bool] = []
        self.offices: list[int] = []
        self.shops: list[list[int]] = []
        self.shop_open: list[bool] = []
        self.workshops: list[list[str]] = []
        self.river_tiles: list[int] = []
        self.leftover_oases: list[int] = []
        self.jetty_taken: list[bool] = []
        self.towns_display: list[int] = []
        self.covers: dict[str, list[dict[str, Any]]] = {}
        self.pawns: dict[str, list[int]] = {}  # "sultan"/"imam" -> [holder or -1, step]
        # Walls & Guards: brigands next to the tower, the pieces in the tower's base during
        # the battles, keshis carried into the next season's first throw, and the player
        # whose wall river tile 22 protects this season (-1 none).
        self.brigands = 0
        self.battle_base: list[str] = []
        self.carry: list[str] = []
        self.wall_protected = -1
        #: Per-module slots (module name -> plain JSON data) the core never reads.
        self.ext: dict[str, Any] = {}
        self.issued: dict[str, int] = {c: 0 for c in KESHI_COLOURS}
        self.tick = 0
        self.turn = -1  # the player whose phase-3 turn is running, else -1
        self.stack: list[dict[str, Any]] = []
        self.score_events: list[list[Any]] = []  # [player, delta, reason]
        self.history: list[str] = []

    # -- the core API -------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return len(self.players)

    @property
    def current_player(self) -> int:
        return rules.current_player(self)

    def is_terminal(self) -> bool:
        return not self.stack

    def is_chance_node(self) -> bool:
        return self.current_player == CHANCE

    def pending_players(self) -> list[int]:
        """Players who still have to choose at a simultaneous node (else empty)."""
        return rules.pending_players(self)

    def legal_action_ids(self, player: int | None = None) -> list[int]:
        """Ids of the legal actions of ``player`` (default: the player to move, or at a
        simultaneous node the first pending player)."""
        return list(rules.legal_ids(self, player))

    def legal_actions(self, player: int | None = None) -> list[Action]:
        return [ACTIONS[i] for i in rules.legal_ids(self, player)]

    def apply(self, action: Action | int | str, player: int | None = None) -> None:
        """Apply a legal action; raises :class:`IllegalActionError` and changes nothing
        if it is not legal. At a simultaneous node ``player`` says whose choice it is
        (default: the first pending player)."""
        rules.apply(self, rules.as_action(action), player)

    def chance_outcomes(self) -> list[tuple[tuple[str, ...], float]]:
        """Exact law of the keshis coming out of the tower at a chance node, as
        ``[(sorted piece strings, probability)]``. Raises ``NotImplementedError`` when the
        tower model has no exact distribution; :meth:`sample_chance` always works."""
        return rules.chance_outcomes(self)

    def sample_chance(self, rng: random.Random | None = None) -> list[str]:
        """Resolve the tower throw at a chance node; returns the keshis that came out.

        By default the state's own generator draws, so replaying from a seed and the
        player actions reproduces the game exactly."""
        return rules.sample_chance(self, rng)

    def scores(self) -> list[int]:
        return [p.score for p in self.players]

    def winners(self) -> list[int]:
        """The players with the most points after the rulebook's tie-breaks (palace, then
        mosque); several players share the victory if still tied."""

        def key(i: int) -> tuple[int, int, int]:
            p = self.players[i]
            return (p.score, p.palace, p.mosque)

        best = max(key(i) for i in range(self.num_players))
        return [i for i in range(self.num_players) if key(i) == best]

    def clone(self) -> State:
        """An independent copy. Immutable parts are shared: the game, the tower's
        :class:`TowerState` (frozen), the logged history lines and score events (only ever
        appended to, so the copy gets a new list of the same entries)."""
        other = State.__new__(State)
        other.game = self.game
        other.tower = self.tower
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other.players = [p.copy() for p in self.players]
        for k in _GLOBAL_FIELDS:
            v = getattr(self, k)
            setattr(other, k, list(v) if k in _APPEND_ONLY else _copy_plain(v))
        return other

    # -- JSON -------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        version, internal, gauss = self.rng.getstate()
        cfg = self.game.config
        return {
            "format": JSON_VERSION,
            "players": cfg.players,
            "modules": sorted(cfg.modules),
            "tower_model": cfg.tower.name,
            "rng": [version, list(internal), gauss],
            "tower": self.tower.to_json(),
            "board": {k: copy.deepcopy(getattr(self, k)) for k in _GLOBAL_FIELDS},
            "player_states": [p.to_json() for p in self.players],
        }

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any]) -> State:
        """Read a state written by :meth:`to_json` for ``game``; raises
        :class:`tower.errors.InputFileError` if it does not fit."""
        from tower.errors import InputFileError

        where = "<state json>"
        try:
            if data["format"] != JSON_VERSION:
                raise InputFileError(where, f"format must be {JSON_VERSION}", field="format")
            cfg = game.config
            if data["players"] != cfg.players or sorted(data["modules"]) != sorted(cfg.modules):
                raise InputFileError(
                    where, "players/modules differ from the game's configuration", field="players"
                )
            s = cls(game)
            version, internal, gauss = data["rng"]
            s.rng.setstate((version, tuple(internal), gauss))
            s.tower = TowerState.from_json(data["tower"])
            for k in _GLOBAL_FIELDS:
                if k in _ADDED_FIELDS and k not in data["board"]:
                    continue  # a state written before Walls & Guards: the defaults hold
                setattr(s, k, copy.deepcopy(data["board"][k]))
            s.players = [Player.from_json(p) for p in data["player_states"]]
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, InputFileError):
                raise
            raise InputFileError(where, f"malformed state: {exc}") from exc
        return s
