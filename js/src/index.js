// tower-model: the distilled tower model in JavaScript. See README.md and
// docs/model-format.md of the tower toolkit.

export { canonicalJson, pythonFloatRepr } from "./canonical.js";
export { FORMATS, Model, ModelFileError, SCHEMA_COPULA, VERSION_FIELDS, loadModel, newerField, pieceKind } from "./model.js";
export { erfc, normalCdf } from "./normal.js";
export { PythonRandom } from "./random.js";
export { DESTINATIONS, FIELDS, FIELDS_V1, FIELDS_V2, MAKEUP, PLACES, Sampler, bucketTable, groups } from "./sampler.js";
export { sha256Hex } from "./sha256.js";
export { chi2Sf, chiSquareTest } from "./stats.js";
export { Tower } from "./tower.js";
