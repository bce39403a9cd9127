"""The player view counts keshis and pawns inside the tower separately."""

from tower.marrakesh import Game, GameConfig
from tower.marrakesh.adapters.views import PAWN_SLOTS, TensorLayout, view
from tower.model import Resident, TowerState
from tower.pieces import NEUTRAL, Kind, Piece, Place


def test_pawns_inside_the_tower_are_not_counted_as_keshis():
    game = Game(GameConfig(players=4, modules=frozenset({"walls_guards"})))
    state = game.new_initial_state(3)
    state.tower = TowerState(
        (
            Resident(Piece.keshi("red"), Place.FLOOR1, 0),
            Resident(Piece(Kind.WATCHMAN, "red"), Place.FLOOR2, 0),
            Resident(Piece(Kind.WATCHMAN, "blue"), Place.FLOOR1, 0),
            Resident(Piece(Kind.BRIGAND, NEUTRAL), Place.RAMP, 0),
        ),
        1,
    )
    v = view(state, 0)
    assert v["tower"] == {"red": 1}
    assert v["tower_pawns"] == {"red": 1, "blue": 1, NEUTRAL: 1}
    layout = TensorLayout(game)
    d = layout.views(layout.encode(state, 0))
    assert d["tower_pawns"].sum() == 3
    assert d["tower_pawns"][PAWN_SLOTS.index(NEUTRAL)] == 1
    assert d["tower"].sum() == 1


def test_walls_guards_state_is_in_the_observation_tensor():
    # The module's tensor_pieces/encode hooks: wood, bricks, wall, watchmen, the base.
    base = TensorLayout(Game(GameConfig(players=2)))
    game = Game(GameConfig(players=2, modules=frozenset({"walls_guards"})))
    layout = TensorLayout(game)
    assert layout.size > base.size and "wg.p0.bricks" in layout.pieces
    assert "wg.p0.bricks" not in base.pieces
    state = game.new_initial_state(3)
    while state.current_player >= 0:  # the setup choices, brick tiles included
        state.apply(state.legal_actions()[0])
    pl = state.players[1]
    pl.wood, pl.wall = 4, [pl.bricks[0]]
    state.battle_base = ["keshi:red", "watchman:red", "brigand:neutral"]
    d = layout.views(layout.encode(state, 0))
    assert list(d["wg.p1.scalars"]) == [4, 0, 0, 1, 3]
    assert d["wg.p1.bricks"].sum() == 6 and d["wg.p1.wall"][0, pl.bricks[0] - 1] == 1
    assert list(d["wg.battle_base"].nonzero()[0]) == [8, 12, 16]  # red keshi, watchman, brigand
    assert d["wg.brigands"][0] == 3
