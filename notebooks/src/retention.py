# %% [markdown]
# # Retention: how many pieces the tower keeps, and for how long
#
# Players ask: how many keshis stay in the tower? How fast does an empty tower fill up?
# Do old keshis ever come back? If I throw a colour, will it come out this throw?
#
# This notebook answers with the toolkit's public API (`tower.analysis.retention`) from
# three sources, for the two preset towers:
#
# - **physics**: small cached sets of pybullet sequences in `data/` (made by
#   `python notebooks/make_data.py`, which runs `tower simulate`; each sequence starts
#   with an empty tower);
# - the **distilled model**: for `marrakesh` the one shipped with the package
#   (`load_shipped("marrakesh")`, fitted from other simulations than these); for
#   `queen-classic`, which has no shipped model, one fitted here in a second from the
#   three 12-throw physics sets (so those are its training data; the 36-throw set is
#   held out);
# - the **baseline** of a published online Wallenstein: a thrown piece comes out with
#   chance 2/3, a piece inside with chance 1/3.
#
# The models replay exactly the throws of the physics sequences (same pieces, same
# order), ten times each with their own random draws.
#
# Both towers' dimensions are assumptions (see the README), so the physics numbers are
# those of the assumed towers with the default physics parameters.

# %%
MODEL_FILE = None  # None: the shipped marrakesh model (notebooks/build.py --model sets a file)

# %%
import random

import matplotlib.pyplot as plt
import numpy as np
from studyutils import DATA, distilled_model, style, table

from tower.analysis.retention import model_records, summarize, trace_plan, trace_record
from tower.model import BaselineModel, DistilledModel
from tower.model.fit import FitSettings, fit_tables
from tower.traces import read_traces

style()
PRESETS = ("marrakesh", "queen-classic")
SIZES = (6, 9, 12)
REPLAYS = 10  # model replays of each physics plan
COLOUR = {"physics": "C0", "distilled": "C1", "baseline": "C2"}
distilled = distilled_model(MODEL_FILE)
baseline = BaselineModel()
print("distilled model:", distilled.name, "| provenance:", distilled.doc["provenance"].get("command"))

# %% [markdown]
# ## The data
#
# For each preset: 60 sequences of 12 throws (a game's length) of 6, 9 and 12 pieces
# (marrakesh: keshis of 12 colours; queen-classic: cubes of 5 player colours), and 20
# sequences of 36 throws of 12 pieces to watch the tower fill up from empty.
#
# All sets are made with the current physics (numerics v4). The `queen-classic` tower is
# simulated at 240 steps a second, which its preset asks for: at the default 150 its cubes
# sank through the courtyard board (see `make_data.py`).

# %%
traces = {
    (preset, key): list(read_traces(DATA / f"physics-{preset}-{key}.jsonl"))
    for preset in PRESETS
    for key in (*map(str, SIZES), "12x36")
}
print(table(
    [[p, k, len(s), len(s[0].throws), sum(len(t.thrown) for q in s for t in q.throws)]
     for (p, k), s in traces.items()],
    ["preset", "set", "sequences", "throws each", "pieces thrown"],
))


training = [s for n in SIZES for s in traces["queen-classic", str(n)]]
queen_distilled = DistilledModel.from_tables(
    fit_tables(training, FitSettings()), name="queen-classic (fitted here)",
    tower={"preset": "queen-classic", "spec": None},
)
models = {"marrakesh": distilled, "queen-classic": queen_distilled}


def sources(preset):
    """The models compared on a preset."""
    return {"distilled": models[preset], "baseline": baseline}


def records(preset, key):
    """{source: sequence records} for one trace set: physics and each model's replays."""
    seqs = traces[preset, key]
    out = {"physics": [trace_record(s) for s in seqs]}
    plans = [trace_plan(s) for s in seqs] * REPLAYS
    for name, model in sources(preset).items():
        out[name] = model_records(model, plans, seed=len(plans))
    return out


recs = {(p, k): records(p, k) for (p, k) in traces}
summary = {(p, k, src): summarize(r) for (p, k), by in recs.items() for src, r in by.items()}

# %% [markdown]
# ## 1. Pieces inside: the equilibrium, and how fast an empty tower gets there
#
# Mean number of pieces inside after each throw of 12 pieces, from an empty tower, over
# 36 throws. The band is the 10-90% range of the physics sequences. The equilibrium is
# the mean over throws 19-36; "90% reached" is the first throw whose mean is at least 90%
# of it.

# %%
# export: study_retention
def inside_matrix(rs):
    return np.array([r.inside for r in rs], dtype=float)


fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True)
fill = {}
for ax, preset in zip(axes, PRESETS):
    by = recs[preset, "12x36"]
    x = np.arange(1, 37)
    for src, rs in by.items():
        m = inside_matrix(rs)
        mean = m.mean(axis=0)
        eq = m[:, 18:].mean()
        reached = int(np.argmax(mean >= 0.9 * eq)) + 1
        fill[preset, src] = (eq, reached, m[:, 18:].std())
        ax.plot(x, mean, color=COLOUR[src], label=f"{src} (eq. {eq:.1f})",
                lw=2 if src == "physics" else 1.3)
        if src == "physics":
            lo, hi = np.percentile(m, [10, 90], axis=0)
            ax.fill_between(x, lo, hi, color=COLOUR[src], alpha=0.2)
    ax.set(title=f"{preset}: 12 pieces a throw", xlabel="throw", ylabel="pieces inside")
    ax.legend()
fig.tight_layout()
plt.show()
print(table(
    [[p, s, eq, sd, r] for (p, s), (eq, r, sd) in fill.items()],
    ["preset", "source", "equilibrium inside", "sd at equilibrium", "throw 90% reached"],
))

# %% [markdown]
# ## 2. Pieces out against pieces in
#
# Over the second half of game-length sequences (throws 7-12): pieces out per throw
# against pieces thrown. Near equilibrium the tower returns about as many as it
# receives; the standard deviation tells how much luck one throw carries. The figure
# shows what drives a throw: the mean number out of a throw of 12 against the number
# inside before it (all 12-piece sequences, 36 and 12 throws long; bins with at least 30
# throws).

# %%
rows = []
for preset in PRESETS:
    for src in recs[preset, "12"]:
        for n in SIZES:
            outs = np.array([r.out[6:] for r in recs[preset, str(n)][src]], dtype=float).ravel()
            s = summary[preset, str(n), src]
            rows.append([preset, src, n, outs.mean(), outs.std(), s["out_per_in"],
                         s["equilibrium_inside"]])
print(table(rows, ["preset", "source", "in", "out mean", "out sd", "out/in", "inside (7-12)"]))

fig, axes = plt.subplots(1, 2, figsize=(9, 3.3), sharey=True)
push = {}
for ax, preset in zip(axes, PRESETS):
    for src in recs[preset, "12"]:
        pairs = [(([0, *r.inside])[t], r.out[t]) for key in ("12", "12x36")
                 for r in recs[preset, key][src] for t in range(len(r.out))]
        before, out = np.array(pairs).T
        xs = [b for b in range(int(before.max()) + 1) if np.sum(before == b) >= 30]
        ax.plot(xs, [out[before == b].mean() for b in xs], "o-", ms=3, color=COLOUR[src],
                label=src)
        slope, intercept = np.polyfit(before, out, 1)
        push[preset, src] = (out[before == 0].mean(), intercept, slope)
    ax.axhline(12, color="k", ls=":", lw=1)
    ax.set(title=f"{preset}: 12 pieces a throw", xlabel="pieces inside before the throw",
           ylabel="mean pieces out")
    ax.legend()
fig.tight_layout()
plt.show()
print(table([[p, s, *v] for (p, s), v in push.items()],
            ["preset", "source", "out of an empty tower", "line: out at 0 inside",
             "extra out per piece inside"]))

# %% [markdown]
# ## 3. How long a piece stays inside
#
# For the pieces thrown in the first half of a game-length sequence of 12 pieces a throw:
# the share that came out after 0 throws (at once), 1, 2, ... throws, and the share still
# inside at the end of the 12 throws ("censored").

# %%
fig, axes = plt.subplots(1, 2, figsize=(9, 3.2), sharey=True)
stay_rows = []
for ax, preset in zip(axes, PRESETS):
    srcs = list(recs[preset, "12"])
    width = 0.8 / len(srcs)
    for i, src in enumerate(srcs):
        share = summary[preset, "12", src]["stay_share"]
        keys = [str(k) for k in range(6)] + ["censored"]
        vals = [share.get(k, 0.0) for k in keys]
        ax.bar(np.arange(len(keys)) + i * width, vals, width, color=COLOUR[src], label=src)
        later = sum(v for k, v in share.items() if k != "censored" and int(k) >= 1)
        stay_rows.append([preset, src, share.get("0", 0.0), later, share.get("censored", 0.0)])
    ax.set(title=f"{preset}: 12 pieces a throw", xticks=np.arange(7) + 0.4 - width / 2,
           xticklabels=[*map(str, range(6)), "still in"], xlabel="throws inside before coming out",
           ylabel="share of pieces", yscale="log", ylim=(1e-3, 1))
    ax.legend()
fig.tight_layout()
plt.show()
print(table(stay_rows, ["preset", "source", "out at once", "out later", "still inside"], 3))

# %% [markdown]
# ## 4. Will the colour I throw come out this throw?
#
# The chance that a colour thrown comes out in the same throw: that a piece of that colour
# comes out, the one just thrown or an older one of the same colour (marrakesh: 6 to 12
# keshis of different colours a throw; queen-classic: cubes of 5 colours, so a colour
# with 2 or 3 cubes in a throw has more chances). The fresh share is the share of the
# pieces out that were thrown in that same throw; the rest are old pieces dislodged.

# %%
fig, axes = plt.subplots(1, 2, figsize=(9, 3.2), sharey=True)
hit_rows = []
for ax, preset in zip(axes, PRESETS):
    srcs = list(recs[preset, "12"])
    width = 0.8 / len(srcs)
    for i, src in enumerate(srcs):
        hits = [summary[preset, str(n), src]["colour_hit"] for n in SIZES]
        ax.bar(np.arange(3) + i * width, hits, width, color=COLOUR[src], label=src)
        for n in SIZES:
            s = summary[preset, str(n), src]
            hit_rows.append([preset, src, n, s["colour_hit"], s["fresh_share"]])
    ax.set(title=preset, xticks=np.arange(3) + 0.4 - width / 2, xticklabels=SIZES,
           xlabel="pieces thrown", ylabel="chance a thrown colour comes out", ylim=(0, 1))
    ax.legend()
fig.tight_layout()
plt.show()
print(table(hit_rows, ["preset", "source", "in", "colour out same throw", "fresh share of out"],
            3))

# %% [markdown]
# ## Conclusions
#
# The key numbers, computed above, then the conclusions in words.

# %%
eq = {k: v[0] for k, v in fill.items()}
reach = {k: v[1] for k, v in fill.items()}
hit12 = {(p, s): summary[p, "12", s]["colour_hit"] for (p, k, s) in summary if k == "12"}
stay = {(r[0], r[1]): r[2:] for r in stay_rows}
sd12 = {(r[0], r[1]): r[4] for r in rows if r[2] == 12}
for key in eq:
    print(f"{key[0]:>13} {key[1]:>9}: equilibrium {eq[key]:5.2f} inside, 90% by throw "
          f"{reach[key]:2d}; out of 12: sd {sd12[key]:.2f}, {push[key][0]:.2f} from empty, "
          f"+{push[key][2]:.3f} per piece inside; colour out same throw {hit12[key]:.3f}; "
          f"out at once {stay[key][0]:.3f}, later {stay[key][1]:.3f}, still in {stay[key][2]:.3f}")

# %% [markdown]
# **In words.** (Both towers are assumed designs with default physics, numerics v4; see
# the README.)
#
# - **How many stay inside.** With 12 keshis a throw, the `marrakesh` tower holds about
#   6 to 7 pieces at equilibrium (6.4 in physics, sd 2.5), and an empty tower gets to 90%
#   of that by the 8th throw: it fills within the first two thirds of a game of 12 rounds.
#   The `queen-classic` tower holds 2.4 times as many (15.5) and fills slowly (90% only by
#   throw 19, longer than a game). The baseline's two chances give 12.1 pieces for either
#   tower, reached by throw 6: nearly twice as many as the physics `marrakesh` tower, and
#   too few and too fast for `queen-classic`.
# - **Out against in.** Once filling, a tower returns nearly what it receives (0.98 to
#   1.00 pieces out per piece in over throws 7-12 for `marrakesh` physics). A throw of 12
#   gives about 10 out of an empty tower (`marrakesh` 9.80, `queen-classic` 9.65) and more
#   for each piece already inside (`marrakesh` physics +0.36 a piece, `queen-classic`
#   +0.15): full towers give more. The number out of one throw of 12 varies with a
#   standard deviation of 2.01 in `marrakesh` physics; the baseline exaggerates that luck
#   (2.51).
# - **How long a piece stays.** In `marrakesh`, 80% of keshis come out in the throw
#   they are thrown, 19% in a later throw, mostly the next one or two, and about 0.8% are
#   still inside six or more throws later. So old keshis do come back: about one in five.
#   The baseline sends a third of the keshis out later. In `queen-classic`, 80% come out
#   at once, 13% later and 7% are still inside after six throws: pieces that stick, stay.
# - **Will my colour come out this throw?** With 12 keshis of different colours, a
#   colour thrown has a keshi out in the same throw 83% of the time in physics (0.830;
#   distilled 0.826), against 74% for the baseline.
# - **The distilled models** follow physics closely: the shipped `marrakesh` model
#   (`tower.model/3`, fitted on physics v4 traces other than these) gives nearly the same
#   share out at once (0.795 against 0.805), colour chance (0.826 against 0.830), push per
#   piece inside (+0.392 against +0.364), spread (2.13 against 2.01) and 6.20 inside over
#   throws 7-12 against 5.95; over 36 throws 6.40 at equilibrium against 6.41, 90%
#   reached by throw 6 against 8 (it fills a little faster; these 60 and 20 physics
#   sequences are a small sample, and the held-out check of 1,000 sequences a set in
#   `calibration/models/README.md` finds no difference at 1 % in 11 of 12 checks). The
#   `queen-classic` model fitted here in a second from 180 game-length sequences
#   reproduces its held-out 36-throw runs (16.5 inside against 15.5). The baseline is off
#   on every one of these statistics.
