import { fromCounts, fromWeights, type Discrete } from '../src/distribution/discrete.js';

/** Deterministic uniforms in [0, 1) (a linear congruential generator), for reproducible test supports. */
export function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Atoms at i + U(0, ½) (two interleaved supports, as in the benchmark) or with log-uniform gaps. */
export function support(k: number, seed: number, gaps: 'interleaved' | 'log-uniform') {
  const u = lcg(seed);
  const xs: number[] = [];
  let x = 0;
  for (let i = 0; i < k; i++) {
    xs.push(gaps === 'interleaved' ? i + u() * 0.5 : x);
    x += 10 ** (-6 + 7 * u()); // 1e-6 to 10 apart
  }
  return fromWeights(
    xs,
    xs.map(() => Number((0.001 + u()).toFixed(6))),
  );
}

/** Degenerate but valid pairs: one atom each, a shared support, a 1e-300 weight, data near 10¹², atoms 10⁶ apart with mixed signs. */
export const DEGENERATE_PAIRS: [Discrete, Discrete][] = [
  [fromCounts([0], [1]), fromCounts([1], [1])],
  [fromWeights([0, 1, 2], [0.2, 0.3, 0.5]), fromWeights([0, 1, 2], [0.5, 0.3, 0.2])],
  [fromWeights([0, 1, 2], [1e-300, 0.5, 0.5]), fromWeights([0, 1.5], [0.5, 0.5])],
  [fromWeights([1e12, 1e12 + 1, 1e12 + 3], [1, 2, 3]), fromWeights([1e12 + 0.5, 1e12 + 2], [1, 1])],
  [fromWeights([-1e6, 0, 3], [1, 1, 1]), fromWeights([-1e6 + 1, 2], [1, 2])],
];
