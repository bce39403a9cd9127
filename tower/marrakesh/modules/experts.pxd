# Cython declarations for experts.py: the hottest functions take the state typed as the
# board's extension type (see rules.pxd and board.pxd).
from tower.marrakesh.board cimport Board

cpdef _d(Board state)
cpdef board(Board state)
cpdef mine(Board state, p)
