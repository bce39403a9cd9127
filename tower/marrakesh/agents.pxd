# Cython declarations for agents.py (pure-Python mode, see rules.pxd): the game loop's
# stack and its top task typed as the list and dict they are.
import cython

@cython.locals(stack=list, top=dict)
cpdef play(game, agents, seed=*, on_action=*)
