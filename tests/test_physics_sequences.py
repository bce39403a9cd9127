"""What each trace mix throws (:mod:`tower.physics.sequences`), and one short experts run."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest

from tower.geometry import load_preset
from tower.physics.sequences import (
    BRIGANDS,
    MIX_VERSIONS,
    MIXES,
    MixError,
    check_mix,
    expert_rounds,
    own_mix,
    throw_pieces,
)
from tower.pieces import KESHI_COLOURS, PLAYER_COLOURS, Kind

# digest of the keshis mix's throws, computed with main's code at 9e75ce3 (before the
# experts mix was added): adding a mix must not change what the others throw
KESHIS_DIGEST = "f7757898b4dbdc52"
# the walls-guards mix of version 1 (main at bb5c3cc), 3 pieces at most a throw (so no
# limit of the box is reached), its watchmen blue, red, white, yellow renamed red, yellow,
# green, blue
WALLS_GUARDS_V1_RENAMED_DIGEST = "874001cd1bf2cad1"


def _digest(rounds: list) -> str:
    text = json.dumps([[str(p) for p in batch] for batch in rounds])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def test_the_older_mixes_throw_what_they_threw_before():
    assert _digest(throw_pieces("keshis", 12, 5, seed=3)) == KESHIS_DIGEST
    assert _digest(throw_pieces("walls-guards", 3, 60, seed=3)) == WALLS_GUARDS_V1_RENAMED_DIGEST
    assert MIX_VERSIONS["walls-guards"] == 2


def test_walls_guards_throws_what_the_box_holds_in_the_rulebook_colours():
    """Walls & Guards, components: 12 watchmen, 3 each in red, yellow, green and blue;
    3 brigands. No throw holds more, whatever its size."""
    assert PLAYER_COLOURS == ("red", "yellow", "green", "blue")
    kinds: Counter = Counter()
    for seed in range(20):
        for batch in throw_pieces("walls-guards", 40, 10, seed=seed):
            count = Counter(batch)
            kinds.update(p.kind for p in batch)
            assert sum(n for p, n in count.items() if p.kind is Kind.BRIGAND) <= BRIGANDS
            assert all(n <= 3 for p, n in count.items() if p.kind is Kind.WATCHMAN)
            assert {p.colour for p in batch if p.kind is Kind.WATCHMAN} <= set(PLAYER_COLOURS)
    assert kinds[Kind.BRIGAND] > 0 and kinds[Kind.WATCHMAN] > 0
    # the limits are reached: 40-piece throws hold the box's 3 brigands often
    full = [b for s in range(20) for b in throw_pieces("walls-guards", 40, 10, seed=s)
            if sum(p.kind is Kind.BRIGAND for p in b) == BRIGANDS]  # fmt: skip
    assert len(full) > 50


def test_a_cube_tower_throws_cubes_and_refuses_keshis():
    cube_tower, keshi_tower = load_preset("queen-classic"), load_preset("marrakesh")
    assert (own_mix(cube_tower), own_mix(keshi_tower)) == ("cubes", "keshis")
    (batch,) = throw_pieces("cubes", 7, 1, seed=0)
    assert {p.kind for p in batch} == {Kind.CUBE} and len(batch) == 7
    check_mix(cube_tower, "cubes")
    for mix in ("keshis", "walls-guards", "experts"):
        check_mix(keshi_tower, mix)
        with pytest.raises(MixError, match=r"queen-classic.*mixes it can throw: cubes$"):
            check_mix(cube_tower, mix)
    with pytest.raises(MixError, match="no cube pieces"):
        check_mix(keshi_tower, "cubes")


def test_an_experts_sequence_is_one_game_of_gems_and_experts_rounds():
    assert "experts" in MIXES
    keshis_seen = set()
    for seed in range(60):
        rounds = throw_pieces("experts", 12, 8, seed=seed)
        assert rounds == throw_pieces("experts", 12, 8, seed=seed)  # deterministic
        counts = [Counter(p.kind for p in batch) for batch in rounds]
        keshis = {c[Kind.KESHI] for c in counts}
        assert len(keshis) == 1  # the players do not change within a game
        keshis_seen |= keshis
        assert all(1 <= c[Kind.EXPERT] <= 5 and set(c) <= {Kind.KESHI, Kind.EXPERT} for c in counts)
        assert all(p.colour in KESHI_COLOURS for batch in rounds for p in batch)
    assert keshis_seen == {6, 9, 12}
    experts = Counter(
        sum(p.kind is Kind.EXPERT for p in batch)
        for seed in range(60)
        for batch in expert_rounds(12, 8, seed)
    )
    assert set(experts) == {1, 2, 3, 4, 5}
    # the hand is shuffled: experts are not always released last
    assert any(batch[0].kind is Kind.EXPERT for batch in expert_rounds(12, 40, 1))

    # --pieces caps the keshis
    def keshis(pieces: int, seeds: int) -> set[int]:
        rounds = [b for s in range(seeds) for b in expert_rounds(pieces, 2, s)]
        return {sum(p.kind is Kind.KESHI for p in b) for b in rounds}

    assert keshis(9, 30) == {6, 9} and keshis(4, 3) == {4}
    with pytest.raises(ValueError, match="unknown mix"):
        throw_pieces("gems", 12, 1, seed=0)


def test_an_experts_sequence_simulates_into_a_valid_trace():
    pytest.importorskip("pybullet")
    from tower.geometry import load_preset
    from tower.physics.params import PhysicsParams
    from tower.physics.sequences import sequence_tasks, simulate_sequence
    from tower.traces import TraceSequence

    spec = load_preset("marrakesh")
    (task,) = sequence_tasks(
        spec, PhysicsParams(), sequences=1, throws=2, pieces=6, seed=1, mix="experts"
    )
    seq = TraceSequence.from_json(simulate_sequence(task.args))  # validates the record
    assert len(seq.throws) == 2
    thrown = Counter(seq.pieces[i].kind for t in seq.throws for i in t.thrown)
    assert thrown[Kind.KESHI] == 12 and 2 <= thrown[Kind.EXPERT] <= 10
