"""Actions: small frozen values with a stable string form and a stable integer id.

The action space has a fixed size, :func:`num_actions`, the same for every game
configuration: the core's kinds, then the kinds every registered module declares
(``Module.action_kinds``), in registration order. An action is a ``kind`` and an
integer ``arg``; what the arg means depends on the kind, never on the state, so ids are
stable across games and versions of a state.

Examples
--------
>>> a = Action.parse("colour:red")
>>> a.id == action_id("colour", KESHI_COLOURS.index("red")), str(ACTIONS[a.id])
(True, 'colour:red')
>>> str(Action.parse("select:green+gray+red"))
'select:green+gray+red'
>>> str(Action.parse("assistant:souk/action"))
'assistant:souk/action'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import combinations

from tower.pieces import KESHI_COLOURS

#: The nine sectors of a player board, named by the colour of their keshis; "souk" takes
#: the three goods colours. The first eight have a water-vendor space.
SECTORS: tuple[str, ...] = (
    "green",
    "gray",
    "white",
    "black",
    "pink",
    "turquoise",
    "beige",
    "brown",
    "souk",
)
VENDOR_SECTORS: tuple[str, ...] = SECTORS[:8]
GOODS: tuple[str, ...] = ("yellow", "purple", "orange")
RESOURCES: tuple[str, ...] = ("water", "dates", "dinars")
STAIRS: tuple[str, ...] = ("palace", "mosque")
SCROLL_COLOURS: tuple[str, ...] = ("gray", "yellow", "pink", "orange")

#: Every 3-colour selection, as sorted index triples into KESHI_COLOURS.
SELECTIONS: tuple[tuple[int, int, int], ...] = tuple(combinations(range(12), 3))
SELECTION_INDEX: dict[tuple[int, ...], int] = {s: i for i, s in enumerate(SELECTIONS)}

#: kind -> number of args. The order fixes the ids; append new kinds only at the end.
#: Modules append theirs with :func:`add_kinds` when they register
#: (:func:`tower.marrakesh.hooks.register`), in registration order.
KINDS: dict[str, int] = {
    "pass": 1,
    "select": len(SELECTIONS),  # phase 1: 3 keshis from behind the screen
    "colour": 12,  # a keshi colour (claim, keshi of choice, goods keshi, exchange payment)
    "sector": 9,  # a sector (red assistant, water vendor, sector action of choice)
    "assistant": 18,  # sector * 2 + (0 new keshi | 1 sector action)
    "number": 41,  # an amount 0..40 (water for river steps, resources returned)
    "choice": 16,  # an option of the current decision, in the order the decision lists
    "slot": 16,  # a space on the board (main-square space, sahara space, gate space)
    "scroll": 12,  # a scroll stack (top scroll of the display)
    "shop": 5,  # a souk shop (top luxury good)
    "gate": 48,  # workshop * 12 + gate colour
    "resource": 3,  # water, dates, dinars
    "stair": 2,  # palace, mosque
    "swap": 4,  # pay 1 dinar to swap the tops of one scroll colour
}
#: kind -> who declared it: ``"core"`` or a module name.
OWNERS: dict[str, str] = dict.fromkeys(KINDS, "core")
OFFSETS: dict[str, int] = {}
_n = 0
for _k, _size in KINDS.items():
    OFFSETS[_k] = _n
    _n += _size
#: Size of the core's action space (the whole space is :func:`num_actions`).
CORE_ACTIONS: int = _n


#: Kinds whose arg indexes a list of names: the name is the arg's text.
_NAMED: dict[str, tuple[str, ...]] = {
    "colour": KESHI_COLOURS,
    "sector": SECTORS,
    "resource": RESOURCES,
    "stair": STAIRS,
    "swap": SCROLL_COLOURS,
}
#: The arg's text of the other kinds that have one (the rest write the number).
_ARG_TEXT: dict[str, Callable[[int], str]] = {
    "select": lambda arg: "+".join(KESHI_COLOURS[i] for i in SELECTIONS[arg]),
    "assistant": lambda arg: f"{SECTORS[arg // 2]}/{'action' if arg % 2 else 'keshi'}",
    "gate": lambda arg: f"w{arg // 12}/{KESHI_COLOURS[arg % 12]}",
    "scroll": lambda arg: f"{SCROLL_COLOURS[arg // 3]}{arg % 3}",
}


def _arg_text(kind: str, arg: int) -> str:
    if kind in _NAMED:
        return _NAMED[kind][arg]
    return _ARG_TEXT.get(kind, str)(arg)


@dataclass(frozen=True, slots=True)
class Action:
    """One choice of a player: a kind and an argument; ``id`` is its integer encoding.
    The id and the string form are computed once, when the action is made: the engine
    reads both for every move."""

    kind: str
    arg: int = 0
    id: int = field(init=False, repr=False, compare=False)
    #: The string form (``str(action)``), read without a method call.
    text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", OFFSETS[self.kind] + self.arg)
        text = "pass" if self.kind == "pass" else f"{self.kind}:{_arg_text(self.kind, self.arg)}"
        object.__setattr__(self, "text", text)

    def __str__(self) -> str:
        return self.text

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read the form written by ``str(action)``; raises ``ValueError`` if unknown."""
        text = text.strip()
        if text.startswith("select:"):
            # The three colours may come in any order.
            names = text[len("select:") :].split("+")
            if set(names) <= set(KESHI_COLOURS):
                names.sort(key=KESHI_COLOURS.index)
                text = "select:" + "+".join(names)
        found = _BY_TEXT.get(text)
        if found is None:
            raise ValueError(f"unknown action {text!r}")
        return found


def action_id(kind: str, arg: int = 0) -> int:
    """The integer id of ``Action(kind, arg)`` without building it."""
    return OFFSETS[kind] + arg


def action_ids(kind: str, args: Iterable[int]) -> list[int]:
    """The ids of ``Action(kind, a)`` for each ``a`` of ``args``, in order (a decision's
    options, made with one lookup of the kind)."""
    # The additions in C (map), not a comprehension's function made per call.
    return [*map(OFFSETS[kind].__add__, args)]


#: All actions, indexed by id (the core's, then the modules' kinds).
ACTIONS: list[Action] = [Action(k, a) for k, size in KINDS.items() for a in range(size)]
_BY_TEXT: dict[str, Action] = {str(a): a for a in ACTIONS}
assert len(ACTIONS) == CORE_ACTIONS and all(a.id == i for i, a in enumerate(ACTIONS))
_frozen: list[bool] = [False]


class ActionSpaceError(ValueError):
    """A kind added after the action space was fixed, or a kind name already taken."""


def add_kinds(owner: str, kinds: tuple[tuple[str, int], ...]) -> None:
    """Append ``kinds`` (``(kind, size)`` pairs) declared by module ``owner`` to the
    action space. Raises :class:`ActionSpaceError` once a game has fixed the space."""
    if kinds and _frozen[0]:
        raise ActionSpaceError(
            f"{owner}: the action space is fixed once a game exists; register modules first"
        )
    for kind, size in kinds:
        if kind in KINDS or not kind.isidentifier() or size < 1:
            raise ActionSpaceError(f"{owner}: action kind {kind!r} (size {size}) is not new")
        OFFSETS[kind] = len(ACTIONS)
        KINDS[kind] = size
        OWNERS[kind] = owner
        for arg in range(size):
            action = Action(kind, arg)
            ACTIONS.append(action)
            _BY_TEXT[str(action)] = action


def num_actions() -> int:
    """Size of the action space: the core's kinds and every registered module's."""
    return len(ACTIONS)


def freeze() -> int:
    """Fix the action space (a game is being made); returns its size."""
    _frozen[0] = True
    return len(ACTIONS)


def __getattr__(name: str) -> int:
    # NUM_ACTIONS follows the modules registered so far (the package registers all of
    # them on import, so ``from tower.marrakesh import NUM_ACTIONS`` is the full size).
    if name == "NUM_ACTIONS":
        return len(ACTIONS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ... ``11th``, ``21st``."""
    tail = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{tail}"


def _sector_words(sector: int) -> str:
    return "the souk" if SECTORS[sector] == "souk" else f"the {SECTORS[sector]} sector"


def _select_words(arg: int) -> str:
    names = [KESHI_COLOURS[i] for i in SELECTIONS[arg]]
    return f"{names[0]}, {names[1]} and {names[2]} keshis"


def _colour_words(arg: int) -> str:
    return f"{'an' if KESHI_COLOURS[arg] == 'orange' else 'a'} {KESHI_COLOURS[arg]} keshi"


def _assistant_words(arg: int) -> str:
    what = "its sector action" if arg % 2 else "a new keshi"
    return f"an assistant in {_sector_words(arg // 2)}: {what}"


_RESOURCE_WORDS = {"water": "1 water", "dates": "1 date", "dinars": "1 dinar"}
#: What an arg of each kind means in words (:func:`words`).
_WORDS: dict[str, Callable[[int], str]] = {
    "pass": lambda arg: "pass",
    "select": _select_words,
    "colour": _colour_words,
    "sector": _sector_words,
    "assistant": _assistant_words,
    "slot": lambda arg: f"the {ordinal(arg + 1)} space",
    "scroll": lambda arg: (
        f"the top scroll of the {ordinal(arg % 3 + 1)} {SCROLL_COLOURS[arg // 3]} stack"
    ),
    "shop": lambda arg: f"the luxury good on top of the {ordinal(arg + 1)} shop",
    "gate": lambda arg: (
        f"the {KESHI_COLOURS[arg % 12]} keshi of the {ordinal(arg // 12 + 1)} workshop"
    ),
    "resource": lambda arg: _RESOURCE_WORDS[RESOURCES[arg]],
    "stair": lambda arg: f"the {STAIRS[arg]} staircase",
    "swap": lambda arg: f"swap the tops of the {SCROLL_COLOURS[arg]} scroll stacks for 1 dinar",
    "number": lambda arg: f"{arg} more",
}


def words(action: Action) -> str:
    """What an action's argument means in words, without its decision's context (a
    decision that gives ``choice``, ``slot`` or ``number`` args a meaning of its own
    names them: :func:`tower.marrakesh.rules.describe`)."""
    kind, arg = action.kind, action.arg
    if kind in _WORDS:
        return _WORDS[kind](arg)
    return f"option {ordinal(arg + 1)} of {kind.replace('_', ' ')}"


COLOUR_INDEX: dict[str, int] = {c: i for i, c in enumerate(KESHI_COLOURS)}
SECTOR_INDEX: dict[str, int] = {s: i for i, s in enumerate(SECTORS)}


def sector_of(colour: str) -> str:
    """The sector a keshi of ``colour`` belongs to (goods go to the souk).

    Red has no sector of its own: a water vendor goes to any sector.
    """
    return "souk" if colour in GOODS else colour
