import type { Discrete, Law } from '../../distribution/discrete.js';
import { centred, logMassIn } from '../../divergence/exactRenyi.js';
import type { Noise } from '../../divergence/kernel.js';
import type { Mixture } from '../../divergence/mixture.js';
import { EPS, maxOf, minOf } from '../../numerics/float.js';
import type { Bounded } from '../../numerics/logExpectation.js';
import { laplaceKernel } from './kernel.js';

/** Laplace noise of scale b, with its kernel. */
const laplaceNoise = (b: number): Noise => ({ family: 'laplace', scale: b, kernel: laplaceKernel });

/**
 * Exact ε-Pufferfish level of Laplace noise, D∞(P_Y ‖ Q_Y) = sup_y log p(y)/q(y) (docs/math.md §4,
 * derived): between consecutive atoms both mixtures are A e^{y/b} + B e^{−y/b}, whose ratio is
 * monotone there, and beyond the outermost atoms the ratio is constant; so the sup is attained
 * at an atom. Evaluated at every atom of either support.
 */
export function exactLaplaceDInf(p: Law, q: Law, b: number): Bounded {
  return supLogRatio(p, q, b);
}

/** `exactLaplaceDInf` in both directions at once, [D∞(P_Y‖Q_Y), D∞(Q_Y‖P_Y)], each the same number the one-direction call gives. */
export function exactLaplaceDInfBoth(p: Discrete, q: Discrete, b: number): [Bounded, Bounded] {
  const { pq, qp } = supBoth(cachedSupPoints(p, q), b);
  return [pq, qp];
}

/**
 * Exact ε-Pufferfish level of the truncated Laplace release: sup over y ∈ I of
 * log p(y)/q(y) − log P(I) + log Q(I); the ratio is monotone between atoms, so the sup is at an
 * atom inside I or at a finite end of I.
 */
export function exactLaplaceDInfTruncated(p: Law, q: Law, b: number, interval: [number, number]): Bounded {
  const [lo, hi] = interval;
  const sup = supLogRatio(p, q, b, [lo, hi].filter(Number.isFinite), (y) => y >= lo && y <= hi);
  const noise = laplaceNoise(b);
  const mp = logMassIn(p, noise, interval),
    mq = logMassIn(q, noise, interval);
  return { value: sup.value - mp.value + mq.value, error: sup.error + mp.error + mq.error };
}

/** A pair's centred mixtures and the points the sup is taken over: built once per pair, not per scale. */
interface SupPoints {
  P: Mixture;
  Q: Mixture;
  pts: Float64Array;
}

let last: { p: Law; q: Law; points: SupPoints } | null = null;

function supPoints(p: Law, q: Law, extra: number[], keep: (y: number) => boolean): SupPoints {
  // Centred like the quadrature (`extra` are interval ends, so the shift stays exact).
  const {
    mixtures: [P, Q],
    shift,
  } = centred([p, q], extra.length ? [minOf(extra), maxOf(extra)] : undefined);
  const atoms = (!extra.length && sortedUnion(p.values, q.values)) || new Set([...p.values, ...q.values, ...extra].filter(keep));
  const pts = Float64Array.from(atoms, (y) => y - shift).sort();
  return { P, Q, pts };
}

/**
 * The distinct values of two ascending arrays, ascending, merged in one pass (a Set of 2·10⁶
 * doubles and its sort took seconds on a 10⁶-atom pair); null where either is not ascending.
 */
function sortedUnion(a: Float64Array, b: Float64Array): Float64Array | null {
  const out = new Float64Array(a.length + b.length);
  let i = 0,
    j = 0,
    n = 0;
  while (i < a.length || j < b.length) {
    const y = j >= b.length || (i < a.length && a[i] <= b[j]) ? a[i++] : b[j++];
    if (n > 0 && y < out[n - 1]) return null;
    if (n === 0 || out[n - 1] !== y) out[n++] = y;
  }
  return out.subarray(0, n);
}

/**
 * `supPoints` of a whole-line pair, remembered for the pair last asked about: a calibration
 * searches one pair's scales in a row, and keeping every pair's points would hold a copy of every
 * law's atoms until the scenario goes.
 */
function cachedSupPoints(p: Law, q: Law): SupPoints {
  if (last?.p !== p || last.q !== q) last = { p, q, points: supPoints(p, q, [], () => true) };
  return last.points;
}

/**
 * max of log p/q and of log q/p over the points, with their common rounding bound: one evaluation
 * of each mixture serves both directions, since lq − lp is exactly −(lp − lq) in floating point.
 */
function supBoth({ P, Q, pts }: SupPoints, b: number): { pq: Bounded; qp: Bounded } {
  const lp = laplaceKernel.mixtureLogDensity(P, b, pts).ld,
    lq = laplaceKernel.mixtureLogDensity(Q, b, pts).ld;
  let up = -Infinity,
    down = -Infinity,
    mag = 0;
  for (let i = 0; i < pts.length; i++) {
    up = Math.max(up, lp[i] - lq[i]);
    down = Math.max(down, lq[i] - lp[i]);
    mag = Math.max(mag, Math.abs(lp[i]), Math.abs(lq[i]));
  }
  const error = (16 + 4 * pts.length) * EPS * (1 + 2 * mag);
  return { pq: { value: up, error }, qp: { value: down, error } };
}

/** max of log p/q over the atoms of either mixture (plus `extra` points), kept where `keep` holds. */
function supLogRatio(p: Law, q: Law, b: number, extra?: number[], keep?: (y: number) => boolean): Bounded {
  return supBoth(extra && keep ? supPoints(p, q, extra, keep) : cachedSupPoints(p, q), b).pq;
}
