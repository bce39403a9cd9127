// The web page's classic-script bundle (web/tower-model.js, written by `tower model bundle`)
// behaves as the ES modules: it replays the vectors' games draw for draw.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

const { TOWER_MODEL, TOWER_VECTORS, TOWER_BUNDLE } = process.env;
const skip = !TOWER_MODEL || !TOWER_VECTORS || !TOWER_BUNDLE ? "set TOWER_MODEL, TOWER_VECTORS and TOWER_BUNDLE" : false;

test("the bundle replays the vectors' games", { skip }, () => {
  const context = vm.createContext({ TextEncoder });
  vm.runInContext(readFileSync(TOWER_BUNDLE, "utf8"), context);
  const { loadModel, Tower } = context.TowerModel;
  const model = loadModel(readFileSync(TOWER_MODEL, "utf8"));
  const vectors = JSON.parse(readFileSync(TOWER_VECTORS, "utf8"));
  for (const game of vectors.games.slice(0, 10)) {
    const tower = new Tower(model, { seed: game.seed });
    for (const step of game.steps) {
      assert.deepEqual([...tower.throw(step.fresh)], step.out);
      assert.deepEqual(JSON.parse(JSON.stringify(tower.getState())), step.state);
    }
  }
});
