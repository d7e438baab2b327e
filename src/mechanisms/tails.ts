// The noise families' tails in closed form, in log space: P(Z ≥ t) of the unit-scale noise and the
// ratio of two tails, each accurate far out (no subtraction of two large logarithms). They give the
// CDF of a truncated release (src/release/interval.ts) without quadrature.

const LOG_HALF = Math.log(0.5);
const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/**
 * log(1 − e^d) for d ≤ 0, accurate near 0 and far below it.
 * @example log1mexp(Math.log(0.25)) // log(0.75)
 */
export function log1mexp(d: number): number {
  if (d === -Infinity) return 0;
  return d > -Math.LN2 ? Math.log(-Math.expm1(d)) : Math.log1p(-Math.exp(d));
}

/** erf(x) for 0 ≤ x ≤ 2.2 by its series e^{−x²}·(2/√π)·Σ 2ⁿx^{2n+1}/(2n+1)!! (positive terms: no cancellation). */
function erfSeries(x: number): number {
  let term = x;
  let sum = x;
  for (let n = 0; n < 200 && term > 1e-17 * sum; n++) {
    term *= (2 * x * x) / (2 * n + 3);
    sum += term;
  }
  return (2 / Math.sqrt(Math.PI)) * Math.exp(-x * x) * sum;
}

/** The Mills ratio Q(t)/φ(t) for t ≥ 3: the continued fraction 1/(t + 1/(t + 2/(t + …))), by modified Lentz. */
function mills(t: number): number {
  let f = t;
  let C = t;
  let D = 0;
  for (let n = 1; n < 500; n++) {
    D = 1 / (t + n * D);
    C = t + n / C;
    f *= C * D;
    if (Math.abs(C * D - 1) < 1e-16) break;
  }
  return 1 / f;
}

/** A family's tails: log P(Z ≥ t), log P(Z ≥ A + w)/P(Z ≥ A) for A, w ≥ 0, and log P(a ≤ Z ≤ b) for a < 0 < b. */
export interface Tails {
  logTail(t: number): number;
  logTailRatio(A: number, w: number): number;
  /** The mass about the centre as a sum of two positive parts (no 1 − P − P′ cancellation for narrow windows). */
  logCentral(a: number, b: number): number;
}

const ends = (t: number) => (t === Infinity ? -Infinity : t === -Infinity ? 0 : null);

const laplace: Tails = {
  logTail: (t) => ends(t) ?? (t >= 0 ? LOG_HALF - t : Math.log1p(-0.5 * Math.exp(t))),
  logTailRatio: (_A, w) => (w === Infinity ? -Infinity : -w),
  // P(a ≤ Z ≤ 0) + P(0 ≤ Z ≤ b) = −½·expm1(a) − ½·expm1(−b).
  logCentral: (a, b) => Math.log(-0.5 * Math.expm1(a) - 0.5 * Math.expm1(-b)),
};

/** erf(z) for z ≥ 0: the series up to 2.2, else 1 − 2Q(z√2) (Q small there). */
const erfPositive = (z: number) => (z === Infinity ? 1 : z <= 2.2 ? erfSeries(z) : 1 - 2 * Math.exp(gaussianLogTail(z * Math.SQRT2)));

/** Q(t): the series below 3 (each side of 0 without cancellation beyond 1e-13), Mills' ratio above. */
function gaussianLogTail(t: number): number {
  const e = ends(t);
  if (e !== null) return e;
  if (t >= 3) return -0.5 * t * t - LOG_SQRT_2PI + Math.log(mills(t));
  if (t >= 0) return Math.log(0.5 - 0.5 * erfSeries(t / Math.SQRT2));
  if (t > -3) return Math.log(0.5 + 0.5 * erfSeries(-t / Math.SQRT2));
  return log1mexp(gaussianLogTail(-t));
}

const gaussian: Tails = {
  logTail: gaussianLogTail,
  // Φ(b) − Φ(a) = (erf(b/√2) + erf(−a/√2))/2, both parts positive.
  logCentral: (a, b) => Math.log(0.5 * (erfPositive(b / Math.SQRT2) + erfPositive(-a / Math.SQRT2))),
  logTailRatio: (A, w) => {
    if (w === 0) return 0;
    if (w === Infinity) return -Infinity;
    if (A >= 3) return -w * (A + w / 2) + Math.log(mills(A + w) / mills(A));
    return gaussianLogTail(A + w) - gaussianLogTail(A);
  },
};

/**
 * The closed-form tails of a noise family, or null for one without them.
 * @example tailsOf('laplace')!.logTail(0) // log ½
 */
export function tailsOf(family: string): Tails | null {
  return family === 'laplace' ? laplace : family === 'gaussian' ? gaussian : null;
}
