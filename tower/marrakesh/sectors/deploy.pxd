# Cython declarations for deploy.py: the hottest functions take the state typed as the
# board's extension type, and read a player through a local ``pl`` typed as ``Player`` (see
# rules.pxd and board.pxd). The two hottest task handlers are declared too, registered by a
# call after the function rather than with a decorator (see phases.pxd).
import cython

from tower.marrakesh.board cimport Board, GameLike, Player
from tower.marrakesh.hooks cimport Hooks

@cython.locals(pl=Player)
cpdef brown_spaces(Board state, p)

@cython.locals(pl=Player)
cpdef _red_room(Board state, p)

@cython.locals(pl=Player)
cpdef _pink_room(Board state, p)

@cython.locals(pl=Player)
cpdef brown_room(Board state, p)

@cython.locals(pl=Player)
cpdef take_keshi(Board state, p, colour, src)

@cython.locals(pl=Player)
cpdef vendor_water(Board state, p, s, action)

@cython.locals(pl=Player, game=GameLike, hooks=Hooks)
cpdef _deploy(Board state, dict t)

@cython.locals(pl=Player, stack=list)
cpdef _action(Board state, dict t)
