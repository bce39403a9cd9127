# Cython declarations for phases.py: the hottest functions take the state typed as the
# board's extension type (see rules.pxd and board.pxd).
from tower.marrakesh.board cimport Board

cpdef claimable_ids(Board state, p)
cpdef claim_ids(Board state, p)
cpdef _take(Board state, p, colour, n)
cpdef refill_display(Board state)
