"""The terminal game: a readable board for one player, numbered actions, input parsing,
and :func:`play_terminal`, which runs a game between a human and agents.

The board is drawn from :func:`tower.marrakesh.adapters.views.view`, so the human sees
exactly what the seat may see (other players' screens and pending selections stay
hidden). Input and output are passed in as functions, so the loop is tested with
scripted input and the CLI (``tower play``) wires it to the terminal.

Examples
--------
>>> from tower.marrakesh import Game, GameConfig
>>> s = Game(GameConfig(players=2)).new_initial_state(seed=1)
>>> "Scores" in render(s, viewer=0)
True
>>> parse_choice("1", s.legal_actions()) == s.legal_actions()[0]
True
>>> parse_choice("q", s.legal_actions())
'quit'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from tower.marrakesh.actions import SCROLL_COLOURS, Action
from tower.marrakesh.adapters.views import view
from tower.marrakesh.agents import Agent
from tower.marrakesh.labels import describe_effects
from tower.marrakesh.state import CHANCE, SIMULTANEOUS, State
from tower.pieces import KESHI_COLOURS, Kind

QUIT = "quit"


def _counts(d: dict[str, int]) -> str:
    return " ".join(f"{c} {n}" for c, n in d.items()) or "-"


def _ids(xs: Sequence[Any]) -> str:
    return ", ".join("?" if x is None else f"#{x}" for x in xs) or "-"


def render(state: State, viewer: int) -> str:
    """The board as ``viewer`` sees it: scores, resources, sectors, river, staircases,
    the tower base and inside, scroll stacks and shops, and the pending decision."""
    v = view(state, viewer)
    comps = state.game.components
    hooks = state.game.hooks
    inside = Counter(r.piece.colour for r in state.tower.residents if r.piece.kind is Kind.KESHI)
    lines = [
        f"== Marrakesh: season {v['season']}/3, round {v['round']}/4; "
        f"start player {v['start']}; you are player {viewer} ==",
        "Scores: " + ", ".join(f"P{i} {p['score']}" for i, p in enumerate(v["players"])),
        f"Tower base (display): {_counts(v['display'])}",
        f"Inside the tower: {_counts(dict(inside))} ({v['throws']} throws so far)",
    ]
    for board in hooks.render_board:
        lines += board(state)
    for g, colour in enumerate(SCROLL_COLOURS):
        tops = v["scroll_tops"][3 * g : 3 * g + 3]
        heights = v["scroll_heights"][3 * g : 3 * g + 3]
        shown = []
        for k, (sid, h) in enumerate(zip(tops, heights, strict=True)):
            if sid is None:
                shown.append(f"{colour}{k}: {'empty' if h == 0 else 'hidden'}")
            else:
                s = comps.scrolls[sid]
                what = describe_effects(s["effect"]) if s.get("effect") else s.get("modifier", "-")
                shown.append(f"{colour}{k}: #{sid} {s['timing']} {what} ({h} left)")
        lines.append("Scrolls  " + " | ".join(shown))
    shops = []
    for k, (lid, h) in enumerate(zip(v["shop_tops"], v["shop_heights"], strict=True)):
        if lid is None:
            shops.append(f"{k}: {'empty' if h == 0 else 'hidden'}")
        else:
            lux = comps.luxuries[lid]
            cost = "+".join(c if n == 1 else f"{n} {c}" for c, n in lux["cost"].items())
            shops.append(f"{k}: {lux['good']} {cost} -> {describe_effects(lux['reward'])}")
    lines.append("Luxury shops  " + " | ".join(shops))
    lines.append(
        f"Exchange offices {_ids(v['offices'])}; river tiles {_ids(v['river_tiles'])}; "
        f"jetty taken {v['jetty_taken']}"
    )
    lines.append(
        "Workshops  " + " | ".join(f"w{k}: {' '.join(w)}" for k, w in enumerate(v["workshops"]))
    )
    if v["towns_display"]:
        lines.append(f"Desert towns on display {_ids(v['towns_display'])}")
    if v["pawns"]:
        lines.append(
            "Pawns  "
            + ", ".join(
                f"{name}: {'nobody' if h < 0 else f'P{h}'} (step {step})"
                for name, (h, step) in v["pawns"].items()
            )
        )
    for i, p in enumerate(v["players"]):
        lines += _render_player(i, p, i == viewer)
        for player_lines in hooks.render_player:
            lines += player_lines(state, i, p)
    lines.append(_render_decision(v))
    if v["decision"]["node"] == "decision":
        for choices in hooks.describe_choices:
            lines += choices(state, state.stack[-1])
    return "\n".join(lines)


def _render_player(i: int, p: dict[str, Any], own: bool) -> list[str]:
    screen = " ".join(p["screen"]) if own else f"{p['screen_size']} hidden keshis"
    head = f"{'*' if own else ' '} P{i}{' (you)' if own else ''}: score {p['score']}"
    lines = [
        f"{head} | water {p['water']} dates {p['dates']} dinars {p['dinars']} | screen: {screen}",
        f"    sectors: {_counts(p['keshis'])}; water vendors: {', '.join(p['vendors']) or '-'}",
        f"    river {p['river']} (total {p['river_total']}, jetty "
        f"{'-' if p['jetty'] < 0 else p['jetty']}); mosque {p['mosque']}, palace {p['palace']}",
        f"    main square {''.join('x' if s else '.' for s in p['square'])}, disc {p['disc']}; "
        f"sahara {''.join('x' if s else '.' for s in p['sahara'])}, oases {_ids(p['oases'])}",
        f"    scrolls {_ids(p['scrolls'])}; luxuries {_ids(p['luxuries'])}; provisions "
        + _ids([t[0] if t is not None and (own or t[1]) else None for t in p["provisions"]]),
    ]
    extra = []
    if p["hand"]:
        extra.append(f"thrown: {' '.join(p['hand'])}")
    if p["held"]:
        extra.append(f"to deploy: {' '.join(p['held'])}")
    if p["assistants"]:
        extra.append(f"assistants: {_counts(p['assistants'])}")
    if extra:
        lines.append("    " + "; ".join(extra))
    return lines


def _render_decision(v: dict[str, Any]) -> str:
    d = v["decision"]
    if d["node"] == "decision":
        return f"Pending: player {d['player']} decides '{d['what']}'"
    if d["node"] == "simultaneous":
        own = v["selection"].get("own") if v["selection"] else None
        mine = f"; your choice: {own}" if own else ""
        return f"Pending: hidden selection of 3 keshis by players {d['pending']}{mine}"
    if d["node"] == "chance":
        return "Pending: the tower throw"
    return "The game is over."


def format_actions(actions: Sequence[Action], labels: Sequence[str] | None = None) -> str:
    """Numbered actions (from 1), several per line; with ``labels`` (what each action
    means, :meth:`State.describe_actions`) one per line, its label and its plain form."""
    if labels is not None:
        return "\n".join(
            f"{i:>3}) {text}  [{a}]"
            for i, (a, text) in enumerate(zip(actions, labels, strict=True), start=1)
        )
    cells = [f"{i:>3}) {a}" for i, a in enumerate(actions, start=1)]
    width = max(len(c) for c in cells) + 2 if cells else 0
    per_line = max(1, 96 // max(width, 1))
    rows = [cells[i : i + per_line] for i in range(0, len(cells), per_line)]
    return "\n".join("".join(c.ljust(width) for c in row).rstrip() for row in rows)


def parse_choice(text: str, legal: Sequence[Action]) -> Action | str | None:
    """The action ``text`` names: a number from :func:`format_actions` or the action's
    string form (a selection's colours in any order); :data:`QUIT` for ``q``/``quit``;
    ``None`` if it names no legal action."""
    t = text.strip()
    if t.lower() in ("q", "quit", "exit"):
        return QUIT
    if t.isascii() and t.isdigit():  # "²".isdigit() is True, but int("²") fails
        i = int(t)
        return legal[i - 1] if 1 <= i <= len(legal) else None
    if t.startswith("select:"):
        # The three colours in any order: select:red+green+gray = select:green+gray+red.
        colours = t.split(":", 1)[1].split("+")
        if all(c in KESHI_COLOURS for c in colours):
            t = "select:" + "+".join(sorted(colours, key=KESHI_COLOURS.index))
    return next((a for a in legal if str(a) == t), None)


def play_terminal(
    state: State,
    seat: int,
    agents: Sequence[Agent | None],
    read: Callable[[], str | None],
    write: Callable[[str], None],
) -> bool:
    """Run ``state`` to the end: the human at ``seat`` answers through ``read`` (a line,
    or ``None`` at the end of input), agents play the other seats (``agents[seat]`` is
    ignored). Returns ``True`` if the game was finished, ``False`` if the human quit."""
    while not state.is_terminal():
        cp = state.current_player
        if cp == CHANCE:
            out = state.sample_chance()
            write(
                "The tower throw: out came "
                + (" ".join(p.split(":")[-1] for p in out) or "nothing")
            )
            continue
        p = state.pending_players()[0] if cp == SIMULTANEOUS else cp
        if cp == SIMULTANEOUS and seat in state.pending_players():
            p = seat
        if p != seat:
            agent = agents[p]
            assert agent is not None
            action = agent.step(state, p)
            said = "(hidden selection)" if cp == SIMULTANEOUS else _public(state, action, p)
            state.apply(action, player=p)
            write(f"P{p}: {said}")
            continue
        choice = _ask(state, seat, read, write)
        if choice is None:
            return False
        state.apply(choice, player=seat)
    write(render(state, seat))
    scores = state.scores()
    write("Final scores: " + ", ".join(f"P{i} {s}" for i, s in enumerate(scores)))
    write("Winner(s): " + ", ".join(f"P{w}" for w in state.winners()))
    return True


def _public(state: State, action: Action, p: int) -> str:
    """Another player's action as the human may read it: its label, or its plain form
    for a choice among hidden cards or offers."""
    d = state.describe_action(action, p)
    return str(action) if d.private else d.label


def _ask(
    state: State, seat: int, read: Callable[[], str | None], write: Callable[[str], None]
) -> Action | None:
    legal = state.legal_actions(seat)
    write(render(state, seat))
    write(format_actions(legal, [d.label for d in state.describe_actions(seat)]))
    while True:
        write(f"Your choice (1-{len(legal)}, an action, or q to quit): ")
        line = read()
        if line is None:
            write("End of input: the game is left unfinished.")
            return None
        choice = parse_choice(line, legal)
        if choice == QUIT:
            write("You quit the game.")
            return None
        if isinstance(choice, Action):
            return choice
        write(f"{line.strip()!r} is not one of the legal actions; try again.")
