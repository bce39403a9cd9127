# Cython declarations for gems.py: the hottest functions take the state typed as the
# board's extension type (see rules.pxd and board.pxd).
from tower.marrakesh.board cimport Board

cpdef _g(Board state)
cpdef mine(Board state, p)
cpdef sweep(Board state, p)
