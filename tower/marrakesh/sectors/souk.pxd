# Cython declarations for souk.py: the hottest functions take the state typed as the
# board's extension type, and read a player through a local ``pl`` typed as ``Player`` (see
# rules.pxd and board.pxd).
import cython

from tower.marrakesh.board cimport Board, Player

cpdef discount(Board state, p, what)

@cython.locals(pl=Player)
cpdef printed_affordable(Board state, p, lux, less=*)

@cython.locals(pl=Player)
cpdef points_affordable(Board state, p, lux)
