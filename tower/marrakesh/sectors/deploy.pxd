# Cython declarations for deploy.py: the hottest functions take the state typed as the
# board's extension type (see rules.pxd and board.pxd).
from tower.marrakesh.board cimport Board

cpdef brown_spaces(Board state, p)
cpdef _red_room(Board state, p)
cpdef _pink_room(Board state, p)
cpdef brown_room(Board state, p)
cpdef take_keshi(Board state, p, colour, src)
cpdef vendor_water(Board state, p, s, action)
