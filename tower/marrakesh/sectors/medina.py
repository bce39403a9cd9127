"""The medina (*Marrakesh*, "Medina"): buying city gates from the workshops,
building them, and the keshis they bring.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tower.marrakesh.actions import COLOUR_INDEX, Action, action_id, action_ids
from tower.marrakesh.effects import PASS, SPECIALS, Effect
from tower.marrakesh.rules import T, Task, ask, can_pay, has_mod, options, pay, push, resolve, score
from tower.marrakesh.sectors.deploy import reached
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.board import Board

#: The ids of ``gate:0`` and ``slot:0``; the others follow in order.
_GATE = action_id("gate")
_SLOT = action_id("slot")


def gate_price(state: Board, p: int, w: int) -> int:
    price = state.game.components.raw["medina"]["workshops"][w]["dinars"]
    return max(0, price - 1) if has_mod(state, p, "gate_discount") else price  # scroll 32


@options("medina")
def _medina_options(state: Board, t: Task) -> list[int]:
    p = t["p"]
    out = [PASS]
    if state.players[p].watchtower > 0:
        for w, gates in enumerate(state.workshops):
            if can_pay(state, p, {"dinars": gate_price(state, p, w)}):
                out += [_GATE + 12 * w + COLOUR_INDEX[c] for c in sorted(set(gates))]
    return sorted(out)


@resolve("medina")
def _medina(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    if a.kind == "pass":
        # The gained keshis are deployed only after all gates are bought.
        held = state.players[p].held
        state.stack += [{"t": "deploy", "p": p, "c": c, "src": "held"} for c in reversed(held)]
        return
    w, colour = divmod(a.arg, 12)
    price = gate_price(state, p, w)
    push(state, *buy_gate(state, p, w, KESHI_COLOURS[colour], price), ask("medina", p))
    pay(state, p, {"dinars": price})  # any choice of payment comes first


def buy_gate(
    state: Board, p: int, w: int, colour: str, price: int, keshi: bool = True
) -> list[Task]:
    """Take a gate from workshop ``w`` and score it; returns the follow-up decisions.
    ``keshi=False``: no keshi comes with the gate (an effect that names its own keshi)."""
    points = state.game.components["medina"]["workshops"][w]["points"]
    if points < 0 and price == 0 and w == 0 and has_mod(state, p, "free_gate_no_loss"):
        points = 0  # scroll 22
    score(state, p, points, "medina: city gate")
    state.workshops[w].remove(colour)
    place: Task = {"t": "ask", "k": "gate_space", "p": p, "c": colour}
    if not keshi:
        place["n"] = 0
    return [place]


@options("gate_space")
def _gate_space_options(state: Board, t: Task) -> list[int]:
    gates = state.players[t["p"]].gates
    return [_SLOT + i for i in range(8) if gates[i] is None]


@resolve("gate_space")
def _gate_space(state: Board, t: Task, a: Action) -> None:
    p, colour = t["p"], t["c"]
    pl = state.players[p]
    pl.gates[a.arg] = colour  # a guard from the watchtower is committed to it
    reached(state, p, "gate", a.arg)
    medina = state.game.components["medina"]
    if medina["gate_spaces"][a.arg] == colour:
        score(state, p, medina["matching_gate_points"], "medina: gate on its colour")
    if t.get("n") == 0:
        return  # the effect that placed the gate names its own keshi
    n = 2 if has_mod(state, p, "gate_two_keshis") else 1  # scroll 66
    if has_mod(state, p, "gate_any_keshi"):
        push(state, *[ask("gate_keshi", p) for _ in range(n)])  # scroll 36
    else:
        pl.held += [colour] * n
        state.issued[colour] += n


@options("gate_keshi")
def _gate_keshi_options(state: Board, t: Task) -> list[int]:
    return action_ids("colour", range(12))


@resolve("gate_keshi")
def _gate_keshi(state: Board, t: Task, a: Action) -> None:
    c = KESHI_COLOURS[a.arg]
    state.players[t["p"]].held.append(c)
    state.issued[c] += 1


def _free_gate(state: Board, p: int, e: Effect) -> None:
    if state.players[p].watchtower > 0:
        push(state, ask("free_gate", p, ws=e.get("workshops", [0, 1, 2, 3])))


@options("free_gate")
def _free_gate_options(state: Board, t: Task) -> list[int]:
    # Walls & Guards (wall bonus, brick 11): only the two leftmost workshops.
    return [
        action_id("gate", 12 * w + KESHI_COLOURS.index(c))
        for w, g in enumerate(state.workshops)
        if w in t.get("ws", range(4))
        for c in sorted(set(g))
    ]


@resolve("free_gate")
def _free_gate_resolve(state: Board, t: Task, a: Action) -> None:
    # Desert town 12: a gate without paying; points, keshi and colour bonus as usual.
    p = t["p"]
    w, colour = divmod(a.arg, 12)
    already = len(state.players[p].held)  # keshis held before are deployed by their own task
    push(
        state,
        *buy_gate(state, p, w, KESHI_COLOURS[colour], 0),
        T("deploy_held", p=p, skip=already),
    )


SPECIALS["free_gate"] = _free_gate
