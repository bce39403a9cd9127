# Cython declarations for agents.py (pure-Python mode, see rules.pxd): the game loop's
# stack and its top task typed as the list and dict they are. The random agent is an
# extension type whose step reads the board (board.pxd) and its own generator at fixed
# offsets: it runs on every move.
import cython

from tower.marrakesh.board cimport Board

cdef class RandomAgent:
    cdef public object rng

    @cython.locals(stack=list, top=dict)
    cpdef step(self, Board state, player)

@cython.locals(stack=list, top=dict)
cpdef play(game, agents, seed=*, on_action=*)
