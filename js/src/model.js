// Loading a model file (§1, §9 of docs/model-format.md): parse, check the schema version,
// verify the checksum, validate the model section, and compile its sampler.

import { canonicalJson } from "./canonical.js";
import { DESTINATIONS, FIELDS, FIELDS_V1, FIELDS_V2, PLACES, Sampler } from "./sampler.js";
import { sha256Hex } from "./sha256.js";

export const SCHEMA_PREFIX = "tower.model/";
/** What to do with a file of a version this port does not read (as Python says it). */
export const REDISTIL = "re-distil it from its traces with `tower distill` (see the file's provenance.command)";
export const TOP_FIELDS = Object.freeze(["schema", "name", "tower", "params", "provenance", "model", "sha256"]);

/** A model file that cannot be used; `field` names the faulty field (dotted), if any. */
export class ModelFileError extends Error {
  /**
   * @param {string} source the file name (or "<model>")
   * @param {string} message
   * @param {string} [field]
   */
  constructor(source, message, field) {
    super(`${source}: ${field ? `field ${field}: ` : ""}${message}`);
    this.name = "ModelFileError";
    this.source = source;
    this.field = field;
    this.reason = message;
  }
}

const isNumber = (x) => typeof x === "number" && Number.isFinite(x);
const isCount = (x) => Number.isInteger(x) && x >= 0;
const DIGITS = /^[0-9]+$/;

/**
 * The versions this port reads: schema string -> how to validate and compile the model
 * section. A new file version adds an entry here (and, if its contexts or groups change,
 * its own Sampler subclass); nothing else needs to know.
 */
export const FORMATS = {
  "tower.model/1": { validate: validateModelV1, compile: (model) => new Sampler(model) },
  "tower.model/2": { validate: validateModelV2, compile: (model) => new Sampler(model) },
  "tower.model/3": { validate: validateModelV3, compile: (model) => new Sampler(model) },
};
/** The version a model section with a copula (§8.1) or the field t (§4) needs. */
export const SCHEMA_COPULA = "tower.model/3";
/** The context fields each version allows, oldest first (§4, §11). */
export const VERSION_FIELDS = Object.freeze({
  "tower.model/1": FIELDS_V1,
  "tower.model/2": FIELDS_V2,
  "tower.model/3": FIELDS,
});

/**
 * `[field, message]` if the model section of a `version` file names a context field of a
 * later version in its levels, piece levels or buckets (t in a v2 file), else null (§11).
 */
export function newerField(model, version) {
  const allowed = VERSION_FIELDS[version];
  if (model === null || typeof model !== "object" || Array.isArray(model) || !allowed) return null;
  const found = [];
  for (const section of ["levels", "piece_levels"]) {
    if (Array.isArray(model[section])) model[section].forEach((lv, i) => found.push([`${section}[${i}]`, lv, lv]));
  }
  const { buckets } = model;
  if (buckets !== null && typeof buckets === "object" && !Array.isArray(buckets)) {
    for (const [f, edges] of Object.entries(buckets)) found.push([`buckets.${f}`, edges, [f]]);
  }
  for (const [where, value, fields] of found) {
    for (const f of Array.isArray(fields) ? fields : []) {
      if (FIELDS.includes(f) && !allowed.includes(f)) {
        const since = Object.keys(VERSION_FIELDS).find((v) => VERSION_FIELDS[v].includes(f));
        return [where, `a '${version}' file has no context field '${f}' (new in '${since}'), got ${JSON.stringify(value)}`];
      }
    }
  }
  return null;
}

/**
 * Read and verify a model file's text: JSON, schema version, fields, checksum, model
 * section. Throws a ModelFileError naming the file and field of the first fault.
 * @param {string} text the file's text, exactly as stored
 * @param {string} [source] file name for messages
 * @returns {Model}
 */
export function loadModel(text, source = "<model>") {
  const bad = (field, message) => new ModelFileError(source, message, field);
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (exc) {
    throw bad("<json>", `not valid JSON, truncated or corrupt (${exc.message})`);
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc) || !("schema" in doc)) {
    throw bad("schema", "not a tower model file (no 'schema' field)");
  }
  const supported = Object.keys(FORMATS);
  const schema = doc.schema;
  if (typeof schema !== "string" || !schema.startsWith(SCHEMA_PREFIX)) {
    throw bad("schema", `not a tower model file: schema ${JSON.stringify(schema)}, expected ${supported.map((s) => `'${s}'`).join(" or ")}`);
  }
  const format = FORMATS[schema];
  if (format === undefined) {
    throw bad("schema", `unsupported model file version '${schema}'; this port reads ${supported.map((s) => `'${s}'`).join(", ")}: ${REDISTIL}`);
  }
  const missing = TOP_FIELDS.filter((f) => !(f in doc));
  if (missing.length) throw bad(missing[0], "missing field");
  const extra = Object.keys(doc).filter((f) => !TOP_FIELDS.includes(f)).sort();
  if (extra.length) throw bad(extra[0], "unknown field");
  let canonical;
  try {
    canonical = canonicalJson(text, "sha256");
  } catch (exc) {
    throw bad("<json>", `not valid JSON, truncated or corrupt (${exc.message})`);
  }
  if (doc.sha256 !== sha256Hex(new TextEncoder().encode(canonical))) {
    throw bad("sha256", "checksum mismatch: the file is corrupt or was edited by hand");
  }
  if (typeof doc.name !== "string" || !doc.name) throw bad("name", "expected a non-empty string");
  for (const f of ["tower", "provenance"]) {
    if (doc[f] === null || typeof doc[f] !== "object" || Array.isArray(doc[f])) throw bad(f, "expected an object");
  }
  if (doc.params !== null && (typeof doc.params !== "object" || Array.isArray(doc.params))) {
    throw bad("params", "expected an object or null");
  }
  const newer = newerField(doc.model, schema);
  if (newer) throw bad(`model.${newer[0]}`, newer[1]);
  const problem = format.validate(doc.model);
  if (problem) throw bad(`model.${problem[0]}`.replace(/\.$/, ""), problem[1]);
  return new Model(doc, format.compile(doc.model));
}

/** A loaded, verified model file and its sampler. */
export class Model {
  constructor(doc, sampler) {
    /** The whole file as parsed. */
    this.doc = doc;
    this.name = doc.name;
    this.schema = doc.schema;
    this.sha256 = doc.sha256;
    this.sampler = sampler;
    /** Piece kind -> class, e.g. watchman -> pawn. */
    this.classes = { ...doc.model.classes };
  }

  /** The class this model throws a piece ("kind:colour") as; throws on an unknown kind. */
  pieceClass(piece) {
    const kind = pieceKind(piece);
    const cls = Object.hasOwn(this.classes, kind) ? this.classes[kind] : undefined;
    if (cls === undefined) {
      throw new RangeError(`model '${this.name}' has no class for ${kind} pieces (it knows ${Object.keys(this.classes).sort().join(", ")})`);
    }
    return cls;
  }
}

/** The kind of a piece written "kind:colour". */
export function pieceKind(piece) {
  const i = typeof piece === "string" ? piece.indexOf(":") : -1;
  if (i <= 0 || i === piece.length - 1) throw new TypeError(`piece ${JSON.stringify(piece)} is not of the form kind:colour`);
  return piece.slice(0, i);
}

function groupNames(classes, ageCap) {
  const names = new Set(classes.map((c) => `fresh.${c}`));
  for (const p of PLACES) for (const c of classes) for (let a = 1; a <= ageCap; a++) names.add(`${p}.${c}.${a}`);
  return names;
}

/** Fields whose bucket edges a section gives only when one of its levels names them (§4). */
const OPTIONAL_BUCKETS = Object.freeze(["t"]);

function bucketsProblem(buckets, allowed, named) {
  const fields = allowed.slice(1);
  const always = fields.filter((f) => !OPTIONAL_BUCKETS.includes(f));
  const required = fields.filter((f) => !OPTIONAL_BUCKETS.includes(f) || named.has(f));
  if (
    buckets === null || typeof buckets !== "object" || Array.isArray(buckets) ||
    !required.every((f) => Object.hasOwn(buckets, f)) || !Object.keys(buckets).every((f) => fields.includes(f))
  ) {
    const also = fields.filter((f) => OPTIONAL_BUCKETS.includes(f)).map((f) => `, and '${f}' if a level names it`).join("");
    return `buckets must give edges for exactly the fields ${always.join(",")}${also}`;
  }
  for (const f of Object.keys(buckets)) {
    const edges = buckets[f];
    if (
      !Array.isArray(edges) || !edges.length || edges[0] !== 0 || !edges.every(Number.isInteger) ||
      !edges.every((e, i) => i === 0 || e > edges[i - 1]) || edges[edges.length - 1] > 100000
    ) {
      return `buckets['${f}'] must be increasing integers from 0 (at most 100000)`;
    }
  }
  return null;
}

/** `[field, message]` of the first fault of a version-1 model section, or null (§1). */
export function validateModelV1(model) {
  return validateModel(model, FIELDS_V1, "tower.model/1");
}

/** `[field, message]` of the first fault of a version-2 model section (§1, §4: w, x), or null. */
export function validateModelV2(model) {
  return validateModel(model, FIELDS_V2, "tower.model/2");
}

/** `[field, message]` of the first fault of a version-3 model section (§1, §4: t, §8.1: copula), or null. */
export function validateModelV3(model) {
  return validateModel(model, FIELDS, SCHEMA_COPULA);
}

/** The checks of §1 with the context fields `fields` of the file's `version`. */
function validateModel(model, fields, version) {
  if (model === null || typeof model !== "object" || Array.isArray(model)) return ["", "expected an object"];
  if ("copula" in model && version !== SCHEMA_COPULA) {
    return ["copula", `a '${version}' file holds no copula: it needs '${SCHEMA_COPULA}'`];
  }
  for (const f of ["levels", "alpha", "buckets", "age_cap", "classes", "base", "tables", "prior", "piece_levels", "piece_tables"]) {
    if (!(f in model)) return [f, "missing field"];
  }
  const { levels } = model;
  if (!Array.isArray(levels) || !levels.length) return ["levels", "expected a non-empty list of field lists"];
  for (let i = 0; i < levels.length; i++) {
    const lv = levels[i];
    if (!Array.isArray(lv) || !lv.includes("m") || !lv.every((f) => fields.includes(f))) {
      return [`levels[${i}]`, `expected a list of fields from ${fields.join(",")} holding 'm'`];
    }
  }
  if (!isNumber(model.alpha) || model.alpha <= 0) return ["alpha", "expected a positive number"];
  if (!Number.isInteger(model.age_cap) || model.age_cap < 1 || model.age_cap > 9) return ["age_cap", "expected an integer in 1..9"];
  const named = new Set(
    [...levels, ...(Array.isArray(model.piece_levels) ? model.piece_levels : [])].filter(Array.isArray).flat(),
  );
  const bp = bucketsProblem(model.buckets, fields, named);
  if (bp) return ["buckets", bp];
  const { classes } = model;
  if (
    classes === null || typeof classes !== "object" || Array.isArray(classes) ||
    !Object.values(classes).every((v) => typeof v === "string" && v && !v.includes(".") && !v.includes("|"))
  ) {
    return ["classes", "expected {kind: class name}"];
  }
  const groups = groupNames([...new Set(Object.values(classes))], model.age_cap);
  const { base } = model;
  if (base === null || typeof base !== "object" || Array.isArray(base)) return ["base", "expected {group: destination law}"];
  for (const g of groups) if (!Object.hasOwn(base, g)) return ["base", `expected one destination law for each group of the model, see '${g}'`];
  for (const [g, probs] of Object.entries(base)) {
    if (!groups.has(g)) return ["base", `expected one destination law for each group of the model, see '${g}'`];
    if (
      !Array.isArray(probs) || probs.length !== DESTINATIONS.length ||
      !probs.every((p) => isNumber(p) && p >= 0) || Math.abs(probs.reduce((a, p) => a + p, 0) - 1) > 1e-6
    ) {
      return [`base['${g}']`, "expected 5 non-negative probabilities summing to 1"];
    }
  }
  const { tables } = model;
  if (!Array.isArray(tables) || tables.length !== levels.length) return ["tables", "expected one table per level"];
  for (let i = 0; i < tables.length; i++) {
    const table = tables[i];
    if (table === null || typeof table !== "object" || Array.isArray(table)) return [`tables[${i}]`, "expected an object"];
    for (const [key, flat] of Object.entries(table)) {
      const problem = entryProblem(key, flat, levels[i], groups);
      if (problem) return [`tables[${i}]['${key}']`, problem];
    }
  }
  if (!isNumber(model.prior) || model.prior <= 0) return ["prior", "expected a positive number"];
  const pieceLevels = model.piece_levels;
  const pieceTables = model.piece_tables;
  if (!Array.isArray(pieceLevels) || !pieceLevels.every((lv) => Array.isArray(lv) && lv.length && lv.every((f) => fields.slice(1).includes(f)))) {
    return ["piece_levels", `expected a list of non-empty field lists from ${fields.slice(1).join(",")}`];
  }
  if (!Array.isArray(pieceTables) || pieceTables.length !== pieceLevels.length) return ["piece_tables", "expected one table per piece level"];
  for (let i = 0; i < pieceTables.length; i++) {
    const table = pieceTables[i];
    if (table === null || typeof table !== "object" || Array.isArray(table)) return [`piece_tables[${i}]`, "expected an object"];
    for (const [key, counts] of Object.entries(table)) {
      const parts = key.split("|");
      if (parts.length !== 1 + pieceLevels[i].length || !groups.has(parts[0])) return [`piece_tables[${i}]['${key}']`, `key must be group|${pieceLevels[i].join("|")}`];
      if (!parts.slice(1).every((p) => DIGITS.test(p))) return [`piece_tables[${i}]['${key}']`, "context values must be integers"];
      if (!Array.isArray(counts) || counts.length !== DESTINATIONS.length || !counts.every(isCount) || counts.every((c) => c === 0)) {
        return [`piece_tables[${i}]['${key}']`, "expected 5 counts, not all zero"];
      }
    }
  }
  return "copula" in model ? copulaProblem(model.copula, [...new Set(Object.values(classes))]) : null;
}

/** `[field, message]` of the first fault of a copula: an object or a non-empty list of them (§8.1), or null. */
function copulaProblem(copula, classes) {
  if (!Array.isArray(copula)) return copulaEntryProblem(copula, classes, "copula");
  if (copula.length === 0) return ["copula", "expected an object {throw, origin, gate} or a non-empty list of them"];
  for (const [i, entry] of copula.entries()) {
    const problem = copulaEntryProblem(entry, classes, `copula[${i}]`);
    if (problem) return problem;
  }
  return null;
}

/** `[field, message]` of the first fault of one copula object (field `name`), or null. */
function copulaEntryProblem(copula, classes, name) {
  const got = (v) => `, got ${JSON.stringify(v)}`;
  if (copula === null || typeof copula !== "object" || Array.isArray(copula)) return [name, `expected an object {throw, origin, gate}${got(copula)}`];
  for (const f of ["throw", "origin", "gate"]) if (!(f in copula)) return [`${name}.${f}`, "missing field"];
  const extra = Object.keys(copula).filter((f) => !["throw", "origin", "gate"].includes(f)).sort();
  if (extra.length) return [`${name}.${extra[0]}`, "unknown field"];
  for (const f of ["throw", "origin"]) if (!isNumber(copula[f]) || copula[f] < 0) return [`${name}.${f}`, `expected a number >= 0${got(copula[f])}`];
  if (copula.throw * copula.throw + copula.origin * copula.origin >= 1) return [name, `expected throw^2 + origin^2 < 1, got ${copula.throw}^2 + ${copula.origin}^2`];
  const names = typeof copula.gate === "string" ? [copula.gate] : copula.gate;
  const known = Array.isArray(names) && names.length > 0 && names.every((n) => typeof n === "string" && classes.includes(n)) && new Set(names).size === names.length;
  if (copula.gate !== null && !known) return [`${name}.gate`, `expected null, a class or a list of distinct classes of ${JSON.stringify(classes.sort())}${got(copula.gate)}`];
  return null;
}

function entryProblem(key, flat, level, groups) {
  const parts = key.split("|");
  if (parts.length !== 1 + level.length || !groups.has(parts[0])) return `key must be group|${level.join("|")}`;
  if (!parts.slice(1).every((p) => DIGITS.test(p))) return "context values must be integers";
  const m = Number(parts[1 + level.indexOf("m")]);
  const width = 1 + DESTINATIONS.length;
  if (!Array.isArray(flat) || !flat.length || flat.length % width || !flat.every(isCount)) {
    return `expected a flat list of [count, ${DESTINATIONS.join(", ")}] entries`;
  }
  for (let j = 0; j < flat.length; j += width) {
    const sum = flat.slice(j + 1, j + width).reduce((a, x) => a + x, 0);
    if (flat[j] < 1 || sum !== m) return `entry ${j / width}: count must be positive and the outcome must sum to m`;
  }
  return null;
}
