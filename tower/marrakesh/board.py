"""The data of a Marrakesh position, without the rules: what is written to JSON.

:class:`Player` is one player's boards, screen and pawns; :class:`Board` holds the shared
board, the players, the tower's :class:`TowerState`, the engine's random generator and the
*stack* of pending work. The stack holds tasks (small dicts such as ``{"t": "deploy",
"p": 0, "c": "pink"}``) and pending decisions (``{"t": "ask", "k": "place_pink", "p":
0}``). A board is written to JSON and read back exactly (:meth:`Board.to_json`,
:meth:`Board.from_json`) and copied by :meth:`Board.clone`.

The rules (:mod:`tower.marrakesh.rules` and the phase files) work on a :class:`Board`;
:class:`tower.marrakesh.state.State` adds the player-facing API on top of it. A board
knows its game only through :class:`GameLike` (what the rules read of it, the game's base
class), so this file sits below the rules and the game (layer order:
``tower/marrakesh/__init__.py``).

Examples
--------
>>> from tower.marrakesh import Game, GameConfig
>>> b = Game(GameConfig(players=2)).new_initial_state(seed=3)
>>> isinstance(b, Board), Board.from_json(b.game, b.to_json()).to_json() == b.to_json()
(True, True)
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Self

from tower.errors import InputFileError
from tower.model.interface import TowerState
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.component_data import Components
    from tower.marrakesh.config import GameConfig
    from tower.marrakesh.hooks import Hooks, RuleSet

__all__ = ["GAME_FIELDS", "JSON_VERSION", "PLAYER_FIELDS", "Board", "Draws", "GameLike", "Player"]

JSON_VERSION = "tower.marrakesh.state/1"


#: The fields of :class:`GameLike`: what the rules read of a game.
GAME_FIELDS = (
    "config",
    "components",
    "hooks",
    "ruleset",
    "modifiers",
    "with_modifier",
    "rooms",
    "plain_rooms",
)


class GameLike:
    """What a board and the rules read of their game: the configuration, the assembled
    components, the enabled modules' hooks, the game's rule set, the scroll modifiers and
    the room rules. :class:`tower.marrakesh.game.Game` is its subclass, which fills them.

    A base class with slots rather than a protocol: the compiled build makes it an
    extension type (``board.pxd``) and types the board's ``game`` with it, so that the
    rules read the game's tables (some 7,000 reads a game) as C struct members.
    """

    __slots__ = GAME_FIELDS

    config: GameConfig
    components: Components
    hooks: Hooks
    #: The core's tasks, decisions, labels and effects with those of the enabled modules.
    ruleset: RuleSet
    #: scroll id -> the modifier name of a permanent (or timed) enhancement
    modifiers: dict[int, str]
    #: modifier name -> the ids of the scrolls that have it
    with_modifier: dict[str, frozenset[int]]
    #: keshi colour -> fn(state, player): how many more keshis of it fit
    rooms: dict[str, Callable[[Any, int], int]]
    #: the colours whose room is the sector's plain capacity (no module decides it)
    plain_rooms: frozenset[str]

    def has(self, module: str) -> bool:
        return module in self.config.modules


class Draws(random.Random):
    """The engine's random generator: a :class:`random.Random` whose ``shuffle`` is spelt
    out with the same draws (``k`` random bits for each index below ``n``, drawn again
    until below ``n``; the list's end first), one call for the whole list rather than one
    per element: a game shuffles some 30 lists. Its state, copies and JSON are those of
    :class:`random.Random`."""

    def shuffle(self, x: Any) -> None:
        getrandbits = self.getrandbits
        for i, n, k in _steps(len(x)):
            j = getrandbits(k)
            while j >= n:
                j = getrandbits(k)
            x[i], x[j] = x[j], x[i]


@lru_cache(maxsize=256)
def _steps(length: int) -> tuple[tuple[int, int, int], ...]:
    """The steps of a shuffle of ``length`` items: ``(i, n, k)`` for each index ``i`` from
    the end down to 1, with ``n = i + 1`` choices and ``k`` bits drawn for each (made once
    per length: a game shuffles the same lengths)."""
    return tuple((i, i + 1, (i + 1).bit_length()) for i in reversed(range(1, length)))


#: A player's fields, in the order of its JSON (and of :class:`Player`'s ``repr``).
PLAYER_FIELDS = (
    "score",
    "water",
    "dates",
    "dinars",
    "screen",
    "hand",
    "held",
    "assistants",
    "keshis",
    "vendors",
    "souk_vendor",
    "square",
    "disc",
    "sahara",
    "oases",
    "revealed",
    "claimed_at",
    "claimed",
    "towns",
    "towns_claimed",
    "gates",
    "river",
    "river_tick",
    "river_total",
    "jetty",
    "mosque",
    "palace",
    "scrolls",
    "luxuries",
    "provisions",
    "track",
    "swapped",
    "forfeit",
    "crocodile",
    "wood",
    "bricks",
    "explored",
    "wall",
    "posts",
    "recruited",
    "orchard_brown",
    "sahara_green",
    "wall_town",
    "ext",
)


class Player:
    """One player's board, supply board, screen and pawns.

    ``keshis`` counts the keshis of each colour on the board (the 8 sector colours and the
    goods colours in the souk; red keshis are the ``vendors``). ``beige`` counts all guards,
    on the watchtower or committed to a gate (``gates``).

    A plain class with the behaviour of a dataclass (keyword construction, ``repr`` and
    ``==`` over :data:`PLAYER_FIELDS`): the compiled build makes it an extension type
    (``board.pxd``), which a dataclass cannot be.
    """

    __slots__ = PLAYER_FIELDS

    def __init__(self, **values: Any) -> None:
        self.score = 0  # setup logs the start score (space 10) as a score event
        self.water = 1
        self.dates = 1
        self.dinars = 1
        self.screen: list[str] = []
        self.hand: list[str] = []
        self.held: list[str] = []  # claimed or gained, not yet deployed
        self.assistants: dict[str, int] = {}  # sector -> unused assistants
        self.keshis: dict[str, int] = {c: 0 for c in KESHI_COLOURS}
        self.vendors: dict[str, int] = {}  # sector -> 1 active, 2 placed now
        self.souk_vendor = 0  # scroll 57: 0 none, 1 active, 2 placed this turn
        self.square: list[bool] = [False] * 8
        self.disc = 0  # rotation of the audience disc
        self.sahara: list[bool] = [False] * 10
        self.oases: list[int] = []  # oasis ids at path spaces 2..7
        self.revealed: list[bool] = [False] * 6
        self.claimed_at: list[bool] = [False] * 6
        self.claimed: list[int] = []  # claimed oasis ids, in track order
        self.towns: list[int] = [0, 0]  # desert town per path, 0 none
        self.towns_claimed: list[bool] = [False, False]
        self.gates: list[str | None] = [None] * 8
        self.river = 0
        self.river_tick = 0
        self.river_total = 0
        self.jetty = -1
        self.mosque = 0
        self.palace = 0
        self.scrolls: list[int] = []
        self.luxuries: list[int] = []
        self.provisions: list[list[Any]] = []  # [[tile id, revealed]]
        self.track: dict[str, str] = {}  # oasis-track slot -> keshi colour
        self.swapped = False
        self.forfeit = False
        self.crocodile = False
        # Walls & Guards fields, older than the module slots (``ext``) and kept on Player
        # for JSON compatibility; unused without the module.
        self.wood = 0
        self.bricks: list[int] = []  # brick tile at sahara spaces 2..7
        self.explored: list[bool] = [False] * 6
        self.wall: list[int] = []  # fired brick tiles, left to right
        self.posts: list[bool] = [False] * 3  # watchmen on the board
        self.recruited = 0  # watchmen next to the tower, ready for battle
        self.orchard_brown = 0  # caravan keshis in the date orchard (counted in keshis)
        self.sahara_green: list[int] = []  # sahara spaces with a date picker
        self.wall_town = 0  # desert town on the city-wall board, 0 none
        #: Per-module slots (module name -> plain JSON data) the core never reads.
        self.ext: dict[str, Any] = {}
        for name, value in values.items():
            if name not in PLAYER_FIELDS:
                raise TypeError(f"Player.__init__() got an unexpected keyword argument {name!r}")
            setattr(self, name, value)

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={getattr(self, k)!r}" for k in PLAYER_FIELDS)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in PLAYER_FIELDS)

    def to_json(self) -> dict[str, Any]:
        return {k: copy.deepcopy(getattr(self, k)) for k in PLAYER_FIELDS}

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
        return self.keshis["beige"] - (len(self.gates) - self.gates.count(None))

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
    k for k in PLAYER_FIELDS if isinstance(getattr(Player(), k), (list, dict))
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


class Board:
    """The data of a position: the shared board, the players, the tower, the random
    generator and the stack. :class:`tower.marrakesh.state.State` is the board with the
    game's API; build one with :meth:`tower.marrakesh.game.Game.new_initial_state`."""

    # Slots rather than an instance dict, here and on Player: the rules read a board's and
    # the players' fields some 30,000 times a game, and an object with more than 30
    # attributes keeps them in a full dict, searched on every read.
    __slots__ = ("game", "players", "rng", "tower", *_GLOBAL_FIELDS)

    def __init__(self, game: GameLike) -> None:
        self.game = game
        n = game.config.players
        self.players: list[Player] = [Player() for _ in range(n)]
        self.rng: random.Random = Draws(0)
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

    @property
    def num_players(self) -> int:
        return len(self.players)

    def clone(self) -> Self:
        """An independent copy. Immutable parts are shared: the game, the tower's
        :class:`TowerState` (frozen), the logged history lines and score events (only ever
        appended to, so the copy gets a new list of the same entries)."""
        other = type(self).__new__(type(self))
        other.game = self.game
        other.tower = self.tower
        other.rng = Draws()
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
    def from_json(cls, game: GameLike, data: dict[str, Any]) -> Self:
        """Read a state written by :meth:`to_json` for ``game``; raises
        :class:`tower.errors.InputFileError` if it does not fit."""
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
