# %% [markdown]
# # The Battle at the Wall: what watchmen are worth
#
# In *Walls & Guards*, each season ends with a Battle at the Wall. The player holding
# the round tracker throws their recruited watchmen with 1, 2 or 3 brigands (season 1,
# 2, 3); each next player throws everything that fell out so far with their own
# recruits. Own watchmen that come out guard the first gaps of the wall; every other
# figure that comes out attacks: 1 point if it meets a brick or a guard, the printed
# malus if it meets a gap (a breach).
#
# Is it worth hiring a third watchman in season 3? Does it matter where I sit? This
# notebook asks the battle checker (`tower.battle.checker.analyse`, the engine behind
# `tower battle`) under the shipped distilled model, from a steady-state tower (a pool
# of towers after many ordinary rounds of 12 keshis). The first battle is exact; later
# battles are Monte Carlo with their standard error.
#
# Assumed situation (not rulebook values): 4 players, each wall with 0, 1 and 2 repaired
# sections in seasons 1, 2 and 3 (bricks get built over the game), and the other players
# hiring 2 watchmen.

# %%
MODEL_FILE = None  # None: the shipped marrakesh model (notebooks/build.py --model sets a file)

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
from studyutils import distilled_model, style, table

from tower.battle.checker import Situation, analyse, steady_tower

style()
model = distilled_model(MODEL_FILE)
tower = steady_tower(model, players=4)
print(tower.label)
SAMPLES = 2000
SEASONS = (1, 2, 3)
POSITION = {"red": "1st (tracker)", "yellow": "2nd", "green": "3rd", "blue": "4th"}


def situation(season, recruited=2):
    """4 players; walls with season - 1 repaired sections; everyone hires ``recruited``."""
    return Situation.default(players=4, season=season, recruited=recruited, repaired=season - 1)


# %% [markdown]
# ## 1. Hiring 0 to 3 watchmen, by season and position
#
# For each season, one analysis: every player's expected points and breaches when they
# hire 0, 1, 2 or 3 watchmen while the others hire 2 (common random numbers across the
# four choices, so differences are sharper than the standard errors).

# %%
t0 = time.perf_counter()
hiring = {}
for season in SEASONS:
    a = analyse(model, situation(season), tower, samples=SAMPLES, seed=season, hiring=True)
    for h in a.hiring:
        hiring[season, h.player, h.hired] = h
print(f"{len(SEASONS)} analyses of {SAMPLES} seasons each in {time.perf_counter() - t0:.1f} s")
rows = []
for season in SEASONS:
    for player, pos in POSITION.items():
        for k in range(4):
            s = hiring[season, player, k].stats
            rows.append([season, pos, k, f"{s.points:.2f} ± {s.points_se:.2f}",
                         f"{s.breaches_mean:.2f} ± {s.breaches_se:.2f}", s.breaches.get(0, 0.0),
                         s.method])
print(table(rows, ["season", "position", "hired", "points", "breaches", "P(no breach)",
                   "method"]))

# %%
# export: study_battle
fig, axes = plt.subplots(1, 3, figsize=(10, 3.2), sharey=True)
for ax, season in zip(axes, SEASONS):
    for i, (player, pos) in enumerate(POSITION.items()):
        pts = [hiring[season, player, k].stats.points for k in range(4)]
        br = [hiring[season, player, k].stats.breaches_mean for k in range(4)]
        ax.plot(range(4), pts, "o-", color=f"C{i}", label=f"{pos}: points")
        ax.plot(range(4), br, "x--", color=f"C{i}", label=f"{pos}: breaches")
    ax.set(title=f"season {season} ({season} brigand{'s' if season > 1 else ''}, "
           f"{season - 1} repaired)", xlabel="watchmen hired", xticks=range(4))
axes[0].set_ylabel("expected per battle")
axes[-1].legend(fontsize=6, ncol=2)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## 2. Against more recruited watchmen: everyone hires the same
#
# When every player hires `r` watchmen, more figures go round the table: each player's
# expected points and breaches, by season and position.

# %%
sym = {}
for season in SEASONS:
    for r in range(4):
        a = analyse(model, situation(season, r), tower, samples=SAMPLES // 2, seed=10 + season,
                    hiring=False)
        for p in a.players:
            sym[season, p.player, r] = p
rows = [[season, pos] + [f"{sym[season, pl, r].points:.2f} / {sym[season, pl, r].breaches_mean:.2f}"
                         for r in range(4)]
        for season in SEASONS for pl, pos in POSITION.items()]
print("points / breaches when every player hires r watchmen")
print(table(rows, ["season", "position", "r = 0", "r = 1", "r = 2", "r = 3"]))

# %% [markdown]
# ## 3. Advice: is the next watchman worth it?
#
# The gain of each extra watchman (k-1 to k) in expected points and breaches avoided,
# against its price (bottom space 1 dinar, middle 1 water + 1 date, top 1 of each: the
# top price is an assumption). To weigh them on one scale we assume a breach costs about
# 1.5 points (its malus: a keshi, 2 resources, 2 staircase steps, ...) and a resource
# 0.4 points (the greedy agent's weight); both are assumptions, stated here to be
# changed. "hire" means the net is positive.

# %%
BREACH_POINTS = 1.5
RESOURCE_POINTS = 0.4
advice = []
for season in SEASONS:
    for player, pos in POSITION.items():
        for k in range(1, 4):
            now, before = hiring[season, player, k], hiring[season, player, k - 1]
            d_pts = now.stats.points - before.stats.points
            d_br = before.stats.breaches_mean - now.stats.breaches_mean
            price = sum(now.cost.values()) - sum(before.cost.values())
            net = d_pts + BREACH_POINTS * d_br - RESOURCE_POINTS * price
            advice.append([season, pos, k, d_pts, d_br, price, net, "hire" if net > 0 else "no"])
print(table(advice, ["season", "position", "watchman", "+points", "-breaches", "resources",
                     "net points", "advice"]))
best = {}
for season, pos, k, *_, net, _ in advice:
    best.setdefault((season, pos), 0)
    if net > 0 and k == best[season, pos] + 1:
        best[season, pos] = k
print()
print("watchmen to hire (each next one hired while its net is positive)")
print(table([[pos] + [best[s, pos] for s in SEASONS] for pos in POSITION.values()],
            ["position", "season 1", "season 2", "season 3"]))

# %% [markdown]
# ## Conclusions
#
# The key numbers, computed above, then the conclusions in words.

# %%
for season in SEASONS:
    for player, pos in POSITION.items():
        s0, s2, s3 = (hiring[season, player, k].stats for k in (0, 2, 3))
        print(f"season {season} {pos:>13}: points {s0.points:.2f} (0 hired) -> {s2.points:.2f} "
              f"(2) -> {s3.points:.2f} (3); breaches {s0.breaches_mean:.2f} -> "
              f"{s2.breaches_mean:.2f} -> {s3.breaches_mean:.2f}; advice: hire {best[season, pos]}")

# %% [markdown]
# **In words.** (Under the shipped distilled model, a steady-state tower, walls with 0, 1
# and 2 repaired sections in seasons 1, 2 and 3, others hiring 2, Monte Carlo standard
# errors about 0.01-0.03.)
#
# - **Position decides the danger.** The player with the round tracker throws only their
#   own watchmen and the brigands, so one watchman nearly removes their breaches (season
#   1: 0.78 expected breaches with none, 0.17 with one); more add little (0.14 point or
#   less each). Each later player throws everything that fell out before, so more
#   attackers come: with no watchman the 4th player expects 4.6 breaches in season 1,
#   4.0 in season 2 and 3.4 in season 3.
# - **Each watchman counts for later players.** For the 3rd and 4th players each
#   watchman hired adds 0.5-0.8 points and removes about as many breaches, the first ones
#   most; for the 2nd player the third one adds only 0.32-0.46.
# - **Advice** (valuing a breach at 1.5 points and a resource at 0.4, assumptions
#   stated above): the first player should hire 1 watchman in every season, the second
#   2, the third and the fourth 3 in every season. The third watchman is the close call:
#   for the 3rd player in season 3 it gives +0.52 points and 0.55 fewer breaches for 3
#   resources (net +0.15); for the 2nd player in season 1 it nets -0.09.
# - **When everyone hires more**, later players score more points but also suffer more
#   breaches, because every watchman that comes out attacks the next player: in season
#   1 the 4th player goes from 0.00 points / 0.54 breaches (nobody hires) to 2.30 / 3.34
#   (everybody hires 3).
