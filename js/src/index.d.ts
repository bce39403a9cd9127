// Type declarations of tower-model, the JavaScript port of the tower toolkit's
// distilled tower model. See docs/model-format.md for the algorithm (§ numbers).

/** A piece as "kind:colour", e.g. "keshi:red", "watchman:blue", "brigand:neutral". */
export type Piece = string;
/** A place inside the tower, top to bottom. */
export type Place = "funnel" | "floor1" | "floor2" | "ramp";
/** Destination counts [out, funnel, floor1, floor2, ramp] of one group. */
export type Counts = [number, number, number, number, number];
/** A context (m, n, I, P, J, w, x, t, o), §4. */
export type Context = [number, number, number, number, number, number, number, number, number];
/** Any source of doubles in [0, 1). */
export interface RandomSource {
  random(): number;
}
/** A tower state as plain JSON, the form of Python's TowerState.to_json(). */
export interface TowerStateJSON {
  throws: number;
  residents: [Piece, Place, number][];
}

export const PLACES: readonly Place[];
export const DESTINATIONS: readonly ["out", ...Place[]];
export const FIELDS: readonly ["m", "n", "I", "P", "J", "w", "x", "t", "o"];
export const FIELDS_V2: readonly ["m", "n", "I", "P", "J", "w", "x", "o"];
export const FIELDS_V1: readonly ["m", "n", "I", "P", "J", "o"];
export const MAKEUP: Readonly<{ w: string; x: string }>;

/** A model file that cannot be used. */
export class ModelFileError extends Error {
  readonly source: string;
  readonly field: string | undefined;
  readonly reason: string;
}

/** Versions this port reads: schema -> validation and compilation of the model section. */
export const FORMATS: Record<
  string,
  { validate(model: unknown): [string, string] | null; compile(model: any): Sampler }
>;

/** The context fields each version allows, oldest first (§4, §11). */
export const VERSION_FIELDS: Readonly<Record<string, readonly string[]>>;

/** [field, message] if a `version` file's model section names a field of a later version. */
export function newerField(model: unknown, version: string): [string, string] | null;

/** Read and verify a model file's exact text (JSON, version, checksum, tables). */
export function loadModel(text: string, source?: string): Model;

export class Model {
  readonly doc: Record<string, any>;
  readonly name: string;
  readonly schema: string;
  readonly sha256: string;
  readonly sampler: Sampler;
  /** Piece kind -> class. */
  readonly classes: Record<string, string>;
  /** The class a piece is thrown as; throws RangeError for an unknown kind. */
  pieceClass(piece: Piece): string;
}

export function pieceKind(piece: Piece): string;

/** A resident as the sampler sees it: [class, place, since, payload]. */
export type SamplerResident<T> = [string, Place, number, T];

export class Sampler {
  readonly levels: string[][];
  readonly alpha: number;
  readonly prior: number;
  readonly ageCap: number;
  readonly classes: Record<string, string>;
  bucketed(ctx: Context): Context;
  pieceLaw(group: string, capped: Context): number[];
  outcome(group: string, ctx: Context, rng: RandomSource): Counts;
  outLaw(group: string, ctx: Context): number[];
  outcomeProbability(group: string, ctx: Context, counts: Counts): number;
  /** The copula's [throw, origin, gate] (tower.model/3, §8.1), or null. */
  readonly copula: [number, number, string | null] | null;
  /** The copula's loadings [throw, origin] for a throw; [0, 0] when it does not couple it. */
  loadings<T>(residents: SamplerResident<T>[], fresh: [string, T][]): [number, number];
  /** A group's law split by the number out (§8.1): cumulative laws and outcomes (null: base). */
  lawByOut(
    group: string,
    ctx: Context,
  ): { outCum: number[]; byOut: { cum: number[]; outcomes: (Counts | null)[] }[]; stayCum: number[] };
  /** A throw whose groups are drawn through the copula (§8.1); needs gauss() and shuffle(). */
  coupledThrow<T>(
    residents: SamplerResident<T>[],
    fresh: [string, T][],
    throws: number,
    rng: PythonRandom,
  ): { out: T[]; after: SamplerResident<T>[] };
  /** One throw (§8); with a copula, `rng` needs gauss() and shuffle() as PythonRandom. */
  throw<T>(
    residents: SamplerResident<T>[],
    fresh: [string, T][],
    throws: number,
    rng: RandomSource,
  ): { out: T[]; after: SamplerResident<T>[] };
}

export function bucketTable(edges: number[]): number[];
export function groups<T>(
  residents: SamplerResident<T>[],
  fresh: [string, T][],
  throws: number,
  ageCap: number,
): { name: string; cls: string; ctx: number[]; members: [number, T][] }[];

/** Python's random.Random: same integer seed, same doubles. */
export class PythonRandom implements RandomSource {
  constructor(seed?: number | bigint);
  uint32(): number;
  random(): number;
  /** Python's getrandbits(k), 0 <= k <= 32. */
  getrandbits(k: number): number;
  /** Python's _randbelow(n), 0 < n < 2**32. */
  randbelow(n: number): number;
  /** Python's shuffle(x), in place. */
  shuffle(x: unknown[]): void;
  /** Python's gauss(mu, sigma) (Box-Muller pairs; the C library's log, sin, cos may differ by an ulp). */
  gauss(mu?: number, sigma?: number): number;
}

/** The complementary error function. */
export function erfc(x: number): number;
/** The standard normal distribution function, 0.5 * erfc(-x / sqrt(2)) (§8.1). */
export function normalCdf(x: number): number;
/** The model file version that holds a copula. */
export const SCHEMA_COPULA: "tower.model/3";

export interface TowerOptions {
  /** Seed of the default source (a PythonRandom). Default 0. */
  seed?: number | bigint;
  /** Inject any random source instead. */
  random?: RandomSource;
  /** Start from a saved state. */
  state?: TowerStateJSON;
}

/** A tower of one model, keeping its residents between throws. */
export class Tower {
  constructor(model: Model, options?: TowerOptions);
  readonly model: Model;
  readonly rng: RandomSource;
  readonly throws: number;
  readonly residents: { piece: Piece; place: Place; since: number }[];
  /** The pieces inside, sorted. */
  readonly pieces: Piece[];
  getState(): TowerStateJSON;
  setState(state: TowerStateJSON): void;
  /** Throw pieces in; returns the pieces out, sorted. */
  throw(pieces: Piece[]): Piece[];
  /** Exact law of the number out if `pieces` were thrown now (k = 0..inside + thrown). */
  countLaw(pieces: Piece[]): number[];
}

/** P(X > x) for X chi-square with df degrees of freedom. */
export function chi2Sf(x: number, df: number): number;
export function chiSquareTest(
  observed: number[],
  law: number[],
  minExpected?: number,
): { statistic: number; df: number; pValue: number };

export function sha256Hex(bytes: Uint8Array): string;
/** Canonical JSON text of a JSON document as Python writes it (the checksummed bytes). */
export function canonicalJson(text: string, omit?: string): string;
export function pythonFloatRepr(x: number): string;
