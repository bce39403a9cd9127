"""Inputs of the battle checker: choosing the model, the tower start, reading observations.

Piece notation (command line and observation files): comma-separated items
``[N*]kind[:colour]``; ``brigand`` needs no colour, and a bare ``keshi`` stands for a keshi
of the next colour in rulebook order (keshi colours play no part in a battle).

>>> [str(p) for p in parse_pieces("2*watchman:red, brigand, keshi")]
['brigand:neutral', 'keshi:green', 'watchman:red', 'watchman:red']
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tower.battle.checker import (
    Observation,
    Situation,
    TowerStart,
    empty_tower,
    given_tower,
    steady_tower,
    warm_tower,
)
from tower.errors import InputFileError, TowerError
from tower.files.inputs import LIMITS, check_count, load_json, load_json_object
from tower.marrakesh.wall_battle import PLAYER_COLOURS, SECTIONS, Wall, battle_order
from tower.model.baseline import BaselineModel
from tower.model.interface import TowerModel, TowerState
from tower.model.opener import open_model
from tower.pieces import INSIDE, KESHI_COLOURS, NEUTRAL, Kind, Piece

OBSERVATION_FORMAT = "tower.battle-observation/1"

#: ASCII digits only: ``str.isdigit`` also accepts superscripts, which ``int`` refuses.
_DIGITS = re.compile(r"[0-9]{1,9}")


class BadNotation(TowerError, ValueError):
    """A piece list or a per-player value on the command line cannot be read."""


def choose_model(name: str = "shipped") -> tuple[TowerModel, str]:
    """The tower model to use and a one-line note saying which it is and why.

    ``name`` is any model name :func:`tower.model.open_model` reads. ``"shipped"`` falls
    back to the baseline, and the note says so, if no shipped model is in this build or it
    cannot throw watchmen and brigands; a shipped model file that exists but is corrupt is
    an error, never a silent fallback. Any other model must load and throw pawns.
    """
    if name == "shipped":
        return _shipped_or_baseline()
    model = open_model(name)  # a bad name or file raises an error naming it
    try:
        _probe_pawns(model)
    except TowerError as exc:
        raise BadNotation(f"{name}: this model cannot throw pawns: {exc}") from None
    if name == "baseline":
        return model, "model: baseline (2/3 fresh, 1/3 resident), as requested"
    return model, f"model: {name} ({model.name})"


def _shipped_or_baseline() -> tuple[TowerModel, str]:
    try:
        model = open_model("shipped")
    except InputFileError:
        raise
    except TowerError as exc:
        return BaselineModel(), f"model: baseline (no shipped model: {exc})"
    try:
        _probe_pawns(model)
    except TowerError as exc:
        return BaselineModel(), f"model: baseline (the shipped model cannot throw pawns: {exc})"
    return model, f"model: shipped 'marrakesh' ({model.name})"


def _probe_pawns(model: TowerModel) -> None:
    """Raise the model's TowerError if it cannot throw a watchman and a brigand."""
    probe = [Piece(Kind.WATCHMAN, PLAYER_COLOURS[0]), Piece(Kind.BRIGAND, NEUTRAL)]
    model.throw(model.new_state(), probe, random.Random(0))


def warmup_rounds(spec: str, *, physics: bool = False) -> int | None:
    """``R`` for ``warm:R``, 0 for ``empty``, ``None`` otherwise (refused with
    ``physics``: simulated seasons start from an empty tower).

    >>> warmup_rounds("warm:8"), warmup_rounds("empty"), warmup_rounds("steady")
    (8, 0, None)
    """
    if spec == "empty":
        return 0
    kind, sep, rounds = spec.partition(":")
    if (kind != "warm" or not sep) and physics:
        raise BadNotation("--physics simulates from an empty tower: add --tower empty or warm:R")
    if kind != "warm" or not sep:
        return None
    if not _DIGITS.fullmatch(rounds):
        raise BadNotation(f"--tower warm:R needs a number of rounds, got {spec!r}")
    if int(rounds) > LIMITS["warmup_rounds"]:
        raise BadNotation(
            f"--tower {spec}: {rounds} rounds is over the limit warmup_rounds = "
            f"{LIMITS['warmup_rounds']}"
        )
    return int(rounds)


def choose_tower(spec: str, model: TowerModel, players: int, seed: int = 0) -> TowerStart:
    """``steady`` (a steady-state pool from ``model``), ``empty``, ``warm:R`` (towers after
    R ordinary rounds from empty), or a TowerState JSON file."""
    if spec == "steady":
        return steady_tower(model, players, seed=seed)
    if spec == "empty":
        return empty_tower(model)
    rounds = warmup_rounds(spec)
    if rounds is not None:
        return warm_tower(model, players, rounds, seed=seed)
    if not Path(spec).exists():
        raise InputFileError(spec, "no such file (expected steady, empty, warm:R or a JSON file)")
    data = load_json(spec)
    return given_tower(_tower_state(data, spec, "tower"), f"tower state from {spec}")


def _tower_state(data: Any, path: str, fld: str) -> TowerState:
    """A tower state object, every resident checked: a battle piece, a place inside, and
    entered at a throw no later than the state's ``throws``."""
    if not isinstance(data, dict):
        raise InputFileError(path, "expected a tower state object", field=fld)
    throws = data.get("throws")
    if isinstance(throws, bool) or not isinstance(throws, int) or throws < 0:
        raise InputFileError(
            path, f"expected a throw count >= 0, got {throws!r:.40}", field=f"{fld}.throws"
        )
    residents = data.get("residents")
    if not isinstance(residents, list):
        raise InputFileError(
            path, f"expected a list, got {residents!r:.40}", field=f"{fld}.residents"
        )
    check_count(len(residents), path, f"{fld}.residents", "state_residents")
    for i, entry in enumerate(residents):
        where = f"{fld}.residents[{i}]"
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)):
            raise InputFileError(
                path, f"expected [piece, place, since], got {entry!r:.60}", field=where
            )
        try:
            battle_piece(entry[0])
        except BadNotation as exc:
            raise InputFileError(path, str(exc), field=where) from None
        if not isinstance(entry[1], str) or entry[1] not in {p.value for p in INSIDE}:
            raise InputFileError(
                path, f"place {entry[1]!r:.30} is not inside the tower", field=f"{where}[1]"
            )
        since = entry[2]
        if isinstance(since, bool) or not isinstance(since, int) or not 0 <= since <= throws:
            raise InputFileError(
                path, f"entered at throw {since!r:.30}, expected 0 to throws = {throws}",
                field=f"{where}[2]",
            )  # fmt: skip
    try:
        return TowerState.from_json(data)
    except ValueError as exc:
        raise InputFileError(path, str(exc), field=fld) from None


def battle_piece(item: str) -> Piece:
    """A ``kind:colour`` piece of the battle: a keshi colour, a player's watchman, or the
    neutral brigand; else :class:`BadNotation`."""
    try:
        piece = Piece.parse(item)
    except ValueError as exc:
        raise BadNotation(str(exc)) from None
    if piece.kind is Kind.KESHI and piece.colour not in KESHI_COLOURS:
        raise BadNotation(f"unknown keshi colour in {item!r}")
    if piece.kind is Kind.WATCHMAN and piece.colour not in PLAYER_COLOURS:
        raise BadNotation(f"watchmen come in {', '.join(PLAYER_COLOURS)}; got {item!r}")
    if piece.kind is Kind.BRIGAND and piece.colour != NEUTRAL:
        raise BadNotation(f"brigands are {NEUTRAL}; got {item!r}")
    if piece.kind not in (Kind.KESHI, Kind.WATCHMAN, Kind.BRIGAND):
        raise BadNotation(f"no {piece.kind.value} takes part in a battle; got {item!r}")
    return piece


def parse_pieces(text: str) -> list[Piece]:
    """Read the piece notation (see the module docstring); raises :class:`BadNotation`."""
    pieces: list[Piece] = []
    keshi_i = 0
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        count, star, rest = item.partition("*")
        if star:
            if not _DIGITS.fullmatch(count.strip()):
                raise BadNotation(f"bad count in {item!r}; write N*kind:colour")
            n, item = int(count), rest.strip()
        else:
            n = 1
        for _ in range(n):
            if item == "brigand":
                pieces.append(Piece(Kind.BRIGAND, NEUTRAL))
            elif item == "keshi":
                pieces.append(Piece.keshi(KESHI_COLOURS[keshi_i % len(KESHI_COLOURS)]))
                keshi_i += 1
            else:
                pieces.append(battle_piece(item))
            if len(pieces) > LIMITS["pieces_per_throw"]:
                raise BadNotation(
                    f"{text[:40]!r}: over the limit pieces_per_throw = {LIMITS['pieces_per_throw']}"
                )
    return sorted(pieces)


def per_player(text: str, players: tuple[str, ...], what: str) -> dict[str, int]:
    """``"2"`` (everyone) or ``"red=2,blue=1"`` (others 0) -> colour -> int."""
    text = text.strip()
    if _DIGITS.fullmatch(text):
        return dict.fromkeys(players, int(text))
    out = dict.fromkeys(players, 0)
    for item in text.split(","):
        colour, eq, value = item.strip().partition("=")
        if not eq or colour not in players or not _DIGITS.fullmatch(value.strip()):
            raise BadNotation(
                f"{what}: expected N or colour=N,... with colours {', '.join(players)}; "
                f"got {item.strip()!r}"
            )
        out[colour] = int(value)
    return out


def read_observation(
    path: str | Path, model: TowerModel, players: int = 4
) -> tuple[Observation, TowerStart]:
    """Read an observed battle file (schema ``tower.battle-observation/1``).

    Fields: ``format``, ``thrown`` and ``out`` (lists of piece notations), optional
    ``player`` and ``wall`` (``{"repaired": n, "watchtower": bool}``), optional ``tower``
    (``"empty"``, ``"steady"`` or a tower state object; default ``"steady"``).
    """
    p = str(path)
    data = load_json_object(path)
    if data.get("format") != OBSERVATION_FORMAT:
        raise InputFileError(
            p, f"expected {OBSERVATION_FORMAT!r}, got {data.get('format')!r}", field="format"
        )
    lists: dict[str, list[Piece]] = {}
    for fld in ("thrown", "out"):
        items = data.get(fld)
        if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
            raise InputFileError(p, "expected a list of piece notations", field=fld)
        try:
            lists[fld] = parse_pieces(",".join(items))
        except BadNotation as exc:
            raise InputFileError(p, str(exc), field=fld) from None
    player = data.get("player")
    if player is not None and player not in PLAYER_COLOURS:
        raise InputFileError(p, f"expected one of {PLAYER_COLOURS}", field="player")
    wall = _wall(data.get("wall"), p)
    tower_spec = data.get("tower", "steady")
    if isinstance(tower_spec, Mapping):
        tower = given_tower(_tower_state(tower_spec, p, "tower"), f"tower state from {p}")
    elif tower_spec in ("steady", "empty"):
        tower = choose_tower(tower_spec, model, players)
    else:
        raise InputFileError(p, "expected 'steady', 'empty' or a tower state", field="tower")
    return Observation(tuple(lists["thrown"]), tuple(lists["out"]), player, wall), tower


def _wall(data: Any, path: str) -> Wall | None:
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise InputFileError(path, "expected {'repaired': n, 'watchtower': bool}", field="wall")
    repaired = data.get("repaired", 0)
    if isinstance(repaired, bool) or not isinstance(repaired, int) or not 0 <= repaired <= SECTIONS:
        raise InputFileError(
            path, f"expected 0 to {SECTIONS}, got {repaired!r:.30}", field="wall.repaired"
        )
    watchtower = data.get("watchtower", False)
    if not isinstance(watchtower, bool):
        raise InputFileError(path, "expected true or false", field="wall.watchtower")
    return Wall(repaired, watchtower)


def situation_from_text(
    players: int, season: int, recruited: str, walls: str, watchtower: str,
    first: str | None = None,
) -> Situation:  # fmt: skip
    """The battle situation that ``tower battle``'s options describe.

    ``recruited`` and ``walls`` are per-player values (:func:`per_player`), ``watchtower``
    the comma-separated colours with a Watchtower, ``first`` the first player (default:
    the first colour seated).
    """
    seating = PLAYER_COLOURS[:players]
    first = first or seating[0]
    if first not in seating:
        raise BadNotation(f"--first must be one of {', '.join(seating)}, got {first!r}")
    order = battle_order(seating, first)
    towers = {c.strip() for c in watchtower.split(",") if c.strip()}
    if towers - set(seating):
        raise BadNotation(f"--watchtower: unknown colours {sorted(towers - set(seating))}")
    repaired = per_player(walls, order, "--walls")
    try:
        return Situation(
            season, order, per_player(recruited, order, "--recruited"),
            {p: Wall(repaired[p], p in towers) for p in order},
        )  # fmt: skip
    except ValueError as exc:
        raise BadNotation(str(exc)) from None


def observation_from_text(
    thrown: str | None, out: str | None, player: str | None, wall: int | None
) -> Observation:  # fmt: skip
    """The observed battle throw that ``tower battle check``'s options describe."""
    if thrown is None or out is None:
        raise BadNotation("give an OBSERVATION file, or both --thrown and --out")
    if player is not None and player not in PLAYER_COLOURS:
        raise BadNotation(f"--player must be one of {', '.join(PLAYER_COLOURS)}")
    return Observation(
        tuple(parse_pieces(thrown)), tuple(parse_pieces(out)), player,
        None if wall is None else Wall(wall),
    )  # fmt: skip
