"""Tables and plots of a battle analysis.

:func:`table` renders an :class:`~tower.battle.checker.Analysis` as fixed-width text;
:func:`plot` writes a PNG (matplotlib, Agg backend, imported lazily).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from tower.battle.checker import Analysis, CheckResult, PlayerStats
from tower.battle.physics import Comparison
from tower.files.outputs import save_figure

#: Model and physics agree when their means differ by at most this many combined SEs.
AGREE_Z = 2.0


def _pm(value: float, se: float, method: str) -> str:
    return f"{value:5.2f}" if method == "exact" else f"{value:5.2f} ± {se:.2f}"


def _law(law: dict[int, float], width: int) -> str:
    return " ".join(f"{law.get(k, 0.0):.2f}" for k in range(width))


def _breach_columns(players: tuple[PlayerStats, ...]) -> int:
    """How many P(breaches = k) columns: k = 0..4, and further while any player's law
    has mass there, so that every row sums to 1."""
    return 1 + max([4, *(max(p.breaches) for p in players if p.breaches)])


def _cost(cost: dict[str, int]) -> str:
    return ", ".join(f"{n} {r}" for r, n in cost.items()) or "-"


def table(analysis: Analysis) -> str:
    """The analysis as text: one line per player, then the hiring table.

    ``±`` is one Monte Carlo standard error.
    """
    s = analysis.situation
    width = _breach_columns(analysis.players)
    ks = " ".join(map(str, range(width)))
    lines = [
        f"Battle at the Wall, season {s.season}: {len(s.order)} players in battle order "
        f"{', '.join(s.order)} ({s.season} brigand(s) in the first throw)",
        f"tower: {analysis.tower}",
        "",
        f"{'player':7} {'hired':>5} {'wall':>4}  {'points':>12}  {'breaches':>12}  "
        f"{f'P(breaches={ks})':<{5 * width - 1}} {'method'}",
    ]
    for p in analysis.players:
        lines.append(_row(p, s.walls[p.player].repaired, width))
    pens = _penalty_lines(analysis.players)
    if pens:
        lines += ["", "expected mali falling due per battle (before partial payment):", *pens]
    if analysis.hiring:
        lines += [
            "",
            "hiring 0-3 watchmen (others as above; cost = the cheapest spaces):",
            f"{'player':7} {'hire':>4}  {'cost':<24} {'points':>12}  {'breaches':>12}",
        ]
        for h in analysis.hiring:
            st = h.stats
            lines.append(
                f"{h.player:7} {h.hired:>4}  {_cost(h.cost):<24} "
                f"{_pm(st.points, st.points_se, st.method):>12}  "
                f"{_pm(st.breaches_mean, st.breaches_se, st.method):>12}"
            )
    samples = {p.samples for p in analysis.players if p.method == "monte carlo"}
    if samples:
        lines += [
            "",
            f"± is one standard error of {max(samples)} Monte Carlo seasons (seed "
            f"{analysis.seed}); exact rows come from model.distribution.",
        ]
    return "\n".join(lines)


def _row(p: PlayerStats, repaired: int, width: int) -> str:
    return (
        f"{p.player:7} {p.recruited:>5} {repaired:>4}  {_pm(p.points, p.points_se, p.method):>12}"
        f"  {_pm(p.breaches_mean, p.breaches_se, p.method):>12}  {_law(p.breaches, width)} "
        f"{p.method}"
    )


def _penalty_lines(players: tuple[PlayerStats, ...]) -> list[str]:
    return [
        f"  {p.player:7} " + ", ".join(f"{k} {v:.2f}" for k, v in p.penalties.items())
        for p in players
        if p.penalties
    ]


def check_text(result: CheckResult) -> str:
    """A check result as text."""
    summary = ", ".join(f"{n} × {c}" for c, n in result.summary) or "nothing"
    tail = f"{result.tail:.4f}"
    if result.method == "monte carlo":
        tail += f" ± {result.tail_se:.4f} (range {result.tail_low:.4f} to {result.tail_high:.4f})"
    lines = [
        f"came out: {summary}",
        f"probability of this summary: {result.probability:.4f}",
        f"tail probability (summaries at most this likely): {tail}  [{result.method}]",
        f"  {result.note}",
    ]
    if result.outcome is not None:
        o = result.outcome
        lines.append(
            f"battle of {o.player}: {o.repelled} repelled ({o.points} points), "
            f"{len(o.breaches)} breach(es)"
            + (
                f" at section(s) {', '.join(str(s + 1) for s in o.breaches)}: "
                if o.breaches
                else ""
            )
            + ", ".join(pen.value for pen in o.penalties)
        )
    return "\n".join(lines)


def comparison_text(
    rows: list[Comparison], replicates: int, warmup: int = 0, rethrows: int = 0
) -> str:
    """Model against physics as text; ``agree`` means ``|z| <= AGREE_Z``."""
    start = f"after {warmup} ordinary rounds from empty" if warmup else "from an empty tower"
    lines = [
        f"physics cross-check: {replicates} simulated seasons {start} "
        f"({rethrows} throw(s) re-thrown after the simulation lost a piece)",
        f"{'player':7} {'quantity':9} {'model':>14} {'physics':>14} {'z':>6}",
    ]
    for r in rows:
        verdict = "agree" if abs(r.z) <= AGREE_Z else "DIFFER"
        lines.append(
            f"{r.player:7} {r.quantity:9} {r.model:7.3f} ± {r.model_se:.3f} "
            f"{r.physics:7.3f} ± {r.physics_se:.3f} {r.z:6.2f}  {verdict}"
        )
    agree = sum(abs(r.z) <= AGREE_Z for r in rows)
    lines.append(f"{agree}/{len(rows)} agree within {AGREE_Z:g} combined standard errors")
    return "\n".join(lines)


#: The PNG text chunk that marks a plot as written by :func:`plot`.
PLOT_MARK = ("Software", "tower battle")


def is_battle_plot(path: str | Path) -> bool:
    """Whether ``path`` is a PNG that :func:`plot` wrote (it carries :data:`PLOT_MARK`
    before its image data), so that a rerun may replace it.

    >>> is_battle_plot("no-such-file.png")
    False
    """
    try:
        with open(path, "rb") as fh:
            if fh.read(8) != b"\x89PNG\r\n\x1a\n":
                return False
            mark = "\0".join(PLOT_MARK).encode("latin-1")
            while len(head := fh.read(8)) == 8 and head[4:] not in (b"IDAT", b"IEND"):
                data = fh.read(int.from_bytes(head[:4], "big"))
                fh.seek(4, 1)  # the chunk's CRC
                if head[4:] == b"tEXt" and data == mark:
                    return True
    except OSError:
        return False
    return False


def plot(analysis: Analysis, path: str | Path, *, force: bool = False) -> Path:
    """Write the analysis as a PNG: each player's law of breaches, and points and breaches
    against watchmen hired (error bars: one standard error). The PNG carries
    :data:`PLOT_MARK`, so that :func:`is_battle_plot` knows it.

    The layout is fixed rather than fitted (``tight_layout`` measures every label first
    and costs a third of the drawing). An existing file is replaced only with ``force``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    players = analysis.players
    width = 0.8 / max(len(players), 1)
    top = max((max(p.breaches) for p in players), default=0)
    xs = list(range(top + 1))
    for i, p in enumerate(players):
        ax1.bar(
            [x + (i - (len(players) - 1) / 2) * width for x in xs],
            [p.breaches.get(x, 0.0) for x in xs],
            width,
            label=f"{p.player} ({p.recruited} hired)",
            color=_colour(p.player),
            edgecolor="black",
            linewidth=0.5,
        )
    ax1.set_xlabel("breaches (attackers that meet a gap)")
    ax1.set_ylabel("probability")
    ax1.set_xticks(xs)
    ax1.set_title(f"season {analysis.situation.season}: law of breaches")
    ax1.legend(fontsize=8)
    for player in analysis.situation.order:
        rows = [h for h in analysis.hiring if h.player == player]
        if not rows:
            continue
        hired = [h.hired for h in rows]
        kw = {"color": _colour(player), "capsize": 3}
        ax2.errorbar(
            hired,
            [h.stats.points for h in rows],
            [h.stats.points_se for h in rows],
            marker="o",
            label=f"{player} points",
            **kw,
        )
        ax2.errorbar(
            hired,
            [h.stats.breaches_mean for h in rows],
            [h.stats.breaches_se for h in rows],
            marker="x",
            linestyle="--",
            label=f"{player} breaches",
            **kw,
        )
    ax2.set_xlabel("watchmen hired")
    ax2.set_ylabel("expected per battle")
    ax2.set_xticks(range(4))
    ax2.set_title("hiring 0-3 watchmen")
    if analysis.hiring:
        ax2.legend(fontsize=7, ncol=2)
    fig.suptitle(textwrap.fill(f"{analysis.model}; {analysis.tower}", 140), fontsize=8)
    fig.subplots_adjust(left=0.06, right=0.99, bottom=0.12, top=0.87, wspace=0.2)
    return save_figure(fig, path, force=force, dpi=110, metadata=dict([PLOT_MARK]))


def _colour(player: str) -> str:
    return {"yellow": "gold"}.get(player, player)
