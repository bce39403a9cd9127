# Cython declarations for edicts.py: the hottest functions take the state typed as the
# board's extension type (see rules.pxd and board.pxd).
from tower.marrakesh.board cimport Board

cpdef thresholds_reached(Board state)
cpdef check_thresholds(Board state)
