# Cython declarations for walls_guards.py: the hottest functions take the state typed as
# the board's extension type, and read a player through a local ``pl`` typed as ``Player``
# (see rules.pxd and board.pxd).
import cython

from tower.marrakesh.board cimport Board, Player

@cython.locals(pl=Player)
cpdef orchard_room(Board state, p)

@cython.locals(pl=Player)
cpdef _has_provision(Board state, p, name)
