# Cython declarations for phases.py: the hottest functions take the state typed as the
# board's extension type, and read a player through a local ``pl`` typed as ``Player`` (see
# rules.pxd and board.pxd). The hottest task handlers, decision options and resolutions are
# declared too, their task typed as the dict it is; Cython drops the decorators of a cpdef
# function without a word, so phases.py registers those by a call after the function
# (``task("claim_turn")(_claim_turn)``) rather than with a decorator.
import cython

from tower.marrakesh.board cimport Board, GameLike, Player

@cython.locals(pl=Player, game=GameLike)
cpdef claimable_ids(Board state, p)

cpdef claim_ids(Board state, p)

@cython.locals(pl=Player)
cpdef _take(Board state, p, colour, n)

cpdef refill_display(Board state)

cpdef _select_options(Board state, dict t)

@cython.locals(pl=Player)
cpdef _deploy_assistants(Board state, dict t)

@cython.locals(pl=Player)
cpdef _claim_turn(Board state, dict t)

cpdef _claim(Board state, dict t, a)

cpdef _assist_turn(Board state, dict t)

@cython.locals(pl=Player, game=GameLike)
cpdef _assistant_options(Board state, dict t)

cpdef _assistant(Board state, dict t, a)
