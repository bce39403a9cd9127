# Cython declarations for effects.py: the hottest functions take the state typed as the
# board's extension type (see rules.pxd and board.pxd).
from tower.marrakesh.board cimport Board

cpdef run_effects(Board state, p, effects, why=*)
