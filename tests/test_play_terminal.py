"""``tower play`` through a pseudo-terminal: a whole game typed as a player would.

The test reads the screen as a person does: at a numbered decision it types a number
from the list shown, at the keshi choice three colours it reads behind its screen (by
name or by code), now and then ``help`` or ``board``. It checks that the screen never
shows an internal id or a Python value and that no line is wider than 100 columns.
"""

from __future__ import annotations

import random
import re
import sys

import pytest

from tower.calibration.recording import COLOUR_CODES

pexpect = pytest.importorskip("pexpect")

#: ``tower`` (the entry point of the installed script), run by this test's Python.
TOWER = [sys.executable, "-c", "import sys; from tower.cli import main; sys.exit(main())"]
#: What a player must never see: the engine's action ids and Python values.
FORBIDDEN = re.compile(
    r"choice:|slot:|assistant:|colour:|select:|\[|\]|\bTrue\b|\bFalse\b|\bNone\b|neutral"
)
#: colour -> the recorder's one-letter code (``tower record`` reads the same codes).
CODES = {colour: code for code, colour in COLOUR_CODES.items()}
#: What the player types at the n-th numbered prompt instead of a number.
ASIDES = {2: "help", 9: "board", 20: "wrong", 41: "help"}
NUMBERED = r"Your choice \(1-(\d+); help, board, or q to quit\):"
COLOURS = r"Your choice \(3 colours; help, board, or q to quit\):"


def _play(args: list[str], seed: int) -> tuple[str, dict[str, int], int | None]:
    """Play ``tower play args`` to its end; the whole screen, what was typed and the exit
    status."""
    rng = random.Random(seed)
    child = pexpect.spawn(
        TOWER[0], [*TOWER[1:], "play", *args], encoding="utf-8", timeout=120, dimensions=(50, 100)
    )
    screen: list[str] = []
    typed = {"numbers": 0, "colours": 0, "codes": 0, "help": 0, "board": 0, "wrong": 0}
    prompts = 0
    try:
        while True:
            k = child.expect([NUMBERED, COLOURS, "Winner\\(s\\): [^\r\n]*\r?\n", pexpect.EOF])
            screen.append(child.before + (child.after if isinstance(child.after, str) else ""))
            if k == 0:
                n = int(child.match.group(1))
                prompts += 1
                aside = ASIDES.get(prompts)
                if aside is not None:
                    child.sendline(str(n + 1) if aside == "wrong" else aside)
                    typed[aside] += 1
                else:
                    child.sendline(str(rng.randint(1, n)))
                    typed["numbers"] += 1
            elif k == 1:
                behind = re.findall(r"Behind your screen: ([a-z ]+)\.", child.before)[-1].split()
                three = rng.sample(behind, 3)
                if typed["colours"] <= typed["codes"]:
                    child.sendline(" ".join(three))
                    typed["colours"] += 1
                else:
                    child.sendline(" ".join(CODES[c] for c in three))
                    typed["codes"] += 1
            else:
                child.expect(pexpect.EOF)
                screen.append(child.before)
                break
    finally:
        child.close()
    return "".join(screen).replace("\r\n", "\n"), typed, child.exitstatus


def test_a_two_player_game_with_two_modules_typed_to_the_end():
    text, typed, status = _play(
        ["--players", "2", "--seed", "4", "--modules", "walls_guards,gems", "--agents", "random"],
        seed=1,
    )
    assert status == 0
    lines = text.split("\n")
    # The game ran from the first decision to the final scoring.
    assert "season 1 of 3, round 1 of 4" in text
    assert "== Season 1 scoring ==" in text and "== Season 2 scoring ==" in text
    assert "== Season 3 and final scoring ==" in text
    assert re.search(r"Final scores: P0 -?\d+, P1 -?\d+", text)
    assert typed["numbers"] > 50 and typed["colours"] >= 3 and typed["codes"] >= 3
    assert typed["help"] and typed["board"] and typed["wrong"]
    # Every kind of input was answered in words.
    assert "Each option says what it does" in text
    assert "is not one of the options" in text
    assert "The tower throw: out came" in text and "brigand" in text
    assert re.search(r"P1 chose: \w", text) and "P1 chooses 3 keshis behind the screen." in text
    assert re.search(r"  P[01] [+-]\d+ points?: ", text)
    # A season's scoring lists its own points, not those of the round before it.
    blocks = re.findall(r"== Season [^\n]*scoring ==\n((?:  .*\n)+)", text)
    assert len(blocks) == 3 and "citizens not provided for" in "".join(blocks)
    assert not re.search(r"souk|gem placed|date orchard|medina", "".join(blocks))
    # Nothing a player cannot read.
    bad = [ln for ln in lines if FORBIDDEN.search(ln)]
    assert not bad, bad[:5]
    wide = [ln for ln in lines if len(ln) > 100]
    assert not wide, wide[:5]
