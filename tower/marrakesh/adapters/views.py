"""What one player sees of a Marrakesh state: a view dict, its text and a flat tensor.

The adapters (OpenSpiel, PettingZoo) and the terminal UI show players only this view.
It holds the public board and the viewer's private information, and hides:

- the other players' screens (only their sizes) and unrevealed provision tiles;
- everyone's face-down oases (the owner does not know them either), the scroll and
  luxury stacks below their revealed tops, and the setup order of every stack;
- the phase-1 selections of the other players until all have chosen (the viewer's own
  pending choice is shown);
- where keshis sit inside the tower; the *colours* inside are shown, because every
  player can count them (thrown keshis are revealed, and so are the ones that come out);
- the engine's generator and its stack of tasks (only the pending decision is shown).

:func:`view` gives the nested dict, :func:`view_text` a stable one-line text of it,
:func:`flat_view` a ``{"key.path": value}`` form (the OpenSpiel information state is
built from differences of flat views), and :class:`TensorLayout` a fixed-size float
vector for learning agents.

Examples
--------
>>> from tower.marrakesh import Game, GameConfig
>>> s = Game(GameConfig(players=2)).new_initial_state(seed=1)
>>> v = view(s, 0)
>>> "screen" in v["players"][0], "screen" in v["players"][1]
(True, False)
>>> TensorLayout(s.game).size == len(TensorLayout(s.game).encode(s, 1))
True
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np

from tower.marrakesh import rules
from tower.marrakesh.actions import ACTIONS, SECTORS, VENDOR_SECTORS
from tower.marrakesh.board import PLAYER_FIELDS
from tower.marrakesh.state import CHANCE, SIMULTANEOUS, TERMINAL, Player, State
from tower.model.interface import Resident
from tower.pieces import KESHI_COLOURS, NEUTRAL, PLAYER_COLOURS, Kind

_PAWN_KINDS = (Kind.WATCHMAN, Kind.BRIGAND)

if TYPE_CHECKING:
    from tower.marrakesh.game import Game

MAX_PLAYERS = 4
#: Player fields shown only in part (handled explicitly by :func:`_player_view`); the
#: module slots ``ext`` are shown only through the modules' ``view`` hooks.
_PARTLY_HIDDEN = frozenset({"screen", "provisions", "oases", "ext"})
_PLAYER_FIELDS = tuple(k for k in PLAYER_FIELDS if k not in _PARTLY_HIDDEN)


def decision(state: State) -> dict[str, Any]:
    """The pending decision as a public dict: who decides what, or the node type."""
    cp = state.current_player
    if cp == TERMINAL:
        return {"node": "terminal"}
    if cp == CHANCE:
        return {"node": "chance", "what": "tower throw"}
    if cp == SIMULTANEOUS:
        return {"node": "simultaneous", "what": "select", "pending": state.pending_players()}
    top = state.stack[-1]
    return {"node": "decision", "player": cp, "what": top["k"]}


def _copy(value: Any) -> Any:
    """A copy of a player field deep enough that the view never aliases the state (the
    fields are scalars, flat lists or dicts of scalars)."""
    if isinstance(value, list):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    return value


def _colours(counts: dict[str, int] | Counter[str]) -> dict[str, int]:
    return {c: counts[c] for c in KESHI_COLOURS if counts.get(c, 0)}


#: Pawn slots of the "tower_pawns" observation: one per player colour, then the brigands.
PAWN_SLOTS: tuple[str, ...] = (*PLAYER_COLOURS, NEUTRAL)


def _pawns(residents: tuple[Resident, ...]) -> dict[str, int]:
    """Watchmen (by player colour) and brigands inside the tower; keshis are not counted."""
    counts = Counter(r.piece.colour for r in residents if r.piece.kind in _PAWN_KINDS)
    return {c: counts[c] for c in PAWN_SLOTS if counts.get(c, 0)}


def _player_view(state: State, i: int, viewer: int) -> dict[str, Any]:
    pl: Player = state.players[i]
    data = {name: _copy(getattr(pl, name)) for name in _PLAYER_FIELDS}
    data["keshis"] = _colours(pl.keshis)
    data["oases"] = [
        oid if shown else None for oid, shown in zip(pl.oases, pl.revealed, strict=False)
    ]
    data["screen_size"] = len(pl.screen)
    if i == viewer:
        data["screen"] = sorted(pl.screen, key=KESHI_COLOURS.index)
        data["provisions"] = [list(t) for t in pl.provisions]
    else:
        data["provisions"] = [[t, True] if shown else None for t, shown in pl.provisions]
    return data


def view(state: State, viewer: int) -> dict[str, Any]:
    """Everything ``viewer`` may see, as a JSON-ready dict (see the module docstring)."""
    top = state.stack[-1] if state.stack else {}
    chosen: dict[str, Any] = top.get("chosen", {}) if top.get("t") == "select" else {}
    selection: dict[str, Any] = {}
    if chosen:
        own = chosen.get(str(viewer))
        selection = {
            "chosen": sorted(int(p) for p, a in chosen.items() if a is not None),
            "own": None if own is None else str(ACTIONS[own]),
        }
    v = {
        "season": state.season,
        "round": state.round,
        "start": state.start,
        "viewer": viewer,
        "decision": decision(state),
        "selection": selection,
        "display": _colours(state.display),
        "tower": _colours(
            Counter(r.piece.colour for r in state.tower.residents if r.piece.kind is Kind.KESHI)
        ),
        "tower_pawns": _pawns(state.tower.residents),
        "throws": state.tower.throws,
        "scroll_tops": [
            st[-1] if st and shown else None
            for st, shown in zip(state.stacks, state.stack_open, strict=True)
        ],
        "scroll_heights": [len(st) for st in state.stacks],
        "shop_tops": [
            sh[-1] if sh and shown else None
            for sh, shown in zip(state.shops, state.shop_open, strict=True)
        ],
        "shop_heights": [len(sh) for sh in state.shops],
        "offices": list(state.offices),
        "workshops": [list(w) for w in state.workshops],
        "river_tiles": list(state.river_tiles),
        "leftover_oases": list(state.leftover_oases),
        "jetty_taken": list(state.jetty_taken),
        "towns_display": list(state.towns_display),
        "covers": state.covers,
        "pawns": state.pawns,
        "players": [_player_view(state, i, viewer) for i in range(state.num_players)],
    }
    for module_view in state.game.hooks.view:
        module_view(state, viewer, v)
    return v


def view_text(state: State, viewer: int) -> str:
    """:func:`view` as compact JSON with sorted keys (a stable observation string)."""
    return json.dumps(view(state, viewer), sort_keys=True, separators=(",", ":"))


def flat_view(state: State, viewer: int) -> dict[str, str]:
    """:func:`view` flattened to ``{"players.0.water": "1", ...}``: dicts are walked down,
    other values are leaves written with ``repr`` (lists keep their order, and the dicts
    inside lists come from component data, so equal views give equal texts)."""
    out: dict[str, str] = {}

    def walk(prefix: str, node: Any) -> None:
        if isinstance(node, dict) and node:
            for k, v in sorted(node.items()):
                walk(f"{prefix}.{k}", v)
        else:
            out[prefix] = repr(node)

    v = view(state, viewer)
    v["players"] = {str(i): pv for i, pv in enumerate(v["players"])}
    for k, node in v.items():
        walk(k, node)
    return out


class TensorLayout:
    """A fixed-size float encoding of :func:`view` for one game configuration.

    The vector is the concatenation of named pieces (:attr:`pieces`, ``name -> shape``);
    counts are raw numbers, identities are one-hot or multi-hot. Seats beyond the number
    of players are zeros. Staircase-tile covers are not encoded (they are fixed at setup
    and shown in the observation string).

    Parameters
    ----------
    game : Game
        The engine game (its components fix the sizes).
    """

    def __init__(self, game: Game) -> None:
        c = game.components
        self.n_scrolls = max(c.scrolls)
        self.n_lux = max(c.luxuries)
        self.n_oases = max(c.oases)
        self.n_prov = max(c.provisions)
        self.n_offices = max(c.exchange_offices)
        self.n_river = max(c.river_tiles)
        self.n_towns = max(c.desert_towns)
        self.decisions = rules.decision_kinds()
        self.n_stacks = 3 * len(c["scroll_groups"])
        self.n_shops = c["setup"]["luxury_shops"]
        self.n_jetty = len(c["river"]["jetty_spots"])
        self.n_track = len(c["sahara"]["track"])
        P, K = MAX_PLAYERS, len(KESHI_COLOURS)
        per_player: list[tuple[str, tuple[int, ...]]] = [
            ("scalars", (12,)),
            ("keshis", (K,)),
            ("vendors", (len(VENDOR_SECTORS),)),
            ("square", (8,)),
            ("disc", (8,)),
            ("sahara", (10,)),
            ("oases", (6, self.n_oases)),
            ("claimed_at", (6,)),
            ("claimed", (self.n_oases,)),
            ("towns", (2, self.n_towns)),
            ("towns_claimed", (2,)),
            ("gates", (8, K)),
            ("jetty", (self.n_jetty,)),
            ("scrolls", (self.n_scrolls,)),
            ("luxuries", (self.n_lux,)),
            ("provisions", (self.n_prov,)),
            ("track", (self.n_track, K)),
            ("hand", (K,)),
            ("held", (K,)),
            ("assistants", (len(SECTORS),)),
        ]
        self.pieces: dict[str, tuple[int, ...]] = {
            "viewer": (P,),
            "seats": (P,),
            "season": (3,),
            "round": (4,),
            "start": (P,),
            "to_move": (P,),
            "node": (4,),
            "decision": (len(self.decisions),),
            "own_selection": (K,),
            "chosen": (P,),
            "display": (K,),
            "tower": (K,),
            "tower_pawns": (len(PAWN_SLOTS),),
            "scroll_tops": (self.n_stacks, self.n_scrolls),
            "scroll_heights": (self.n_stacks,),
            "shop_tops": (self.n_shops, self.n_lux),
            "shop_heights": (self.n_shops,),
            "offices": (self.n_offices,),
            "workshops": (4, K),
            "river_tiles": (3, self.n_river),
            "leftover_oases": (self.n_oases,),
            "jetty_taken": (self.n_jetty,),
            "towns_display": (self.n_towns,),
            "pawns": (2, P + 2),
            "own_screen": (K,),
            "own_provisions": (self.n_prov,),
            **{f"p{i}.{name}": shape for i in range(P) for name, shape in per_player},
        }
        for pieces in game.hooks.tensor_pieces:
            self.pieces.update(pieces(c))
        self._encoders = game.hooks.encode
        self.size = int(sum(np.prod(s) for s in self.pieces.values()))

    def views(self, tensor: np.ndarray) -> dict[str, np.ndarray]:
        """Named, reshaped views into ``tensor`` (shape ``(size,)``), sharing its memory."""
        out, i = {}, 0
        for name, shape in self.pieces.items():
            n = int(np.prod(shape))
            out[name] = tensor[i : i + n].reshape(shape)
            i += n
        return out

    def encode(
        self,
        state: State,
        viewer: int,
        out: np.ndarray | None = None,
        views: dict[str, np.ndarray] | None = None,
    ) -> np.ndarray:
        """Fill ``out`` (or a new ``(size,)`` float32 array) with ``viewer``'s view;
        ``views`` are :meth:`views` of ``out``, if the caller keeps them."""
        t = np.zeros(self.size, np.float32) if out is None else out
        t.fill(0.0)
        d = self.views(t) if views is None else views
        v = view(state, viewer)
        ci = {c: i for i, c in enumerate(KESHI_COLOURS)}
        d["viewer"][viewer] = 1
        d["seats"][: state.num_players] = 1
        d["season"][min(v["season"], 3) - 1] = 1
        d["round"][min(v["round"], 4) - 1] = 1
        d["start"][v["start"]] = 1
        dec = v["decision"]
        d["node"][["decision", "simultaneous", "chance", "terminal"].index(dec["node"])] = 1
        if dec["node"] == "decision":
            d["to_move"][dec["player"]] = 1
            d["decision"][self.decisions.index(dec["what"])] = 1
        elif dec["node"] == "simultaneous":
            d["to_move"][dec["pending"]] = 1
        if v["selection"]:
            d["chosen"][v["selection"]["chosen"]] = 1
            if v["selection"]["own"]:
                for c in v["selection"]["own"].split(":")[1].split("+"):
                    d["own_selection"][ci[c]] += 1
        for key in ("display", "tower"):
            for c, n in v[key].items():
                d[key][ci[c]] = n
        for c, n in v["tower_pawns"].items():
            d["tower_pawns"][PAWN_SLOTS.index(c)] = n
        for i, sid in enumerate(v["scroll_tops"]):
            if sid is not None:
                d["scroll_tops"][i, sid - 1] = 1
        d["scroll_heights"][: len(v["scroll_heights"])] = v["scroll_heights"]
        for i, lid in enumerate(v["shop_tops"]):
            if lid is not None:
                d["shop_tops"][i, lid - 1] = 1
        d["shop_heights"][: len(v["shop_heights"])] = v["shop_heights"]
        _multi(d["offices"], v["offices"])
        for w, gates in enumerate(v["workshops"]):
            for c in gates:
                d["workshops"][w, ci[c]] += 1
        for s, tid in enumerate(v["river_tiles"]):
            d["river_tiles"][s, tid - 1] = 1
        _multi(d["leftover_oases"], v["leftover_oases"])
        d["jetty_taken"][:] = v["jetty_taken"]
        _multi(d["towns_display"], v["towns_display"])
        for k, name in enumerate(("sultan", "imam")):
            if name in v["pawns"]:
                holder, step = v["pawns"][name]
                d["pawns"][k, holder + 1] = 1
                d["pawns"][k, -1] = step
        own = v["players"][viewer]
        for c in own["screen"]:
            d["own_screen"][ci[c]] += 1
        _multi(d["own_provisions"], [tid for tid, _ in own["provisions"]])
        for i, pv in enumerate(v["players"]):
            self._encode_player(d, f"p{i}.", pv, ci)
        for module_encode in self._encoders:
            module_encode(state, viewer, d)
        return t

    def _encode_player(
        self, d: dict[str, np.ndarray], pre: str, pv: dict[str, Any], ci: dict[str, int]
    ) -> None:
        d[pre + "scalars"][:] = [
            pv["score"],
            pv["water"],
            pv["dates"],
            pv["dinars"],
            pv["souk_vendor"],
            pv["river"],
            pv["river_total"],
            pv["mosque"],
            pv["palace"],
            pv["screen_size"],
            pv["swapped"] + 2 * pv["forfeit"],
            pv["crocodile"],
        ]
        for c, n in pv["keshis"].items():
            d[pre + "keshis"][ci[c]] = n
        for s, n in pv["vendors"].items():
            d[pre + "vendors"][VENDOR_SECTORS.index(s)] = n
        d[pre + "square"][:] = pv["square"]
        d[pre + "disc"][pv["disc"] % 8] = 1
        d[pre + "sahara"][:] = pv["sahara"]
        for k, oid in enumerate(pv["oases"]):
            if oid is not None:
                d[pre + "oases"][k, oid - 1] = 1
        d[pre + "claimed_at"][:] = pv["claimed_at"]
        _multi(d[pre + "claimed"], pv["claimed"])
        for k, tid in enumerate(pv["towns"]):
            if tid:
                d[pre + "towns"][k, tid - 1] = 1
        d[pre + "towns_claimed"][:] = pv["towns_claimed"]
        for k, c in enumerate(pv["gates"]):
            if c is not None:
                d[pre + "gates"][k, ci[c]] = 1
        if pv["jetty"] >= 0:
            d[pre + "jetty"][pv["jetty"]] = 1
        _multi(d[pre + "scrolls"], pv["scrolls"])
        _multi(d[pre + "luxuries"], pv["luxuries"])
        _multi(d[pre + "provisions"], [t[0] for t in pv["provisions"] if t is not None])
        for slot, c in pv["track"].items():
            d[pre + "track"][int(slot), ci[c]] = 1
        for key in ("hand", "held"):
            for c in pv[key]:
                d[pre + key][ci[c]] += 1
        for s, n in pv["assistants"].items():
            d[pre + "assistants"][SECTORS.index(s)] = n


def _multi(target: np.ndarray, ids: list[int]) -> None:
    """Multi-hot of 1-based ids."""
    for x in ids:
        target[x - 1] += 1
