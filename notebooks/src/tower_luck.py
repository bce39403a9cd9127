# %% [markdown]
# # Tower luck: what the tower does to a game of Marrakesh
#
# Every round, each player throws the three keshis they selected into the tower, and
# what comes out is what everyone may claim. How many keshis are there to claim in a
# round? How much of the spread of the scores is the tower's doing? What is a red keshi
# (the water vendor, a wild assistant) worth?
#
# Games are played by the rules engine (`tower.marrakesh`, base game, 4 players) between
# agents: `RandomAgent` and the one-step-lookahead `GreedyAgent`. Three towers:
#
# - the **distilled** model of the `marrakesh` preset (shipped with the package),
# - the **baseline** (a thrown keshi comes out with chance 2/3, one inside with 1/3),
# - a **no-retention** tower (`NoRetentionModel`: everything thrown comes straight out).
#
# To separate the tower's luck from everything else, each game is replayed with the same
# setup seed and the same agent seeds and only the tower's random stream changed: the
# spread of one player's score across those replays is the tower's share.

# %%
MODEL_FILE = None  # None: the shipped marrakesh model (notebooks/build.py --model sets a file)

# %%
import random
import time

import matplotlib.pyplot as plt
import numpy as np
from studyutils import distilled_model, style, table

from tower.marrakesh import CHANCE, SIMULTANEOUS, Game, GameConfig
from tower.marrakesh.selfplay import make_agent
from tower.model import BaselineModel, NoRetentionModel
from tower.pieces import KESHI_COLOURS

style()
PLAYERS = 4
towers = {
    "distilled": distilled_model(MODEL_FILE),
    "baseline": BaselineModel(),
    "no retention": NoRetentionModel(),
}
games = {name: Game(GameConfig(players=PLAYERS, tower=t)) for name, t in towers.items()}


def play_game(tower, setup_seed, tower_seed, agents="random"):
    """One game; the tower draws from its own stream seeded with ``tower_seed``.

    Returns final scores; per throw the keshis out of the tower, the keshis available to
    claim and the red ones among them; and the keshis each player claimed by colour.
    """
    state = games[tower].new_initial_state(setup_seed)
    seats = [make_agent(agents, 1000 * setup_seed + k) for k in range(PLAYERS)]
    tower_rng = random.Random(tower_seed)
    out, available, red = [], [], []
    claimed = np.zeros((PLAYERS, len(KESHI_COLOURS)), dtype=int)
    while not state.is_terminal():
        p = state.current_player
        if p == CHANCE:
            out.append(len(state.sample_chance(tower_rng)))
            available.append(sum(state.display.values()))
            red.append(state.display["red"])
            continue
        if p == SIMULTANEOUS:
            p = state.pending_players()[0]
        before = dict(state.display)
        state.apply(seats[p].step(state, p), player=p)
        for i, c in enumerate(KESHI_COLOURS):
            claimed[p, i] += max(0, before[c] - state.display[c])
    return {"scores": state.scores(), "out": out, "available": available, "red": red,
            "claimed": claimed}


def play_set(agents, setups, tower_seeds):
    """Every tower x setup seed x tower seed; returns {tower: [[game per tower seed]]}."""
    t0 = time.perf_counter()
    res = {name: [[play_game(name, s, 7919 * s + k, agents) for k in range(tower_seeds)]
                  for s in range(setups)] for name in towers}
    n = len(towers) * setups * tower_seeds
    print(f"{agents}: {n} games in {time.perf_counter() - t0:.1f} s")
    return res


random_games = play_set("random", setups=50, tower_seeds=4)
greedy_games = play_set("greedy", setups=6, tower_seeds=3)

# %% [markdown]
# ## 1. Keshis available per round
#
# In a 4-player game 12 keshis go into the tower each round; those that come out are in
# the courtyard to be claimed (keshis nobody could claim would stay for the next round).
# Below, from the random-agent games: keshis available to claim right after each throw,
# and how many of them are red.

# %%
# export: study_keshis_per_round
def per_round(by_setup, what):
    return np.array([x for row in by_setup for g in row for x in g[what]])


fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
avail_rows = []
for name, by_setup in random_games.items():
    v, r = per_round(by_setup, "available"), per_round(by_setup, "red")
    leftover = np.mean(v != per_round(by_setup, "out"))
    axes[0].hist(v, bins=np.arange(v.max() + 2) - 0.5, density=True, histtype="step", lw=1.8,
                 label=name)
    axes[1].hist(r, bins=np.arange(r.max() + 2) - 0.5, density=True, histtype="step", lw=1.8,
                 label=name)
    avail_rows.append([name, v.mean(), v.std(), np.mean(v < 12), np.mean(v > 12), r.mean(),
                       np.mean(r == 0), leftover])
axes[0].set(xlabel="keshis to claim after the throw", ylabel="share of rounds",
            title="keshis available per round (12 thrown)")
axes[1].set(xlabel="red keshis to claim after the throw", ylabel="share of rounds",
            title="red keshis available per round")
for ax in axes:
    ax.legend()
fig.tight_layout()
plt.show()
print(table(avail_rows, ["tower", "available mean", "sd", "P(< 12)", "P(> 12)", "red mean",
                         "P(no red)", "P(leftovers)"]))

# %% [markdown]
# ## 2. Score spread: how much of it is the tower?
#
# For each tower: the spread (standard deviation) of all final scores; the tower's share,
# the standard deviation of one player's score across games that differ only in the
# tower's draws (pooled over players and setups); how often the winner changes when only
# the tower's draws change; and the mean lead of the winner over the runner-up.

# %%
def spread(by_setup):
    scores = np.array([[g["scores"] for g in row] for row in by_setup], dtype=float)
    total = scores.std()
    within = np.sqrt(scores.var(axis=1, ddof=1).mean())
    winners = np.argmax(scores, axis=2)  # ties: first player (rare)
    changed = np.mean([len(set(w)) > 1 for w in winners])
    top2 = np.sort(scores, axis=2)[:, :, -2:]
    return scores.mean(), total, within, changed, (top2[..., 1] - top2[..., 0]).mean()


spread_rows = []
for agents, res in (("random", random_games), ("greedy", greedy_games)):
    for name, by in res.items():
        spread_rows.append([agents, name, *spread(by)])
print(table(spread_rows, ["agents", "tower", "mean score", "score sd", "sd from the tower alone",
                          "winner changes", "winner's lead"]))

fig, ax = plt.subplots(figsize=(6.5, 3))
labels = [f"{r[0]}\n{r[1]}" for r in spread_rows]
x = np.arange(len(spread_rows))
ax.bar(x - 0.2, [r[3] for r in spread_rows], 0.4, label="score sd, all games")
ax.bar(x + 0.2, [r[4] for r in spread_rows], 0.4, label="sd from the tower alone")
ax.set(xticks=x, xticklabels=labels, ylabel="points", ylim=(0, 1.3 * max(r[4] for r in spread_rows)))
ax.legend(loc="upper center", ncol=2)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## 3. The value of red keshis
#
# Red keshis are water vendors: a red keshi in the hand is a wild assistant, and one
# claimed from the courtyard earns water later. Below: a least-squares fit of each
# player's final score on the number of keshis of each colour they claimed over the game,
# in the random-agent games with the distilled tower (points per keshi claimed; the
# agents choose at random, so this measures what a claim tends to bring, not an optimal
# use). How often a round has no red keshi to claim is in section 1.

# %%
def colour_values(by_setup):
    X, y = [], []
    for row in by_setup:
        for g in row:
            for p in range(PLAYERS):
                X.append([1.0, *g["claimed"][p]])
                y.append(g["scores"][p])
    X, y = np.array(X), np.array(y, dtype=float)
    beta, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - X @ beta
    cov = np.linalg.inv(X.T @ X) * resid.var(ddof=X.shape[1])
    return beta[1:], np.sqrt(np.diag(cov))[1:], len(y)


beta, se, n_obs = colour_values(random_games["distilled"])
order = np.argsort(-beta)
fig, ax = plt.subplots(figsize=(7, 3))
ax.bar(np.arange(12), beta[order], yerr=1.96 * se[order], capsize=2,
       color=["C3" if KESHI_COLOURS[i] == "red" else "C0" for i in order])
ax.set(xticks=np.arange(12), xticklabels=[KESHI_COLOURS[i] for i in order],
       ylabel="points per keshi claimed", title=f"score on keshis claimed ({n_obs} player-games)")
plt.xticks(rotation=45)
fig.tight_layout()
plt.show()
red = KESHI_COLOURS.index("red")
print(table([[KESHI_COLOURS[i], beta[i], se[i]] for i in order],
            ["colour", "points per keshi", "standard error"]))


# %% [markdown]
# ## Conclusions
#
# The key numbers, computed above, then the conclusions in words.

# %%
for r in avail_rows:
    print(f"{r[0]:>12}: available per round {r[1]:.2f} (sd {r[2]:.2f}), P(fewer than 12) "
          f"{r[3]:.2f}, P(more than 12) {r[4]:.2f}; red {r[5]:.2f} a round, P(no red) {r[6]:.2f}")
for r in spread_rows:
    print(f"{r[0]:>6} {r[1]:>12}: mean score {r[2]:.1f}, score sd {r[3]:.2f}, sd from the "
          f"tower alone {r[4]:.2f}, winner changes in {r[5]:.0%} of setups, lead {r[6]:.1f}")
rank = int(np.where(order == red)[0][0]) + 1
print(f"red keshi: {beta[red]:.2f} ± {se[red]:.2f} points per keshi claimed, rank {rank} of 12 "
      f"colours (mean of all colours {beta.mean():.2f})")

# %% [markdown]
# **In words.**
#
# - **Keshis per round.** With the distilled tower a 4-player round offers 11.5 keshis to
#   claim on average (sd 2.1): fewer than the 12 thrown in 53% of rounds, more in 29%.
#   The baseline tower gives 11.0 with a wider spread (sd 2.6); a tower without retention
#   always gives exactly the 12 thrown. Keshis were practically never left unclaimed for
#   the next round in these games (0.00 of rounds). A round has no red keshi to claim 34%
#   of the time (31% without retention: random hands hold no red that often).
# - **Score spread.** Changing only the tower's draws changes the whole game: with the
#   same setup and agents, one player's score varies by 14.3 points (sd) across tower
#   draws with random agents, nearly all of the 15.6 spread across all games, and the
#   winner changes in 46 of the 50 setups (92%). With greedy agents (few games: 6
#   setups, 3 tower draws each) it is 16.0 against 15.9 overall (so few games that the
#   two estimates cross), and the winner changes in all 6 setups. A tower that keeps
#   nothing has no such luck (0 by the same measure): its spread comes from the setup
#   alone. The retaining towers also cost points: greedy agents score 46.7 (distilled)
#   and 44.4 (baseline) against 49.0 without retention; random agents 28.2 and 25.9
#   against 31.5, because fewer keshis reach the players.
# - **Red keshis.** In random-agent games with the distilled tower, each red keshi
#   claimed goes with 1.4 ± 0.3 more points at the end, first of the 12 colours (then
#   green, 1.31; the order of the top colours moves with the tower model's draws) and well
#   above the colours' mean of 0.27. This is an association in games
#   of random play, not a causal price, but it says a red keshi out of the tower is among
#   the best to take.
