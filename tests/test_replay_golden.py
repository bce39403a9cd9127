"""45 random games replay byte for byte: the engine's refactors and speed-ups keep every
game's final JSON and history.

The games are 2, 3 and 4 players with the largest module sets the rules allow
(:func:`tower.marrakesh.hooks.maximal_sets`), 5 games each at 3 batch seeds. Each game's
hash covers its final :meth:`~tower.marrakesh.board.Board.to_json` (keys sorted) and its
history; ``tests/data/replay-golden.json`` holds the hashes the engine gave when the test
was written. To re-make them after a deliberate change of the rules (never of the
engine's speed or layout): ``python tests/test_replay_golden.py --write``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from tower.marrakesh import Game, GameConfig, RandomAgent, play
from tower.marrakesh.hooks import maximal_sets

GOLDEN = Path(__file__).parent / "data" / "replay-golden.json"
BATCH_SEEDS = (11, 22, 33)


def cases() -> list[tuple[int, int, int]]:
    """(players, batch seed, game index): 45 games."""
    return [(p, b, i) for b in BATCH_SEEDS for p in (2, 3, 4) for i in range(5)]


def digest(players: int, batch: int, index: int) -> str:
    """The sha256 of one game's final JSON and history."""
    sets = maximal_sets(players)
    modules = sets[index % len(sets)]
    seed = 1000 * batch + index
    game = Game(GameConfig(players=players, modules=modules))
    agents = [RandomAgent(seed * 10 + k) for k in range(players)]
    state = play(game, agents, seed=seed)
    text = json.dumps(state.to_json(), sort_keys=True) + "\n" + "\n".join(state.history)
    return hashlib.sha256(text.encode()).hexdigest()


def _key(case: tuple[int, int, int]) -> str:
    return "p{}-b{}-g{}".format(*case)


@pytest.mark.parametrize("case", cases(), ids=_key)
def test_game_replays_byte_for_byte(case: tuple[int, int, int]) -> None:
    golden = json.loads(GOLDEN.read_text())["games"]
    assert digest(*case) == golden[_key(case)]


def test_the_games_use_the_largest_module_sets() -> None:
    golden = json.loads(GOLDEN.read_text())
    assert len(golden["games"]) == 45
    assert all(len(s) >= 10 for p in (2, 3, 4) for s in maximal_sets(p))


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    games = {_key(c): digest(*c) for c in cases()}
    GOLDEN.write_text(json.dumps({"format": 1, "games": games}, indent=1) + "\n")
    print(f"wrote {len(games)} hashes to {GOLDEN}")
