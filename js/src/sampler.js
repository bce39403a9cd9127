// The reference sampler of a distilled tower, ported line by line from
// tower/model/reference.py. Section numbers (§) refer to docs/model-format.md.

import { normalCdf } from "./normal.js";

/** Places inside the tower, top to bottom (§2). */
export const PLACES = Object.freeze(["funnel", "floor1", "floor2", "ramp"]);
/** Destinations of a piece in a throw; index 0 is out (§2). */
export const DESTINATIONS = Object.freeze(["out", ...PLACES]);
/** Context fields in context-tuple order (§4); w and x are new in tower.model/2, t in tower.model/3. */
export const FIELDS = Object.freeze(["m", "n", "I", "P", "J", "w", "x", "t", "o"]);
/** The context fields of a tower.model/2 file (§4, §11). */
export const FIELDS_V2 = Object.freeze(["m", "n", "I", "P", "J", "w", "x", "o"]);
/** The context fields of a tower.model/1 file (§4, §11). */
export const FIELDS_V1 = Object.freeze(["m", "n", "I", "P", "J", "o"]);
/** The classes counted by the make-up fields w and x (§4). */
export const MAKEUP = Object.freeze({ w: "pawn", x: "expert" });

const PLACE_INDEX = new Map(PLACES.map((p, i) => [p, i]));

/**
 * `table[v]`: the largest edge not above `v`, for `v` in `0..edges[edges.length - 1]` (§4).
 * @param {number[]} edges
 * @returns {number[]}
 */
export function bucketTable(edges) {
  const table = [];
  let e = 0;
  for (let v = 0; v <= edges[edges.length - 1]; v++) {
    if (e + 1 < edges.length && edges[e + 1] <= v) e += 1;
    table.push(edges[e]);
  }
  return table;
}

/** Name of the group of thrown pieces of class `cls` (§3). */
export function freshGroup(cls) {
  return `fresh.${cls}`;
}

/** Name of the group of residents at `place` of class `cls` aged `age` throws (§3). */
export function residentGroup(place, cls, age, ageCap) {
  return `${place}.${cls}.${Math.min(age, ageCap)}`;
}

const keyOf = (group, values) => [group, ...values].join("|");

/** Python's math.comb and float(math.factorial) as correctly rounded doubles. */
const combCache = new Map();
function comb(m, k) {
  const id = m * 4096 + k;
  let c = combCache.get(id);
  if (c === undefined) {
    let big = 1n;
    for (let i = 0; i < k; i++) big = (big * BigInt(m - i)) / BigInt(i + 1);
    c = Number(big);
    combCache.set(id, c);
  }
  return c;
}
const factorials = [1n];
function factorial(k) {
  while (factorials.length <= k) factorials.push(factorials[factorials.length - 1] * BigInt(factorials.length));
  return Number(factorials[k]);
}

/** Index of the first element of sorted `cum` greater than `u` (Python's bisect_right). */
function bisectRight(cum, u) {
  let lo = 0;
  let hi = cum.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (u < cum[mid]) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * Draws throws from the `model` section of a model file, and gives their exact laws.
 * The section must already be validated (see `loadModel`).
 */
export class Sampler {
  /** @param {Record<string, any>} model */
  constructor(model) {
    this.levels = model.levels.map((f) => [...f]);
    this.alpha = Number(model.alpha);
    this.prior = Number(model.prior);
    this.buckets = Object.fromEntries(Object.entries(model.buckets).map(([f, e]) => [f, [...e]]));
    this.ageCap = model.age_cap;
    this.classes = { ...model.classes };
    this.base = new Map(Object.entries(model.base).map(([g, p]) => [g, [...p]]));
    // §8.1: the copula's entries [throw, origin, gate classes (null: every throw)], or null (independent groups)
    const entries = model.copula ? (Array.isArray(model.copula) ? model.copula : [model.copula]) : null;
    this.copula = entries && entries.map((e) => [e.throw, e.origin, typeof e.gate === "string" ? [e.gate] : e.gate]);
    this.splits = new Map();
    // a v1 file has no edges for w and x, a file without t none for t (no level asks for them)
    this.luts = FIELDS.slice(1).map((f) => bucketTable(this.buckets[f] ?? [0]));
    // §5: per level, the positions of its fields in a context, and its compiled entries
    this.picks = this.levels.map((fields) => fields.map((f) => FIELDS.indexOf(f)));
    this.tables = model.tables.map((table) => {
      const compiled = new Map();
      for (const [key, flat] of Object.entries(table)) {
        const [group, ...values] = key.split("|");
        const cum = [];
        const outcomes = [];
        let acc = 0;
        for (let i = 0; i < flat.length; i += 6) {
          acc += flat[i];
          cum.push(acc);
          outcomes.push(flat.slice(i + 1, i + 6));
        }
        const denominator = acc + this.alpha * outcomes.length;
        compiled.set(keyOf(group, values.map(Number)), { total: acc, cum, outcomes, denominator });
      }
      return compiled;
    });
    // §6: per-piece destination counts by context, coarsest level first
    this.piecePicks = model.piece_levels.map((fields) => fields.map((f) => FIELDS.indexOf(f))).reverse();
    this.pieceTables = model.piece_tables
      .map((table) => {
        const compiled = new Map();
        for (const [key, counts] of Object.entries(table)) {
          const [group, ...values] = key.split("|");
          compiled.set(keyOf(group, values.map(Number)), counts);
        }
        return compiled;
      })
      .reverse();
  }

  /** The context with every field but `m` bucketed (§4). @param {number[]} ctx */
  bucketed(ctx) {
    const capped = [ctx[0]];
    for (let i = 1; i < FIELDS.length; i++) {
      const lut = this.luts[i - 1];
      const v = ctx[i];
      capped.push(v < lut.length ? lut[v] : lut[lut.length - 1]);
    }
    return capped;
  }

  /** Per-piece destination probabilities of the fallback in a bucketed context (§6). */
  pieceLaw(group, capped) {
    let law = this.base.get(group);
    for (let l = 0; l < this.pieceTables.length; l++) {
      const counts = this.pieceTables[l].get(keyOf(group, this.piecePicks[l].map((i) => capped[i])));
      if (counts !== undefined) {
        const total = counts.reduce((a, c) => a + c, 0) + this.prior;
        law = counts.map((c, d) => (c + this.prior * law[d]) / total);
      }
    }
    return law;
  }

  /** The table entry of `group` at level `l` in a bucketed context, or undefined (§5). */
  entry(l, group, capped) {
    return this.tables[l].get(keyOf(group, this.picks[l].map((i) => capped[i])));
  }

  /** §7: the exact law as [weight, entry] per level hit, the base weight and the piece law. */
  mixture(group, ctx) {
    const capped = this.bucketed(ctx);
    const parts = [];
    let reach = 1.0; // probability that a draw gets down to this level
    for (let l = 0; l < this.tables.length; l++) {
      const entry = this.entry(l, group, capped);
      if (entry !== undefined) {
        parts.push([reach / entry.denominator, entry]);
        reach *= (entry.denominator - entry.total) / entry.denominator;
      }
    }
    return { parts, reach, piece: this.pieceLaw(group, capped) };
  }

  /**
   * Destination counts [out, funnel, floor1, floor2, ramp] of one group (§5, §6).
   * @param {string} group
   * @param {number[]} ctx (m, n, I, P, J, w, x, t, o)
   * @param {{random(): number}} rng
   */
  outcome(group, ctx, rng) {
    const capped = this.bucketed(ctx);
    for (let l = 0; l < this.tables.length; l++) {
      const entry = this.entry(l, group, capped);
      if (entry === undefined) continue;
      const u = rng.random() * entry.denominator;
      if (u < entry.total) return [...entry.outcomes[bisectRight(entry.cum, u)]];
    }
    const cum = [];
    let acc = 0.0;
    for (const q of this.pieceLaw(group, capped)) {
      acc += q;
      cum.push(acc);
    }
    const counts = [0, 0, 0, 0, 0];
    for (let i = 0; i < ctx[0]; i++) counts[Math.min(bisectRight(cum, rng.random() * acc), 4)] += 1;
    return counts;
  }

  /** Exact probability that k of the group's m pieces go out, k = 0..m (§7). */
  outLaw(group, ctx) {
    const m = ctx[0];
    const law = new Array(m + 1).fill(0.0);
    const { parts, reach, piece } = this.mixture(group, ctx);
    for (const [weight, entry] of parts) {
      let prev = 0;
      entry.cum.forEach((c, i) => {
        law[entry.outcomes[i][0]] += weight * (c - prev);
        prev = c;
      });
    }
    const p = piece[0] / piece.reduce((a, q) => a + q, 0);
    for (let k = 0; k <= m; k++) law[k] += reach * comb(m, k) * p ** k * (1 - p) ** (m - k);
    return law;
  }

  /** Exact probability of the destination counts `counts` of one group (§7). */
  outcomeProbability(group, ctx, counts) {
    const { parts, reach, piece } = this.mixture(group, ctx);
    let prob = 0.0;
    for (const [weight, entry] of parts) {
      let prev = 0;
      entry.cum.forEach((c, i) => {
        if (entry.outcomes[i].every((x, d) => x === counts[d])) prob += weight * (c - prev);
        prev = c;
      });
    }
    let multinomial = factorial(ctx[0]);
    const total = piece.reduce((a, q) => a + q, 0);
    counts.forEach((k, d) => {
      multinomial *= (piece[d] / total) ** k / factorial(k);
    });
    return prob + reach * multinomial;
  }

  /**
   * One throw (§8). `residents` are [cls, place, since, payload], `fresh` [cls, payload];
   * `throws` is this throw's index from the empty tower (the field t). Returns the payloads
   * out and the residents after.
   * A model with a copula draws the groups of a throw whose loadings are not [0, 0] jointly (§8.1, `coupledThrow`).
   */
  throw(residents, fresh, throws, rng) {
    const [a, b] = this.loadings(residents, fresh);
    if (a !== 0 || b !== 0) return this.coupledThrow(residents, fresh, throws, rng);
    let gone = 0;
    const out = [];
    const after = [];
    for (const { name, cls, ctx, members } of groups(residents, fresh, throws, this.ageCap)) {
      const m = members.length;
      const counts = this.outcome(name, [...ctx, gone], rng);
      // uniform assignment: shuffle just the members of all but the (first) largest share
      const rest = counts.indexOf(Math.max(...counts));
      const chosen = m - counts[rest];
      for (let i = 0; i < chosen; i++) {
        const j = i + Math.floor(rng.random() * (m - i));
        [members[i], members[j]] = [members[j], members[i]];
      }
      let start = 0;
      counts.forEach((k, dest) => {
        if (k && dest !== rest) {
          emit(dest, cls, members.slice(start, start + k), out, after);
          start += k;
        }
      });
      emit(rest, cls, members.slice(chosen), out, after);
      gone += counts[0];
    }
    return { out, after };
  }

  /** The copula's loadings [throw, origin] for a throw: its first entry whose gate is met, or [0, 0] (§8.1). */
  loadings(residents, fresh) {
    for (const [a, b, gate] of this.copula ?? []) {
      if (gate === null || residents.some((r) => gate.includes(r[0])) || fresh.some((f) => gate.includes(f[0]))) return [a, b];
    }
    return [0.0, 0.0];
  }

  /**
   * §8.1: the group's exact law split by the number out, cached: { outCum, byOut, stayCum }:
   * the cumulative law of the number out; per number out k, the cumulative weights and the
   * outcomes with k out of the mixture (null: the base multinomial's); the cumulative
   * per-piece law of the places for the base's pieces that stay. Sums run left to right.
   */
  lawByOut(group, ctx) {
    const key = `${group}|${ctx.join(",")}`;
    const found = this.splits.get(key);
    if (found !== undefined) return found;
    const { parts, reach, piece } = this.mixture(group, ctx);
    const m = ctx[0];
    const byOut = Array.from({ length: m + 1 }, () => ({ weights: [], outcomes: [] }));
    for (const [weight, entry] of parts) {
      let prev = 0;
      entry.cum.forEach((c, i) => {
        const outcome = entry.outcomes[i];
        byOut[outcome[0]].weights.push(weight * (c - prev));
        byOut[outcome[0]].outcomes.push(outcome);
        prev = c;
      });
    }
    const p = piece[0] / runningSum(piece);
    for (let k = 0; k <= m; k++) {
      byOut[k].weights.push(reach * comb(m, k) * p ** k * (1 - p) ** (m - k));
      byOut[k].outcomes.push(null);
    }
    const stay = runningSum(piece.slice(1));
    const split = byOut.map(({ weights, outcomes }) => ({ cum: runningSums(weights), outcomes }));
    const result = {
      outCum: runningSums(split.map(({ cum }) => cum[cum.length - 1])),
      byOut: split,
      stayCum: runningSums(piece.slice(1).map((q) => q / stay)),
    };
    if (this.splits.size >= 300000) this.splits.clear(); // bound the memory
    this.splits.set(key, result);
    return result;
  }

  /**
   * §8.1: `throw` with the groups drawn through the model's Gaussian copula. Per throw a
   * normal Z, per group (visiting order) Z_o when its origin is met first and its own e
   * (`rng.gauss`), the number out by inverting the out-law at u = Phi(a Z + b Z_o + c e),
   * one uniform for the outcome with that number out (and one per staying piece if it is
   * the base multinomial's), then a shuffle of the members (`rng.shuffle`). `rng` must
   * have Python's gauss() and shuffle() (PythonRandom has them).
   */
  coupledThrow(residents, fresh, throws, rng) {
    if (typeof rng.gauss !== "function" || typeof rng.shuffle !== "function") {
      throw new TypeError("a model with a copula needs a random source with gauss() and shuffle(), as PythonRandom");
    }
    const [a, b] = this.loadings(residents, fresh);
    const c = Math.sqrt(1 - a * a - b * b);
    const shared = rng.gauss(0, 1);
    const origins = new Map();
    let gone = 0;
    const out = [];
    const after = [];
    for (const { name, cls, ctx, members } of groups(residents, fresh, throws, this.ageCap)) {
      const origin = name.split(".")[0];
      if (!origins.has(origin)) origins.set(origin, rng.gauss(0, 1));
      const u = normalCdf(a * shared + b * origins.get(origin) + c * rng.gauss(0, 1));
      const { outCum, byOut, stayCum } = this.lawByOut(name, [...ctx, gone]);
      const k = Math.min(bisectRight(outCum, u * outCum[outCum.length - 1]), outCum.length - 1);
      const { cum, outcomes } = byOut[k];
      let outcome = outcomes[Math.min(bisectRight(cum, rng.random() * cum[cum.length - 1]), cum.length - 1)];
      if (outcome === null) { // the base multinomial, given k out
        const places = [0, 0, 0, 0];
        for (let i = 0; i < members.length - k; i++) {
          places[Math.min(bisectRight(stayCum, rng.random() * stayCum[stayCum.length - 1]), 3)] += 1;
        }
        outcome = [k, ...places];
      }
      gone += k;
      rng.shuffle(members);
      let start = 0;
      outcome.forEach((count, dest) => {
        emit(dest, cls, members.slice(start, start + count), out, after);
        start += count;
      });
    }
    return { out, after };
  }
}

/** `values` added up left to right. */
function runningSum(values) {
  let total = 0.0;
  for (const v of values) total += v;
  return total;
}

/** The running sums of `values`, left to right (Python's itertools.accumulate). */
function runningSums(values) {
  const sums = [];
  let total = 0;
  for (const v of values) {
    total += v;
    sums.push(total);
  }
  return sums;
}

/**
 * The groups of a throw in visiting order (§3): fresh groups first, then places top to
 * bottom, each by group name. `ctx` is the context (m, n, I, P, J, w, x, t) without o (§4):
 * P is the occupancy of the group's place before the throw (for fresh pieces, the number
 * inside), w and x the pawns and experts thrown, t is `throws`; members are [since, payload].
 */
export function groups(residents, fresh, throws, ageCap) {
  const found = new Map();
  const occupancy = [0, 0, 0, 0];
  const add = (index, name, cls, member) => {
    const id = `${index}\u0000${name}`;
    if (!found.has(id)) found.set(id, { index, name, cls, members: [] });
    found.get(id).members.push(member);
  };
  for (const [cls, payload] of fresh) add(-1, freshGroup(cls), cls, [throws, payload]);
  for (const [cls, place, since, payload] of residents) {
    const index = PLACE_INDEX.get(place);
    if (index === undefined) throw new RangeError(`unknown place ${JSON.stringify(place)}`);
    occupancy[index] += 1;
    add(index, residentGroup(place, cls, throws - since, ageCap), cls, [since, payload]);
  }
  const n = fresh.length;
  const inside = residents.length;
  const thrown = (cls) => found.get(`-1\u0000${freshGroup(cls)}`)?.members.length ?? 0;
  const w = thrown(MAKEUP.w);
  const x = thrown(MAKEUP.x);
  return [...found.values()]
    .sort((a, b) => a.index - b.index || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ index, name, cls, members }) => ({
      name,
      cls,
      ctx: [members.length, n, inside, index >= 0 ? occupancy[index] : inside, inside, w, x, throws],
      members,
    }));
}

function emit(dest, cls, members, out, after) {
  if (dest === 0) for (const [, payload] of members) out.push(payload);
  else for (const [since, payload] of members) after.push([cls, PLACES[dest - 1], since, payload]);
}
