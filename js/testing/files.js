// The files the tests read: the small model and its vectors committed in js/test/data/ and the
// web page's bundle, unless TOWER_MODEL and TOWER_VECTORS (and TOWER_BUNDLE) name others,
// e.g. a freshly exported model and the vectors `tower model vectors` wrote for it.

import { fileURLToPath } from "node:url";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

/** Paths of the model, its vectors and the page's bundle to test. */
export function testFiles(env = process.env) {
  const { TOWER_MODEL, TOWER_VECTORS, TOWER_BUNDLE } = env;
  if (Boolean(TOWER_MODEL) !== Boolean(TOWER_VECTORS)) {
    throw new Error("set both TOWER_MODEL and TOWER_VECTORS, or neither (then js/test/data/ is used)");
  }
  return {
    model: TOWER_MODEL || here("../test/data/model.json"),
    vectors: TOWER_VECTORS || here("../test/data/vectors.json"),
    bundle: TOWER_BUNDLE || here("../../web/tower-model.js"),
  };
}
