"""The web page in headless Chromium: 12 rounds, consistent totals, the law sums to 1.

The page is opened from ``file://`` (as offline from the folder), driven by Playwright with
the Debian Chromium (``/usr/bin/chromium``, or ``$TOWER_CHROMIUM``; Playwright's own
browser download is not used). The page's game is replayed with the Python reference:
same seed, same pieces out, same exact law. A screenshot goes to
``out/web-test/page.png`` (the README's picture is a copy, ``docs/img/web_page.png``).
Skipped, saying why, without Chromium or the ``web`` extra, unless ``TOWER_REQUIRE_BROWSER``
is set (as ``.ci/run`` does): then that is an error.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from tower.model import load_shipped
from tower.pieces import Piece

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

#: The 12 throws of the test: every button of the page.
KINDS = ["round4", "round3", "battle", "expert", "round2", "round4"] * 2
SEED = 3

KESHI = ["green", "gray", "white", "black", "pink", "turquoise", "beige", "brown", "red",
         "yellow", "purple", "orange"]  # fmt: skip
PLAYERS = ["red", "blue", "yellow", "green"]


class PagePieces:
    """The page's choice of pieces (web/app.js, THROWS), replayed with Python's random."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed + 1_000_003)

    def _int(self, lo: int, hi: int) -> int:
        return lo + int(self.rng.random() * (hi - lo + 1))

    def _keshis(self, n: int) -> list[str]:
        return [f"keshi:{KESHI[int(self.rng.random() * 12)]}" for _ in range(n)]

    def draw(self, kind: str) -> list[str]:
        if kind.startswith("round"):
            return self._keshis(3 * int(kind[-1]))
        if kind == "battle":
            watchmen = [f"watchman:{c}" for c in PLAYERS for _ in range(self._int(0, 3))]
            return watchmen + ["brigand:neutral"] * self._int(1, 3)
        pieces = self._keshis(12)
        return pieces + [f"expert:{KESHI[int(self.rng.random() * 12)]}" for _ in
                         range(self._int(1, 5))]  # fmt: skip


def read_int(page, selector: str) -> int:
    return int(page.inner_text(selector))


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def test_twelve_rounds_in_the_page(browser):
    page = browser.new_page(viewport={"width": 1100, "height": 1400})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{PAGE.as_uri()}?seed={SEED}")
    assert "checksum verified" in page.inner_text("#model-info")

    model = load_shipped("marrakesh")
    state, rng = model.new_state(), random.Random(SEED)
    chooser = PagePieces(SEED)
    next_kind, next_pieces = "round4", chooser.draw("round4")
    thrown = came_out = 0
    for i, kind in enumerate(KINDS, 1):
        page.click(f"button[data-throw={kind}]")
        # the same throw in Python: same pieces, same draws
        if kind != next_kind:
            next_kind, next_pieces = kind, chooser.draw(kind)
        pieces = [Piece.parse(p) for p in next_pieces]
        out, state = model.throw(state, pieces, rng)
        next_pieces = chooser.draw(kind)
        thrown += len(pieces)
        came_out += len(out)

        shown_out = page.eval_on_selector_all(
            "#out-pieces .chip", "c => c.map(e => e.dataset.piece)"
        )
        assert shown_out == [str(p) for p in out], f"throw {i}"
        total_in, total_out = read_int(page, "#total-in"), read_int(page, "#total-out")
        inside = read_int(page, "#total-inside")
        drawn_inside = page.eval_on_selector_all(
            "#tower .piece:not([data-place=out])", "els => els.map(e => e.dataset.piece)"
        )
        assert (total_in, total_out) == (thrown, came_out), f"throw {i}"
        assert total_in == total_out + inside, f"throw {i}: pieces in != out + inside"
        assert len(drawn_inside) == inside == len(state.residents), f"throw {i}"
        assert sorted(drawn_inside) == sorted(str(p) for p in state.pieces), f"throw {i}"
        bars = [float(x) for x in page.eval_on_selector_all(
            "#law rect.bar", "els => els.map(e => e.dataset.p)")]  # fmt: skip
        assert sum(bars) == pytest.approx(1.0, abs=1e-9), f"throw {i}: bars sum to {sum(bars)}"
        law = model.count_distribution(state, [Piece.parse(p) for p in next_pieces])
        assert bars == pytest.approx(law, abs=1e-12), f"throw {i}: law of the next throw"
    rows = page.eval_on_selector_all("#history-table tbody tr", "r => r.length")
    assert rows == len(KINDS)
    assert not errors, errors
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "page.png"), full_page=True)


def test_page_fits_a_phone_screen(browser):
    page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page.goto(f"{PAGE.as_uri()}?seed={SEED}")
    for kind in KINDS[:4]:
        page.click(f"button[data-throw={kind}]")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px screen"
    box = page.locator("button[data-throw=round2]").bounding_box()
    assert box is not None and box["height"] >= 40  # big enough to tap
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "phone.png"), full_page=True)


def test_a_bad_model_file_is_refused_in_the_page(browser, tmp_path):
    text = load_shipped("marrakesh").dumps().replace('"alpha":1.0', '"alpha":2.0')
    bad = tmp_path / "edited.json"
    bad.write_text(text)
    page = browser.new_page()
    page.goto(PAGE.as_uri())
    page.set_input_files("#model-file", str(bad))
    page.wait_for_selector("#error:not([hidden])")
    assert "edited.json: field sha256: checksum mismatch" in page.inner_text("#error")
    # the game goes on with the model it had
    page.click("button[data-throw=round4]")
    assert read_int(page, "#total-in") == 12
