"""The fields of a task: the entries of ``state.stack``, each a plain dict.

A task names its handler with ``t`` (a task of the game's ``ruleset.tasks``), or is a
pending decision, ``t == "ask"``, of kind ``k`` for player ``p``. The other fields are
the handler's data. Tasks stay plain dicts, so the state's JSON writes them as they are
and the engine pays nothing for their type; :class:`Task` names and types every field the
core and the modules use, so that a reader (and a type checker) knows what ``t["src"]``
is. A handler reads only the fields its task was built with
(:func:`tower.marrakesh.rules.T`, :func:`~tower.marrakesh.rules.ask`); a field of a new
task is added here with its meaning. Short names keep the saved games small; they are
part of the state's JSON format and never change.

Examples
--------
>>> task: Task = {"t": "ask", "k": "resource", "p": 1}
>>> sorted(Task.__required_keys__)
['t']
"""

from typing import Any, Required, TypedDict


class Task(TypedDict, total=False):
    """A task of the stack, or a pending decision (``t == "ask"``)."""

    # -- the machine -------------------------------------------------------------------
    #: The handler: a task name, ``"ask"`` (a pending decision), ``"select"`` (the
    #: simultaneous keshi selection) or ``"throw"`` (the tower throw, a chance node).
    t: Required[str]
    #: A decision's kind (its options, resolution and label in the game's rule set).
    k: str
    #: The player who decides, or whom the task concerns.
    p: int
    #: A decision's legal action ids, stored when it first reached the top of the stack.
    o: list[int]
    #: The selection: player (as a string) -> the chosen action id, or ``None``.
    chosen: dict[str, int | None]

    # -- the tower throw ---------------------------------------------------------------
    #: The pieces a battle throw puts into the tower (``str(piece)``).
    pieces: list[str]
    #: Pieces modules add to a round's throw (``str(piece)``, e.g. expert keshis).
    extra: list[str]
    #: What the pieces out of the throw do (a key of ``ruleset.after_throw``).
    after: str
    #: The first of a battle's throws.
    first: bool

    # -- keshis --------------------------------------------------------------------------
    #: A keshi colour (deploying, claiming, the souk).
    c: str
    #: Where a deployed keshi comes from: ``"supply"``, ``"held"``, a module's place.
    src: str
    #: After a deployment: whether the sector action follows (``True``); after scroll
    #: 19's returns: the name of the special effect that returns the rest (gems).
    then: bool | str | None
    #: How many (keshis, stairs, river steps, resources, ...).
    n: int
    #: Keshi colours allowed in a choice of colour: ``"goods"`` or ``""`` (any).
    only: str
    #: Keshis already deployed that a ``deploy_held`` skips.
    skip: int
    #: The scroll group (colour index) a madrasa purchase must come from (``-1``: any).
    forced: int

    # -- actions and places ---------------------------------------------------------------
    #: A sector (an action, an assistant, a vendor's water).
    s: str
    #: A staircase: ``"palace"`` or ``"mosque"``.
    w: str
    #: Whether an assistant is used for the sector action (not a new keshi).
    action: bool
    #: A river tile's index.
    i: int
    #: A connection line ``[mosque segment, palace segment]``.
    line: list[int]
    #: The other player of a river-tile pair (``-1``: none).
    other: int
    #: A desert-town path (0 or 1).
    path: int
    #: A luxury shop.
    shop: int
    #: The souk: exchanges made (``ex``) and luxury goods bought (``lux``) this action.
    ex: int
    lux: int
    #: The workshops (indices) a free city gate may come from.
    ws: list[int]
    #: A scroll choice: its scholars and its price in dates.
    scholars: int
    dates: int
    #: Resources allowed in a payment (a list of names), or what an alms tile takes
    #: (``"goods"``, ``"workers"``).
    among: Any
    #: Dinars left to spend (the madrasa), and how many were bought.
    budget: int
    bought: int

    # -- effects -------------------------------------------------------------------------
    #: An effect of the component data (``{"op": ..., ...}``).
    e: Any
    #: Why points or effects come (a score event's reason).
    why: str
    #: The effect lists of a ``choose`` effect.
    options: list[Any]

    # -- the modules' tasks ----------------------------------------------------------------
    #: The precomputed ways of a choice, one per option (Walls & Guards: how to pay; the
    #: Experts: ``[tile, shop]`` pairs).
    ways: list[Any]
    #: Points per item (scroll 19's returned resources, gems returned).
    pts: int
    #: Items left to return.
    left: int
    #: Which of the resources comes next (scroll 19: water, dates, dinars).
    r: int
    #: Walls & Guards: the wood price of the brick tiles chosen at setup, a penalty of the
    #: battle (:class:`tower.marrakesh.wall_battle.Penalty` value), the ways to pay it.
    wood: int
    pen: str
    #: A Special Buildings seat in the deal, the buildings offered, and whether the
    #: printed price is affordable.
    seat: int
    offer: list[int]
    printed: bool
    #: The Second-Hand Shop: the item priced (a scroll id, or an oasis id plus ``OASIS``).
    item: int
    #: The Edicts: a scroll colour's index.
    g: int
    #: The Closed Madrasa: a tile pool, keshi colours taken, claimed oases (indices)
    #: scored, resources that may be reserved, whether a main-square space needs an
    #: entertainer.
    pool: str
    taken: list[str]
    done: list[int]
    kinds: list[str]
    entertainer: bool
