import { noiseOf } from '../mechanisms/kernels.js';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mixtureLogDensity, mixtureLogDensityPlain } from '../mechanisms/kernels.js';
import type { Mixture } from './mixture.js';
import type { NoiseFamily } from '../mechanisms/kernels.js';

const mixtureArb = fc
  .array(fc.tuple(fc.double({ min: -1e4, max: 1e4, noNaN: true }), fc.double({ min: -27.6, max: 0, noNaN: true })), { minLength: 1, maxLength: 40 })
  .map((atoms): Mixture => {
    const uniq = [...new Map(atoms.map(([x, lw]) => [x, lw])).entries()].sort((a, b) => a[0] - b[0]);
    const lse = Math.log(uniq.reduce((s, [, lw]) => s + Math.exp(lw), 0));
    return { x: Float64Array.from(uniq, ([x]) => x), logw: Float64Array.from(uniq, ([, lw]) => lw - lse) };
  });

describe('fast mixture evaluators equal the plain O(N·K) one', () => {
  it.each(['laplace', 'gaussian'] as NoiseFamily[])('%s, atoms up to 10⁴ scales apart, weights 1e-12..1', (family) => {
    fc.assert(
      fc.property(
        mixtureArb,
        fc.double({ min: 0.5, max: 50, noNaN: true }),
        fc.array(fc.double({ min: -1.2e4, max: 1.2e4, noNaN: true }), { minLength: 1, maxLength: 60 }),
        (m, scale, pts) => {
          const ys = Float64Array.from(pts).sort();
          const noise = noiseOf(family, scale);
          const fast = mixtureLogDensity(m, noise, ys);
          const plain = mixtureLogDensityPlain(m, noise, ys);
          for (let i = 0; i < ys.length; i++) {
            expect(Math.abs(fast[i] - plain[i])).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(plain[i])));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
