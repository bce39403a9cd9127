// The web page's classic-script bundle (web/tower-model.js, written by `tower model bundle`)
// behaves as the ES modules: it replays the vectors' games draw for draw.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

import { testFiles } from "../testing/files.js";

test("the bundle replays the vectors' games", () => {
  const files = testFiles();
  const context = vm.createContext({ TextEncoder });
  vm.runInContext(readFileSync(files.bundle, "utf8"), context);
  const { loadModel, Tower } = context.TowerModel;
  const model = loadModel(readFileSync(files.model, "utf8"));
  const vectors = JSON.parse(readFileSync(files.vectors, "utf8"));
  for (const game of vectors.games.slice(0, 10)) {
    const tower = new Tower(model, { seed: game.seed });
    for (const step of game.steps) {
      assert.deepEqual([...tower.throw(step.fresh)], step.out);
      assert.deepEqual(JSON.parse(JSON.stringify(tower.getState())), step.state);
    }
  }
});
