"""How much a 200-throw recording tells the learned likelihood, honestly (issue 30).

Every number in README.md comes from this script, on committed data only (the two banks,
the tempering and coverage recordings, and the physics sequences of ``roughness.jsonl`` and
``local.jsonl``):

    python calibration/information/measure.py points      # bank points, penalty, MLP
    python calibration/information/measure.py sessions    # sessions against one sequence
    python calibration/information/measure.py roughness   # per-truth offsets near a truth
    python calibration/information/measure.py roughness --simulate  # remake the physics
    python calibration/information/measure.py local       # a bank near the truth

The measure is the Godambe information ``H J^-1 H`` of one member's raw composite
log-likelihood at the truth (``J``: mean outer product of the score, ``H``: mean negative
Hessian; central differences in the unit cube), whose eigenvalues are what an honestly
tempered likelihood can still learn along its best directions.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tower.calibration import surrogate as S  # noqa: E402
from tower.calibration.bank import (  # noqa: E402
    BankSettings,
    point_task,
    read_bank,
    simulate_point,
)

DATA = ROOT / "tower" / "calibration" / "data"
HERE = Path(__file__).parent
STEP = 0.01


def offsets(d: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """The centre, the 2d axis steps and the 4 corners of every pair, ``(1 + 2d + 2d(d-1), d)``."""
    eye = np.eye(d)
    pairs = [(i, j) for i in range(d) for j in range(i + 1, d)]
    rows = [
        np.zeros(d),
        *[s * STEP * eye[i] for i in range(d) for s in (1, -1)],
        *[
            STEP * (a * eye[i] + b * eye[j])
            for i, j in pairs
            for a, b in ((1, 1), (1, -1), (-1, 1), (-1, -1))
        ],
    ]
    return np.vstack(rows), pairs


def score_and_curvature(ll: np.ndarray, d: int, pairs: list) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and negative Hessian from log-likelihoods at :func:`offsets`."""
    plus, minus = ll[1 : 2 * d + 1 : 2], ll[2 : 2 * d + 1 : 2]
    hess = np.diag((plus - 2 * ll[0] + minus) / STEP**2)
    corners = ll[2 * d + 1 :].reshape(-1, 4) @ np.array([1, -1, -1, 1]) / (4 * STEP**2)
    for (a, b), v in zip(pairs, corners, strict=True):
        hess[a, b] = hess[b, a] = v
    return (plus - minus) / (2 * STEP), -hess


def rows(ages: list, seed: int) -> tuple[np.ndarray, np.ndarray]:
    painted = S.paint(ages, 12, 1, seed)
    return S.transitions([p[0] for p in painted], [p[1] for p in painted])


def summary(J: np.ndarray, H: np.ndarray) -> dict:
    d = len(J)
    G = H @ np.linalg.solve(J, H)
    return {
        "k": round(float(d / np.trace(np.linalg.solve(H, J))), 3),
        "godambe": np.round(np.sort(np.linalg.eigvalsh((G + G.T) / 2))[::-1][:5], 1).tolist(),
        "H": np.round(np.sort(np.linalg.eigvalsh(H))[::-1][:5], 1).tolist(),
    }


def on_long_bank(loglik, long, throws: int) -> dict:
    """Mean ``J`` and ``H`` at the truths of the long bank's first ``throws`` throws."""
    d = long.u.shape[1]
    off, pairs = offsets(d)
    J, H, n = np.zeros((d, d)), np.zeros((d, d)), 0
    for i in range(len(long.u)):
        if long.status[i] != "ok":
            continue
        X, y = rows(long.ages[i], 7919 * i)
        g, h = score_and_curvature(loglik(long.u[i][None] + off, X[:throws], y[:throws]), d, pairs)
        J, H, n = J + np.outer(g, g), H + h, n + 1
    return {"throws": throws, "sequences": n, **summary(J / n, H / n)}


def one_member(bank, points: int, penalty: float = 1.0, extra=(), weight: int = 1):
    """One member (no bootstrap) learned from the bank's first ``points`` points, and from
    ``extra`` sequences ``(u, ages, seed)`` (36 throws from an empty tower), each counted
    ``weight`` times."""
    parts = [S.bank_rows(bank, range(points), 0)]
    for u, ages, seed in extra:
        for group in S.TRAIN_GROUPS:
            painted = S.paint(ages, 12, group, seed + group)
            X, y = S.transitions([p[0] for p in painted], [p[1] for p in painted])
            parts += [(np.repeat(np.array(u)[None], len(X), axis=0), X, y)] * weight
    u, X, y = (np.concatenate([part[i] for part in parts]) for i in range(3))
    n_same, n_other = S._limits(X)
    z = np.concatenate([u, X], axis=1)
    same = S.CountModel.fit(z, y[:, 0], n_same, penalty)
    other = S.CountModel.fit(
        np.concatenate([z, y[:, :1] / S.SCALE], axis=1), y[:, 1], n_other, penalty
    )
    names = tuple(p.name for p in bank.parameters)
    return S.Surrogate(names, (S.Member(same, other),), S.key_names(12), None, {}, (1.0,))


def member_loglik(sur):
    return lambda u, X, y: sur.loglik(u, X, y, 0, tempered=False)


def mlp_loglik(bank, hidden=(64, 64), alpha=1e-4):
    """A multilayer perceptron on the same inputs (binomial counts), for comparison."""
    from scipy.special import gammaln
    from sklearn.neural_network import MLPClassifier

    u, X, y = S.bank_rows(bank, range(len(bank.u)), 0)
    n_same, n_other = S._limits(X)
    z1 = np.c_[u, X]
    models = []
    for z, k, n in ((z1, y[:, 0], n_same), (np.c_[z1, y[:, :1] / S.SCALE], y[:, 1], n_other)):
        centre, scale = z.mean(0), z.std(0) + 1e-9
        keep = n > 0
        w = np.r_[k[keep], n[keep] - k[keep]].astype(float)
        Z = (np.vstack([z[keep], z[keep]]) - centre) / scale
        Y = np.r_[np.ones(keep.sum()), np.zeros(keep.sum())]
        clf = MLPClassifier(
            hidden,
            alpha=alpha,
            max_iter=60,
            random_state=0,
            batch_size=2048,
            learning_rate_init=2e-3,
            tol=1e-6,
            n_iter_no_change=8,
        )
        clf.fit(Z[w > 0], Y[w > 0], sample_weight=w[w > 0])
        models.append((clf, centre, scale))

    def logit(model, Z):
        clf, centre, scale = model
        a = (Z - centre) / scale
        for i, (W, b) in enumerate(zip(clf.coefs_, clf.intercepts_, strict=True)):
            a = a @ W + b
            a = np.maximum(a, 0) if i < len(clf.coefs_) - 1 else a
        return a[:, 0]

    def binomial(k, n, lg):
        return (
            gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1) + k * lg - n * np.logaddexp(0, lg)
        )

    def loglik(U, X, y):
        m, T = len(U), len(X)
        a_same, a_other = S._limits(X)
        Zs = np.c_[np.repeat(U, T, 0), np.tile(X, (m, 1))]
        Zo = np.c_[Zs, np.tile(y[:, :1] / S.SCALE, (m, 1))]
        ll = binomial(np.tile(y[:, 0], m), np.tile(a_same, m), logit(models[0], Zs)) + binomial(
            np.tile(y[:, 1], m), np.tile(a_other, m), logit(models[1], Zo)
        )
        return ll.reshape(m, T).sum(1)

    return loglik


def points() -> None:
    bank, long = (
        read_bank(DATA / "bank-marrakesh.jsonl"),
        read_bank(DATA / "bank-marrakesh-200.jsonl"),
    )
    for n, penalty in ((582, 1.0), (1161, 1.0), (1756, 1.0), (1756, 1e2), (1756, 1e3), (1756, 1e4)):
        sur = member_loglik(one_member(bank, n, penalty))
        print(
            json.dumps({"points": n, "penalty": penalty, **on_long_bank(sur, long, 200)}),
            flush=True,
        )
    mlp = mlp_loglik(bank)
    for throws in (36, 200):
        print(
            json.dumps({"points": len(bank.u), "mlp": [64, 64], **on_long_bank(mlp, long, throws)}),
            flush=True,
        )


DESIGNS = {
    "r36": [("r", 36)],
    "r36+p36": [("r", 36), ("p", 36)],
    "r72": [("r", 72)],
    "r50+p50": [("r", 50), ("p", 50)],
    "r100": [("r", 100)],
    "r100+p100": [("r", 100), ("p", 100)],
    "r200": [("r", 200)],
}


def sessions() -> None:
    """Sessions from an empty tower at one truth (a recording and its independent replay)
    against one continuous sequence of as many throws."""
    from tower.calibration.fit import to_unit_rows
    from tower.calibration.simulators import physics_parameters

    bank = read_bank(DATA / "bank-marrakesh.jsonl")
    sur = one_member(bank, len(bank.u))
    loglik = member_loglik(sur)
    params = sorted(
        (p for p in physics_parameters("marrakesh") if p.name in sur.parameters),
        key=lambda p: sur.parameters.index(p.name),
    )
    d = len(params)
    off, pairs = offsets(d)
    acc = {k: [np.zeros((d, d)), np.zeros((d, d)), 0] for k in DESIGNS}
    for folder in ("tempering", "coverage"):
        for line in (
            (ROOT / "calibration" / folder / "recordings.jsonl").read_text().splitlines()[1:]
        ):
            rec = json.loads(line)
            if rec["status"] != "ok" or len(rec["replay_ages"]) < 100:
                continue
            u = to_unit_rows(params, np.array([[rec["theta"][p.name] for p in params]]))[0]
            seqs = {
                "r": rows(rec["ages"], rec["key"]),
                "p": rows(rec["replay_ages"], rec["key"] + 1),
            }
            done: dict = {}
            for name, segments in DESIGNS.items():
                g, h = np.zeros(d), np.zeros((d, d))
                for src, m in segments:
                    if (src, m) not in done:
                        X, y = seqs[src]
                        done[src, m] = score_and_curvature(
                            loglik(u[None] + off, X[:m], y[:m]), d, pairs
                        )
                    g, h = g + done[src, m][0], h + done[src, m][1]
                acc[name][0] += np.outer(g, g)
                acc[name][1] += h
                acc[name][2] += 1
    for name, (J, H, n) in acc.items():
        throws = sum(m for _, m in DESIGNS[name])
        print(json.dumps({"design": name, "throws": throws, "truths": n, **summary(J / n, H / n)}))


ROUGH = HERE / "roughness.jsonl"


def _roughness_tasks(n: int = 24, step: float = 0.03) -> list[dict]:
    """At each of the long bank's first ``n`` good truths: one more 200-throw sequence there
    (a new seed) and one at a point ``step`` away in a random direction of the unit cube."""
    long = read_bank(DATA / "bank-marrakesh-200.jsonl")
    settings = BankSettings(
        **{k: v for k, v in long.settings.items() if k in BankSettings.__dataclass_fields__}
    )
    rng = np.random.default_rng(5)
    tasks = []
    for i in [i for i in range(len(long.u)) if long.status[i] == "ok"][:n]:
        v = rng.normal(size=long.u.shape[1])
        near = np.clip(long.u[i] + step * v / np.linalg.norm(v), 0, 1)
        same = {**point_task(settings, i, long.u[i]), "kind": "same"}
        same["seed"] += 1000003
        other = {**point_task(settings, i, near), "kind": "near", "u": near.tolist()}
        other["seed"] += 2000003
        tasks += [same, other]
    return tasks


def _simulate(task: dict) -> dict:
    return {**simulate_point(task), **{k: task[k] for k in ("kind", "u", "truth") if k in task}}


def _make(path: Path, tasks: list[dict], key) -> None:
    """Simulate the tasks not yet in ``path`` on two processes, appending line by line
    (resumable: a sequence already in the file is not made again)."""
    done = (
        {key(json.loads(line)) for line in path.read_text().splitlines()}
        if path.exists()
        else set()
    )
    with ProcessPoolExecutor(2) as pool, path.open("a") as out:
        for r in pool.map(_simulate, [t for t in tasks if key(t) not in done]):
            out.write(json.dumps(r) + "\n")
            out.flush()


def offset(member, ages, u, seed) -> list[float]:
    """Per-truth offsets of the two counts on the logit scale, and the mean inside."""
    X, y = rows(ages, seed)
    n_same, n_other = S._limits(X)
    res = []
    for cm, k, n, Z in (
        (member.same, y[:, 0], n_same, X),
        (member.other, y[:, 1], n_other, np.c_[X, y[:, :1] / S.SCALE]),
    ):
        mu = 1 / (1 + np.exp(-cm.logit(np.asarray(u)[None], Z)[0]))
        res.append(float((k - n * mu).sum() / (n * mu * (1 - mu)).sum()))
    return [*res, float(np.cumsum([12 - len(a) for a in ages])[12:].mean())]


def roughness(simulate: bool) -> None:
    if simulate:
        _make(ROUGH, _roughness_tasks(), lambda r: (r["key"], r["kind"]))
    bank, long = (
        read_bank(DATA / "bank-marrakesh.jsonl"),
        read_bank(DATA / "bank-marrakesh-200.jsonl"),
    )
    member = one_member(bank, len(bank.u)).members[0]

    by: dict = {}
    for r in map(json.loads, ROUGH.read_text().splitlines()):
        if r["status"] == "ok":
            by.setdefault(r["key"], {})[r["kind"]] = r
    table = np.array(
        [
            offset(member, long.ages[k], long.u[k], 7919 * k)
            + offset(member, d["same"]["ages"], long.u[k], 7919 * k + 1)
            + offset(member, d["near"]["ages"], d["near"]["u"], 7919 * k + 2)
            for k, d in by.items()
            if len(d) == 2 and long.status[k] == "ok"
        ]
    )
    for j, name in enumerate(
        ("offset of fresh pieces out", "offset of old pieces out", "mean inside")
    ):
        a, same, near = table[:, j], table[:, 3 + j], table[:, 6 + j]
        print(
            json.dumps(
                {
                    "statistic": name,
                    "truths": len(table),
                    "corr_same_truth": round(float(np.corrcoef(a, same)[0, 1]), 2),
                    "corr_near_truth": round(float(np.corrcoef(a, near)[0, 1]), 2),
                }
            )
        )


LOCAL = HERE / "local.jsonl"


def _local_tasks(truths: int = 6, points: int = 30, half: float = 0.08) -> list[dict]:
    """``points`` 36-throw sequences (the 36-throw bank's protocol) at points drawn in a box
    of half-width ``half`` around each of the long bank's first ``truths`` good truths."""
    bank, long = (
        read_bank(DATA / "bank-marrakesh.jsonl"),
        read_bank(DATA / "bank-marrakesh-200.jsonl"),
    )
    settings = BankSettings(
        **{k: v for k, v in bank.settings.items() if k in BankSettings.__dataclass_fields__}
    )
    rng = np.random.default_rng(11)
    tasks = []
    for i in [i for i in range(len(long.u)) if long.status[i] == "ok"][:truths]:
        for j in range(points):
            u = np.clip(long.u[i] + rng.uniform(-half, half, long.u.shape[1]), 0, 1)
            tasks.append(
                {**point_task(settings, 10_000 * (i + 1) + j, u), "truth": i, "u": u.tolist()}
            )
    return tasks


def local(simulate: bool) -> None:
    """The per-truth offsets at the long bank's truths, learned from the whole bank against
    the whole bank plus 30 sequences near the truth (each counted 10 times)."""
    if simulate:
        _make(LOCAL, _local_tasks(), lambda r: r["key"])
    bank, long = (
        read_bank(DATA / "bank-marrakesh.jsonl"),
        read_bank(DATA / "bank-marrakesh-200.jsonl"),
    )
    near = [r for r in map(json.loads, LOCAL.read_text().splitlines()) if r["status"] == "ok"]
    whole = one_member(bank, len(bank.u)).members[0]
    for i in sorted({r["truth"] for r in near}):
        extra = [(r["u"], r["ages"], r["key"]) for r in near if r["truth"] == i]
        refined = one_member(bank, len(bank.u), extra=extra, weight=10).members[0]
        at = (long.ages[i], long.u[i], 7919 * i)
        print(
            json.dumps(
                {
                    "truth": i,
                    "near": len(extra),
                    "whole_bank": np.round(offset(whole, *at)[:2], 3).tolist(),
                    "with_near": np.round(offset(refined, *at)[:2], 3).tolist(),
                }
            )
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("points", "sessions", "roughness", "local"))
    parser.add_argument("--simulate", action="store_true", help="make missing physics first")
    args = parser.parse_args()
    if args.what in ("roughness", "local"):
        {"roughness": roughness, "local": local}[args.what](args.simulate)
    else:
        {"points": points, "sessions": sessions}[args.what]()
