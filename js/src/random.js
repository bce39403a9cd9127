// Python's random.Random in JavaScript: the Mersenne Twister MT19937 seeded exactly as
// CPython seeds it from an integer, and random() built from two 32-bit words the same way.
// With the same integer seed, `new PythonRandom(seed).random()` gives the same doubles, in
// the same order, as `random.Random(seed).random()` in Python.

const N = 624;
const M = 397;
const TWO_PI = 2 * Math.PI; // Python's random.TWOPI

/** A seeded source of doubles in [0, 1), identical to Python's `random.Random(seed)`. */
export class PythonRandom {
  /**
   * @param {number | bigint} seed a non-negative or negative integer (Python uses |seed|)
   */
  constructor(seed = 0) {
    let n;
    if (typeof seed === "bigint") n = seed;
    else if (Number.isSafeInteger(seed)) n = BigInt(seed);
    else throw new TypeError(`seed must be an integer, got ${seed}`);
    if (n < 0n) n = -n;
    const key = [];
    while (n > 0n) {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    }
    if (key.length === 0) key.push(0);
    this.mt = new Uint32Array(N);
    this.index = N;
    /** The second normal of gauss()'s last pair, as Python's gauss_next (null: none). */
    this.gaussNext = null;
    this.#initByArray(key);
    this.random = this.random.bind(this);
  }

  #initGenrand(s) {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.index = N;
  }

  #initByArray(key) {
    const mt = this.mt;
    this.#initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** The next 32-bit word of the generator. @returns {number} */
  uint32() {
    const mt = this.mt;
    if (this.index >= N) {
      for (let k = 0; k < N; k++) {
        const y = (mt[k] & 0x80000000) | (mt[(k + 1) % N] & 0x7fffffff);
        mt[k] = mt[(k + M) % N] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** A double in [0, 1) with 53 random bits, as Python's `random()`. @returns {number} */
  random() {
    const a = this.uint32() >>> 5;
    const b = this.uint32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  /** `k` random bits (0 <= k <= 32), as Python's `getrandbits(k)`. @returns {number} */
  getrandbits(k) {
    if (!Number.isInteger(k) || k < 0 || k > 32) throw new RangeError(`getrandbits: k must be an integer in 0..32, got ${k}`);
    return k === 0 ? 0 : this.uint32() >>> (32 - k);
  }

  /** An integer in [0, n), 0 < n < 2**32, as Python's `_randbelow(n)`. @returns {number} */
  randbelow(n) {
    const k = 32 - Math.clz32(n); // n.bit_length()
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** Shuffle `x` in place, as Python's `shuffle(x)`. */
  shuffle(x) {
    for (let i = x.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      [x[i], x[j]] = [x[j], x[i]];
    }
  }

  /**
   * A normal draw, as Python's `gauss(mu, sigma)`: a pair from two uniforms (Box-Muller),
   * the second kept for the next call. Math.log, cos and sin may differ from the C
   * library's in the last bit, so a draw may (rarely) differ from Python's by an ulp.
   * @returns {number}
   */
  gauss(mu = 0.0, sigma = 1.0) {
    let z = this.gaussNext;
    this.gaussNext = null;
    if (z === null) {
      const x2pi = this.random() * TWO_PI;
      const g2rad = Math.sqrt(-2.0 * Math.log(1.0 - this.random()));
      z = Math.cos(x2pi) * g2rad;
      this.gaussNext = Math.sin(x2pi) * g2rad;
    }
    return mu + z * sigma;
  }
}
