"""The terminal game: a readable board for one player, decisions in the rulebook's words,
input parsing, and :func:`play_terminal`, which runs a game between a human and agents.

The board is drawn from :func:`tower.marrakesh.adapters.views.view`, so the human sees
exactly what the seat may see (other players' screens and pending selections stay
hidden). Every line fits :data:`WIDTH` columns and holds words and numbers only (a
module's board lines are read back into words by :func:`plain`). Each option is its
label (:meth:`State.describe_actions`) with what it gives and costs; the phase-1
selection is typed as colours (``red yellow purple`` or the recorder's codes ``r y u``).
Every score change is announced with its reason, and each season's scoring with its
breakdown. Input and output are passed in as functions, so the loop is tested with
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
>>> plain("dealer [2, 'red'] open True taken [False, False]")
'dealer 2, red open yes taken no, no'
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tower.calibration.recording import COLOUR_CODES, CountsError, parse_counts
from tower.marrakesh.actions import SCROLL_COLOURS, Action
from tower.marrakesh.adapters.views import view
from tower.marrakesh.agents import Agent
from tower.marrakesh.labels import amount, amounts, luxury_text, oasis_text, scroll_text
from tower.marrakesh.rules import Decision
from tower.marrakesh.state import CHANCE, SIMULTANEOUS, State
from tower.pieces import KESHI_COLOURS, NEUTRAL, Kind, Piece

QUIT = "quit"
HELP = "help"
BOARD = "board"
#: The widest line the terminal game prints.
WIDTH = 100

#: What a decision kind asks, in the rulebook's words (``help``); other kinds are
#: explained by their options.
KIND_HELP: dict[str, str] = {
    "select": "Phase 1: choose 3 keshis from behind your screen; everyone's chosen keshis go "
    "into the tower together and the throw decides which come out.",
    "track": "Setup: put the keshis you were dealt, one at a time, on the keshi spaces of "
    "your oasis track.",
    "claim": "Claim the keshis of one colour that came out of the tower (the tower base); "
    "they go to the sector of their colour.",
    "assistant": "Use one of your assistants: each one you deployed acts in its sector, "
    "bringing a new keshi or the sector's action.",
    "red_assistant": "Send the assistant of your red keshi to a sector of your choice.",
    "disc": "Turn your audience disc: its position decides which spectators attend.",
    "provision": "Reveal one of your provision tiles: what your citizens will ask for at "
    "the season scoring.",
    "provision_mode": "Season scoring: choose how to pay for your provisions.",
    "souk": "The souk: buy luxury goods with goods keshis or exchange keshis at the office.",
    "souk_keshi": "The souk: choose the goods keshi you take.",
    "madrasa": "The madrasa: buy a scroll with dates, or take none.",
    "medina": "The medina: buy a city gate with dinars, or buy none.",
    "gate_space": "Put your new city gate on a gate space of the medina.",
    "place_pink": "The main square: put your pink keshi on a space and take its bonus.",
    "place_red": "The water vendor: put it on a sector of the market.",
    "place_wg": "Put your brown or green keshi in the date orchard or on the sahara.",
    "square_space": "Choose a main-square space and take its bonus.",
    "river_pair": "River evaluation: take one half of this season's river tile.",
    "river_water": "The river: pay water to move further down the river.",
    "rapid_choice": "The river: choose which rapid's bonus you take.",
    "stair_buy": "The staircases: pay dates for more steps.",
    "stair_choice": "Choose the staircase you climb.",
    "connection": "Take the bonus of a connection space.",
    "exchange_take": "The exchange office: take a keshi from it.",
    "exchange_return": "The exchange office: return a keshi to it, or nothing.",
    "keshi_colour": "Choose the colour of the keshi you take.",
    "resource": "Choose which resource to take.",
    "pay_resource": "Choose which resource to pay with.",
    "choose": "Choose which bonus you take.",
    "malus_pay": "Choose which keshi you give up.",
    "free_luxury": "Take a luxury good for free.",
    "town_pick": "Take one of the desert towns on display.",
    "bricks": "Walls & Guards: lay the brick tiles on the two paths to the desert towns.",
    "fire": "Walls & Guards: fire bricks for the wall, or stop.",
    "hire": "Walls & Guards: hire a watchman from a post, or stop.",
    "hire_waive": "Walls & Guards: pay for the hire.",
    "gems_disc": "Gems: lay the gems of your disc on a section of the spectators' disc.",
    "gems_souk": "Gems: buy or sell gems at the gem dealer, or leave.",
    "gems_pay": "Gems: choose how you pay.",
    "gems_pick": "Gems: take a gem from a staircase.",
    "gems_place": "Gems: put a gem on a space of your necklace.",
    "orchard": "The date orchard: choose what the date picker brings.",
    "imam_waive": "The Imam waives one keshi of the price: choose which.",
    "edict_pick": "Edicts: pick an edict.",
    "edict_scroll": "Edicts: take a scroll, or none.",
    "edict_use": "Edicts: use the edict's bonus now, or keep it for its bonus at the end.",
    "experts_use": "Experts: use one of your expert tiles, or none.",
    "experts_use_red": "Experts: use one of your expert tiles, or none.",
    "experts_square_space": "Experts: choose a main-square space and take its bonus.",
    "madrasa_tile": "Madrasa: take a keshi tile.",
    "madrasa_use": "Madrasa: use one of your Madrasa scrolls, or stop.",
    "sb_building": "Special buildings: choose the special building you keep.",
    "sb_scroll": "Special buildings: choose the scroll you keep.",
    "sb_well": "The Great Well: take a resource.",
    "task_keep": "Personal tasks: choose the task card you keep.",
}

_LIST = re.compile(r"\[([^\[\]]*)\]")
_PIECE = re.compile(r"\b(?:keshi|watchman|brigand|expert):[a-z]+\b")
_WORDS = {"True": "yes", "False": "no", "None": "none", NEUTRAL: "expert"}


def plain(line: str) -> str:
    """A line with Python values written as words: lists as their items, booleans as
    yes/no, ``None`` as none, pieces (``watchman:red``, ``brigand:neutral``) and names
    with underscores as words, a neutral keshi as an expert (the only keshi without a
    colour), no quotes around list items."""
    while _LIST.search(line):
        line = _LIST.sub(lambda m: re.sub(r"'([^']*)'", r"\1", m.group(1)) or "none", line)
    line = _PIECE.sub(lambda m: piece_words(m.group(0)), line)
    line = re.sub(r"(?<=[a-z])_(?=[a-z])", " ", line)
    return re.sub(rf"\b(True|False|None|{NEUTRAL})\b", lambda m: _WORDS[m.group(1)], line)


def fit(lines: Sequence[str]) -> list[str]:
    """The lines in words (:func:`plain`), wrapped to :data:`WIDTH` columns; a wrapped
    line goes on indented under its start."""
    out = []
    for line in lines:
        text = plain(line).rstrip()
        indent = " " * (len(text) - len(text.lstrip()) + 4)
        out += textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False) or [""]
    return out


def piece_words(piece: str) -> str:
    """A piece out of the tower as a player calls it.

    >>> [piece_words(p) for p in ("keshi:red", "watchman:blue", "brigand:neutral")]
    ['red', 'blue watchman', 'brigand']
    >>> piece_words("expert:neutral")
    'expert keshi'
    """
    p = Piece.parse(piece)
    if p.kind is Kind.KESHI:
        return p.colour
    if p.kind is Kind.BRIGAND:
        return "brigand"
    if p.colour == NEUTRAL:
        return f"{p.kind.value} keshi"
    return f"{p.colour} {p.kind.value}"


def _counts(d: Mapping[str, int]) -> str:
    return ", ".join(f"{c} {n}" for c, n in d.items() if n) or "none"


def _tiles(xs: Sequence[Any], what: str) -> str:
    shown = ["hidden" if x is None else f"{what} {x}" for x in xs]
    return ", ".join(shown) or "none"


def render(state: State, viewer: int) -> str:
    """The board as ``viewer`` sees it: scores, resources, sectors, river, the tower base
    and inside, scroll stacks and shops, the modules' boards and the pending decision,
    every line at most :data:`WIDTH` columns."""
    v = view(state, viewer)
    comps = state.game.components
    hooks = state.game.hooks
    inside = Counter(piece_words(str(r.piece)) for r in state.tower.residents)
    taken = [k + 1 for k, t in enumerate(v["jetty_taken"]) if t]
    lines = [
        f"== Marrakesh: season {v['season']} of 3, round {v['round']} of 4; "
        f"start player P{v['start']}; you are P{viewer} ==",
        "Scores: " + ", ".join(f"P{i} {p['score']}" for i, p in enumerate(v["players"])),
        f"Tower base (display): {_counts(v['display'])}",
        f"Inside the tower: {_counts(inside)} ({v['throws']} throws so far)",
    ]
    lines += [ln for board in hooks.render_board for ln in board(state)]
    for g, colour in enumerate(SCROLL_COLOURS):
        tops = v["scroll_tops"][3 * g : 3 * g + 3]
        heights = v["scroll_heights"][3 * g : 3 * g + 3]
        for k, (sid, h) in enumerate(zip(tops, heights, strict=True)):
            if sid is None:
                top = "empty" if h == 0 else "top scroll hidden"
            else:
                top = scroll_text(comps, sid)
            lines.append(f"Scrolls, {colour} stack {k + 1}: {top} ({h} left)")
    for k, (lid, h) in enumerate(zip(v["shop_tops"], v["shop_heights"], strict=True)):
        top = ("empty" if h == 0 else "hidden") if lid is None else luxury_text(comps, lid)
        lines.append(f"Luxury shop {k + 1}: {top}")
    lines.append(
        f"Exchange offices: {_tiles(v['offices'], 'office')}; "
        f"river tiles: {_tiles(v['river_tiles'], 'tile')}; "
        f"jetty spaces taken: {', '.join(map(str, taken)) or 'none'}"
    )
    lines.append(
        "Workshops: "
        + "; ".join(f"{k + 1}: {' '.join(w) or 'empty'}" for k, w in enumerate(v["workshops"]))
    )
    if v["towns_display"]:
        lines.append(f"Desert towns on display: {_tiles(v['towns_display'], 'town')}")
    if v["pawns"]:
        lines.append(
            "Pawns: "
            + ", ".join(
                f"{name}: {'nobody' if h < 0 else f'P{h}'} (step {step})"
                for name, (h, step) in v["pawns"].items()
            )
        )
    for i, p in enumerate(v["players"]):
        lines += _render_player(state, i, p, i == viewer)
        lines += [ln for player_lines in hooks.render_player for ln in player_lines(state, i, p)]
    lines.append(_render_decision(v, viewer))
    return "\n".join(fit(lines))


def _render_player(state: State, i: int, p: dict[str, Any], own: bool) -> list[str]:
    comps = state.game.components
    screen = " ".join(p["screen"]) if own else f"{p['screen_size']} hidden keshis"
    head = f"{'*' if own else ' '} P{i}{' (you)' if own else ''}: score {p['score']}"
    provisions = [  # another player's face-down tile is None in their view
        "a face-down tile"
        if t is None
        else f"{amounts(comps.provisions[t[0]]['cost'])}{'' if t[1] else ' (face down)'}"
        for t in p["provisions"]
    ]
    lines = [
        f"{head} | water {p['water']}, dates {p['dates']}, dinars {p['dinars']} | screen: {screen}",
        f"    sectors: {_counts(p['keshis'])}; water vendors: {', '.join(p['vendors']) or 'none'}",
        f"    river {p['river']} (total {p['river_total']}, jetty "
        f"{'none' if p['jetty'] < 0 else p['jetty'] + 1}); mosque {p['mosque']}, "
        f"palace {p['palace']}",
        f"    main square {''.join('x' if s else '.' for s in p['square'])}, "
        f"audience disc {p['disc'] + 1}; sahara {''.join('x' if s else '.' for s in p['sahara'])}"
        ", oases: "
        + (
            "; ".join("hidden" if o is None else oasis_text(state, i, o) for o in p["oases"])
            or "none"
        ),
        "    scrolls: " + ("; ".join(scroll_text(comps, s) for s in p["scrolls"]) or "none"),
        "    luxuries: "
        + ("; ".join(luxury_text(comps, x, {}) for x in p["luxuries"]) or "none")
        + "; provisions: "
        + ("; ".join(provisions) or "none"),
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


def _render_decision(v: dict[str, Any], viewer: int) -> str:
    d = v["decision"]
    if d["node"] == "decision":
        who = "you decide" if d["player"] == viewer else f"P{d['player']} decides"
        return f"Now {who}: {KIND_HELP.get(d['what'], 'choose one of the options.')}"
    if d["node"] == "simultaneous":
        waiting = ", ".join(f"P{p}" for p in d["pending"])
        return f"Now: the hidden choice of 3 keshis (waiting for {waiting})"
    if d["node"] == "chance":
        return "Now: the tower throw"
    return "The game is over."


def _offer(d: Decision) -> str:
    """An option: its label, then what it gives and costs where the label does not say."""
    parts = []
    for word, counts in (("gives", d.gives), ("costs", d.costs)):
        said = [x for x in _amounts(counts) if x not in d.label and f"+{x}" not in d.label]
        if said:
            parts.append(f"{word} {', '.join(said)}")
    return d.label + (f" ({'; '.join(parts)})" if parts else "")


def _amounts(counts: Mapping[str, int]) -> list[str]:
    """``1 water``, ``2 red keshis``, ``1 blue gem``: each amount that is not zero.

    >>> _amounts({"red keshis": 1, "blue gems": 1, "dates": 2, "wood": 0})
    ['1 red keshi', '1 blue gem', '2 dates']
    """
    out = []
    for key, n in counts.items():
        text = amount(n, key.removesuffix(" keshis"))
        out += [text[:-1] if n == 1 and " " in key and text.endswith("s") else text] if n else []
    return out


def format_options(decisions: Sequence[Decision]) -> str:
    """The options numbered from 1, one per line, each with what it gives and costs."""
    return "\n".join(fit([f"{i:>3}) {_offer(d)}" for i, d in enumerate(decisions, start=1)]))


def parse_choice(text: str, legal: Sequence[Action]) -> Action | str | None:
    """The action ``text`` names: a number of :func:`format_options`, the action's string
    form or, at the selection, its keshis as colours or codes in any order
    (``red yellow purple``, ``r y u``); :data:`QUIT`, :data:`HELP` or :data:`BOARD` for
    those words; ``None`` if it names no legal action."""
    t = text.strip()
    low = t.lower()
    if low in ("q", "quit", "exit"):
        return QUIT
    if low in ("h", "?", "help"):
        return HELP
    if low in ("b", "board"):
        return BOARD
    if t.isascii() and t.isdigit():  # "²".isdigit() is True, but int("²") fails
        i = int(t)
        return legal[i - 1] if 1 <= i <= len(legal) else None
    if legal and legal[0].kind == "select":
        colours = selection_colours(t.removeprefix("select:").replace("+", " "))
        t = "select:" + "+".join(colours) if colours else t
    return next((a for a in legal if str(a) == t), None)


def selection_colours(text: str) -> list[str] | None:
    """The keshi colours a player typed, in rulebook order (``None`` if the text names
    something other than keshis).

    >>> selection_colours("purple r y")
    ['red', 'yellow', 'purple']
    """
    try:
        counts = parse_counts(text)
    except CountsError:
        return None
    if not counts or any(c not in KESHI_COLOURS for c in counts):
        return None
    return [c for c in KESHI_COLOURS for _ in range(counts.get(c, 0))]


def play_terminal(
    state: State,
    seat: int,
    agents: Sequence[Agent | None],
    read: Callable[[], str | None],
    write: Callable[[str], None],
) -> bool:
    """Run ``state`` to the end: the human at ``seat`` answers through ``read`` (a line,
    or ``None`` at the end of input), agents play the other seats (``agents[seat]`` is
    ignored). Returns ``True`` if the game was finished, ``False`` if the human quit.

    A decision with a single option (``GameConfig.ask_single``) is taken for the human
    and announced. The board is shown at the human's first decision after anything
    else happened. Every score change is announced, and each season's scoring is summed
    up at its end. Every line written fits :data:`WIDTH` columns."""

    def say(text: str) -> None:
        write("\n".join(fit(text.split("\n"))))

    scoring = _Scoring(state, say)
    fresh = True  # something happened since the board was last shown
    while not state.is_terminal():
        cp = state.current_player
        p = state.pending_players()[0] if cp == SIMULTANEOUS else cp
        if cp == SIMULTANEOUS and seat in state.pending_players():
            p = seat
        if cp == CHANCE:
            out = state.sample_chance()
            say("The tower throw: out came " + (", ".join(map(piece_words, out)) or "nothing"))
            scoring.update()
            fresh = True
            continue
        if p == seat:
            action = _act(state, seat, fresh, read, say)
            if action is None:
                return False
            fresh = False
        else:
            agent = agents[p]
            assert agent is not None
            action = agent.step(state, p)
            say(f"P{p} {_public(state, action, p)}")
            fresh = True
        scoring.apply(action, p)
    say(render(state, seat))
    scores = state.scores()
    say("Final scores: " + ", ".join(f"P{i} {s}" for i, s in enumerate(scores)))
    say("Winner(s): " + ", ".join(f"P{w}" for w in state.winners()))
    return True


class _Scoring:
    """Announces the score events the game logs: each as it happens, and at the end of
    a season (or of the game) the season's scoring with its breakdown by player."""

    def __init__(self, state: State, write: Callable[[str], None]) -> None:
        self.state, self.write = state, write
        self.seen = len(state.score_events)
        self.season = state.season
        self.start: int | None = None  # the first score event of the season scoring

    def apply(self, action: Action, player: int) -> None:
        """Apply a player's action and announce what it scored."""
        s = self.state
        before = s.clone() if s.round == 4 and self.start is None else None
        s.apply(action, player=player)
        if before is not None and _scoring(s):
            self.start = self.seen + _round_end_events(before, action, player)
        self.update()

    def update(self) -> None:
        """Announce the score events since the last call."""
        s = self.state
        if self.start is None and (_scoring(s) or s.is_terminal()):
            self.start = self.seen
        for p, delta, reason in s.score_events[self.seen :]:
            self.write(f"  P{p} {_points(delta)}: {reason.replace('_', ' ')}")
        self.seen = len(s.score_events)
        if self.start is not None and (s.is_terminal() or s.season != self.season):
            self._summary(s.score_events[self.start :])
            self.start, self.season = None, s.season

    def _summary(self, events: Sequence[Sequence[Any]]) -> None:
        s = self.state
        title = "Season 3 and final scoring" if s.is_terminal() else f"Season {self.season} scoring"
        lines = [f"== {title} =="]
        for p in range(s.num_players):
            mine = [(d, r.replace("_", " ")) for q, d, r in events if q == p]
            parts = "; ".join(f"{d:+d} {r}" for d, r in mine) or "no points"
            total = sum(d for d, _ in mine)
            lines.append(f"  P{p}: {parts}; total {total:+d}, score now {s.players[p].score}")
        self.write("\n".join(fit(lines)))


def _points(delta: int) -> str:
    return f"{delta:+d} point" + ("" if abs(delta) == 1 else "s")


def _round_end_events(before: State, action: Action, player: int) -> int:
    """How many score events an action that ends the season's last round logs before
    the season scoring begins: the action replayed on a copy of ``before`` whose stack
    holds only what runs above the round's end (``end_round`` starts the scoring)."""
    copy = before.clone()
    ends = [i for i, t in enumerate(copy.stack) if t["t"] == "end_round"]
    if not ends:
        return 0
    del copy.stack[: ends[-1] + 1]
    n = len(copy.score_events)
    copy.apply(action, player=player)
    return len(copy.score_events) - n


def _scoring(state: State) -> bool:
    """Whether the season scoring (or the final one) is under way."""
    return any(t["t"] in ("next_season", "final_scoring") for t in state.stack)


def _public(state: State, action: Action, p: int) -> str:
    """Another player's action as the human may read it: its label, or what kind of
    hidden choice it is."""
    if state.current_player == SIMULTANEOUS:
        return "chooses 3 keshis behind the screen."
    d = state.describe_action(action, p)
    if d.private:
        return "makes a hidden choice."
    return "chose: " + re.sub(r"\byour\b", "their", _offer(d))


def _act(
    state: State,
    seat: int,
    show_board: bool,
    read: Callable[[], str | None],
    write: Callable[[str], None],
) -> Action | None:
    """The human's action (after the board if ``show_board``); ``None`` if they quit or
    the input ended."""
    legal = state.legal_actions(seat)
    decisions = state.describe_actions(seat)
    if len(legal) == 1:
        write(f"Your only option, taken: {_offer(decisions[0])}.")
        return legal[0]
    write(render(state, seat) if show_board else _render_decision(view(state, seat), seat))
    return _ask(state, seat, legal, decisions, read, write)


def _menu(state: State, seat: int, decisions: Sequence[Decision]) -> str:
    if decisions[0].kind != "select":
        return format_options(decisions)
    screen = " ".join(state.players[seat].screen)
    return "\n".join(
        fit(
            [
                f"Behind your screen: {screen}.",
                "Type the 3 keshis for the tower, e.g. 'red yellow purple' or the codes "
                "'r y u' (" + ", ".join(f"{c} {k}" for k, c in COLOUR_CODES.items()) + ").",
            ]
        )
    )


def _ask(
    state: State,
    seat: int,
    legal: Sequence[Action],
    decisions: Sequence[Decision],
    read: Callable[[], str | None],
    write: Callable[[str], None],
) -> Action | None:
    write(_menu(state, seat, decisions))
    selecting = decisions[0].kind == "select"
    while True:
        what = "3 colours" if selecting else f"1-{len(legal)}"
        write(f"Your choice ({what}; help, board, or q to quit): ")
        line = read()
        if line is None:
            write("End of input: the game is left unfinished.")
            return None
        choice = parse_choice(line, legal)
        if choice == QUIT:
            write("You quit the game.")
            return None
        if choice == HELP:
            write(_help(decisions[0].kind))
            write(_menu(state, seat, decisions))
        elif choice == BOARD:
            write(render(state, seat))
            write(_menu(state, seat, decisions))
        elif isinstance(choice, Action):
            return choice
        elif selecting:
            write(
                f"{line.strip()!r} is not 3 keshis from behind your screen "
                f"({' '.join(state.players[seat].screen)}); try again."
            )
        else:
            write(f"{line.strip()!r} is not one of the options; type a number from the list.")


def _help(kind: str) -> str:
    about = KIND_HELP.get(kind, "Choose one of the options listed.")
    return "\n".join(
        fit(
            [
                about,
                "Each option says what it does; in brackets, what it gives you and what it "
                "costs you. Type the option's number (or, for the keshis you throw, their "
                "colours). "
                "'board' shows the board again, 'q' quits.",
            ]
        )
    )
