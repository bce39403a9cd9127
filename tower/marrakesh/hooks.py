"""Hook points: how a module plugs into the rules engine.

A *module* (an expansion of the rulebooks) is a subclass of :class:`Module` that lives in
``tower/marrakesh/modules/`` and is registered with :func:`register`. It overrides the
hooks it needs; every hook's docstring says when the engine calls it and what it may
change. The core (rules, state, sectors, effects, phases, scoring, invariants, ui,
adapters) never names a module and never imports one: it calls the hooks of the modules
a game switched on, which :class:`Hooks` collects once per
:class:`~tower.marrakesh.game.Game` (a hook no enabled module overrides costs nothing).

Every hook runs for the enabled modules **in the order of their names** (``sorted``), so
two games with the same modules run the same hooks in the same order. A hook that
answers a question (``room``, ``filled``, ...) takes the first answer that is not
``None``; a hook that acts (``setup``, ``final_scoring``, ...) runs for every module.

Besides hooks, a module holds class attributes that are data: its name and rulebook,
the modules it needs or excludes, its action kinds, the core features it replaces, its
season-scoring steps, and ``adds``, a :class:`RuleSet` of the tasks, decisions, labels
and effects it adds to a game. A game merges the core's rule set with those of the
modules it switches on, so nothing of a module exists in a game without it.

State lives in ``state.ext[name]`` and ``state.players[i].ext[name]``, per-module slots
the core never reads; they hold plain JSON data, which :meth:`State.to_json` writes and
:meth:`State.clone` copies. Never keep state on the module object: one module object
serves every game. ``modules/README.md`` walks through writing a module.

Examples
--------
>>> class Quiet(Module):
...     name = "quiet_example"
>>> Quiet().setup(None) is None and Quiet().room(None, 0, "red") is None
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from tower.errors import TowerError
from tower.marrakesh import actions
from tower.marrakesh.tasks import Task
from tower.pieces import KESHI_COLOURS, Kind, Piece

if TYPE_CHECKING:
    from tower.marrakesh.component_data import Components

#: The state a hook receives: a :class:`tower.marrakesh.state.State` in a game. The hook
#: points are generic over it rather than naming the state's class, because the state
#: holds the game, which holds these hooks (a module subclasses plain ``Module`` and
#: annotates its hooks with ``State``).
StateT = TypeVar("StateT")
F = TypeVar("F", bound=Callable[..., Any])

#: Core features a module may replace (``Module.replaces``): the core skips them.
FEATURES: dict[str, str] = {
    "oases": "the oases and the oasis-track keshis of setup steps 13 and 14",
    "green_brown": (
        "the core's rule that green keshis go to the date orchard and brown ones to the "
        "sahara, with its capacity invariants (the module places and checks them)"
    ),
}

#: The core's season-scoring steps, in order.
SEASON_STEPS: tuple[str, ...] = ("river", "provisions", "prepare")


@dataclass(frozen=True)
class SeasonStep(Generic[StateT]):
    """A season-scoring step of a module: ``tasks(state)`` runs right after the step
    named ``after`` (a core step or another module's step), after any step anchored
    there by a module earlier in the hook order; or, with ``after=""`` and ``before``
    set, right before the step named ``before`` (after any step a module earlier in the
    hook order anchored before it, and after the steps anchored after the step
    preceding it)."""

    name: str
    after: str
    tasks: Callable[[StateT], list[Task]]
    before: str = ""


#: What a labeller returns: a sentence, or ``(sentence, gives, costs)``.
Label = str | tuple[str, Mapping[str, int], Mapping[str, int]]


#: The tables of a :class:`RuleSet`, in the order :meth:`RuleSet.merged` merges them.
RULE_TABLES = (
    "tasks",
    "options",
    "resolve",
    "labels",
    "private",
    "passing",
    "specials",
    "counts",
    "oasis_kinds",
    "piece_out",
    "after_throw",
)


class RuleSet:
    """Named rules: tasks, decisions and effects, by name.

    The core keeps one (:data:`tower.marrakesh.rules.CORE`); a module keeps its own as the
    class attribute :attr:`Module.adds`, filled by the decorators of this class where its
    handlers are defined. A game's tables (``Game.ruleset``) are the core's merged with
    those of its enabled modules (:meth:`merged`), so a module's entries exist only in
    games that switch it on. The state argument of every handler is the engine's
    :class:`~tower.marrakesh.board.Board` (typed ``Any`` here, below the board).

    A plain class with slots (:data:`RULE_TABLES`): the compiled build makes it an
    extension type (``hooks.pxd``), whose tables the rules loop reads as C struct members.
    """

    __slots__ = RULE_TABLES

    def __init__(self) -> None:
        #: task name -> handler(state, task): a task of the stack (``{"t": name, ...}``).
        self.tasks: dict[str, Callable[[Any, Task], None]] = {}
        #: decision kind -> options(state, task) -> the action ids of a pending decision.
        self.options: dict[str, Callable[[Any, Task], list[int]]] = {}
        #: decision kind -> resolve(state, task, action): carries out the chosen action.
        self.resolve: dict[str, Callable[[Any, Task, Any], None]] = {}
        #: decision kind -> labeller(state, task, action) -> :data:`Label` (the action in
        #: words); ``"<kind>/<action kind>"`` labels the options added to another's decision.
        self.labels: dict[str, Callable[[Any, Task, Any], Label]] = {}
        #: Decision kinds whose options only their player sees.
        self.private: set[str] = set()
        #: decision kind -> the label of its ``pass`` action.
        self.passing: dict[str, str] = {}
        #: name -> fn(state, player, effect): an effect ``{"op": "special", "name": name}``.
        self.specials: dict[str, Callable[[Any, int, dict[str, Any]], None]] = {}
        #: name -> fn(state, player) -> int: what a ``per_count`` effect counts.
        self.counts: dict[str, Callable[[Any, int], int]] = {}
        #: oasis kind -> value(state, player, oasis entry): the points of an oasis.
        self.oasis_kinds: dict[str, Callable[[Any, int, dict[str, Any]], int]] = {}
        #: piece kind -> fn(state, piece): a piece other than a keshi out of a round's throw.
        self.piece_out: dict[Kind, Callable[[Any, Piece], None]] = {}
        #: throw kind -> fn(state, throw task, pieces out): what a throw's pieces do.
        self.after_throw: dict[str, Callable[[Any, Task, list[Piece]], None]] = {}

    def task(self, name: str) -> Callable[[F], F]:
        """Decorator: the handler of task ``name``."""
        return self._into(self.tasks, name)

    def option(self, kind: str) -> Callable[[F], F]:
        """Decorator: the option generator of decision ``kind``."""
        return self._into(self.options, kind)

    def resolution(self, kind: str, ignore_pass: bool = False) -> Callable[[F], F]:
        """Decorator: the resolution of decision ``kind``; ``ignore_pass``: passing does
        nothing (the resolution then never sees a ``pass`` action)."""
        if not ignore_pass:
            return self._into(self.resolve, kind)

        def deco(fn: F) -> F:
            def unless_pass(state: Any, t: Task, a: Any) -> None:
                if a.kind != "pass":
                    fn(state, t, a)

            self.resolve[kind] = unless_pass
            return fn

        return deco

    def label(self, kind: str, private: bool = False, passing: str = "") -> Callable[[F], F]:
        """Decorator: the labeller of decision ``kind``; ``private``: its options are
        hidden from the other players; ``passing``: the label of its ``pass`` action (the
        labeller then never sees one)."""
        if private:
            self.private.add(kind)
        if passing:
            self.passing[kind] = passing
        return self._into(self.labels, kind)

    def phrase(self, kind: str, text: str, passing: str = "pass") -> None:
        """Label a decision whose actions' own words suffice: ``text`` with ``{}`` standing
        for them (:func:`tower.marrakesh.actions.words`); ``passing`` labels ``pass``."""
        self.label(kind, passing=passing)(lambda state, t, a: text.format(actions.words(a)))

    @staticmethod
    def _into(table: dict[str, Any], key: str) -> Callable[[F], F]:
        def deco(fn: F) -> F:
            table[key] = fn
            return fn

        return deco

    def merged(self, *others: RuleSet, where: Iterable[str] = ()) -> RuleSet:
        """A new rule set with this one's entries and those of ``others``; an entry named
        twice raises :class:`RegistryError` (``where`` names the others in the message)."""
        out = RuleSet()
        names = ["the core", *where]
        for i, rs in enumerate((self, *others)):
            for table in RULE_TABLES:
                mine, theirs = getattr(out, table), getattr(rs, table)
                twice = sorted(map(str, set(mine) & set(theirs)))
                if twice:
                    who = names[i] if i < len(names) else "a rule set"
                    raise RegistryError(f"{who}: {table} {twice} are defined already")
                if isinstance(mine, set):
                    mine |= theirs
                else:
                    mine.update(theirs)
        return out


class Module(Generic[StateT]):
    """Base class of a module: every hook does nothing.

    The class attributes are the module's data; the methods are its hooks, listed in the
    order a game meets them.
    """

    #: The name that switches the module on in ``GameConfig.modules`` (an identifier).
    name: ClassVar[str] = ""
    #: The printed title ("Walls & Guards").
    title: ClassVar[str] = ""
    #: The rulebook it comes from, by title ("Gems & Experts").
    rulebook: ClassVar[str] = ""
    #: Whether the engine plays it (the README's module table lists every module of the
    #: rulebooks, playable or not).
    playable: ClassVar[bool] = True
    #: Modules that must be switched on with this one.
    requires: ClassVar[frozenset[str]] = frozenset()
    #: Modules that must not be switched on with this one.
    excludes: ClassVar[frozenset[str]] = frozenset()
    #: Extra action kinds, ``((kind, size), ...)``, appended to the fixed action space
    #: (:mod:`tower.marrakesh.actions`) when the module registers, in registration order,
    #: so every game sees the same ids. Register new modules at the end of
    #: ``modules/__init__.py`` to keep the ids of older kinds stable.
    action_kinds: ClassVar[tuple[tuple[str, int], ...]] = ()
    #: Core features the module replaces (names in :data:`FEATURES`): the core skips them.
    replaces: ClassVar[frozenset[str]] = frozenset()
    #: The keshi colours whose room the module's ``room`` hook may decide: the engine asks
    #: the hook about these colours only (it is asked for every colour the display offers
    #: a player, on every claim).
    room_colours: ClassVar[frozenset[str]] = frozenset(KESHI_COLOURS)
    #: The keshi colours whose deployment the module's ``deploy`` hook may take over: the
    #: engine asks the hook about these colours only (it is asked for every keshi deployed).
    deploy_colours: ClassVar[frozenset[str]] = frozenset(KESHI_COLOURS)
    #: The sectors whose action the module's ``sector_action`` hook may change or add to:
    #: the engine asks the hook about these sectors only (on every sector action).
    action_sectors: ClassVar[frozenset[str]] = frozenset(actions.SECTORS)
    #: When the module's ``turn_tasks`` hook has tasks: ``"start"``, ``"end"`` of a turn
    #: (it is asked at these only, twice in every turn).
    turn_times: ClassVar[frozenset[str]] = frozenset({"start", "end"})
    #: The quantities the module's ``count`` hook may answer (``"date_pickers"``, ...): the
    #: engine asks the hook about these only (:meth:`Hooks.counted`); ``None``: about all.
    counts: ClassVar[frozenset[str] | None] = None
    #: Core decisions the module answers in its own way, ``((core kind, module kind),
    #: ...)``: a pending decision of the core kind is answered by the module kind's options
    #: and resolution (e.g. the Closed Madrasa's oasis-track scroll bonus, Alms in the
    #: souk). Two enabled modules may not redirect the same kind.
    redirects: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: Steps of the season scoring (:class:`SeasonStep`), each anchored after (or
    #: ``before``) a core step (:data:`SEASON_STEPS`) or an earlier module's step. Every
    #: step runs before the next season's first round (or the final scoring).
    season_steps: ClassVar[tuple[SeasonStep, ...]] = ()
    #: The module's ``setup_asks`` come after those of every module without it (in name
    #: order among themselves): e.g. a keshi deployed at setup needs the other modules'
    #: boards set up first.
    setup_last: ClassVar[bool] = False
    #: The tasks, decisions, labels and effects the module adds to a game that switches
    #: it on (a :class:`RuleSet` of the module's own, filled where its handlers are
    #: defined: ``ADDS = RuleSet()``, ``@ADDS.task("my_task")``, ``adds = ADDS``).
    adds: ClassVar[RuleSet] = RuleSet()

    # -- configuration and components ------------------------------------------------
    def check_config(self, players: int, modules: frozenset[str]) -> str | None:
        """A reason this configuration is not allowed, or ``None``. Called when a
        :class:`~tower.marrakesh.config.GameConfig` is checked, beside ``requires`` and
        ``excludes``; it changes nothing."""
        return None

    def read_tables(self, path: str, data: dict[str, Any]) -> dict[str, dict[int, Any]]:
        """The module's own tables of the component file ``data`` (read from ``path``),
        checked (raise :class:`tower.errors.InputFileError` naming the field); they land
        in ``Components.tables``. Runs when the file is loaded, for every registered
        module, on or off; it reads ``data`` and changes nothing."""
        return {}

    def components(self, comps: Components) -> Components:
        """The components of a game with this module: ``comps`` with the data the module
        adds or replaces (return a new :class:`Components`, never change ``comps``). Runs
        once per game and set of modules, in hook order, each on the last one's result."""
        return comps

    # -- setup -------------------------------------------------------------------------
    def setup(self, state: StateT) -> None:
        """Set the module up in a new game: after the core's setup (the start scores are
        logged already), before any player decides. May change anything of ``state``
        (its own slots above all); random elements come from ``state.rng``."""
        return None

    def setup_asks(self, state: StateT) -> list[Task]:
        """The players' setup decisions of the module (tasks, usually ``ask``), run after
        the core's setup decisions (``setup_last`` modules' after the others')."""
        return []

    # -- deploying ---------------------------------------------------------------------
    def room(self, state: StateT, p: int, colour: str) -> int | None:
        """How many more keshis of ``colour`` fit on player ``p``'s board, when the module
        decides it (``None``: the core's rule). Asked before a keshi is deployed, for the
        colours of ``room_colours`` only; it changes nothing."""
        return None

    def deploy(self, state: StateT, task: Task) -> bool:
        """Deploy the keshi of the ``deploy`` task ``task`` the module's way: return True
        when the module placed it (it may change the player's board and push tasks), False
        to let the core place it."""
        return False

    def sahara(self, layout: dict[str, bool]) -> None:
        """Which sahara spaces exist in a game with the module: set ``layout["start"]``
        (the start-oasis spaces 0 and 1) or ``layout["towns"]`` (the desert-town spaces 8
        and 9). Runs once, when :class:`Hooks` is built; it may change only ``layout``."""
        return None

    # -- the round and the turn --------------------------------------------------------
    def round_tasks(self, state: StateT, when: str) -> list[Task]:
        """Tasks that run at the start of a round (``when == "start"``, before the keshi
        selection) and at its end (``"end"``, after the river bonus): a module's extra
        decisions of the round (push an ``ask``) and per-round resets."""
        return []

    def turn_tasks(self, state: StateT, p: int, when: str) -> list[Task]:
        """Tasks that run at the start of player ``p``'s phase-3 turn (``when ==
        "start"``, before their assistants) and at its end (``"end"``, before the turn's
        reveals): an ability used once per turn (push an ``ask``), per-turn resets. Asked
        at the times of ``turn_times`` only."""
        return []

    def claim_options(self, state: StateT, p: int) -> list[int]:
        """Action ids the module offers player ``p`` at claiming (phase 2) in place of
        keshis of one colour; a player with such an option does not forfeit the phase.
        It changes nothing. A module adds pieces to a round's throw by listing them
        (``str(piece)``) under ``"extra"`` in the pending ``throw`` task
        (:func:`tower.marrakesh.rules.thrown`)."""
        return []

    def claim(self, state: StateT, p: int, action: Any) -> bool:
        """Resolve claiming ``action`` (an :class:`~tower.marrakesh.actions.Action`) of
        player ``p``: True when the module resolved it (it may change the display and the
        player), False to let the core resolve it."""
        return False

    # -- actions -----------------------------------------------------------------------
    def sector_action(self, state: StateT, p: int, sector: str) -> bool:
        """Player ``p`` carries out the action of ``sector``; runs before the core's
        sector action. True: the module carried it out (pushing its tasks), and the core's
        is skipped; False: the core's runs."""
        return False

    def count(self, state: StateT, p: int, what: str) -> int | None:
        """The number of player ``p``'s keshis that count for ``what`` (e.g.
        ``"date_pickers"``) when the module decides it (``None``: the core counts).
        Asked about the quantities of ``counts`` only; it changes nothing."""
        return None

    def after_stair_move(self, state: StateT, p: int, which: str) -> None:
        """Player ``p`` just moved up the staircase ``which``; the module may change
        ``state`` and push tasks, which run next."""
        return None

    def after_score(self, state: StateT, p: int, delta: int, reason: str) -> None:
        """Player ``p``'s score just changed by ``delta`` for ``reason`` (every logged
        score change, the setup's start scores included, which come before any module's
        ``setup``): e.g. a threshold on the scoring track. May push tasks, which run
        next."""
        return None

    def discount(self, state: StateT, p: int, what: str) -> int:
        """How much cheaper ``what`` (``"scroll_dates"``, ``"luxury_keshis"``) is for
        player ``p``; the answers are summed. It changes nothing."""
        return 0

    def returnable(self, state: StateT, p: int, colours: list[str]) -> list[str]:
        """The keshi colours player ``p`` may return at the oasis track's exchange icon,
        given the core's ``colours`` (return a new list). It changes nothing."""
        return colours

    def return_keshi(self, state: StateT, p: int, colour: str) -> bool:
        """Return a keshi of ``colour`` of player ``p`` at the exchange icon the module's
        way (True: the module took it from where it holds it; False: the core does)."""
        return False

    def track_slot(self, state: StateT, p: int) -> int | None:
        """The oasis-track space the oasis player ``p`` just activated (the last of
        ``claimed``) takes: a module that frees spaces (the Second-Hand Shop) fills its
        gaps first and records the placement. ``None``: the next space on the right."""
        return None

    def reached(self, state: StateT, p: int, what: str, where: Any) -> None:
        """Player ``p`` just reached a place of the board, after the core scheduled its
        own effects of it (tasks the module pushes run first). ``what`` is ``"river"``
        (``where``: the fisherman's new position), ``"connection"`` (a connection bonus
        of the line ``[mosque segment, palace segment]`` is due), ``"audience"`` (the
        bonus of the audience-disc section ``where`` was chosen in a main-square action),
        ``"sahara"`` (the oasis of sahara space ``where`` was discovered), ``"gate"`` (a
        city gate with its guard on gate space ``where``), ``"keshi"`` (a keshi of colour
        ``where`` was deployed on the player board by the core) or ``"track"`` (an
        activated oasis took oasis-track space ``where``)."""
        return None

    def vendor_water(self, state: StateT, p: int) -> None:
        """A water vendor just gave player ``p`` water for an assistant in its sector; the
        module may change ``state`` and push tasks."""
        return None

    def extra_wood(self, state: StateT, p: int, received: int) -> int:
        """Wood added when player ``p`` receives ``received`` wood; the answers are
        summed and added by the core. It changes nothing."""
        return 0

    def pay_options(self, state: StateT, task: Task) -> list[int]:
        """Other ways to pay a ``pay_resource`` decision ``task`` ("1 resource of your
        choice"): action ids added to the core's options. It changes nothing."""
        return []

    def pay_resolve(self, state: StateT, task: Task, action: Any) -> bool:
        """Pay ``task`` with ``action`` when it is one of the module's ``pay_options``
        (return True after paying), else False."""
        return False

    def luxury_affordable(self, state: StateT, p: int, lux: int) -> bool:
        """Whether player ``p`` can pay for luxury tile ``lux`` the module's way when the
        printed price is out of reach. It changes nothing."""
        return False

    def luxury_buy(self, state: StateT, p: int, shop: int) -> bool:
        """Player ``p`` chose the purchase from luxury shop ``shop``: True when the module
        took over the payment (pushing its decisions), False to pay the printed price."""
        return False

    def luxury_gained(self, state: StateT, p: int, lux: int) -> None:
        """Player ``p`` just gained luxury tile ``lux``; the module may change ``state``
        and push tasks."""
        return None

    # -- final scoring -----------------------------------------------------------------
    def filled(self, state: StateT, p: int, sector: str) -> bool | None:
        """Whether ``sector`` counts as filled for player ``p`` at the final scoring when
        the module decides it (``None``: the core's rule). It changes nothing."""
        return None

    def towns(self, state: StateT, p: int) -> list[int]:
        """Desert towns (ids) that score for player ``p`` at the final scoring, beside the
        core's. It changes nothing."""
        return []

    def remaining(self, state: StateT, p: int) -> int:
        """Extra resources player ``p`` has left at the final scoring (summed with the
        core's). It changes nothing."""
        return 0

    def final_scoring(self, state: StateT, p: int) -> None:
        """Score player ``p``'s module points (with :func:`tower.marrakesh.rules.score`),
        before the core's final steps (filled sectors, oases, desert towns, resources)."""
        return None

    # -- invariants --------------------------------------------------------------------
    def invariants(self, state: StateT) -> None:
        """Check what must hold in every position of a game with the module; raise
        ``AssertionError`` otherwise. It changes nothing."""
        return None

    def census(self, state: StateT) -> Counter[str]:
        """Keshis (by colour) the module holds outside the core's places, so that the
        keshi census adds up. It changes nothing."""
        return Counter()

    # -- what players see --------------------------------------------------------------
    def view(self, state: StateT, viewer: int, v: dict[str, Any]) -> None:
        """Add the module's part of the position that ``viewer`` may see to the view dict
        ``v`` (the only thing it changes)."""
        return None

    def tensor_pieces(self, comps: Components) -> dict[str, tuple[int, ...]]:
        """The module's pieces of the observation tensor, ``{name: shape}``, for a game
        with components ``comps``. It changes nothing."""
        return {}

    def encode(self, state: StateT, viewer: int, views: dict[str, Any]) -> None:
        """Fill the module's ``tensor_pieces`` in ``views`` (arrays by name) with what
        ``viewer`` sees (the only thing it changes)."""
        return None

    def render_board(self, state: StateT) -> list[str]:
        """Lines the terminal board shows for the module's shared pieces."""
        return []

    def render_player(self, state: StateT, i: int, pv: dict[str, Any]) -> list[str]:
        """Lines the terminal board shows for player ``i`` (``pv``: their part of the
        view)."""
        return []

    def describe_choices(self, state: StateT, top: Task) -> list[str]:
        """Lines that explain the pending decision ``top`` when it is one of the module's
        (else none)."""
        return []


#: The hook methods (a module overrides any of them).
HOOKS: tuple[str, ...] = tuple(
    name
    for name, value in vars(Module).items()
    if callable(value) and not name.startswith("_") and name != "check_config"
)

#: Every known module, by name, in registration order.
REGISTRY: dict[str, Module] = {}


class RegistryError(TowerError, ValueError):
    """A module that cannot be registered (no name, a name taken, a bad action kind)."""


def register(module: Module | type[Module]) -> Module:
    """Add ``module`` (an instance or a subclass of :class:`Module`) to :data:`REGISTRY`
    and its action kinds to the action space; returns the instance.

    Usable as a class decorator::

        @register
        class Chess(Module):
            name = "chess"
    """
    mod = module() if isinstance(module, type) else module
    if not mod.name or not mod.name.isidentifier():
        raise RegistryError(f"a module needs a name that is an identifier, not {mod.name!r}")
    if mod.name in REGISTRY:
        raise RegistryError(f"a module named {mod.name!r} is already registered")
    unknown = sorted(mod.replaces - set(FEATURES))
    if unknown:
        raise RegistryError(f"{mod.name}: unknown features {unknown}; known: {sorted(FEATURES)}")
    actions.add_kinds(mod.name, mod.action_kinds)
    REGISTRY[mod.name] = mod
    return module if isinstance(module, type) else mod  # type: ignore[return-value]


def check_names(names: Iterable[str]) -> list[str]:
    """The names that are not registered modules."""
    return sorted(set(names) - set(REGISTRY))


def refusal(players: int, names: Iterable[str]) -> str | None:
    """Why a game of ``players`` with the modules ``names`` is not allowed (unknown,
    unplayable, a required module missing, two modules that exclude each other, a module's
    :meth:`Module.check_config`), or ``None``."""
    modules = frozenset(names)
    unknown = check_names(modules)
    if unknown:
        return f"unknown modules {unknown}; known: {list(REGISTRY)}"
    for name in sorted(modules):
        mod = REGISTRY[name]
        if not mod.playable:
            return f"module {name!r} ({mod.title}) is not playable yet"
        missing = sorted(mod.requires - modules)
        if missing:
            return f"module {name!r} needs the modules {missing}"
        clash = sorted(
            (mod.excludes & modules) | {o for o in modules if name in REGISTRY[o].excludes}
        )
        if clash:
            return f"module {name!r} ({mod.title}) cannot be combined with {clash}"
        reason = mod.check_config(players, modules)
        if reason:
            return f"module {name!r}: {reason}"
    return None


def maximal_sets(players: int = 4) -> list[frozenset[str]]:
    """The largest combinations of playable modules the rules allow: each module is added
    in registration order (and, for the second set, in reverse order) when the modules
    chosen so far allow it. With no exclusions both are every playable module; with one
    excluded pair (the Closed Madrasa and the Second-Hand Shop), one set leaves out each.

    >>> import tower.marrakesh
    >>> all(refusal(4, s) is None for s in maximal_sets())
    True
    """
    names = [n for n, m in REGISTRY.items() if m.playable]
    out: list[frozenset[str]] = []
    for ordered in (names, names[::-1]):
        chosen: set[str] = set()
        for n in ordered:
            if refusal(players, chosen | {n}) is None:
                chosen.add(n)
        if frozenset(chosen) not in out:
            out.append(frozenset(chosen))
    return out


def everything(players: int = 4) -> frozenset[str]:
    """Every compatible module: the first of :func:`maximal_sets` (``"all"`` in the
    command line and the adapters)."""
    return maximal_sets(players)[0]


class Hooks:
    """The hooks of the enabled modules of one game, in the documented order.

    ``hooks.<hook>`` is a tuple of the bound methods of the enabled modules that override
    that hook (:class:`Module` documents each): empty without modules, so the base game
    pays nothing for them. The state argument is typed ``Any``: the engine passes its
    :class:`~tower.marrakesh.board.Board`. The compiled build makes it an extension type
    (``hooks.pxd`` declares its fields), read as a C struct where the rules ask a hook.
    """

    def __init__(self, names: Iterable[str]) -> None:
        self.modules: tuple[Module, ...] = tuple(REGISTRY[n] for n in sorted(names))
        ms = self.modules
        self.components: tuple[Callable[[Components], Components], ...] = _bound(ms, "components")
        self.setup: tuple[Callable[[Any], None], ...] = _bound(ms, "setup")
        self.setup_asks: tuple[Callable[[Any], list[Task]], ...] = tuple(
            sorted(_bound(ms, "setup_asks"), key=lambda fn: fn.__self__.setup_last)
        )
        self.room: tuple[Callable[[Any, int, str], int | None], ...] = _bound(ms, "room")
        #: keshi colour -> the ``room`` hooks of the modules that decide its room.
        self.room_for: dict[str, tuple[Callable[[Any, int, str], int | None], ...]] = _by_key(
            self.room, "room_colours", KESHI_COLOURS
        )
        self.deploy: tuple[Callable[[Any, Task], bool], ...] = _bound(ms, "deploy")
        #: keshi colour -> the ``deploy`` hooks of the modules that may deploy it.
        self.deploy_for: dict[str, tuple[Callable[[Any, Task], bool], ...]] = _by_key(
            self.deploy, "deploy_colours", KESHI_COLOURS
        )
        self.round_tasks: tuple[Callable[[Any, str], list[Task]], ...] = _bound(ms, "round_tasks")
        self.turn_tasks: tuple[Callable[[Any, int, str], list[Task]], ...] = _bound(
            ms, "turn_tasks"
        )
        #: ``"start"``/``"end"`` -> the ``turn_tasks`` hooks of the modules with tasks then.
        self.turn_tasks_at: dict[str, tuple[Callable[[Any, int, str], list[Task]], ...]] = _by_key(
            self.turn_tasks, "turn_times", ("start", "end")
        )
        self.claim_options: tuple[Callable[[Any, int], list[int]], ...] = _bound(
            ms, "claim_options"
        )
        self.claim: tuple[Callable[[Any, int, Any], bool], ...] = _bound(ms, "claim")
        self.sector_action: tuple[Callable[[Any, int, str], bool], ...] = _bound(
            ms, "sector_action"
        )
        #: sector -> the ``sector_action`` hooks of the modules that act there.
        self.sector_action_for: dict[str, tuple[Callable[[Any, int, str], bool], ...]] = _by_key(
            self.sector_action, "action_sectors", actions.SECTORS
        )
        self.count: tuple[Callable[[Any, int, str], int | None], ...] = _bound(ms, "count")
        #: quantity -> the ``count`` hooks that may answer it (filled by :meth:`counted`).
        self._count_for: dict[str, tuple[Callable[[Any, int, str], int | None], ...]] = {}
        self.after_stair_move: tuple[Callable[[Any, int, str], None], ...] = _bound(
            ms, "after_stair_move"
        )
        self.after_score: tuple[Callable[[Any, int, int, str], None], ...] = _bound(
            ms, "after_score"
        )
        self.discount: tuple[Callable[[Any, int, str], int], ...] = _bound(ms, "discount")
        self.returnable: tuple[Callable[[Any, int, list[str]], list[str]], ...] = _bound(
            ms, "returnable"
        )
        self.return_keshi: tuple[Callable[[Any, int, str], bool], ...] = _bound(ms, "return_keshi")
        self.track_slot: tuple[Callable[[Any, int], int | None], ...] = _bound(ms, "track_slot")
        self.reached: tuple[Callable[[Any, int, str, Any], None], ...] = _bound(ms, "reached")
        self.vendor_water: tuple[Callable[[Any, int], None], ...] = _bound(ms, "vendor_water")
        self.extra_wood: tuple[Callable[[Any, int, int], int], ...] = _bound(ms, "extra_wood")
        self.pay_options: tuple[Callable[[Any, Task], list[int]], ...] = _bound(ms, "pay_options")
        self.pay_resolve: tuple[Callable[[Any, Task, Any], bool], ...] = _bound(ms, "pay_resolve")
        self.luxury_affordable: tuple[Callable[[Any, int, int], bool], ...] = _bound(
            ms, "luxury_affordable"
        )
        self.luxury_buy: tuple[Callable[[Any, int, int], bool], ...] = _bound(ms, "luxury_buy")
        self.luxury_gained: tuple[Callable[[Any, int, int], None], ...] = _bound(
            ms, "luxury_gained"
        )
        self.filled: tuple[Callable[[Any, int, str], bool | None], ...] = _bound(ms, "filled")
        self.towns: tuple[Callable[[Any, int], list[int]], ...] = _bound(ms, "towns")
        self.remaining: tuple[Callable[[Any, int], int], ...] = _bound(ms, "remaining")
        self.final_scoring: tuple[Callable[[Any, int], None], ...] = _bound(ms, "final_scoring")
        self.invariants: tuple[Callable[[Any], None], ...] = _bound(ms, "invariants")
        self.census: tuple[Callable[[Any], Counter[str]], ...] = _bound(ms, "census")
        self.view: tuple[Callable[[Any, int, dict[str, Any]], None], ...] = _bound(ms, "view")
        self.tensor_pieces: tuple[Callable[[Components], dict[str, tuple[int, ...]]], ...] = _bound(
            ms, "tensor_pieces"
        )
        self.encode: tuple[Callable[[Any, int, dict[str, Any]], None], ...] = _bound(ms, "encode")
        self.render_board: tuple[Callable[[Any], list[str]], ...] = _bound(ms, "render_board")
        self.render_player: tuple[Callable[[Any, int, dict[str, Any]], list[str]], ...] = _bound(
            ms, "render_player"
        )
        self.describe_choices: tuple[Callable[[Any, Task], list[str]], ...] = _bound(
            ms, "describe_choices"
        )
        self.replaced: frozenset[str] = frozenset(f for m in ms for f in m.replaces)
        #: Core decision kind -> the kind of the module that answers it.
        self.redirects: dict[str, str] = {}
        for m in ms:
            for kind, own in m.redirects:
                if kind in self.redirects:
                    raise RegistryError(f"{m.name}: decision {kind!r} is already redirected")
                self.redirects[kind] = own
        self.season = _season_steps(ms)
        layout = {"start": True, "towns": False}
        for m in ms:
            m.sahara(layout)
        #: Which sahara spaces exist: ``start`` (the start-oasis spaces 0 and 1),
        #: ``towns`` (the desert-town spaces 8 and 9).
        self.layout: dict[str, bool] = layout

    def counted(self, state: Any, p: int, what: str) -> int | None:
        """The first answer of the ``count`` hooks about ``what`` (else ``None``), asked of
        the modules that count it only (``Module.counts``)."""
        hooks = self._count_for.get(what)
        if hooks is None:
            hooks = self._count_for[what] = tuple(
                fn for fn in self.count if fn.__self__.counts is None or what in fn.__self__.counts
            )
        for fn in hooks:
            answer = fn(state, p, what)
            if answer is not None:
                return answer
        return None

    def first(self, hook: str, *args: Any) -> Any:
        """The first answer of ``hook`` that is not ``None`` (else ``None``)."""
        for fn in getattr(self, hook):
            answer = fn(*args)
            if answer is not None:
                return answer
        return None


def _bound(modules: tuple[Module, ...], hook: str) -> tuple[Any, ...]:
    """The bound methods ``hook`` of the ``modules`` that override it, in their order."""
    base = getattr(Module, hook)
    return tuple(getattr(m, hook) for m in modules if getattr(type(m), hook) is not base)


def _by_key(hooks: tuple[Any, ...], attr: str, keys: Iterable[str]) -> dict[str, tuple[Any, ...]]:
    """key -> the ``hooks`` whose module lists the key in its class attribute ``attr``
    (``room_colours``, ...), in hook order."""
    return {k: tuple(fn for fn in hooks if k in getattr(fn.__self__, attr)) for k in keys}


def _season_steps(modules: tuple[Module, ...]) -> tuple[tuple[str, Callable[..., Any] | None], ...]:
    """Core steps (``None`` tasks: run by the core) with the modules' steps inserted."""
    steps: list[tuple[str, Callable[..., Any] | None]] = [(s, None) for s in SEASON_STEPS]
    ahead: set[str] = set()  # module steps anchored before another step
    for m in modules:
        for step in m.season_steps:
            names = [n for n, _ in steps]
            where, anchor = ("before", step.before) if step.before else ("after", step.after)
            if anchor not in names or (step.before and step.after):
                raise RegistryError(
                    f"{m.name}: season step {step.name!r} comes {where} {anchor!r}, "
                    f"which is not a step of this game ({names}), or has two anchors"
                )
            if step.before:
                at = names.index(anchor)
                ahead.add(step.name)
            else:
                at = names.index(anchor) + 1
                # After the steps other modules already anchored after the same place.
                while at < len(steps) and steps[at][0] not in {*SEASON_STEPS, *ahead}:
                    at += 1
            steps.insert(at, (step.name, step.tasks))
    return tuple(steps)
