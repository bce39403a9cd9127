"""Hook points: how a module plugs into the rules engine.

A *module* (an expansion of the rulebooks) is a subclass of :class:`Module` that lives in
``tower/marrakesh/modules/`` and is registered with :func:`register`. The core (rules,
state, sectors, effects, phases, scoring, invariants, ui, adapters) never names a module
and never imports one: it calls the hooks of the modules a game switched on, which
:class:`Hooks` collects once per :class:`~tower.marrakesh.game.Game`.

Order
-----
Every hook runs for the enabled modules **in the order of their names** (``sorted``), so
two games with the same modules run the same hooks in the same order, whatever the order
in which the modules were registered or listed in ``GameConfig.modules``. A hook that
answers a question (``room``, ``filled``, ...) takes the first answer that is not
``None``; a hook that acts (``setup``, ``final_scoring``, ...) runs for every module.
Season-scoring steps are placed by their anchors (:class:`SeasonStep`), not by name.

The hook points
---------------
Class attributes (data):

``name``, ``title``, ``rulebook``, ``playable``
    The name that switches the module on in ``GameConfig.modules``, its printed title,
    the rulebook it comes from (its title, such as ``"Gems & Experts"``), and whether the
    engine plays it (the README's module table lists every module of the rulebooks,
    playable or not).
``requires``, ``excludes``
    Config compatibility: modules that must (must not) be switched on with this one.
    :meth:`Module.check_config` can refuse a configuration for any other reason.
``action_kinds``
    Extra action kinds, ``((kind, size), ...)``. They are appended to the fixed action
    space (:mod:`tower.marrakesh.actions`) when the module registers, in registration
    order, so every game sees the same ids. Register new modules at the end of
    ``modules/__init__.py`` to keep the ids of older kinds stable.
``replaces``
    Core features the module replaces (names in :data:`FEATURES`): the core skips them.
``redirects``
    Core decisions the module answers in its own way, ``((core kind, module kind), ...)``: a
    pending decision of the core kind is answered by the module's options and resolution
    (e.g. the Closed Madrasa's oasis-track scroll bonus, Alms in the souk). Two enabled
    modules may not redirect the same kind.
``season_steps``
    Steps of the season scoring, each anchored after (or ``before``) a core step or an
    earlier module step (:data:`SEASON_STEPS` are the core's: ``river``, ``provisions``,
    ``prepare``). Every step runs before the next season's first round (or the final
    scoring), which follows the last step.
``setup_last``
    The module's ``setup_asks`` come after those of every module without it (in name
    order among themselves): e.g. a keshi deployed at setup needs the other modules'
    boards set up first.

Methods (hooks), in the order a game meets them:

1. ``read_tables(path, data) -> {name: {id: entry}}``: the module's own tables of the
   component file, checked when the file is loaded (``Components.tables``);
   ``components(comps) -> comps``: component data the module adds or replaces in a game.
2. ``setup(state)``: setup steps, after the core's setup (random elements from
   ``state.rng``); ``setup_asks(state) -> [task]``: the players' setup decisions,
   after the core's (``setup_last`` modules' after the others').
3. Deploying a keshi: ``room(state, p, colour) -> int | None`` (how many more fit),
   ``deploy(state, task) -> bool`` (True: the module placed it), ``sahara(layout)``
   (which sahara spaces exist: a dict with ``start`` and ``towns``).
4. The round and the turn: ``round_tasks(state, when) -> [task]`` runs at the start of a
   round (``when == "start"``, before the keshi selection) and at its end (``"end"``,
   after the river bonus); ``turn_tasks(state, p, when) -> [task]`` at the start of
   player ``p``'s phase-3 turn (before their assistants) and at its end (before the
   turn's reveals). These are the places for extra decisions of a module (an ability
   used once per round or turn: push an ``ask``), and for per-round resets.
   Claiming (phase 2): ``claim_options(state, p) -> [action ids]`` (what a module offers
   in place of keshis of one colour; a player with such an option does not forfeit the
   phase) and ``claim(state, p, action) -> bool`` (True: the module resolved it). A
   module adds pieces to a round's throw by listing them (``str(piece)``) under
   ``"extra"`` in the pending ``throw`` task (:func:`tower.marrakesh.rules.thrown`).
5. Actions: ``sector_action(state, p, sector) -> bool`` (runs before the core's sector
   action; True replaces it), ``count(state, p, what) -> int | None`` (the keshis that
   count for ``what``, e.g. ``"date_pickers"``), ``after_stair_move(state, p, which)``,
   ``after_score(state, p, delta, reason)`` (after every logged score change, the
   setup's start scores included, which come before any module's ``setup``; a module
   may push tasks, which run next),
   ``discount(state, p, what) -> int`` (``"scroll_dates"``, ``"luxury_keshis"``),
   ``returnable(state, p, colours) -> colours`` and ``return_keshi(state, p, colour) ->
   bool`` (the oasis track's exchange icon), ``track_slot(state, p) -> int | None``
   (the oasis-track space the activated oasis just added to ``claimed`` takes: a module
   that frees spaces, e.g. the Second-Hand Shop, fills its gaps first; it records the
   placement; ``None``: the next space on the right). Extra decisions are registered with
   :func:`tower.marrakesh.rules.task`, :func:`~tower.marrakesh.rules.options` and
   :func:`~tower.marrakesh.rules.resolve`; effects of new components with
   :data:`tower.marrakesh.effects.SPECIALS` and ``COUNTS``; pieces other than keshis
   falling out of the tower with :data:`tower.marrakesh.rules.PIECE_OUT`, and what a
   throw's pieces do with :data:`tower.marrakesh.rules.AFTER_THROW`.
   ``reached(state, p, what, where)``: player ``p`` just reached a place of the board
   (after the core's own effects of it are scheduled; pushed tasks run first): ``what`` is
   ``"river"`` (``where`` = the fisherman's new position), ``"connection"`` (a connection
   bonus of the line ``[mosque segment, palace segment]`` is due), ``"audience"`` (the
   bonus of the audience-disc section ``where`` was chosen in a main-square action),
   ``"sahara"`` (the oasis of sahara space ``where`` was discovered), ``"gate"`` (a city
   gate with its guard on gate space ``where``), ``"keshi"`` (a keshi of colour ``where``
   deployed on the player board by the core), ``"track"`` (an activated oasis took
   oasis-track space ``where``).
   ``vendor_water(state, p)``: a water vendor just gave ``p`` water for an assistant in
   its sector. Resources: ``extra_wood(state, p, received) -> int`` (wood
   added when ``p`` receives ``received`` wood; the answers are summed),
   ``pay_options(state, task) -> ids`` and ``pay_resolve(state, task, action) -> bool``
   (other ways to pay a ``pay_resource`` decision, "1 resource of your choice"; resolve
   returns True for its own actions). Luxury goods: ``luxury_affordable(state, p, lux) ->
   bool`` (another way to pay for ``lux``), ``luxury_buy(state, p, shop) -> bool`` (the
   purchase from ``shop`` is chosen; True: the module took over the payment, else the
   printed price is paid), ``luxury_gained(state, p, lux)`` (``p`` gained ``lux``).
6. Season scoring: ``season_steps`` (see above).
7. Final scoring: ``filled(state, p, sector) -> bool | None``, ``towns(state, p) ->
   [town ids]`` (desert towns that score), ``remaining(state, p) -> int`` (extra
   remaining resources), ``final_scoring(state, p)`` (a player's module points, before
   the core's final steps: filled sectors, oases, desert towns, resources).
8. Invariants: ``invariants(state)`` (raise ``AssertionError``), ``census(state) ->
   Counter`` (keshis the module holds outside the core's places).
9. What players see: ``view(state, viewer, v)`` (add the module's public part to the
   view dict), ``tensor_pieces(comps) -> {name: shape}`` and ``encode(state, viewer,
   views)`` (the observation tensor), ``render_board(state) -> [lines]``,
   ``render_player(state, i, pv) -> [lines]`` and ``describe_choices(state, top) ->
   [lines]`` (the terminal board).

Where module data goes
----------------------
Components: the module's tables in ``data/components.toml`` (or its own file) with
``source = "rulebook"`` or ``"assumed"``, merged by its ``components`` hook. State:
``state.ext[name]`` and ``state.players[i].ext[name]``, per-module slots the core never
reads; they must hold plain JSON data (dicts, lists, strings, numbers, booleans, None),
which :meth:`State.to_json` writes and :meth:`State.clone` copies. Never keep state on
the module object: one module object serves every game.

Examples
--------
>>> class Quiet(Module):
...     name = "quiet_example"
>>> Quiet().setup(None) is None and Quiet().room(None, 0, "red") is None
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from tower.errors import TowerError
from tower.marrakesh import actions

if TYPE_CHECKING:
    from tower.marrakesh.component_data import Components

Task = dict[str, Any]

#: The state a hook receives: a :class:`tower.marrakesh.state.State` in a game. The hook
#: points are generic over it rather than naming the state's class, because the state
#: holds the game, which holds these hooks (a module subclasses plain ``Module`` and
#: annotates its hooks with ``State``).
StateT = TypeVar("StateT")

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


class Module(Generic[StateT]):
    """Base class of a module: every hook does nothing (see the module docstring)."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    rulebook: ClassVar[str] = ""
    playable: ClassVar[bool] = True
    requires: ClassVar[frozenset[str]] = frozenset()
    excludes: ClassVar[frozenset[str]] = frozenset()
    action_kinds: ClassVar[tuple[tuple[str, int], ...]] = ()
    replaces: ClassVar[frozenset[str]] = frozenset()
    redirects: ClassVar[tuple[tuple[str, str], ...]] = ()
    season_steps: ClassVar[tuple[SeasonStep, ...]] = ()
    setup_last: ClassVar[bool] = False

    # -- configuration and components ------------------------------------------------
    def check_config(self, players: int, modules: frozenset[str]) -> str | None:
        """A reason this configuration is not allowed, or ``None``."""
        return None

    def read_tables(self, path: str, data: dict[str, Any]) -> dict[str, dict[int, Any]]:
        """The module's own tables of the component file ``data`` (read from ``path``),
        checked (raise :class:`tower.errors.InputFileError` naming the field); they land
        in ``Components.tables``. Runs for every registered module, on or off."""
        return {}

    def components(self, comps: Components) -> Components:
        return comps

    # -- setup -------------------------------------------------------------------------
    def setup(self, state: StateT) -> None:
        return None

    def setup_asks(self, state: StateT) -> list[Task]:
        return []

    # -- deploying ---------------------------------------------------------------------
    def room(self, state: StateT, p: int, colour: str) -> int | None:
        return None

    def deploy(self, state: StateT, task: Task) -> bool:
        return False

    def sahara(self, layout: dict[str, bool]) -> None:
        return None

    # -- the round and the turn --------------------------------------------------------
    def round_tasks(self, state: StateT, when: str) -> list[Task]:
        return []

    def turn_tasks(self, state: StateT, p: int, when: str) -> list[Task]:
        return []

    def claim_options(self, state: StateT, p: int) -> list[int]:
        return []

    def claim(self, state: StateT, p: int, action: Any) -> bool:
        return False

    # -- actions -----------------------------------------------------------------------
    def sector_action(self, state: StateT, p: int, sector: str) -> bool:
        return False

    def count(self, state: StateT, p: int, what: str) -> int | None:
        return None

    def after_stair_move(self, state: StateT, p: int, which: str) -> None:
        return None

    def after_score(self, state: StateT, p: int, delta: int, reason: str) -> None:
        return None

    def discount(self, state: StateT, p: int, what: str) -> int:
        return 0

    def returnable(self, state: StateT, p: int, colours: list[str]) -> list[str]:
        return colours

    def return_keshi(self, state: StateT, p: int, colour: str) -> bool:
        return False

    def track_slot(self, state: StateT, p: int) -> int | None:
        return None

    def reached(self, state: StateT, p: int, what: str, where: Any) -> None:
        return None

    def vendor_water(self, state: StateT, p: int) -> None:
        return None

    def extra_wood(self, state: StateT, p: int, received: int) -> int:
        return 0

    def pay_options(self, state: StateT, task: Task) -> list[int]:
        return []

    def pay_resolve(self, state: StateT, task: Task, action: Any) -> bool:
        return False

    def luxury_affordable(self, state: StateT, p: int, lux: int) -> bool:
        return False

    def luxury_buy(self, state: StateT, p: int, shop: int) -> bool:
        return False

    def luxury_gained(self, state: StateT, p: int, lux: int) -> None:
        return None

    # -- final scoring -----------------------------------------------------------------
    def filled(self, state: StateT, p: int, sector: str) -> bool | None:
        return None

    def towns(self, state: StateT, p: int) -> list[int]:
        return []

    def remaining(self, state: StateT, p: int) -> int:
        return 0

    def final_scoring(self, state: StateT, p: int) -> None:
        return None

    # -- invariants --------------------------------------------------------------------
    def invariants(self, state: StateT) -> None:
        return None

    def census(self, state: StateT) -> Counter[str]:
        return Counter()

    # -- what players see --------------------------------------------------------------
    def view(self, state: StateT, viewer: int, v: dict[str, Any]) -> None:
        return None

    def tensor_pieces(self, comps: Components) -> dict[str, tuple[int, ...]]:
        return {}

    def encode(self, state: StateT, viewer: int, views: dict[str, Any]) -> None:
        return None

    def render_board(self, state: StateT) -> list[str]:
        return []

    def render_player(self, state: StateT, i: int, pv: dict[str, Any]) -> list[str]:
        return []

    def describe_choices(self, state: StateT, top: Task) -> list[str]:
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
    that hook (empty without modules, so the base game pays nothing for them).
    """

    def __init__(self, names: Iterable[str]) -> None:
        self.modules: tuple[Module, ...] = tuple(REGISTRY[n] for n in sorted(names))
        for hook in HOOKS:
            base = getattr(Module, hook)
            bound = tuple(
                getattr(m, hook) for m in self.modules if getattr(type(m), hook) is not base
            )
            setattr(self, hook, bound)
        self.replaced: frozenset[str] = frozenset(f for m in self.modules for f in m.replaces)
        #: Core decision kind -> the kind of the module that answers it.
        self.redirects: dict[str, str] = {}
        for m in self.modules:
            for kind, own in m.redirects:
                if kind in self.redirects:
                    raise RegistryError(f"{m.name}: decision {kind!r} is already redirected")
                self.redirects[kind] = own
        self.setup_asks = tuple(sorted(self.setup_asks, key=lambda fn: fn.__self__.setup_last))
        self.season = _season_steps(self.modules)
        layout = {"start": True, "towns": False}
        for m in self.modules:
            m.sahara(layout)
        #: Which sahara spaces exist: ``start`` (the start-oasis spaces 0 and 1),
        #: ``towns`` (the desert-town spaces 8 and 9).
        self.layout: dict[str, bool] = layout

    def first(self, hook: str, *args: Any) -> Any:
        """The first answer of ``hook`` that is not ``None`` (else ``None``)."""
        for fn in getattr(self, hook):
            answer = fn(*args)
            if answer is not None:
                return answer
        return None


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
