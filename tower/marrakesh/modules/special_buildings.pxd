# Cython declarations for special_buildings.py: the hottest functions take the state typed
# as the board's extension type, and read a player through a local ``pl`` typed as
# ``Player`` (see rules.pxd and board.pxd).
import cython

from tower.marrakesh.board cimport Board, Player

@cython.locals(pl=Player)
cpdef mine(Board state, p)

@cython.locals(pl=Player)
cpdef owns(Board state, p, name)
