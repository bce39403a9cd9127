// Python's random.Random in JavaScript: the Mersenne Twister MT19937 seeded exactly as
// CPython seeds it from an integer, and random() built from two 32-bit words the same way.
// With the same integer seed, `new PythonRandom(seed).random()` gives the same doubles, in
// the same order, as `random.Random(seed).random()` in Python.

const N = 624;
const M = 397;

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
}
