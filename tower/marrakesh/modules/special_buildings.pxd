# Cython declarations for special_buildings.py: the hottest functions take the state typed
# as the board's extension type (see rules.pxd and board.pxd).
from tower.marrakesh.board cimport Board

cpdef mine(Board state, p)
cpdef owns(Board state, p, name)
