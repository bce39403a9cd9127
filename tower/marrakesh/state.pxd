# Cython declaration for state.py (see board.pxd): the state is the board's extension type.
from tower.marrakesh.board cimport Board

cdef class State(Board):
    pass
