// Conformance of the port against vectors from the Python reference sampler.
// Run: `node --test` (the small model and vectors committed in test/data/), or
// TOWER_MODEL=path/model.json TOWER_VECTORS=path/vectors.json node --test test/ for another
// model (the Python test suite does this for the shipped model; see tests/test_js_port.py).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { PythonRandom, Tower, chi2Sf, chiSquareTest, loadModel, normalCdf } from "../src/index.js";
import { testFiles } from "../testing/files.js";

const { model: MODEL_PATH, vectors: VECTORS_PATH } = testFiles();
const model = loadModel(readFileSync(MODEL_PATH, "utf8"), MODEL_PATH);
const vectors = JSON.parse(readFileSync(VECTORS_PATH, "utf8"));
/** Draws per chi-square case. */
const DRAWS = 20000;

/** The largest absolute difference between two equally long arrays of numbers. */
function maxDiff(a, b) {
  assert.equal(a.length, b.length);
  return a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
}

test("the vectors are of this model", () => {
  assert.equal(vectors.schema, "tower.model-vectors/1");
  assert.equal(vectors.model.sha256, model.sha256);
  assert.equal(vectors.model.schema, model.schema);
});

test("exact laws agree with Python to 1e-12 on every case", () => {
  const s = model.sampler;
  const tol = vectors.tolerance;
  let worst = 0;
  let outcomes = 0;
  for (const [i, c] of vectors.cases.entries()) {
    const where = `case ${i} (${c.group} ${c.ctx})`;
    assert.deepEqual(s.bucketed(c.ctx), c.capped, `${where}: bucketed context`);
    const hit = s.tables.map((_, l) => l).filter((l) => s.entry(l, c.group, c.capped) !== undefined);
    assert.deepEqual(hit, c.levels_hit, `${where}: levels hit`);
    const d0 = maxDiff(s.pieceLaw(c.group, c.capped), c.piece_law);
    const d1 = maxDiff(s.outLaw(c.group, c.ctx), c.out_law);
    let d2 = 0;
    for (const [counts, p] of c.outcomes) {
      d2 = Math.max(d2, Math.abs(s.outcomeProbability(c.group, c.ctx, counts) - p));
      outcomes += 1;
    }
    worst = Math.max(worst, d0, d1, d2);
    assert.ok(Math.max(d0, d1, d2) <= tol, `${where}: differs by ${Math.max(d0, d1, d2)}`);
  }
  assert.ok(vectors.cases.length >= 1000, `only ${vectors.cases.length} cases`);
  console.log(`# exact laws: ${vectors.cases.length} cases, ${outcomes} outcome probabilities, max abs difference ${worst}`);
});

test("whole games: same pieces out, same states and count laws as Python, throw for throw", () => {
  let worst = 0;
  let throws = 0;
  let coupled = 0;
  for (const game of vectors.games) {
    const tower = new Tower(model, { seed: game.seed });
    for (const [j, step] of game.steps.entries()) {
      const where = `game ${game.seed} throw ${j}`;
      if (step.count_law === null) { // a throw the copula couples: no exact law (§8.1)
        assert.throws(() => tower.countLaw(step.fresh), /copula couples/, `${where}: count law`);
        coupled += 1;
      } else {
        worst = Math.max(worst, maxDiff(tower.countLaw(step.fresh), step.count_law));
      }
      assert.deepEqual(tower.throw(step.fresh), step.out, `${where}: pieces out`);
      assert.deepEqual(tower.getState(), step.state, `${where}: state after`);
      throws += 1;
    }
  }
  assert.ok(worst <= vectors.tolerance, `count laws differ by ${worst}`);
  assert.equal(coupled > 0, model.sampler.copula !== null, "coupled throws iff the model has a copula");
  console.log(`# games: ${vectors.games.length} games, ${throws} throws identical (${coupled} coupled), count laws max abs difference ${worst}`);
});

test("sampling frequencies pass the chi-square test against the exact out laws", () => {
  const s = model.sampler;
  const { level, cases } = vectors.chi_square;
  const rng = new PythonRandom(20261201);
  const results = cases.map((i) => {
    const c = vectors.cases[i];
    const observed = new Array(c.out_law.length).fill(0);
    for (let k = 0; k < DRAWS; k++) observed[s.outcome(c.group, c.ctx, rng)[0]] += 1;
    return { i, ...chiSquareTest(observed, c.out_law) };
  });
  const passed = results.filter((r) => r.pValue >= level).length;
  for (const r of results) console.log(`# chi-square case ${r.i}: statistic ${r.statistic.toFixed(2)}, df ${r.df}, p ${r.pValue.toFixed(4)}`);
  console.log(`# chi-square: ${passed} of ${results.length} cases pass at ${level}`);
  assert.ok(results.length >= 20);
  // at 1 % a right sampler fails about one case in 100: allow two chance failures
  assert.ok(passed >= results.length - 2, `${results.length - passed} cases fail`);
});

test("a whole throw's count frequencies pass the chi-square test against countLaw", () => {
  const uncoupled = vectors.games.filter((game) => game.steps[6].count_law !== null);
  assert.ok(uncoupled.length >= 1, "no game whose seventh throw has an exact law");
  for (const game of uncoupled.slice(0, 5)) {
    const step = game.steps[6];
    const before = game.steps[5].state;
    const tower = new Tower(model, { seed: 7 });
    const observed = new Array(step.count_law.length).fill(0);
    for (let k = 0; k < 4000; k++) {
      tower.setState(before);
      observed[tower.throw(step.fresh).length] += 1;
    }
    const r = chiSquareTest(observed, step.count_law);
    console.log(`# throw chi-square game ${game.seed}: statistic ${r.statistic.toFixed(2)}, df ${r.df}, p ${r.pValue.toFixed(4)}`);
    assert.ok(r.pValue >= 0.001, `game ${game.seed}: p = ${r.pValue}`);
  }
});

test("the Mersenne Twister matches Python's random.Random", () => {
  for (const [seed, { first, draw_999: last }] of Object.entries(vectors.random.python_random)) {
    const rng = new PythonRandom(BigInt(seed));
    const seq = Array.from({ length: 1000 }, () => rng.random());
    assert.deepEqual(seq.slice(0, 3), first, `seed ${seed}`);
    assert.equal(seq[999], last, `seed ${seed}`);
  }
});

test("gauss() and shuffle() match Python's random.Random (the copula's draws, §8.1)", () => {
  let worst = 0;
  let same = 0;
  let count = 0;
  for (const [seed, values] of Object.entries(vectors.random.python_gauss)) {
    const rng = new PythonRandom(BigInt(seed));
    for (const v of values) {
      const d = Math.abs(rng.gauss(0, 1) - v);
      worst = Math.max(worst, d);
      same += d === 0 ? 1 : 0;
      count += 1;
    }
  }
  // Math.log, cos and sin may differ from the C library's by an ulp: allow that much
  assert.ok(worst <= 1e-15, `gauss differs by ${worst}`);
  for (const [seed, [order, next]] of Object.entries(vectors.random.python_shuffle)) {
    const rng = new PythonRandom(BigInt(seed));
    const x = Array.from({ length: order.length }, (_, i) => i);
    rng.shuffle(x);
    assert.deepEqual(x, order, `shuffle, seed ${seed}`);
    assert.equal(rng.random(), next, `the draw after the shuffle, seed ${seed}`);
  }
  console.log(`# gauss: ${same} of ${count} draws identical, max abs difference ${worst}`);
});

test("the normal distribution function agrees with Python's", () => {
  let worst = 0;
  let worstRelative = 0;
  let same = 0;
  for (const [x, p] of vectors.random.normal_cdf) {
    const d = Math.abs(normalCdf(x) - p);
    worst = Math.max(worst, d);
    if (p > 0) worstRelative = Math.max(worstRelative, d / p);
    same += d === 0 ? 1 : 0;
  }
  assert.ok(worst <= 1e-15 && worstRelative <= 1e-13, `normalCdf differs by ${worst} (relative ${worstRelative})`);
  console.log(`# normal cdf: ${same} of ${vectors.random.normal_cdf.length} identical, max abs difference ${worst}, relative ${worstRelative}`);
});

test("chi-square survival function agrees with scipy", () => {
  for (const [x, df, sf] of vectors.random.chi2_sf) {
    assert.ok(Math.abs(chi2Sf(x, df) - sf) <= 1e-10 * Math.max(1, sf), `chi2 sf(${x}, ${df})`);
  }
});
