# Cython declarations for phases.py: the hottest functions take the state typed as the
# board's extension type, and read a player through a local ``pl`` typed as ``Player`` (see
# rules.pxd and board.pxd).
import cython

from tower.marrakesh.board cimport Board, Player

@cython.locals(pl=Player)
cpdef claimable_ids(Board state, p)

cpdef claim_ids(Board state, p)

@cython.locals(pl=Player)
cpdef _take(Board state, p, colour, n)

cpdef refill_display(Board state)
