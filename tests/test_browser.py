"""The web page at the table, in headless Chromium: every flow a player uses.

The page is opened from ``file://`` with every other request refused (offline), driven by
Playwright with the Debian Chromium (``/usr/bin/chromium``, or ``$TOWER_CHROMIUM``;
Playwright's own browser download is not used). What the page shows is checked against
the Python reference with the same model, seed and pieces: a 12-throw game, a Battle at the
Wall with hired watchmen (pieces out, points, breaches, and the expected values of
``tower battle``), an expert round. Also: reload restores the game, undo, new game asks,
export/import, the recorder's download read back by ``tower calibrate``, a bad model file,
a 390 px phone. Screenshots at 1280x900 and 390x844 go to ``out/web-test/``. No test may
leave a console error. Skipped, saying why, without Chromium or the ``web`` extra, unless
``TOWER_REQUIRE_BROWSER`` is set (as ``.ci/run`` does): then that is an error.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
from pathlib import Path

import pytest
from model_files import tampered

from tower.battle.checker import Situation, analyse, given_tower
from tower.calibration.recording import COLOUR_CODES
from tower.cli import main
from tower.marrakesh.wall_battle import Wall, battle_throw, fight_season, resolve_battle
from tower.model import load_shipped
from tower.pieces import KESHI_COLOURS, PLAYER_COLOURS, Piece

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "web" / "index.html"
SHOTS = ROOT / "out" / "web-test"
CHROMIUM = os.environ.get("TOWER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"

try:
    from playwright import sync_api
except ImportError:  # the optional extra is not installed
    sync_api = None

if sync_api is None:
    MISSING = "playwright missing (pip install -e '.[web]')"
elif not Path(CHROMIUM).exists():
    MISSING = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
else:
    MISSING = ""
if MISSING and os.environ.get("TOWER_REQUIRE_BROWSER"):
    # CI sets TOWER_REQUIRE_BROWSER: there a missing browser is a failure, not a skip
    raise RuntimeError(f"TOWER_REQUIRE_BROWSER is set but {MISSING}")
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"browser test skipped: {MISSING}")

WIDE = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def model():
    return load_shipped("marrakesh")


class Table:
    """A fresh browser context on the page, offline; fails on any console error."""

    def __init__(self, browser, viewport: dict[str, int]) -> None:
        self.context = browser.new_context(viewport=viewport, accept_downloads=True)
        self.errors: list[str] = []
        self.network: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.goto(PAGE.as_uri())
        self.page.wait_for_selector("#status:not(:empty)")

    def _route(self, route) -> None:
        url = route.request.url
        if url.startswith(("file:", "blob:", "data:")):
            route.continue_()
        else:  # offline: the page must not need the network
            self.network.append(url)
            route.abort()

    def new_game(self, players: int, *, walls: bool, experts: bool, seed: int) -> None:
        page = self.page
        page.click("#new-game")
        assert page.is_visible("#new-game-box")
        page.select_option("#ng-players", str(players))
        page.set_checked("#ng-walls", walls)
        page.set_checked("#ng-experts", experts)
        page.fill("#ng-seed", str(seed))
        page.click("#ng-start")
        assert not page.is_visible("#new-game-box")

    def tap(self, pieces: list[str]) -> None:
        for p in pieces:
            self.page.click(f"#keshi-grid button.tap[data-piece='{p}']")

    def chips(self, selector: str) -> list[str]:
        """The pieces shown as chips, one entry per piece, sorted as Python sorts them."""
        pairs = self.page.eval_on_selector_all(
            f"{selector} .chip", "cs => cs.map(c => [c.dataset.piece, +c.dataset.count])"
        )
        return sorted(p for p, n in pairs for _ in range(n))

    def number(self, selector: str) -> int:
        return int(self.page.inner_text(selector))

    def bars(self) -> list[float]:
        return [float(x) for x in self.page.eval_on_selector_all(
            "#law rect.bar", "els => els.map(e => e.dataset.p)")]  # fmt: skip

    def close(self) -> None:
        assert not self.errors, self.errors
        assert not self.network, f"the page asked the network for {self.network}"
        self.context.close()


@pytest.fixture
def table(browser):
    tables: list[Table] = []

    def open_table(viewport: dict[str, int] = WIDE) -> Table:
        tables.append(Table(browser, viewport))
        return tables[-1]

    yield open_table
    for t in tables:
        t.close()


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=True)


def keshis(rng: random.Random, n: int) -> list[str]:
    return [f"keshi:{rng.choice(KESHI_COLOURS)}" for _ in range(n)]


def parse(pieces: list[str]) -> list[Piece]:
    return sorted(Piece.parse(p) for p in pieces)


def test_a_twelve_throw_game_gives_the_same_outcomes_as_python(table, model):
    """Three seasons of 4-player rounds, keshis tapped in: the page and Python agree."""
    t = table()
    page = t.page
    t.new_game(4, walls=False, experts=False, seed=7)
    assert page.inner_text("#status").startswith("Season 1 of 3 · Round 1 of 4 · 4 players")
    state, rng, choose = model.new_state(), random.Random(7), random.Random(11)
    thrown = came_out = 0
    for i in range(12):
        pieces = keshis(choose, 12)
        t.tap(pieces)
        assert page.inner_text("#entry-summary").startswith("12 of 12 keshis entered")
        law = model.count_distribution(state, parse(pieces))
        assert t.bars() == pytest.approx(law, abs=1e-12), f"throw {i + 1}: law before"
        page.click("#throw")
        out, state = model.throw(state, parse(pieces), rng)
        thrown, came_out = thrown + 12, came_out + len(out)
        assert t.chips("#out-pieces") == sorted(str(p) for p in out), f"throw {i + 1}"
        assert t.chips("#inside-pieces") == sorted(str(p) for p in state.pieces), f"throw {i + 1}"
        assert (t.number("#total-in"), t.number("#total-out")) == (thrown, came_out)
        assert t.number("#total-inside") == len(state.residents) == thrown - came_out
        drawn = page.eval_on_selector_all(
            "#tower .piece:not([data-place=out])", "els => els.map(e => e.dataset.piece)"
        )
        assert sorted(drawn) == sorted(str(p) for p in state.pieces)
        if i == 0:
            assert "Round 2 of 4" in page.inner_text("#status")
            # the base is shown sorted by colour as in the rulebook
            shown = page.eval_on_selector_all(
                "#out-pieces .chip", "cs => cs.map(c => c.dataset.piece)"
            )
            assert shown == sorted(shown, key=lambda p: KESHI_COLOURS.index(p.split(":")[1]))
        if i == 4:
            assert "Season 2 of 3 · Round 1 of 4" not in page.inner_text("#status")
            assert "Season 2 of 3 · Round 2 of 4" in page.inner_text("#status")
    assert page.inner_text("#status").startswith("Game over")
    assert page.eval_on_selector_all("#history-table tbody tr", "r => r.length") == 12
    shot(page, "game-1280x900.png")


def test_a_battle_at_the_wall_with_hired_watchmen(table, model):
    """Four rounds, then the season's battles: the pieces thrown by the rules, the pieces out,
    points and breaches as in Python, and the expected values of `tower battle`."""
    t = table()
    page = t.page
    t.new_game(4, walls=True, experts=False, seed=11)
    state, rng, choose = model.new_state(), random.Random(11), random.Random(3)
    for _ in range(4):  # quick entry by typing, as `tower record` reads it
        counts = {c: choose.randint(0, 2) for c in ("r", "g", "y", "k", "u", "o")}
        typed = " ".join(f"{c}{n}" for c, n in counts.items() if n)
        page.fill("#typed", typed)
        page.dispatch_event("#typed", "change")
        pieces = [f"keshi:{COLOUR_CODES[c]}" for c, n in counts.items() for _ in range(n)]
        page.click("#throw")
        out, state = model.throw(state, parse(pieces), rng)
        assert t.chips("#out-pieces") == sorted(str(p) for p in out)
    assert "Battle at the Wall" in page.inner_text("#status")

    order = ("yellow", "green", "blue", "red")
    hired = {"red": 2, "yellow": 1, "green": 0, "blue": 3}
    repaired = {"red": 1, "yellow": 0, "green": 2, "blue": 0}
    page.select_option("#battle-first", "yellow")
    for p in PLAYER_COLOURS:
        page.select_option(f"[data-testid=hired-{p}]", str(hired[p]))
        page.select_option(f"[data-testid=repaired-{p}]", str(repaired[p]))
    rows = page.eval_on_selector_all("#battle-rows tr", "rs => rs.map(r => r.dataset.player)")
    assert tuple(rows) == order

    def shown(player: str, what: str) -> tuple[float, float]:
        cell = page.locator(f"tr[data-player={player}] [data-expect-{what}]")
        return float(cell.get_attribute(f"data-expect-{what}")), float(
            cell.get_attribute("data-se")
        )

    expected = {p: (*shown(p, "points"), *shown(p, "breaches")) for p in order}
    page.reload()  # the battle's settings survive a reload
    page.wait_for_selector("#battle-rows tr")
    assert {p: (*shown(p, "points"), *shown(p, "breaches")) for p in order} == expected
    assert page.input_value("[data-testid=hired-blue]") == "3"
    situation = Situation(1, order, hired, {p: Wall(repaired[p]) for p in order})
    py = analyse(model, situation, given_tower(state), samples=4000, seed=1, hiring=False)
    for stats in py.players:
        pts, pts_se, br, br_se = expected[stats.player]
        for name, page_v, page_se, py_v, py_se in (
            ("points", pts, pts_se, stats.points, stats.points_se),
            ("breaches", br, br_se, stats.breaches_mean, stats.breaches_se),
        ):
            bound = 4 * math.hypot(page_se, py_se) + 1e-9
            assert abs(page_v - py_v) <= bound, f"{stats.player} {name}: {page_v} vs {py_v}"
    assert page.inner_text("#battle-next").startswith(
        "yellow's battle throws 1 yellow watchman, 1 brigand"
    )

    def throw(pieces: list[Piece]) -> list[Piece]:
        nonlocal state
        out, state = model.throw(state, sorted(pieces), rng)
        return out

    season = fight_season(1, order, hired, {p: Wall(repaired[p]) for p in order}, throw)
    for step in season.steps:
        page.click("#battle-throw")
        assert t.chips("#out-pieces") == sorted(str(p) for p in step.out), step.player
        wall = page.locator(f"#battle-result .wall[data-player={step.player}]")
        assert int(wall.get_attribute("data-points")) == step.outcome.points
        assert int(wall.get_attribute("data-breaches")) == len(step.outcome.breaches)
    assert "Season 2 of 3 · Round 1 of 4" in page.inner_text("#status")
    # the keshis left in the base go into the next season's first throw (seed 11 leaves some)
    carried = [str(p) for p in season.aftermath.next_throw]
    assert carried and "Also going in from the battle" in page.inner_text("#entry-summary")
    fresh = keshis(choose, 12)
    t.tap(fresh)
    page.click("#throw")
    out, state = model.throw(state, parse(carried + fresh), rng)
    assert t.chips("#out-pieces") == sorted(str(p) for p in out)
    assert t.number("#total-inside") == len(state.residents)
    assert "Season 2 of 3 · Round 2 of 4" in page.inner_text("#status")
    page.click("#undo")  # back to the end of the battle, every wall shown
    assert page.locator("#battle-result .wall").count() == 4
    shot(page, "battle-1280x900.png")


def test_the_pages_battle_rules_are_the_engines(table):
    """web/battle.js against tower/marrakesh/wall_battle.py on random battles."""
    page = table().page
    rng = random.Random(6)
    cases = []
    for _ in range(400):
        pool = [f"watchman:{c}" for c in PLAYER_COLOURS for _ in range(3)]
        pool += ["brigand:neutral"] * 3 + keshis(rng, 4) + ["expert:neutral"]
        out = rng.sample(pool, rng.randint(0, len(pool)))
        cases.append([rng.choice(PLAYER_COLOURS), out, rng.randint(0, 6)])
    js = page.evaluate(
        """cases => cases.map(([player, out, repaired]) => {
             const o = TowerBattle.resolveBattle(player, out, repaired);
             return [o.points, o.repelled, o.breaches, o.guarded, o.unopposed];
           })""",
        cases,
    )
    for (player, out, repaired), got in zip(cases, js, strict=True):
        o = resolve_battle(player, [Piece.parse(p) for p in out], Wall(repaired))
        want = [o.points, o.repelled, list(o.breaches), list(o.guarded), o.unopposed]
        assert got == want, (player, out, repaired)
    assert any(w[4] for w in js) and any(w[2] for w in js)  # overflow and breaches occur
    for season, base in [(1, None), (3, None), (2, ["keshi:red", "brigand:neutral"])]:
        thrown = page.evaluate(
            "([s, b]) => TowerBattle.battleThrow(s, 'green', 2, b)", [season, base]
        )
        parsed = None if base is None else [Piece.parse(p) for p in base]
        assert sorted(thrown) == sorted(str(p) for p in battle_throw(season, "green", 2, parsed))


def test_an_expert_round(table, model):
    """Gems & Experts: one expert keshi per face-up expert tile goes in with the keshis."""
    t = table()
    page = t.page
    t.new_game(3, walls=False, experts=True, seed=9)
    state, rng, choose = model.new_state(), random.Random(9), random.Random(4)
    for faceup in (1, 3):
        pieces = keshis(choose, 9)
        t.tap(pieces)
        page.click(f"#expert-buttons button[data-experts='{faceup}']")
        assert f"with {faceup} expert keshi" in page.inner_text("#entry-summary")
        pieces += ["expert:neutral"] * faceup
        page.click("#throw")
        out, state = model.throw(state, parse(pieces), rng)
        assert t.chips("#out-pieces") == sorted(str(p) for p in out)
        assert t.chips("#inside-pieces") == sorted(str(p) for p in state.pieces)
        # an expert keshi stuck in the tower cannot be thrown: 5 minus those stay offered
        stuck = sum(str(p) == "expert:neutral" for p in state.pieces)
        assert page.locator("#expert-buttons button:disabled").count() == stuck
    assert "went in" in page.inner_text("#last-throw") and "3 expert keshis" in page.inner_text(
        "#last-throw"
    )


def test_reload_undo_new_game_export_and_import(table, tmp_path):
    t = table()
    page = t.page
    t.new_game(2, walls=False, experts=False, seed=3)
    t.tap(["keshi:red", "keshi:red", "keshi:green", "keshi:pink", "keshi:white", "keshi:black"])
    page.click("#throw")
    after_one = (t.chips("#out-pieces"), page.inner_text("[data-testid=totals]"))
    t.tap(["keshi:orange"] * 6)
    page.click("#throw")
    after_two = (
        t.chips("#out-pieces"),
        page.inner_text("[data-testid=totals]"),
        page.inner_text("#status"),
    )

    t.tap(["keshi:gray", "keshi:gray", "keshi:beige"])  # an entry in progress is kept too
    page.reload()
    page.wait_for_selector("#status:not(:empty)")
    assert page.inner_text("#entry-summary").startswith("3 of 6 keshis entered")
    page.click("#clear")
    assert (t.chips("#out-pieces"), page.inner_text("[data-testid=totals]"),
            page.inner_text("#status")) == after_two  # fmt: skip

    # undo goes back one step, with the undone keshis ready to throw again
    page.click("#undo")
    assert (t.chips("#out-pieces"), page.inner_text("[data-testid=totals]")) == after_one
    assert page.inner_text("#entry-summary").startswith("6 of 6 keshis entered")
    page.click("#throw")  # the same throw again: the same outcome (the game's seed)
    assert (t.chips("#out-pieces"), page.inner_text("[data-testid=totals]"),
            page.inner_text("#status")) == after_two  # fmt: skip
    page.click("#undo")
    page.click("#undo")
    assert page.inner_text("[data-testid=totals]").replace(" ", "") == "In:0·out:0·inside:0"
    assert page.is_disabled("#undo")
    page.click("#clear")
    t.tap(["keshi:red"] * 6)
    page.click("#throw")
    page.click("#undo")
    page.click("#throw")

    # export, then a new game (asked first), then import: the game is back
    with page.expect_download() as info:
        page.click("#export")
    log = tmp_path / "game.json"
    info.value.save_as(log)
    doc = json.loads(log.read_text())
    assert doc["format"] == "tower.web-game/1" and len(doc["steps"]) == 1
    before = (t.chips("#out-pieces"), page.inner_text("[data-testid=totals]"))
    page.click("#new-game")
    assert "1 step will be gone" in page.inner_text("#new-game-box")
    page.click("#ng-cancel")  # keep playing: nothing changed
    assert (t.chips("#out-pieces"), page.inner_text("[data-testid=totals]")) == before
    t.new_game(4, walls=True, experts=True, seed=1)
    assert page.inner_text("[data-testid=totals]").replace(" ", "") == "In:0·out:0·inside:0"
    page.set_input_files("#import-file", str(log))
    page.wait_for_function("document.getElementById('total-in').textContent !== '0'")
    assert (t.chips("#out-pieces"), page.inner_text("[data-testid=totals]")) == before
    # a log with an illegal step is refused in one sentence, the game unchanged
    doc["steps"].append({"t": "battle", "player": "red", "hired": 0, "repaired": 0})
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    page.set_input_files("#import-file", str(bad))
    page.wait_for_selector("#error:not([hidden])")
    error = page.inner_text("#error")
    assert error == (
        "bad.json cannot be imported: step 2 is a battle, but no Battle at the Wall is due."
    )
    assert (t.chips("#out-pieces"), page.inner_text("[data-testid=totals]")) == before


def test_the_recorder_download_is_read_by_tower_calibrate(table, tmp_path):
    """Recorder mode: one colour of 12 per throw, colours in turn, from an empty tower;
    undo and a running count; `tower calibrate --simulator baseline` reads the download."""
    from tower.calibration.recording import read_recording

    t = table(PHONE)
    page = t.page
    page.click("#tab-recorder")
    page.fill("#rec-tower", "my marrakesh")
    page.fill("#rec-text", "kitchen table, test")
    rng = random.Random(2)
    inside = dict.fromkeys(KESHI_COLOURS, 0)
    throws = []
    for i in range(26):
        colour = KESHI_COLOURS[i % 12]
        assert f"Throw 12 {colour} keshis" in page.inner_text("#rec-instruction")
        inside[colour] += 12
        out = {c: rng.randint(0, min(n, 9 if c == colour else 1)) for c, n in inside.items()}
        for c, n in out.items():
            for _ in range(n):
                page.click(f"#rec-grid button.tap[data-piece='keshi:{c}']")
        if i == 3:  # undo a saved throw: its counts come back to correct
            page.click("#rec-save")
            page.click("#rec-undo")
        page.click("#rec-save")
        for c, n in out.items():
            inside[c] -= n
        throws.append(out)
        total_in, total_out = 12 * (i + 1), sum(sum(o.values()) for o in throws)
        assert page.inner_text("#rec-counts") == (
            f"{i + 1} {'throw' if i == 0 else 'throws'} recorded: {total_in} keshis in, "
            f"{total_out} out, {total_in - total_out} inside."
        )
    # a colour cannot come out more often than it went in
    page.click("#rec-grid button.tap[data-piece='keshi:orange']")
    for _ in range(20):
        page.click("#rec-grid button.tap[data-piece='keshi:gray']")
    assert f"{inside['gray']} gray" in page.inner_text("#rec-summary")
    page.click("#rec-undo")  # clears the entry
    shot(page, "recorder-390x844.png")
    with page.expect_download() as info:
        page.click("#rec-download")
    path = tmp_path / "my-tower.csv"
    info.value.save_as(path)
    recording = read_recording(path)
    assert recording.n_throws == 26
    session = recording.sessions[0]
    assert session.start == "empty" and session.tower == "my marrakesh"
    for i, (thr, out) in enumerate(zip(session.throws, throws, strict=True)):
        assert thr.pieces_in == {KESHI_COLOURS[i % 12]: 12}
        assert thr.pieces_out == {c: n for c, n in out.items() if n}
    result = tmp_path / "calibrated"
    main(["calibrate", str(path), "--out", str(result), "--simulator", "baseline",
          "--budget", "8", "--checks", "2", "--workers", "1", "--quiet"])  # fmt: skip
    params = json.loads((result / "params.json").read_text())
    assert "model.p_fresh" in params["calibration"]["parameters"]


def test_a_bad_model_file_gets_one_sentence(table, tmp_path, model):
    t = table()
    page = t.page
    info = page.inner_text("#model-info")
    assert "Its checksum holds" in info and "“marrakesh”" in info
    assert not page.is_visible("#model-facts")  # schema and checksum behind "details"
    page.click("#model-details summary")
    assert json.loads(model.dumps())["sha256"] in page.inner_text("#model-facts")
    bad = tmp_path / "edited.json"
    bad.write_text(tampered(model.dumps()))
    page.set_input_files("#model-file", str(bad))
    page.wait_for_selector("#error:not([hidden])")
    error = page.inner_text("#error")
    assert error.startswith("This file is not a tower model the page can use: edited.json: ")
    assert "checksum mismatch" in error and error.count(". ") == 0 and "\n" not in error
    assert page.inner_text("#model-info") == info  # the game goes on with its tower
    t.tap(["keshi:red"] * 12)
    page.click("#throw")
    assert t.number("#total-in") == 12
    # any other model file is opened the same way, and kept across a reload
    small = ROOT / "js" / "test" / "data" / "model.json"
    page.set_input_files("#model-file", str(small))
    # the file is read in the background: wait for the tower's words to change (the throw
    # above already hid the error, so waiting on the error would not wait at all)
    page.wait_for_function(
        "old => document.getElementById('model-info').textContent !== old", arg=info
    )
    assert page.inner_text("#model-info").startswith("Tower: “small-test”")
    page.reload()
    page.wait_for_selector("#status:not(:empty)")
    assert page.inner_text("#model-info").startswith("Tower: “small-test”")
    assert t.number("#total-in") == 12  # the game goes on, replayed with this tower


def test_the_page_fits_a_phone_without_split_words(table):
    t = table(PHONE)
    page = t.page
    t.new_game(4, walls=True, experts=True, seed=2)
    for _ in range(4):
        page.fill("#typed", "r3 g3 y3 u3")
        page.dispatch_event("#typed", "change")
        page.click("#expert-buttons button[data-experts='2']")
        page.click("#throw")
    page.select_option("[data-testid=hired-red]", "2")
    page.click("#battle-throw")
    page.click("#model-details summary")
    shot(page, "game-390x844.png")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px screen"
    box = (
        page.locator("#keshi-grid button.tap").first.bounding_box()
        or page.locator("#battle-throw").bounding_box()
    )
    assert box is not None and box["height"] >= 40  # big enough to tap
    split = page.evaluate(SPLIT_WORDS)
    assert not split, f"words broken across lines: {split}"
    page.click("#tab-recorder")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert not page.evaluate(SPLIT_WORDS)


#: Words of the visible text (outside the "details" list of technical strings) that a line
#: break cuts in two: a word drawn on more than one line box.
SPLIT_WORDS = """() => {
  const split = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest("#model-facts, script, svg, [hidden]")) continue;
    for (const m of node.textContent.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0);
      const tops = new Set(rects.map((r) => Math.round(r.top)));
      if (tops.size > 1) split.push(m[0]);
    }
  }
  return split;
}"""
