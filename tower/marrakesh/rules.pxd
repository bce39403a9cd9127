# Cython declarations for rules.py (pure-Python mode: the .py stays plain Python; only the
# compiled build reads this). The hottest functions take the state typed as the board's
# extension type (board.pxd), so its fields are read as struct members; the rules loop's
# locals typed as the list and dicts they are, so the stack and the task fields are read
# without the generic lookups. A function reading a player's fields reads them through a
# local ``pl`` typed as the player's extension type (``Player``, board.pxd). A state that is
# not a board, a player that is not a ``Player``, or a stack entry that is not a dict,
# raises TypeError here where the plain engine would not. A scroll modifier's ids are
# typed as the frozenset they are (``isdisjoint`` called without a lookup). The game and
# its rule set and hooks are extension types too (board.pxd, hooks.pxd). No closures are
# allowed inside a cpdef function, and a module's own calls to one are direct C calls.
import cython

from tower.marrakesh.board cimport Board, GameLike, Player
from tower.marrakesh.hooks cimport RuleSet

@cython.locals(stack=list, tasks=dict, top=dict, game=GameLike, rs=RuleSet)
cpdef advance(Board state)

@cython.locals(stack=list, top=dict)
cpdef apply(Board state, action, player)

@cython.locals(pl=Player, ids=frozenset)
cpdef has_mod(Board state, p, name)

@cython.locals(pl=Player, ids=frozenset)
cpdef mod_values(Board state, p, name)

@cython.locals(pl=Player)
cpdef can_pay(Board state, p, dict cost)

@cython.locals(pl=Player)
cpdef score(Board state, p, delta, reason)

cpdef order(Board state)
cpdef sample_chance(Board state, rng)

@cython.locals(pl=Player)
cpdef _round_throw_done(Board state, top, out)
