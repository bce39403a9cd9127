"""The rules machine: the stack of tasks and pending decisions, legal actions, apply.

Everything the game does is a *task* on ``state.stack`` (a small dict naming a handler in
the game's ``ruleset.tasks``) or a *pending decision* (``{"t": "ask", "k": kind, "p":
player}``) whose options come from ``ruleset.options`` and whose chosen action is carried
out by ``ruleset.resolve``. A game's rule set is the core's (:data:`CORE`, filled by the
decorators :func:`task`, :func:`options`, :func:`resolve`, :func:`label` in the rule
files) merged with those of its enabled modules (:attr:`Module.adds`).
:func:`advance` runs tasks until a decision with two or more options, the
simultaneous keshi selection, the tower throw (a chance node) or the end of the game is on
top. A decision with a single option is taken automatically (unless
``GameConfig.ask_single``); one with none is skipped.

Legal actions are computed here and only here (:func:`legal_ids`), from the options the
decision stored when it reached the top of the stack.

The rules work on a :class:`~tower.marrakesh.board.Board` (a position's data; every
:class:`~tower.marrakesh.state.State` is one) and import neither the state nor the game
(layer order: ``tower/marrakesh/__init__.py``). ``CHANCE``, ``SIMULTANEOUS`` and
``TERMINAL`` come from :mod:`tower.marrakesh.config`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tower.errors import TowerError
from tower.marrakesh.actions import ACTIONS, OFFSETS, RESOURCES, Action, num_actions, words
from tower.marrakesh.config import CHANCE, SIMULTANEOUS, TERMINAL
from tower.marrakesh.hooks import REGISTRY, Label, RuleSet
from tower.marrakesh.tasks import Task
from tower.pieces import KESHI_COLOURS, Kind, Piece

if TYPE_CHECKING:
    from tower.marrakesh.board import Board, Player

#: The core's rules: its tasks, decisions, labels and effects (a module keeps its own).
CORE = RuleSet()
#: The core's task name -> handler(state, task)
TASKS = CORE.tasks
#: The core's decision kind -> options(state, task) -> action ids
OPTIONS = CORE.options
#: The core's decision kind -> resolve(state, task, action)
RESOLVE = CORE.resolve
#: The core's decision kind -> labeller(state, task, action): the action in words
#: (:func:`describe`).
LABELS = CORE.labels


@dataclass(frozen=True)
class Decision:
    """A legal action of the pending decision, in words (:func:`describe`).

    ``label`` is a sentence a player reads ("sell 1 yellow gem for 2 dinars"); the same
    action in the same position always has the same label. ``gives`` and ``costs`` are
    what the action brings and takes where it is known when it is chosen (keys such as
    ``water``, ``dates``, ``dinars``, ``wood``, ``points``, ``red keshis``; empty when the
    label says it all). ``kind`` is the decision kind (``"claim"``, ``"gems_souk"``, ...),
    ``player`` who decides, ``action`` the action (its ``id`` is the stable integer).
    ``private``: only the deciding player may read the label (a choice among hidden cards
    or offers: a kind labelled with ``private=True``); others see the plain action."""

    action: Action
    kind: str
    player: int
    label: str
    gives: Mapping[str, int] = field(default_factory=dict)
    costs: Mapping[str, int] = field(default_factory=dict)
    private: bool = False


#: The core's decision kinds whose options only their player sees.
PRIVATE = CORE.private
PRIVATE.add("select")
#: The core's decision kind -> the label of its ``pass`` action.
PASSING = CORE.passing

#: The core's decorators: ``@task(name)``, ``@options(kind)``, ``@resolve(kind)``,
#: ``@label(kind, private=False, passing="")`` and ``phrase(kind, text)`` (see
#: :class:`~tower.marrakesh.hooks.RuleSet`).
task = CORE.task
options = CORE.option
resolve = CORE.resolution
label = CORE.label
phrase = CORE.phrase


def known() -> RuleSet:
    """The core's rule set merged with that of every registered module, on or off: what
    some game may use (a game's own is ``Game.ruleset``)."""
    mods = tuple(REGISTRY.values())
    return CORE.merged(*(m.adds for m in mods), where=[m.name for m in mods])


def decision_kinds() -> list[str]:
    """Every decision kind of the core and of every registered module, sorted: the same
    list in every game, whatever modules it switches on (the observation's one-hot)."""
    return sorted(known().options)


class IllegalActionError(TowerError, ValueError):
    """An action that is not legal in the current state; the state is left unchanged."""

    def __init__(self, action: Action | str, reason: str) -> None:
        self.action = action
        self.reason = reason
        super().__init__(f"illegal action {action}: {reason}")


# -- building tasks ---------------------------------------------------------------------
def T(name: str, **kw: Any) -> Task:
    """A task for the handler ``name`` with the fields ``kw`` (:class:`Task`)."""
    return {"t": name, **kw}  # type: ignore[return-value,typeddict-item]


def ask(kind: str, p: int, **kw: Any) -> Task:
    """A pending decision of ``kind`` for player ``p`` with the fields ``kw``."""
    return {"t": "ask", "k": kind, "p": p, **kw}  # type: ignore[return-value,typeddict-item]


def push(state: Board, *items: Task) -> None:
    """Schedule ``items`` to run next, in the order given."""
    if len(items) == 1:  # the commonest push: no reversed view to make
        state.stack.append(items[0])
    else:
        state.stack.extend(reversed(items))


# -- small shared helpers ---------------------------------------------------------------
def score(state: Board, p: int, delta: int, reason: str) -> None:
    """Change a score; every change is a logged score event, then the modules'
    ``after_score`` hooks see it (a threshold on the scoring track)."""
    if delta:
        pl = state.players[p]
        pl.score += delta
        state.score_events.append([p, delta, reason])
        for hook in state.game.hooks.after_score:
            hook(state, p, delta, reason)


def gain(pl: Player, **amounts: int) -> None:
    for name, n in amounts.items():
        setattr(pl, name, getattr(pl, name) + n)


def add_wood(state: Board, p: int, n: int) -> None:
    """Player ``p`` receives ``n`` wood (and what modules add to it)."""
    if n > 0:
        extra = 0
        for fn in state.game.hooks.extra_wood:  # (a loop: no generator made per call)
            extra += fn(state, p, n)
        state.players[p].wood += n + extra


def has_mod(state: Board, p: int, name: str) -> bool:
    """Whether a scroll of player ``p`` has the modifier ``name`` (most have no scroll)."""
    pl = state.players[p]
    scrolls = pl.scrolls
    if not scrolls:  # (a test, not bool(): asked some 600 times a game)
        return False
    ids = state.game.with_modifier.get(name, _NONE)  # (typed frozenset compiled: rules.pxd)
    return not ids.isdisjoint(scrolls)


def mod_values(state: Board, p: int, name: str) -> list[Any]:
    """The values of player ``p``'s scrolls with the modifier ``name``, in scroll order."""
    pl = state.players[p]
    scrolls = pl.scrolls
    if not scrolls:
        return []
    ids = state.game.with_modifier.get(name, _NONE)
    if ids.isdisjoint(scrolls):  # most modifiers: no scroll of the player's has them
        return []
    table = state.game.components.scrolls
    return [table[s].get("value") for s in scrolls if s in ids]


_NONE: frozenset[int] = frozenset()


def can_pay(state: Board, p: int, cost: dict[str, int]) -> bool:
    pl = state.players[p]
    water = cost.get("water", 0) - pl.water
    dates = cost.get("dates", 0) - pl.dates
    if water > 0 or dates > 0:
        return False
    dinars = cost.get("dinars", 0) - pl.dinars
    if dinars <= 0:
        return True
    # Scroll 33: dates and water may stand in for dinars (never the other way round).
    return has_mod(state, p, "dinars_substitute") and -water - dates >= dinars


def pay(state: Board, p: int, cost: dict[str, int]) -> None:
    """Pay ``cost`` (checked with :func:`can_pay` first). Under scroll 33 a dinar shortfall
    becomes pending decisions: which of water or dates pays each missing dinar."""
    pl = state.players[p]
    missing = 0
    for r in RESOURCES:
        n = cost.get(r, 0)
        if not n:
            continue  # most costs name one or two of the resources
        have = getattr(pl, r)
        take = n if n < have else have
        setattr(pl, r, have - take)
        if r == "dinars":
            missing = n - take
    pay_any(state, p, missing, among=("water", "dates"))


def pay_any(state: Board, p: int, n: int, among: tuple[str, ...] = RESOURCES) -> None:
    """Pay ``n`` resources of the player's choice among ``among``: one pending decision
    each (taken automatically when only one kind is left). Call it after scheduling what
    follows the payment, so that the payment is decided first."""
    if n > 0:  # most payments leave nothing to choose (pay() always asks)
        push(state, *[ask("pay_resource", p, among=list(among)) for _ in range(n)])


@options("pay_resource")
def _pay_resource_options(state: Board, t: Task) -> list[int]:
    pl = state.players[t["p"]]
    out = [
        OFFSETS["resource"] + i
        for i, r in enumerate(RESOURCES)
        if r in t["among"] and getattr(pl, r) > 0
    ]
    return out + [i for fn in state.game.hooks.pay_options for i in fn(state, t)]


@resolve("pay_resource")
def _pay_resource(state: Board, t: Task, a: Action) -> None:
    if a.kind != "resource":
        next(fn for fn in state.game.hooks.pay_resolve if fn(state, t, a))
        return
    pl = state.players[t["p"]]
    setattr(pl, RESOURCES[a.arg], getattr(pl, RESOURCES[a.arg]) - 1)


def total_resources(pl: Player) -> int:
    return pl.water + pl.dates + pl.dinars


def order(state: Board) -> list[int]:
    """Turn order of the current round, starting with the start player."""
    n = len(state.players)  # state.num_players, without the property's call
    return [*_ORDERS[n][state.start]]  # a new list each time (callers may change it)


#: players -> start player -> the turn order (made once).
_ORDERS: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple((s + i) % n for i in range(n)) for s in range(n)) for n in range(1, 5)
}


# -- the machine ------------------------------------------------------------------------
def current_player(state: Board) -> int:
    if not state.stack:
        return TERMINAL
    top = state.stack[-1]
    if top["t"] == "ask":
        return top["p"]
    if top["t"] == "select":
        return SIMULTANEOUS
    return CHANCE


def pending_players(state: Board) -> list[int]:
    if not state.stack or state.stack[-1]["t"] != "select":
        return []
    out = []
    for p, a in state.stack[-1]["chosen"].items():  # (no comprehension made per call)
        if a is None:
            out.append(int(p))
    return out


def advance(state: Board) -> None:
    """Run tasks until a real decision, the selection, a chance node or the end.

    A decision with a single option is taken here without asking, unless the game's
    ``config.ask_single`` is set (then only a decision without options is skipped)."""
    stack = state.stack
    game = state.game
    rs = game.ruleset
    # The task table read once: the loop runs for every task. What only a decision reads
    # is looked up there (most calls end at the first decision). Methods are called in
    # place (binding them would make two method objects per call).
    tasks = rs.tasks
    while stack:
        top = stack[-1]
        t = top["t"]
        handler = tasks.get(t)  # a task ("ask", "select" and "throw" are none)
        if handler is not None:
            stack.pop()
            handler(state, top)
        elif t == "ask":
            opts = top.get("o")
            if opts is None:
                # A module may answer a core decision its own way (Module.redirects).
                kind = top["k"]
                redirects = game.hooks.redirects
                if kind in redirects:
                    kind = top["k"] = redirects[kind]
                opts = top["o"] = rs.options[kind](state, top)
            if len(opts) > 1 or (opts and game.config.ask_single):
                return
            stack.pop()
            if opts:
                rs.resolve[top["k"]](state, top, ACTIONS[opts[0]])
        elif t == "select":
            ask_single = game.config.ask_single
            chosen = top["chosen"]
            waiting = False  # a pending player with a real choice
            for p, a in chosen.items():
                if a is None:
                    opts = OPTIONS["select"](state, {"p": int(p)})
                    if len(opts) == 1 and not ask_single:
                        chosen[p] = opts[0]
                    else:
                        waiting = True
            if waiting:
                return
            stack.pop()
            RESOLVE["select"](state, top, ACTIONS[0])
        elif t == "throw":
            return
        else:
            raise KeyError(t)  # a task no rule set names


def legal_ids(state: Board, player: int | None = None) -> list[int]:
    if not state.stack:
        return []
    top = state.stack[-1]
    if top["t"] == "ask":
        return top["o"] if player is None or player == top["p"] else []
    if top["t"] == "select":
        p = pending_players(state)[0] if player is None else player
        return OPTIONS["select"](state, {"p": p}) if _choosing(top, p) else []
    return []


def _choosing(select: Task, p: int) -> bool:
    """Whether player ``p`` is still to choose at the selection task ``select`` (read
    without listing every pending player)."""
    return select["chosen"].get(str(p), 0) is None


def describe(state: Board, action: Action, player: int | None = None) -> Decision:
    """A legal action of ``player`` (default: the one to move, or the first pending
    player at the selection) in words; raises :class:`IllegalActionError` otherwise."""
    if action.id not in legal_ids(state, player):
        raise IllegalActionError(action, "not a legal choice now")
    top = state.stack[-1]
    if top["t"] == "ask":
        kind, p = top["k"], top["p"]
    else:
        kind, p = "select", pending_players(state)[0] if player is None else player
    rs = state.game.ruleset
    fn = rs.labels.get(f"{kind}/{action.kind}") or rs.labels.get(kind)
    if action.kind == "pass" and kind in rs.passing:
        out: Label = rs.passing[kind]
    else:
        out = fn(state, top, action) if fn is not None else words(action)
    text, gives, costs = (out, {}, {}) if isinstance(out, str) else out
    return Decision(action, kind, p, text, dict(gives), dict(costs), kind in rs.private)


def as_action(action: Action | int | str) -> Action:
    if isinstance(action, Action):
        return action
    if isinstance(action, int) and not isinstance(action, bool):
        if not 0 <= action < num_actions():
            raise IllegalActionError(str(action), f"ids run from 0 to {num_actions() - 1}")
        return ACTIONS[action]
    try:
        return Action.parse(str(action))
    except ValueError as exc:
        raise IllegalActionError(str(action), str(exc)) from None


#: player -> how the history's lines of the player's actions begin ("2 select:..."): made
#: once, not formatted on every move (a game has at most 4 players).
_SAID_BY: tuple[str, ...] = tuple(f"{p} " for p in range(4))


def apply(state: Board, action: Action, player: int | None) -> None:
    stack = state.stack
    if not stack:
        raise IllegalActionError(action, "the game is over")
    top = stack[-1]
    if top["t"] != "ask":
        _apply_select(state, action, player)
        return
    p = top["p"]
    if player is not None and player != p:
        raise IllegalActionError(action, f"player {p} is to move, not player {player}")
    if action.id not in top["o"]:
        raise _not_an_option(action, p, top["k"], top["o"])
    stack.pop()
    state.history.append(_SAID_BY[p] + action.text)
    state.game.ruleset.resolve[top["k"]](state, top, action)
    advance(state)


def _not_an_option(action: Action, p: int, kind: str, options: list[int]) -> IllegalActionError:
    """The error for an action that is not one of the ``options`` of player ``p``'s
    decision ``kind``."""
    shown = ", ".join(str(ACTIONS[i]) for i in options[:12])
    more = "" if len(options) <= 12 else f", ... ({len(options)} in all)"
    return IllegalActionError(
        action, f"not a legal choice for player {p} at decision '{kind}'; legal: {shown}{more}"
    )


def _apply_select(state: Board, action: Action, player: int | None) -> None:
    """:func:`apply` at the keshi selection (or, refused, at the tower throw)."""
    top = state.stack[-1]
    if top["t"] == "throw":
        raise IllegalActionError(
            action, "this is the tower throw (a chance node): call sample_chance()"
        )
    p = pending_players(state)[0] if player is None else player
    if not _choosing(top, p):
        raise IllegalActionError(
            action, f"player {p} is not choosing keshis now (pending: {pending_players(state)})"
        )
    legal = OPTIONS["select"](state, {"p": p})
    if action.id not in legal:
        raise IllegalActionError(
            action,
            f"player {p} must select 3 different keshis from behind the screen "
            f"{state.players[p].screen}",
        )
    chosen = top["chosen"]
    chosen[str(p)] = action.id
    state.history.append(_SAID_BY[p] + action.text)
    # The players still to choose each have a real choice (advance takes a single
    # selection at once, and the screens do not change while the players choose): the
    # rules advance once the last one has chosen.
    if None not in chosen.values():
        advance(state)


def thrown(state: Board, top: Task) -> list[Piece]:
    """The pieces a throw task puts into the tower: those it names (a battle throw), else
    the keshis of every player's hand with the keshis carried over from the last battle
    and the pieces modules added under ``"extra"`` (e.g. expert keshis)."""
    if "pieces" in top:
        return list(map(Piece.parse, top["pieces"]))
    hands = [c for pl in state.players for c in pl.hand]
    extra = list(map(Piece.parse, top.get("extra", ())))
    return [_KESHIS[c] for c in hands + state.carry] + extra


#: colour -> its keshi (a frozen value, made once rather than for every keshi thrown).
_KESHIS: dict[str, Piece] = {c: Piece.keshi(c) for c in KESHI_COLOURS}
#: colour -> its keshi's written form (``"keshi:red"``), made once.
_KESHI_NAMES: dict[str, str] = {c: str(k) for c, k in _KESHIS.items()}


def piece_names(pieces: list[Piece]) -> list[str]:
    """``str()`` of each piece; a keshi's (most of a throw) is read from a table."""
    keshi = Kind.KESHI
    return [_KESHI_NAMES[p.colour] if p.kind is keshi else str(p) for p in pieces]


def _round_throw_done(state: Board, top: Task, out: list[Piece]) -> None:
    """Keshis out of a round's throw go to the display (to be claimed)."""
    for pl in state.players:
        pl.hand = []
    state.carry = []
    for piece in out:
        if piece.kind is Kind.KESHI:
            state.display[piece.colour] += 1
        else:
            state.game.ruleset.piece_out[piece.kind](state, piece)


CORE.after_throw["round"] = _round_throw_done


def chance_outcomes(state: Board) -> list[tuple[tuple[str, ...], float]]:
    if not state.stack or state.stack[-1]["t"] != "throw":
        raise IllegalActionError("chance_outcomes", "not a chance node")
    law = state.game.config.tower.distribution(state.tower, thrown(state, state.stack[-1]))
    return [(tuple(str(p) for p in out), prob) for out, prob in law.items()]


def sample_chance(state: Board, rng: random.Random | None) -> list[str]:
    if not state.stack or state.stack[-1]["t"] != "throw":
        raise IllegalActionError("sample_chance", "not a chance node")
    top = state.stack.pop()
    pieces = thrown(state, top)
    out, state.tower = state.game.config.tower.throw(state.tower, pieces, rng or state.rng)
    names = piece_names(out)
    # A list, not a generator, for join: every throw of the game is logged.
    keshi = Kind.KESHI
    logged = [p.colour if p.kind is keshi else n for p, n in zip(out, names, strict=True)]
    state.history.append("chance " + ",".join(logged))
    state.game.ruleset.after_throw[top.get("after", "round")](state, top, list(out))
    advance(state)
    return names
