// The standard normal distribution function of the copula's draws (§8.1 of
// docs/model-format.md), as tower/model/reference.py computes it: 0.5 * erfc(-x / sqrt(2))
// with libm's erfc. JavaScript has no erfc; this one is written for that use: a series
// for erf below 1, a continued fraction above (absolute error below 1e-15, relative error
// below 1e-14 against Python's), tested on the conformance vectors.

const TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);
const ONE_OVER_SQRT_PI = 1 / Math.sqrt(Math.PI);
const split = new Float64Array(1);
const splitWords = new Uint32Array(split.buffer);
const LOW = new Uint32Array(new Float64Array([1]).buffer)[0] === 0 ? 0 : 1; // low word index

/** exp(-x * x) without the rounding error of x * x: x = hi + lo with hi * hi exact. */
function expMinusSquare(x) {
  split[0] = x;
  splitWords[LOW] = 0; // keep the top 21 bits of the mantissa: hi * hi is exact
  const hi = split[0];
  return Math.exp(-hi * hi) * Math.exp(-(x - hi) * (x + hi));
}

/**
 * The complementary error function, erfc(x) = 1 - erf(x).
 * @param {number} x
 * @returns {number}
 */
export function erfc(x) {
  if (Number.isNaN(x)) return NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < 1) {
    // erf(x) = 2/sqrt(pi) exp(-x^2) sum_n (2x^2)^n x / (1 * 3 * ... * (2n + 1)): terms > 0
    const x2 = 2 * x * x;
    let term = x;
    let sum = x;
    for (let n = 1; term > sum * 1e-17; n++) {
      term *= x2 / (2 * n + 1);
      sum += term;
    }
    return 1 - TWO_OVER_SQRT_PI * expMinusSquare(x) * sum;
  }
  if (x > 27.3) return 0;
  // erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...))))),
  // evaluated from the front (modified Lentz)
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 5000; n++) { // about 190 terms at x = 1, fewer above
    const a = n / 2;
    d = x + a * d;
    d = 1 / (Math.abs(d) < tiny ? tiny : d);
    c = x + a / c;
    if (Math.abs(c) < tiny) c = tiny;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return (ONE_OVER_SQRT_PI * expMinusSquare(x)) / f;
}

/**
 * The standard normal distribution function, as Python's NormalDist().cdf(x).
 * @param {number} x
 * @returns {number}
 */
export function normalCdf(x) {
  return 0.5 * erfc((0.0 - x) / Math.SQRT2);
}
