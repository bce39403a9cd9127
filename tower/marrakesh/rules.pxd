# Cython declarations for rules.py (pure-Python mode: the .py stays plain Python; only the
# compiled build reads this). The hottest functions take the state typed as the board's
# extension type (board.pxd), so its fields are read as struct members; the rules loop's
# locals typed as the list and dicts they are, so the stack and the task fields are read
# without the generic lookups. A state that is not a board, or a stack entry that is not a
# dict, raises TypeError here where the plain engine would not. No closures are allowed
# inside a cpdef function, and a module's own calls to one are direct C calls.
import cython

from tower.marrakesh.board cimport Board

@cython.locals(stack=list, tasks=dict, top=dict)
cpdef advance(Board state)

@cython.locals(stack=list, top=dict)
cpdef apply(Board state, action, player)

cpdef has_mod(Board state, p, name)
cpdef mod_values(Board state, p, name)
cpdef can_pay(Board state, p, cost)
cpdef score(Board state, p, delta, reason)
cpdef order(Board state)
cpdef sample_chance(Board state, rng)
cpdef _round_throw_done(Board state, top, out)
