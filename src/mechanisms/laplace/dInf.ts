import type { Discrete } from '../../distribution/discrete.js';
import { centred, logMassIn } from '../../divergence/exactRenyi.js';
import type { Noise } from '../../divergence/kernel.js';
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
export function exactLaplaceDInf(p: Discrete, q: Discrete, b: number): Bounded {
  return supLogRatio(p, q, b);
}

/**
 * Exact ε-Pufferfish level of the truncated Laplace release: sup over y ∈ I of
 * log p(y)/q(y) − log P(I) + log Q(I); the ratio is monotone between atoms, so the sup is at an
 * atom inside I or at a finite end of I.
 */
export function exactLaplaceDInfTruncated(p: Discrete, q: Discrete, b: number, interval: [number, number]): Bounded {
  const [lo, hi] = interval;
  const sup = supLogRatio(p, q, b, [lo, hi].filter(Number.isFinite), (y) => y >= lo && y <= hi);
  const noise = laplaceNoise(b);
  const mp = logMassIn(p, noise, interval),
    mq = logMassIn(q, noise, interval);
  return { value: sup.value - mp.value + mq.value, error: sup.error + mp.error + mq.error };
}

/** max of log p/q over the atoms of either mixture (plus `extra` points), kept where `keep` holds. */
function supLogRatio(p: Discrete, q: Discrete, b: number, extra: number[] = [], keep: (y: number) => boolean = () => true): Bounded {
  // Centred like the quadrature (`extra` are interval ends, so the shift stays exact).
  const {
    mixtures: [P, Q],
    shift,
  } = centred([p, q], extra.length ? [minOf(extra), maxOf(extra)] : undefined);
  const pts = Float64Array.from(new Set([...p.values, ...q.values, ...extra].filter(keep)), (y) => y - shift).sort();
  const lp = laplaceKernel.mixtureLogDensity(P, b, pts).ld,
    lq = laplaceKernel.mixtureLogDensity(Q, b, pts).ld;
  let value = -Infinity,
    mag = 0;
  for (let i = 0; i < pts.length; i++) {
    value = Math.max(value, lp[i] - lq[i]);
    mag = Math.max(mag, Math.abs(lp[i]), Math.abs(lq[i]));
  }
  return { value, error: (16 + 4 * pts.length) * EPS * (1 + 2 * mag) };
}
