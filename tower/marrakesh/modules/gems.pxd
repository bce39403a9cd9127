# Cython declarations for gems.py: the hottest functions take the state typed as the
# board's extension type, and read a player through a local ``pl`` typed as ``Player`` (see
# rules.pxd and board.pxd).
import cython

from tower.marrakesh.board cimport Board, Player

cpdef _g(Board state)

@cython.locals(pl=Player)
cpdef mine(Board state, p)

@cython.locals(pl=Player)
cpdef sweep(Board state, p)
