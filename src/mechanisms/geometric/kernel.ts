import { log2x } from '../../numerics/float.js';
import type { Domain, NoiseKernel, OnePassIntegral } from '../../divergence/kernel.js';
import { logAddExp, U, type BoundedLogDensity, type Mixture } from '../../divergence/mixture.js';
import { InputError } from '../../errors.js';
import { laplaceHalves } from '../laplace/sweeps.js';

/**
 * Integers between the outer atoms up to which the exact sum runs (three arrays of doubles each):
 * wider pairs get no certificate here, and `exact` keeps its certified bound's scale (W∞).
 */
const MAX_LATTICE = 4_000_000;

/** log((1 − r)/(1 + r)) = log tanh(1/2b), r = e^{−1/b}: the two-sided geometric's mass at 0. */
const logMassAtZero = (b: number): number => Math.log(Math.tanh(1 / (2 * b)));

/** log Σ_{k≥1} r^k = −log(e^{1/b} − 1): one tail of the lattice sum beyond an outer atom, per unit of the end term. */
const logTailFactor = (b: number): number => -Math.log(Math.expm1(1 / b));

/** Throws when a law is not on the integers: the family's outputs are x + ℤ, one lattice only for integer x. */
export function checkIntegerAtoms(values: ArrayLike<number>): void {
  for (let i = 0; i < values.length; i++)
    if (!Number.isInteger(values[i]))
      throw new InputError(
        `geometric noise releases integers, so the laws must be integer-valued (a count, a sum or column of integers); got the value ${values[i]} (a mean is a sum divided by n: release the sum, then divide)`,
        'mechanism',
      );
}

/**
 * The two-sided geometric mixture's log mass at integer points: Σ w_k r^{|y−x_k|}·(1 − r)/(1 + r) is
 * the Laplace mixture's density times 2b·tanh(1/2b) at the same points (the same sweeps, the
 * same rounding bounds, plus the constant's).
 */
function latticeLogMass(m: Mixture, b: number, ys: Float64Array): BoundedLogDensity {
  const { L, R, err } = laplaceHalves(m, b, ys);
  const c = log2x(b) + logMassAtZero(b);
  const ld = new Float64Array(ys.length);
  for (let i = 0; i < ys.length; i++) {
    const l = logAddExp(L[i], R[i]);
    ld[i] = l + c;
    err[i] += 4 * U * (2 + Math.abs(l) + Math.abs(L[i] === -Infinity ? R[i] : L[i])) + 8 * U * (2 + Math.abs(c) + Math.abs(ld[i]));
  }
  return { ld, err, lip: new Float64Array(ys.length) };
}

/**
 * log Σ_{y∈ℤ} p(y)^a q(y)^{1−a} of two geometric mixtures (docs/math.md §21): every integer between
 * the outer atoms z₀ ≤ z_N, and beyond them both masses are ∝ r^{|y|}, so each tail is the end term
 * times r/(1 − r) exactly. Error: each term's log is off by at most its masses' bounds times the
 * powers plus its own rounding, which moves the log of the sum by at most the largest such bound;
 * the n + 2 exponentials and the sum add (n + 4)·2⁻⁵² relative.
 */
function latticeSum(lp: BoundedLogDensity, lq: BoundedLogDensity, a: number, tail: number): OnePassIntegral {
  const n = lp.ld.length;
  const g = new Float64Array(n);
  let top = -Infinity,
    worst = 0;
  for (let i = 0; i < n; i++) {
    const x = a * lp.ld[i],
      y = (1 - a) * lq.ld[i];
    g[i] = x + y;
    top = Math.max(top, g[i]);
    worst = Math.max(worst, Math.abs(a) * lp.err[i] + Math.abs(1 - a) * lq.err[i] + 2 * U * (Math.abs(x) + Math.abs(y) + Math.abs(g[i])));
  }
  const ends = [g[0] + tail, g[n - 1] + tail];
  for (const e of ends) top = Math.max(top, e);
  if (top === -Infinity) return { value: -Infinity, error: Infinity, nodes: n, tailShare: 0 };
  let sum = 0,
    spread = 0;
  for (const v of [...g, ...ends]) {
    sum += Math.exp(v - top);
    spread = Math.max(spread, Math.abs(v - top) * U);
  }
  const value = top + Math.log(sum);
  const error = worst + 4 * U * (Math.abs(tail) + 1) + spread + (n + 4) * 1.01 * 2 * U + 2 * U * Math.abs(value);
  return { value, error, nodes: n, tailShare: 0 };
}

/**
 * The exact accountant's whole answer for geometric noise: a sum over the integers, not an
 * integral (`lattice`), in one pass over [z₀, z_N]; both directions share the masses.
 */
function latticeOnePass(P: Mixture, Q: Mixture, alpha: number, b: number, _rtol: number, both: boolean): OnePassIntegral[] {
  checkIntegerAtoms(P.x);
  checkIntegerAtoms(Q.x);
  const z0 = Math.min(P.x[0], Q.x[0]),
    zN = Math.max(P.x[P.x.length - 1], Q.x[Q.x.length - 1]);
  const n = zN - z0 + 1;
  if (n > MAX_LATTICE) {
    const none = { value: 0, error: Infinity, nodes: 0, tailShare: 0 };
    return both ? [none, none] : [none];
  }
  const ys = Float64Array.from({ length: n }, (_, i) => z0 + i);
  const lp = latticeLogMass(P, b, ys),
    lq = latticeLogMass(Q, b, ys);
  const tail = logTailFactor(b);
  return both ? [latticeSum(lp, lq, alpha, tail), latticeSum(lq, lp, alpha, tail)] : [latticeSum(lp, lq, alpha, tail)];
}

const noQuadrature = (): never => {
  throw new Error('geometric noise is summed over the integers (renyiOnePass), never integrated');
};

/** Two-sided geometric noise for the exact accountant: masses on ℤ, D_α a lattice sum (docs/math.md §21). */
export const geometricKernel: NoiseKernel = {
  lattice: true,
  logDensity: (z, b) => (Number.isInteger(z) ? logMassAtZero(b) - Math.abs(z) / b : -Infinity),
  plainLip: () => 0,
  mixtureLogDensity: latticeLogMass,
  panelErrors: noQuadrature,
  domain: (): Domain => noQuadrature(),
  panelEnds: noQuadrature,
  firstPanel: noQuadrature,
  renyiOnePass: latticeOnePass,
};
