import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { add, fromDouble, toDouble } from '../src/sampling/dyadic.js';
import { lnEnclosure } from '../src/sampling/fixedLog.js';
import { cryptoSource, LazyUniform } from '../src/sampling/random.js';
import { drawRelease, gaussianNoise, laplaceNoise, sqrtCostNoise, type ExactNoise } from '../src/sampling/samplers.js';
import { erf, ksTest, seededSource } from './seeded.js';

const LEVEL = 1e-6; // false-alarm rate of every KS test below (DKW–Massart, exact)

describe('fixed-point logarithm', () => {
  it('encloses ln 2 (known to 40 digits) and ln of powers of two', () => {
    // biome-ignore lint/suspicious/noApproximativeNumericConstant lint/correctness/noPrecisionLoss: the literal digits are the test's point
    const LN2 = 0.6931471805599453094172321214581765680755; // double nearest; digits checked below with BigInt
    const [lo, hi] = lnEnclosure(1n, 1, 200); // ln(1/2)
    // ln 2 = 0.69314718055994530941723212145817656807550013436025525412068 (OEIS A002162)
    const ref = 69314718055994530941723212145817656807550013436025525412068n; // ×10^-59
    const scale = 10n ** 59n;
    expect(-hi * scale <= ref << 200n).toBe(true);
    expect(-lo * scale >= ref << 200n).toBe(true);
    expect(hi - lo).toBeLessThan(1n << 20n);
    expect(Number(lo) / 2 ** 200).toBeCloseTo(-LN2, 15);
  });
  it('agrees with Math.log and is additive (enclosures of ln(ab) and ln a + ln b intersect)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: (1n << 80n) - 1n }), fc.bigInt({ min: 1n, max: (1n << 80n) - 1n }), (a, b) => {
        const [alo, ahi] = lnEnclosure(a, 80, 128),
          [blo, bhi] = lnEnclosure(b, 80, 128),
          [clo, chi] = lnEnclosure(a * b, 160, 128);
        expect(alo + blo <= chi && clo <= ahi + bhi).toBe(true);
        expect(Number(alo) / 2 ** 128).toBeCloseTo(Math.log(Number(a) / 2 ** 80), 12);
      }),
    );
  });
});

describe('exact dyadics round once, to nearest even', () => {
  it('round-trips doubles and breaks ties to even', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(toDouble(fromDouble(x))).toBe(x === 0 ? 0 : x);
      }),
    );
    // 1 + 2^-53 is a tie between 1 and 1 + 2^-52: even mantissa wins (1)
    expect(toDouble(add(fromDouble(1), { m: 1n, e: -53 }))).toBe(1);
    expect(toDouble(add(fromDouble(1 + 2 ** -52), { m: 1n, e: -53 }))).toBe(1 + 2 ** -51);
    expect(toDouble(add(fromDouble(1), { m: 3n, e: -54 }))).toBe(1 + 2 ** -52);
  });
  it('a draw equals the rounding of a much more precise enclosure of the same exact sample', () => {
    for (let i = 0; i < 200; i++) {
      const src = seededSource(BigInt(i + 1));
      const y = drawRelease(3, laplaceNoise(0.7), { random: src });
      const u = new LazyUniform(seededSource(BigInt(i + 1)));
      for (let k = 0; k < 8; k++) u.refine(64); // 576 bits, a prefix-extension of the same digits
      const z = laplaceNoise(0.7).enclose([u], 600)!;
      expect(toDouble(add(fromDouble(3), z[0]))).toBe(y);
      expect(toDouble(add(fromDouble(3), z[1]))).toBe(y);
    }
  });
});

describe('the exp(−η√|z|) sampler is the Gamma(2) construction, resolved exactly', () => {
  // Its two uniforms as drawRelease reads them: 64 bits each, then 64 more each per refinement.
  const uniforms = (seed: bigint, refinements: number) => {
    const src = seededSource(seed);
    const us = [new LazyUniform(src), new LazyUniform(src)];
    for (let k = 0; k < refinements; k++) for (const u of us) u.refine(64);
    return us;
  };
  it('a draw equals the rounding of a much more precise enclosure of the same digits', () => {
    for (let i = 0; i < 200; i++) {
      const y = drawRelease(3, sqrtCostNoise(0.5), { random: seededSource(BigInt(i + 1)) });
      const z = sqrtCostNoise(0.5).enclose(uniforms(BigInt(i + 1), 8), 600)!;
      expect(toDouble(add(fromDouble(3), z[0]))).toBe(y);
      expect(toDouble(add(fromDouble(3), z[1]))).toBe(y);
    }
  });
  it('matches sign(2U − 1)·ln(s·v)²/η² in doubles from the same digits (s = 1 − |2U − 1|, v = 1 − W)', () => {
    for (let i = 0; i < 200; i++) {
      const [u, w] = uniforms(BigInt(1000 + i), 0).map((x) => Number(x.num) / 2 ** 64);
      const g = -Math.log(1 - Math.abs(2 * u - 1)) - Math.log1p(-w);
      const expected = Math.sign(2 * u - 1) * (g / 0.5) ** 2;
      const y = drawRelease(0, sqrtCostNoise(0.5), { random: seededSource(BigInt(1000 + i)) });
      expect(Math.abs(y / expected - 1), `draw ${i}`).toBeLessThan(1e-9);
    }
  });
});

describe('randomness', () => {
  it('injected sources are reproducible; the default CSPRNG is not', () => {
    const a = drawRelease(1, gaussianNoise(1), { random: seededSource(42n) });
    expect(drawRelease(1, gaussianNoise(1), { random: seededSource(42n) })).toBe(a);
    const draws = new Set(Array.from({ length: 20 }, () => drawRelease(1, gaussianNoise(1), { random: cryptoSource })));
    expect(draws.size).toBe(20);
  });
});

/** n draws of Y − x from a sampler (x = 3: not a power of two, so rounding is exercised). */
const draws = (noise: ExactNoise, n: number, truncate?: [number, number]) =>
  Array.from({ length: n }, () => drawRelease(3, noise, { random: cryptoSource, truncate }) - 3);
const fold = (xs: number[]) => xs.map(Math.abs);

describe(`samplers follow their exact laws (KS, false alarm ≤ ${LEVEL}) and a 5% scale error is caught`, () => {
  const laplaceAbs = (b: number) => (t: number) => (t <= 0 ? 0 : -Math.expm1(-t / b));
  const gaussAbs = (s: number) => (t: number) => (t <= 0 ? 0 : erf(t / (s * Math.SQRT2)));
  const sqrtAbs = (eta: number) => (t: number) => (t <= 0 ? 0 : 1 - (1 + eta * Math.sqrt(t)) * Math.exp(-eta * Math.sqrt(t)));
  // Sample sizes: a 5% scale error moves the folded CDF by ≥ 0.018 (Laplace), 0.024 (Gaussian),
  // 0.026 (√|z| cost); the thresholds at these n are 0.0078, 0.011, 0.011.
  const cases: [string, (scale: number) => ExactNoise, (scale: number) => (t: number) => number, number, number][] = [
    ['Laplace', laplaceNoise, laplaceAbs, 2, 120_000],
    ['Gaussian', gaussianNoise, gaussAbs, 2, 60_000],
    ['exp(−η√|z|)', sqrtCostNoise, sqrtAbs, 0.5, 60_000],
  ];
  it.each(cases)(
    '%s',
    (_name, make, cdfAbs, scale, n) => {
      const ok = draws(make(scale), n);
      const good = ksTest(fold(ok), cdfAbs(scale), LEVEL);
      expect(good.reject).toBe(false);
      // symmetry: the signs are fair (binomial, 6 standard deviations)
      const pos = ok.filter((v) => v > 0).length;
      expect(Math.abs(pos - n / 2)).toBeLessThan(6 * Math.sqrt(n / 4));
      // the same test rejects a sampler whose scale is 5% off (for √|z| the rate η is 5% off)
      const off = make(_name.startsWith('exp') ? scale / 1.05 : scale * 1.05);
      const bad = ksTest(fold(draws(off, n)), cdfAbs(scale), LEVEL);
      expect(bad.reject).toBe(true);
    },
    120_000,
  );

  it('truncated Laplace follows the restricted, renormalised law', () => {
    const [lo, hi] = [-1, 2];
    const F = (z: number) => (z < 0 ? 0.5 * Math.exp(z) : 1 - 0.5 * Math.exp(-z));
    const cdf = (z: number) => (z <= lo ? 0 : z >= hi ? 1 : (F(z) - F(lo)) / (F(hi) - F(lo)));
    const xs = draws(laplaceNoise(1), 40_000, [3 + lo, 3 + hi]);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(lo);
    expect(Math.max(...xs)).toBeLessThanOrEqual(hi);
    expect(ksTest(xs, cdf, LEVEL).reject).toBe(false);
  }, 60_000);
});

describe('Gaussian sampler near the ratio-of-uniforms peak', () => {
  it('decides a draw with u ≈ e^{-1/2} and v² just above g(u) (below the old fixed 2/e bound) instead of failing', () => {
    // First 8 bytes: U with u = 1 − U ≈ e^{-1/2}; next 8: W with v = a(2W − 1), v² = 0.7358 ∈ (2/e, 0.73584].
    const bytes = (x: number) => {
      const n = BigInt(Math.floor(x * 2 ** 53)) << 11n;
      return Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(56 - 8 * i)) & 0xffn));
    };
    const v = Math.sqrt(0.7358);
    const head = [...bytes(1 - Math.exp(-0.5)), ...bytes((v / (220 / 256) + 1) / 2)];
    const rest = seededSource(5n);
    let used = 0;
    const crafted = {
      fill(b: Uint8Array) {
        for (let i = 0; i < b.length; i++) {
          if (used < head.length) b[i] = head[used++];
          else {
            const one = new Uint8Array(1);
            rest.fill(one);
            b[i] = one[0];
          }
        }
      },
    };
    expect(Number.isFinite(drawRelease(0, gaussianNoise(1), { random: crafted }))).toBe(true);
    expect(used).toBe(16);
  });
});
