import { NumericalError } from '../errors.js';
import { add, cmp, fromDouble, mul, neg, toDouble, type Dyadic } from './dyadic.js';
import { lnEnclosure } from './fixedLog.js';
import { LazyUniform, type RandomSource } from './random.js';

/**
 * Floating-point-safe noise. Mironov (2012) showed that `x + b·log(u)` in doubles leaks through
 * its low-order bits. Here the released double is round-to-nearest(x + Z) of an *exact*
 * continuous sample Z: a post-processing of the exact mechanism, so every calibration applies
 * unchanged. Z is a monotone (or accept/reject) transform of exactly uniform variables whose
 * binary digits are drawn lazily from the CSPRNG; the transform is evaluated in exact dyadic
 * arithmetic with a rigorous fixed-point logarithm (`fixedLog.ts`) until x + Z is known to lie
 * strictly inside one double's rounding interval. More digits (and precision) are drawn only
 * when needed (probability ~2^-60 per step), so a sample costs one evaluation on average.
 *
 * An `ExactNoise.enclose` returns dyadic bounds certain to contain Z for every uniform
 * consistent with the digits drawn so far, at P fractional bits; null when undecided.
 */
export interface ExactNoise {
  readonly name: string;
  readonly uniforms: number;
  /** Accept/reject samplers: true/false once decided for the current box, null while undecided. */
  accept?(u: LazyUniform[], P: number): boolean | null;
  enclose(u: LazyUniform[], P: number): [Dyadic, Dyadic] | null;
}

const dy = (m: bigint, e: number): Dyadic => ({ m, e });

/** ⌊num/den⌋ or ⌈num/den⌉ at P fractional bits, as a dyadic (den > 0). */
function divDyadic(num: Dyadic, den: Dyadic, P: number, up: boolean): Dyadic {
  // num/den = (num.m / den.m)·2^(num.e − den.e); scale the quotient to P bits.
  const shift = P + 64;
  let q = (num.m << BigInt(shift)) / den.m;
  const exact = q * den.m === num.m << BigInt(shift);
  if (!exact) {
    if (up && num.m > 0n) q += 1n;
    if (!up && num.m < 0n) q -= 1n;
  }
  return dy(q, num.e - den.e - shift);
}

/**
 * Symmetric noise Z = sign(2U−1)·T(s), s = 1 − |2U−1| ∈ (0, 1], T decreasing with T(1) = 0:
 * increasing in U, so Z ∈ [lower bound at the low end, upper bound at the high end]. s is an
 * exact dyadic, so T keeps full relative precision however close U is to 0, ½ or 1.
 */
function symmetric(name: string, tail: (sNum: bigint, sBits: number, P: number, up: boolean) => Dyadic | null): ExactNoise {
  const at = (num: bigint, bits: number, P: number, up: boolean): Dyadic | null => {
    const positive = num >= 1n << BigInt(bits - 1);
    const sNum = positive ? 2n * ((1n << BigInt(bits)) - num) : 2n * num; // s = sNum / 2^bits
    if (sNum === 0n) return null;
    const t = tail(sNum, bits, P, positive ? up : !up);
    return t === null ? null : positive ? t : neg(t);
  };
  return {
    name,
    uniforms: 1,
    enclose([u], P) {
      const lo = at(u.num, u.bits, P, false);
      const hi = u.num + 1n === 1n << BigInt(u.bits) ? null : at(u.num + 1n, u.bits, P, true);
      return lo && hi ? [lo, hi] : null;
    },
  };
}

/** Laplace(b): T(s) = −b·ln s, the inverse CDF. */
export function laplaceNoise(b: number): ExactNoise {
  const B = fromDouble(b);
  return symmetric(`Laplace(b=${b})`, (n, k, P, up) => {
    const [lo, hi] = lnEnclosure(n, k, P); // ln s ≤ 0
    return mul(B, dy(up ? -lo : -hi, -P));
  });
}

/**
 * Two-sided geometric (discrete Laplace) noise, P(Z = z) ∝ e^{−|z|/b} on the integers: Z = G₁ − G₂
 * for independent geometrics G = ⌊−b·ln s⌋, s = 1 − U ∈ (0, 1], since P(G ≥ k) = P(s ≤ e^{−k/b})
 * = e^{−k/b}. Each floor is decided once the enclosure of −b·ln s over the box of undrawn digits
 * lies between two integers (a boundary is hit with probability 0), so Z is exact and returned as
 * the one-point box [Z, Z].
 */
export function geometricNoise(b: number): ExactNoise {
  const B = fromDouble(b);
  const floorOf = (u: LazyUniform, P: number): bigint | null => {
    const top = 1n << BigInt(u.bits);
    const [sLo, sHi] = [top - u.num - 1n, top - u.num]; // s = 1 − U over U's box, numerators over 2^bits
    if (sLo === 0n) return null; // −ln s is unbounded on this box
    const lo = mul(B, dy(-lnEnclosure(sHi, u.bits, P)[1], -P)),
      hi = mul(B, dy(-lnEnclosure(sLo, u.bits, P)[0], -P));
    const f = (d: Dyadic) => (d.e >= 0 ? d.m << BigInt(d.e) : d.m >> BigInt(-d.e)); // ⌊d⌋ (>> floors)
    const a = f(lo);
    return a === f(hi) ? a : null;
  };
  return {
    name: `geometric(b=${b})`,
    uniforms: 2,
    enclose([u, w], P) {
      const g1 = floorOf(u, P),
        g2 = floorOf(w, P);
      if (g1 === null || g2 === null) return null;
      const z = dy(g1 - g2, 0);
      return [z, z];
    },
  };
}

/**
 * Exponential mechanism with c(z) = √|z| and rate η (density ∝ e^{−η√|z|}): |Z| = g²/η² with
 * g ~ Gamma(2, 1) (the density of g = η√|Z| is ∝ g·e^{−g}), the sum of two standard exponentials,
 * g = −ln(s·v) for independent uniforms s, v ∈ (0, 1]. The sign and s come from the first uniform
 * as in `symmetric`, v = 1 − W from the second; |Z| falls as s or v grows, so the box's corners
 * enclose it, and one logarithm of the exact product s·v per corner does.
 */
export function sqrtCostNoise(eta: number): ExactNoise {
  const E2 = mul(fromDouble(eta), fromDouble(eta));
  // g at a corner s·v = n/2^k, rounded down (up = false) or up; g ≥ 0 however the enclosure rounds.
  const gAt = (n: bigint, k: number, P: number, up: boolean): Dyadic => {
    const [lo, hi] = lnEnclosure(n, k, P);
    const g = up ? -lo : -hi;
    return dy(g > 0n ? g : 0n, -P);
  };
  return {
    name: `exp(−${eta}·√|z|)`,
    uniforms: 2,
    enclose([u, w], P) {
      const half = 1n << BigInt(u.bits - 1);
      const positive = u.num >= half;
      // s = 1 − |2U − 1| over U's box [num, num + 1]·2^-bits, as numerators over 2^bits.
      const [sLo, sHi] = positive ? [2n * (2n * half - u.num - 1n), 2n * (2n * half - u.num)] : [2n * u.num, 2n * u.num + 2n];
      // v = 1 − W over W's box.
      const top = 1n << BigInt(w.bits);
      const [vLo, vHi] = [top - w.num - 1n, top - w.num];
      if (sLo === 0n || vLo === 0n) return null; // g may be unbounded on this box
      const k = u.bits + w.bits;
      const gMin = gAt(sHi * vHi, k, P, false),
        gMax = gAt(sLo * vLo, k, P, true);
      const zMin = divDyadic(mul(gMin, gMin), E2, P, false),
        zMax = divDyadic(mul(gMax, gMax), E2, P, true);
      return positive ? [zMin, zMax] : [neg(zMax), neg(zMin)];
    },
  };
}

/** 220/256 ≥ √(2/e) = 0.85776…: the v-range of the ratio-of-uniforms box for the normal. */
const V_HALF_WIDTH = dy(220n, -8);

/**
 * Gaussian(σ) by ratio-of-uniforms (Kinderman–Monahan 1977): (u, v) uniform on
 * (0,1] × [−a, a], accepted iff v² ≤ −4u² ln u; then v/u ~ N(0,1) exactly. Only a logarithm is
 * needed (for the acceptance test, decided on the whole box of undrawn digits), and v/u is a
 * ratio of dyadics, enclosed by floor/ceil division. Acceptance rate ≈ 73%.
 */
export function gaussianNoise(sigma: number): ExactNoise {
  const S = fromDouble(sigma);
  const uBox = (u: LazyUniform): [Dyadic, Dyadic] => [dy((1n << BigInt(u.bits)) - u.num - 1n, -u.bits), dy((1n << BigInt(u.bits)) - u.num, -u.bits)]; // u = 1 − U ∈ (0, 1]
  const vBox = (w: LazyUniform): [Dyadic, Dyadic] => [
    mul(V_HALF_WIDTH, dy(2n * w.num - (1n << BigInt(w.bits)), -w.bits)),
    mul(V_HALF_WIDTH, dy(2n * w.num + 2n - (1n << BigInt(w.bits)), -w.bits)),
  ];
  /** Bounds of g(u) = −4u² ln u at one u = m·2^e ∈ (0, 1]. */
  const g = (u: Dyadic, P: number): [Dyadic, Dyadic] => {
    const [lo, hi] = lnEnclosure(u.m, -u.e, P);
    const u4 = mul(dy(4n, 0), mul(u, u));
    return [mul(u4, dy(-hi, -P)), mul(u4, dy(-lo, -P))];
  };
  return {
    name: `Gaussian(σ=${sigma})`,
    uniforms: 2,
    accept([uu, ww], P) {
      const [uLo, uHi] = uBox(uu);
      if (uLo.m === 0n) return null; // u may be 0
      const [vLo, vHi] = vBox(ww);
      const sq = (x: Dyadic) => mul(x, x);
      const vMax2 = cmp(sq(vLo), sq(vHi)) > 0 ? sq(vLo) : sq(vHi);
      const vMin2 = vLo.m <= 0n && vHi.m >= 0n ? dy(0n, 0) : cmp(sq(vLo), sq(vHi)) < 0 ? sq(vLo) : sq(vHi);
      const [gaLo, gaHi] = g(uLo, P),
        [gbLo, gbHi] = g(uHi, P);
      const gMin = cmp(gaLo, gbLo) < 0 ? gaLo : gbLo; // g is unimodal: its minimum is at an end
      if (cmp(vMax2, gMin) <= 0) return true;
      if (cmp(vMin2, peakSafeMax(uLo, uHi, gaHi, gbHi, P)) > 0) return false;
      return null;
    },
    enclose([uu, ww], P) {
      const [uLo, uHi] = uBox(uu);
      if (uLo.m === 0n) return null;
      const [vLo, vHi] = vBox(ww);
      const lo = vLo.m >= 0n ? divDyadic(vLo, uHi, P, false) : divDyadic(vLo, uLo, P, false);
      const hi = vHi.m >= 0n ? divDyadic(vHi, uLo, P, true) : divDyadic(vHi, uHi, P, true);
      return [mul(S, lo), mul(S, hi)];
    },
  };
}

/**
 * Upper bound of g on [uLo, uHi]. Away from the peak u* = e^{-1/2} g is monotone, so the larger end
 * value bounds it. Near the peak a fixed 2/e bound would leave v² ∈ (g(u), 2/e] undecidable
 * however far the digits are refined, so there g ≤ g(uLo) + L·(uHi − uLo) with
 * L ≥ |g′| = 4u·|2 ln u + 1| on the box (|2 ln u + 1| is largest at an end, ln being monotone):
 * a bound that shrinks with the box.
 */
function peakSafeMax(uLo: Dyadic, uHi: Dyadic, gaHi: Dyadic, gbHi: Dyadic, P: number): Dyadic {
  const PEAK_LO = { m: 9936n, e: -14 }; // 0.60644… < e^{-1/2} = 0.60653…
  const PEAK_HI = { m: 9938n, e: -14 }; // 0.60656… > e^{-1/2}
  const TWO_OVER_E_UP = { m: 12056n, e: -14 }; // 0.73584… > 2/e = 0.73576…
  const ends = cmp(gaHi, gbHi) > 0 ? gaHi : gbHi;
  if (!(cmp(uLo, PEAK_HI) <= 0 && cmp(uHi, PEAK_LO) >= 0)) return ends;
  const abs = (x: bigint) => (x < 0n ? -x : x);
  const one = 1n << BigInt(P);
  const slope = (u: Dyadic) => {
    const [lo, hi] = lnEnclosure(u.m, -u.e, P);
    const a = abs(2n * lo + one),
      b = abs(2n * hi + one);
    // biome-ignore lint/complexity/useMathMinMax: bigint (Math.max takes numbers only)
    return a > b ? a : b;
  };
  const sa = slope(uLo),
    sb = slope(uHi);
  // biome-ignore lint/complexity/useMathMinMax: bigint (Math.max takes numbers only)
  const L = mul(dy(4n, 0), mul(uHi, dy(sa > sb ? sa : sb, -P)));
  const bound = add(ends, mul(L, add(uHi, neg(uLo))));
  return cmp(bound, TWO_OVER_E_UP) < 0 ? bound : TWO_OVER_E_UP;
}

export interface DrawOptions {
  random: RandomSource;
  /** Keep only outputs in [lo, hi] (redraw otherwise): the truncated mechanism. */
  truncate?: [number, number];
  /** Give up after this many redraws (a guard; negligible intervals are refused before sampling). */
  maxDraws?: number;
}

/**
 * One release round-to-nearest(x + Z), Z exact. With `truncate`, draws are repeated until the
 * exact x + Z lies in [lo, hi] (decided on the exact value, so the law is the noise restricted
 * to the interval and renormalised).
 */
export function drawRelease(x: number, noise: ExactNoise, opts: DrawOptions): number {
  const X = fromDouble(x);
  // Infinite ends impose nothing: a huge dyadic stands in for ±∞ in the comparisons.
  const T = opts.truncate?.map((t) => (Number.isFinite(t) ? fromDouble(t) : { m: t > 0 ? 1n : -1n, e: 100000 }));
  const maxDraws = opts.maxDraws ?? 10_000_000;
  for (let draw = 0; draw < maxDraws; draw++) {
    const us = Array.from({ length: noise.uniforms }, () => new LazyUniform(opts.random));
    let P = 128;
    let rejected = false;
    for (let step = 0; step < 40 && !rejected; step++) {
      const ok = noise.accept ? noise.accept(us, P) : true;
      if (ok === false) {
        rejected = true;
        break;
      }
      const z = ok === null ? null : noise.enclose(us, P);
      if (z) {
        const lo = add(X, z[0]),
          hi = add(X, z[1]);
        let inside = true;
        if (T) {
          if (cmp(hi, T[0]) < 0 || cmp(lo, T[1]) > 0) {
            rejected = true;
            break;
          }
          inside = cmp(lo, T[0]) >= 0 && cmp(hi, T[1]) <= 0;
        }
        if (inside) {
          const a = toDouble(lo),
            b = toDouble(hi);
          if (a === b) return a;
        }
      }
      for (const u of us) u.refine(64);
      P += 64;
    }
    if (!rejected) throw new NumericalError('sampler: could not resolve a sample to a double');
  }
  throw new NumericalError(`sampler: no draw landed in the truncation interval after ${maxDraws} tries`);
}
