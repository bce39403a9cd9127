// The chi-square goodness-of-fit test a port's sampler must pass against the exact laws.

/** log Gamma(x) for x > 0 (Lanczos, g = 7, 9 terms; relative error below 1e-14). */
function logGamma(x) {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
    1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Regularized upper incomplete gamma Q(a, x) (series below a + 1, continued fraction above). */
function gammaQ(a, x) {
  if (x <= 0) return 1;
  const lead = -x + a * Math.log(x) - logGamma(a);
  if (x < a + 1) {
    let sum = 1 / a;
    let term = sum;
    for (let n = 1; n < 1000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-16) break;
    }
    return 1 - sum * Math.exp(lead);
  }
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(lead) * h;
}

/** P(X > x) for X chi-square with `df` degrees of freedom. */
export function chi2Sf(x, df) {
  return gammaQ(df / 2, x / 2);
}

/**
 * Pearson's chi-square test of observed counts against a law. Cells with an expected
 * count below `minExpected` are pooled, in order, into their neighbours.
 * @param {number[]} observed counts per value
 * @param {number[]} law probabilities per value (summing to 1)
 * @returns {{statistic: number, df: number, pValue: number}}
 */
export function chiSquareTest(observed, law, minExpected = 5) {
  const total = observed.reduce((a, x) => a + x, 0);
  const cells = [];
  let o = 0;
  let e = 0;
  law.forEach((p, k) => {
    o += observed[k];
    e += p * total;
    if (e >= minExpected) {
      cells.push([o, e]);
      o = 0;
      e = 0;
    }
  });
  if (cells.length && (e > 0 || o > 0)) {
    const last = cells[cells.length - 1];
    last[0] += o;
    last[1] += e;
  } else if (!cells.length) {
    cells.push([o, e]);
  }
  const statistic = cells.reduce((s, [oi, ei]) => s + (oi - ei) ** 2 / ei, 0);
  const df = cells.length - 1;
  return { statistic, df, pValue: df > 0 ? chi2Sf(statistic, df) : 1 };
}
