import { noiseOf } from '../src/mechanisms/kernels.js';
import fc from 'fast-check';
import { expect } from 'vitest';
import { fromCounts, fromWeights, type Discrete } from '../src/distribution/discrete.js';
import { exactRenyi } from '../src/divergence/exactRenyi.js';
import type { OnePassIntegral } from '../src/divergence/kernel.js';
import { mixtureOf, type Mixture } from '../src/divergence/mixture.js';
import type { NoiseFamily } from '../src/mechanisms/kernels.js';

/** Deterministic uniforms in [0, 1) (a linear congruential generator), for reproducible test supports. */
function lcg(seed: number) {
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

/** Random laws: 1–6 atoms 10⁻⁶ to 10 apart, weights from 10⁻³⁰⁰ to 1. */
const randomLaw = fc
  .array(fc.tuple(fc.double({ min: -6, max: 1, noNaN: true }), fc.double({ min: -300, max: 0, noNaN: true })), { minLength: 1, maxLength: 6 })
  .map((a) => {
    let x = 0;
    return fromWeights(
      a.map(([g]) => (x += 10 ** g)),
      a.map(([, w]) => 10 ** w),
    );
  });

/** A one-pass rule of the exact accountant (log ∫ p^α q^{1−α}, and the reverse with `both`). */
export type OnePassRule = (P: Mixture, Q: Mixture, alpha: number, scale: number, rtol: number, both: boolean) => OnePassIntegral[] | null;

/**
 * The rule's D_α in both directions lies within its stated error (plus the oracle's) of the plain
 * evaluator's; with `tight`, that error is also below 10⁻⁸ of the value. False when the rule declined.
 */
export function ruleAgreesWithPlain(
  rule: OnePassRule,
  family: NoiseFamily,
  p: Discrete,
  q: Discrete,
  alpha: number,
  scale: number,
  tight = false,
  rtol = 1e-10,
): boolean {
  const r = rule(mixtureOf(p), mixtureOf(q), alpha, scale, rtol, true);
  if (!r) return false;
  for (const [k, [a, b]] of [
    [p, q],
    [q, p],
  ].entries()) {
    const oracle = exactRenyi(a, b, noiseOf(family, scale), alpha, { rtol, evaluator: 'plain' });
    const value = r[k].value / (alpha - 1),
      error = r[k].error / Math.abs(alpha - 1);
    if (tight) expect(error).toBeLessThan(1e-8 * Math.max(1, Math.abs(value)));
    expect(Math.abs(value - oracle.value)).toBeLessThanOrEqual(error + oracle.error);
  }
  return true;
}

/** Runs `ruleAgreesWithPlain` on random laws, scales 10^±1.5 and orders 0.3–12; returns how often the rule ran. */
export function randomAgreement(rule: OnePassRule, family: NoiseFamily, numRuns = 40): number {
  let ran = 0;
  fc.assert(
    fc.property(randomLaw, randomLaw, fc.double({ min: -1.5, max: 1.5, noNaN: true }), fc.constantFrom(0.3, 0.9, 1.5, 3, 12), (p, q, lg, alpha) => {
      if (ruleAgreesWithPlain(rule, family, p, q, alpha, 10 ** lg)) ran++;
    }),
    { numRuns, seed: 20261130 },
  );
  return ran;
}
