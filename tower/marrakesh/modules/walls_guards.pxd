# Cython declarations for walls_guards.py: the hottest functions take the state typed as
# the board's extension type (see rules.pxd and board.pxd).
from tower.marrakesh.board cimport Board

cpdef orchard_room(Board state, p)
cpdef _has_provision(Board state, p, name)
