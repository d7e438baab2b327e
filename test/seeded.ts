import type { RandomSource } from '../src/sampling/random.js';

/** Deterministic test randomness (SplitMix64). Tests only: releases use the CSPRNG. */
export function seededSource(seed: bigint): RandomSource {
  let s = seed & 0xffffffffffffffffn;
  const next = () => {
    s = (s + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
    return z ^ (z >> 31n);
  };
  return {
    fill(bytes) {
      for (let i = 0; i < bytes.length; i += 8) {
        let v = next();
        for (let j = i; j < Math.min(i + 8, bytes.length); j++) {
          bytes[j] = Number(v & 0xffn);
          v >>= 8n;
        }
      }
    },
  };
}

/**
 * One-sample Kolmogorov–Smirnov test. By the Dvoretzky–Kiefer–Wolfowitz inequality with
 * Massart's constant, P(sup|F_n − F| > t) ≤ 2e^{−2nt²} when the samples follow F, so rejecting
 * at t = √(ln(2/level)/(2n)) has false-alarm probability ≤ level (exactly, for any n).
 */
export function ksTest(samples: number[], cdf: (x: number) => number, level: number): { statistic: number; threshold: number; reject: boolean } {
  const xs = [...samples].sort((a, b) => a - b);
  const n = xs.length;
  let d = 0;
  for (let i = 0; i < n; i++) {
    const f = cdf(xs[i]);
    d = Math.max(d, (i + 1) / n - f, f - i / n);
  }
  const threshold = Math.sqrt(Math.log(2 / level) / (2 * n));
  return { statistic: d, threshold, reject: d > threshold };
}

/** erf to ~1e-15 (Taylor series near 0, continued fraction for erfc beyond), for test CDFs. */
export function erf(x: number): number {
  const ax = Math.abs(x);
  if (ax < 2.5) {
    let sum = ax,
      term = ax;
    for (let k = 1; k < 200; k++) {
      term *= (-ax * ax) / k;
      const add = term / (2 * k + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return Math.sign(x) * (2 / Math.sqrt(Math.PI)) * sum;
  }
  // erfc(ax) = e^{-ax²}/√π · 1/(ax + 1/2/(ax + 1/(ax + 3/2/(ax + …)))) (Lentz)
  let f = ax,
    C = ax,
    D = 0;
  for (let k = 1; k < 300; k++) {
    const a = k / 2;
    D = ax + a * D;
    D = 1 / D;
    C = ax + a / C;
    const delta = C * D;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  const erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / f;
  return Math.sign(x) * (1 - erfc);
}
