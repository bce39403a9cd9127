# %% [markdown]
# # A worked calibration: from a recording to the report
#
# `tower calibrate` fits a simulator's uncertain numbers to a recording of real throws
# and writes a goodness-of-fit report on held-out throws (see `calibration/README.md`).
# With physics, a calibration takes about an hour; this notebook shows every step in
# seconds, on a **synthetic recording** with known true values, using the fast
# **baseline simulator** (`BaselineSimulator`: a thrown piece comes out with chance
# `model.p_fresh`, a piece inside with chance `model.p_old`). The steps, files and report
# are those of a physics calibration; only the simulator differs
# (`tower calibrate REC --simulator physics`, the default).
#
# A second example asks a question the report can answer: recorded from the distilled
# marrakesh tower, can the two-chance baseline reproduce it?

# %%
MODEL_FILE = None  # None: the shipped marrakesh model (notebooks/build.py --model sets a file)

# %%
import random
import tempfile
from collections import Counter
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Image, display
from studyutils import distilled_model, style, table

from tower.calibration.calibrate import Settings, calibrate
from tower.calibration.recording import (
    canonical,
    key_piece,
    piece_key,
    read_recording,
    write_recording,
)
from tower.calibration.simulators import BaselineSimulator, sessions_from_outs
from tower.calibration.summaries import session_series
from tower.calibration.synthetic import synthetic_plan, synthetic_recording

style()
work = Path(tempfile.mkdtemp(prefix="calibration-study-"))
SETTINGS = Settings(workers=1, progress=False, seed=1)  # the defaults: 128 replays, 16 checks
print("design budget", SETTINGS.budget, "replays; predictive checks", SETTINGS.checks,
      "; held out", SETTINGS.holdout)

# %% [markdown]
# ## 1. The recording
#
# A person records each throw: what went in and what came out, by colour
# (`tower record my-tower.csv`). The synthetic recording follows the recommended protocol:
# 120 throws of 12 keshis from an empty tower, the 12 colours used in four groups of
# three, so that a colour comes back only every fourth throw and the colours out tell
# fresh pieces from old ones. The hidden true values are `p_fresh = 0.6` and
# `p_old = 0.3` (the published rule is 2/3 and 1/3).

# %%
truth = {"model.p_fresh": 0.6, "model.p_old": 0.3}
rec = synthetic_recording(BaselineSimulator(), truth, synthetic_plan(throws=120, pieces=12),
                          seed=5, tower="stand-in")
rec_path = work / "synthetic.csv"
write_recording(rec, rec_path)
print("\n".join(rec_path.read_text().splitlines()[:9]), "\n...")

# %%
recording = read_recording(rec_path)
series = session_series(recording.sessions[0])
fig, ax = plt.subplots(figsize=(7, 2.6))
ax.plot(series.n_out, ".-", lw=0.8, label="pieces out")
ax.plot(series.inside, lw=1.5, label="pieces inside (known: the session started empty)")
ax.axvline(0.75 * len(series.n_out), color="k", ls=":", label="held-out tail starts")
ax.set(xlabel="throw", ylabel="pieces", title="the synthetic recording, 12 keshis a throw")
ax.legend(loc="lower right")
plt.show()
print(f"{recording.n_throws} throws; mean out {series.n_out.mean():.2f}, "
      f"mean inside over the last 60 throws {series.inside[60:].mean():.2f}")

# %% [markdown]
# ## 2. The fit
#
# The first 75% of the throws train the fit; the tail is held out for the report.
# `calibrate` replays the training throws at design points spread over the prior box (a
# Latin hypercube, two waves), fits an emulator of the summary statistics, and samples the
# posterior with a synthetic likelihood. Every replay is cached, so a rerun resumes.

# %%
done = calibrate(rec_path, work / "out", "baseline", SETTINGS)
fits = done.result.fits
print(table(
    [[f.parameter.name, truth[f.parameter.name], f.median, f"[{f.low:.3f}, {f.high:.3f}]",
      f.width_ratio, "yes" if f.low <= truth[f.parameter.name] <= f.high else "NO"] for f in fits],
    ["parameter", "truth", "median", "90% interval", "width / prior width", "truth inside"], 3,
))
print(f"{done.seconds:.1f} s; design replays {len(done.result.design_u)}, "
      f"failed {done.result.failures}; effective sample size {done.result.ess:.0f}")

# %% [markdown]
# The posterior, as the report draws it (prior dotted, 90% interval shaded, truth red),
# and the joint posterior: the two chances trade off against each other, because a
# recording only sees what comes out, not where it came from.

# %%
display(Image(filename=str(done.out_dir / "posterior.png")))
samples = done.result.samples
fig, ax = plt.subplots(figsize=(3.6, 3.2))
ax.plot(samples[:, 0], samples[:, 1], ",", alpha=0.3)
ax.plot(truth["model.p_fresh"], truth["model.p_old"], "r*", ms=10, label="truth")
ax.set(xlabel="model.p_fresh", ylabel="model.p_old", title="posterior samples")
ax.legend()
plt.show()
corr = float(np.corrcoef(samples.T)[0, 1])
print(f"posterior correlation of p_fresh and p_old: {corr:+.2f}")

# %% [markdown]
# ## 3. The report: goodness of fit on the held-out throws
#
# The calibrated simulator replays every session in full at posterior draws; the
# held-out tail is compared with the data on four aspects (small p flags an aspect the
# simulator does not reproduce). `report.md` holds all of it; here are its check table
# and plots.

# %%
def show_checks(checks):
    print(table([[c.name, c.observed, f"{c.predicted[1]:.3f} [{c.predicted[0]:.3f}, "
                  f"{c.predicted[2]:.3f}]", c.p_value] for c in checks],
                ["aspect", "observed", "predicted median [5%, 95%]", "p"], 3))


show_checks(done.checks)
for name in ("out_by_n.png", "inside_over_time.png", "fresh_old.png"):
    display(Image(filename=str(done.out_dir / name)))
print(sorted(p.name for p in done.out_dir.iterdir()))

# %% [markdown]
# ## 4. Can the baseline mimic the distilled tower?
#
# The same protocol recorded from the shipped distilled model of the `marrakesh` preset
# (standing in for a real tower), then calibrated with the two-chance baseline. If the
# held-out checks flag an aspect, two chances are not enough to describe that tower.

# %%
distilled = distilled_model(MODEL_FILE)


class ModelTower:
    """A recording source for `synthetic_recording`: throws through a tower model."""

    name = "distilled"
    parameters = ()

    def __init__(self, model):
        self.model = model

    def __repr__(self):
        return f"ModelTower({self.model.name})"

    def simulate(self, theta, plan, seed):
        rng, outs = random.Random(seed), []
        for p in plan:
            state, session = self.model.new_state(), []
            for counts in p.throws:
                pieces = [key_piece(k) for k, n in counts.items() for _ in range(n)]
                out, state = self.model.throw(state, pieces, rng)
                session.append(canonical(dict(Counter(piece_key(x) for x in out))))
            outs.append(session)
        return sessions_from_outs(plan, outs)


rec2 = synthetic_recording(ModelTower(distilled), {}, synthetic_plan(throws=120, pieces=12),
                           seed=5, tower="marrakesh (distilled)")
rec2_path = work / "distilled.csv"
write_recording(rec2, rec2_path)
done2 = calibrate(rec2_path, work / "out2", "baseline", SETTINGS)
print(table([[f.parameter.name, f.median, f"[{f.low:.3f}, {f.high:.3f}]"] for f in done2.result.fits],
            ["parameter", "median", "90% interval"], 3))
show_checks(done2.checks)
display(Image(filename=str(done2.out_dir / "inside_over_time.png")))

# %% [markdown]
# ## Conclusions
#
# The key numbers, computed above, then the conclusions in words.

# %%
for f in fits:
    t = truth[f.parameter.name]
    print(f"synthetic: {f.parameter.name} truth {t} -> median {f.median:.3f}, 90% "
          f"[{f.low:.3f}, {f.high:.3f}], width {f.width_ratio:.2f} of the prior's, "
          f"truth inside: {f.low <= t <= f.high}")
print(f"synthetic: smallest held-out p-value {min(c.p_value for c in done.checks):.3f}; "
      f"posterior correlation {corr:+.2f}")
for f in done2.result.fits:
    print(f"distilled recording: baseline {f.parameter.name} median {f.median:.3f}, "
          f"90% [{f.low:.3f}, {f.high:.3f}]")
for c in done2.checks:
    print(f"distilled recording: {c.name}: observed {c.observed:.3f}, predicted "
          f"{c.predicted[1]:.3f} [{c.predicted[0]:.3f}, {c.predicted[2]:.3f}], p {c.p_value:.3f}")

# %% [markdown]
# **In words.** The worked example uses the baseline simulator, not physics, so that it
# runs in seconds; a physics calibration takes the same steps with
# `--simulator physics` and about an hour.
#
# - From 90 training throws of the synthetic recording, the fit recovered both hidden
#   values inside their 90% intervals: `p_fresh` 0.593 [0.570, 0.616] for a truth of
#   0.6, `p_old` 0.314 [0.293, 0.336] for 0.3, each interval 5% of its prior's width.
# - The held-out 30 throws raise no flag: the smallest of the four predictive p-values is
#   0.82.
# - Recorded from the shipped distilled tower, the two-chance baseline fits
#   `p_fresh` 0.80 and `p_old` 0.40 (the published rule says 2/3 and 1/3), and its
#   held-out checks do not reject it on 30 throws (smallest p 0.35): it predicts 6.1
#   pieces inside where the recording had 7.7, and a share of fresh pieces among those
#   out of 0.784 against 0.765 observed, both inside its 5-95% band. One recording of 120 throws cannot tell the two towers apart by these four aspects with 16 predictive
#   replays, although the fitted chances are not the published ones. The retention
#   notebook shows where the towers differ, with many more sequences.
