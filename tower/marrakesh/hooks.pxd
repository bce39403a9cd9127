# Cython declarations for hooks.py (pure-Python mode: the plain engine never reads this).
# A game's rule set and hooks are extension types whose fields are C struct members, as
# the board's are (board.pxd): the rules loop reads their tables on every task and
# decision, a function typed to read them at a fixed offset instead of through the type's
# attribute lookup. ``public`` keeps every field readable and writable from Python.
cdef class RuleSet:
    cdef public dict tasks, options, resolve, labels
    cdef public set private
    cdef public dict passing, specials, counts, oasis_kinds, piece_out, after_throw

cdef class Hooks:
    cdef public tuple modules, components, setup, setup_asks, room
    cdef public dict room_for
    cdef public tuple deploy
    cdef public dict deploy_for
    cdef public tuple round_tasks, turn_tasks
    cdef public dict turn_tasks_at
    cdef public tuple claim_options, claim, sector_action
    cdef public dict sector_action_for
    cdef public tuple count
    cdef public dict _count_for
    cdef public tuple after_stair_move, after_score, discount, returnable, return_keshi
    cdef public tuple track_slot, reached, vendor_water, extra_wood, pay_options, pay_resolve
    cdef public tuple luxury_affordable, luxury_buy, luxury_gained, filled, towns, remaining
    cdef public tuple final_scoring, invariants, census, view, tensor_pieces, encode
    cdef public tuple render_board, render_player, describe_choices
    cdef public frozenset replaced
    cdef public dict redirects
    cdef public tuple season
    cdef public dict layout
