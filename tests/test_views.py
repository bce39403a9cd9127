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
