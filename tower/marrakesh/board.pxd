# Cython declarations for board.py (pure-Python mode: the plain engine never reads this).
# The compiled board is an extension type whose fields are C struct members: a function
# whose .pxd types its ``state`` argument as ``Board`` reads them at a fixed offset instead
# of through the type's attribute lookup (some 20,000 board reads a game). ``public``
# keeps every field readable and writable from Python as before (getattr, setattr, JSON).
# A player is one too (some 11,000 player reads a game), its fields in ``PLAYER_FIELDS``,
# and so is the game's base ``GameLike`` (some 7,000 reads a game), its fields in
# ``GAME_FIELDS``; the board's ``game`` is typed with it, so that ``state.game.ruleset``
# is read at fixed offsets in a function with a typed state. The lists and dicts the rules
# read most are typed as such (an assignment of another type raises TypeError).
from tower.marrakesh.hooks cimport Hooks, RuleSet

cdef class GameLike:
    cdef public object config, components
    cdef public Hooks hooks
    cdef public RuleSet ruleset
    cdef public dict modifiers, with_modifier, rooms
    cdef public frozenset plain_rooms

cdef class Player:
    cdef public object score, water, dates, dinars, screen, hand, held, assistants, keshis
    cdef public object vendors, souk_vendor, square, disc, sahara, oases, revealed
    cdef public object claimed_at, claimed, towns, towns_claimed, gates, river, river_tick
    cdef public object river_total, jetty, mosque, palace, scrolls, luxuries, provisions
    cdef public object track, swapped, forfeit, crocodile, wood, bricks, explored, wall
    cdef public object posts, recruited, orchard_brown, sahara_green, wall_town, ext

cdef class Board:
    cdef public GameLike game
    cdef public list players
    cdef public object rng, tower
    cdef public object season, round, start, season_start
    cdef public dict display
    cdef public object stacks, stack_open
    cdef public object offices, shops, shop_open, workshops, river_tiles, leftover_oases
    cdef public object jetty_taken, towns_display, covers, pawns, brigands, battle_base
    cdef public object carry, wall_protected
    cdef public dict ext, issued
    cdef public object tick, turn
    cdef public list stack, score_events, history
