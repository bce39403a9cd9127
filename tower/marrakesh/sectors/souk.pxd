# Cython declarations for souk.py: the hottest functions take the state typed as the
# board's extension type (see rules.pxd and board.pxd).
from tower.marrakesh.board cimport Board

cpdef discount(Board state, p, what)
cpdef printed_affordable(Board state, p, lux, less=*)
cpdef points_affordable(Board state, p, lux)
