# Cython declarations for rules.py (pure-Python mode: the .py stays plain Python; only the
# compiled build reads this). The rules loop's locals typed as the list and dicts they
# are, so the stack and the task fields are read without the generic lookups; a stack
# entry that is not a dict would raise TypeError here where the plain engine would not.
# No closures are allowed inside a cpdef function.
import cython

@cython.locals(stack=list, tasks=dict, top=dict)
cpdef advance(state)

@cython.locals(stack=list, top=dict)
cpdef apply(state, action, player)
