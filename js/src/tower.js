// A tower that keeps its state between throws (§8 of docs/model-format.md): the same
// bookkeeping as tower.model.distilled.DistilledModel, so that with a PythonRandom of the
// same seed it gives the same pieces out as Python, throw for throw.

import { pieceKind } from "./model.js";
import { PythonRandom } from "./random.js";
import { groups, PLACES } from "./sampler.js";

const pieceOrder = (a, b) => {
  const ka = pieceKind(a);
  const kb = pieceKind(b);
  if (ka !== kb) return ka < kb ? -1 : 1;
  const ca = a.slice(ka.length + 1);
  const cb = b.slice(kb.length + 1);
  return ca < cb ? -1 : ca > cb ? 1 : 0;
};

const residentOrder = (a, b) =>
  pieceOrder(a.piece, b.piece) || (a.place < b.place ? -1 : a.place > b.place ? 1 : 0) || a.since - b.since;

/** A tower of one model: the residents (piece, place, entry throw) and the throw count. */
export class Tower {
  /**
   * @param {import("./model.js").Model} model
   * @param {{seed?: number | bigint, random?: {random(): number}, state?: {throws: number, residents: [string, string, number][]}}} [options]
   */
  constructor(model, { seed = 0, random, state } = {}) {
    this.model = model;
    /** The random source: anything with a random() method giving doubles in [0, 1). */
    this.rng = random ?? new PythonRandom(seed);
    this.throws = 0;
    /** @type {{piece: string, place: string, since: number}[]} kept sorted */
    this.residents = [];
    if (state) this.setState(state);
  }

  /** The pieces inside, sorted. */
  get pieces() {
    return this.residents.map((r) => r.piece);
  }

  /** The state as plain JSON, the same form as Python's TowerState.to_json(). */
  getState() {
    return { throws: this.throws, residents: this.residents.map((r) => [r.piece, r.place, r.since]) };
  }

  /** Replace the state (e.g. from a saved game); checks every resident. */
  setState({ throws, residents }) {
    if (!Number.isInteger(throws) || throws < 0) throw new RangeError(`malformed tower state: throws ${throws}`);
    const rs = residents.map(([piece, place, since]) => {
      this.model.pieceClass(piece);
      if (!PLACES.includes(place)) {
        throw new RangeError(`malformed tower state: resident ${piece} is at ${place}, which is not inside`);
      }
      if (!Number.isInteger(since) || since < 0 || since >= throws) {
        throw new RangeError(`malformed tower state: resident ${piece} entered in throw ${since} of ${throws}`);
      }
      return { piece, place, since };
    });
    this.residents = rs.sort(residentOrder);
    this.throws = throws;
  }

  #inputs(pieces) {
    const cls = (p) => this.model.pieceClass(p);
    return {
      residents: this.residents.map((r) => [cls(r.piece), r.place, r.since, r.piece]),
      fresh: pieces.map((p) => [cls(p), p]),
    };
  }

  /**
   * Throw `pieces` ("kind:colour" strings) in. Returns the pieces that came out, sorted.
   * An unknown kind throws before anything changes.
   * @param {string[]} pieces
   * @returns {string[]}
   */
  throw(pieces) {
    const { residents, fresh } = this.#inputs(pieces);
    const { out, after } = this.model.sampler.throw(residents, fresh, this.throws, this.rng);
    this.residents = after.map(([, place, since, piece]) => ({ piece, place, since })).sort(residentOrder);
    this.throws += 1;
    return out.sort(pieceOrder);
  }

  /**
   * Exact law of the number of pieces out if `pieces` were thrown now:
   * law[k], k = 0..inside + thrown. The state does not change. Throws a RangeError for a
   * throw that the model's copula couples (§8.1): its law is not that of independent groups.
   * @param {string[]} pieces
   * @returns {number[]}
   */
  countLaw(pieces) {
    const { residents, fresh } = this.#inputs(pieces);
    const sampler = this.model.sampler;
    const [a, b] = sampler.loadings(residents, fresh);
    if (a !== 0 || b !== 0) throw new RangeError(`model '${this.model.name}': no exact law of a throw its copula couples; sample`);
    const total = residents.length + fresh.length;
    let law = [1.0, ...new Array(total).fill(0.0)];
    for (const { name, ctx } of groups(residents, fresh, this.throws, sampler.ageCap)) {
      const next = new Array(total + 1).fill(0.0);
      law.forEach((p, gone) => {
        if (p === 0.0) return;
        sampler.outLaw(name, [...ctx, gone]).forEach((pk, k) => {
          next[gone + k] += p * pk;
        });
      });
      law = next;
    }
    return law;
  }
}
