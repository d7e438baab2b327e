// Independent reference implementations for tests: deliberately naive and different in
// method from the library (no BigInt walk, no log-space, no Brent, no error bounds).

/** π* by expanding both histograms into L = lcm(N, M) equal units and pairing unit i with unit i. */
export function unitCoupling(p: { values: number[]; counts: number[] }, q: { values: number[]; counts: number[] }) {
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const N = sum(p.counts),
    M = sum(q.counts),
    L = (N / gcd(N, M)) * M;
  const units = (h: { values: number[]; counts: number[] }, per: number) => {
    const idx = h.values.map((_, i) => i).sort((a, b) => h.values[a] - h.values[b]);
    const out: number[] = [];
    for (const i of idx) for (let k = 0; k < h.counts[i] * per; k++) out.push(h.values[i]);
    return out;
  };
  const a = units(p, L / N),
    b = units(q, L / M);
  const atoms = new Map<string, { x: number; y: number; m: number }>();
  for (let i = 0; i < L; i++) {
    const key = `${a[i]}|${b[i]}`;
    const e = atoms.get(key) ?? { x: a[i], y: b[i], m: 0 };
    e.m += 1 / L;
    atoms.set(key, e);
  }
  return [...atoms.values()];
}

/** Plain bisection (300 halvings) for the root of a decreasing f; returns the upper end. */
function bisect(f: (s: number) => number, lo: number, hi: number): number {
  for (let i = 0; i < 300; i++) {
    const mid = (lo + hi) / 2;
    if (mid === lo || mid === hi) break;
    if (f(mid) > 0) lo = mid;
    else hi = mid;
  }
  return hi;
}

type Atoms = { x: number; y: number; m: number }[];

/** Theorem 1 by plain bisection of Σ m e^{α|d|/b} − e^{(α−1)ε} (moderate inputs only). */
export const naiveTheorem1 = (c: Atoms, alpha: number, eps: number) =>
  bisect((b) => c.reduce((s, a) => s + a.m * Math.exp((alpha * Math.abs(a.x - a.y)) / b), 0) - Math.exp((alpha - 1) * eps), 1e-9, 1e9);

/** Theorem 2 by plain bisection in σ. */
export const naiveTheorem2 = (c: Atoms, alpha: number, eps: number) =>
  bisect((s) => c.reduce((t, a) => t + a.m * Math.exp((alpha * (alpha - 1) * (a.x - a.y) ** 2) / (2 * s * s)), 0) - Math.exp((alpha - 1) * eps), 1e-9, 1e9);

/** Pierquin Cor. 3.1 Laplace by plain bisection of Mironov's formula. */
export const naivePierquin = (w: number, alpha: number, eps: number) =>
  bisect(
    (b) =>
      (alpha / (2 * alpha - 1)) * Math.exp(((alpha - 1) * w) / b) + ((alpha - 1) / (2 * alpha - 1)) * Math.exp((-alpha * w) / b) - Math.exp((alpha - 1) * eps),
    1e-9,
    1e9,
  );

/** The naive float north-west-corner walk (what not to do): subtracts float masses. */
export function floatCoupling(p: { values: number[]; weights: number[] }, q: { values: number[]; weights: number[] }) {
  const out: { x: number; y: number; m: number }[] = [];
  let i = 0,
    j = 0,
    ra = p.weights[0],
    rb = q.weights[0];
  while (i < p.values.length && j < q.values.length) {
    const t = Math.min(ra, rb);
    if (t > 0) out.push({ x: p.values[i], y: q.values[j], m: t });
    ra -= t;
    rb -= t;
    if (ra <= 0) ra = p.weights[++i];
    if (rb <= 0) rb = q.weights[++j];
  }
  return out;
}

/** 8-point Gauss–Legendre nodes and weights on [−1, 1] (Abramowitz–Stegun 25.4.30). */
const GL8 = [
  [0.1834346424956498, 0.362683783378362],
  [0.525532409916329, 0.3137066458778873],
  [0.7966664774136267, 0.2223810344533745],
  [0.9602898564975363, 0.1012285362903763],
];

/**
 * D_α(P_Y ‖ Q_Y) by brute force, for tests: plain O(N·K) densities, composite 8-point
 * Gauss–Legendre on panels refined geometrically toward every atom (down to scale·2^-50) and at
 * most scale/8 wide elsewhere (Gaussian: σ/(8√α) within 40σ of every atom and shifted centre αx + (1−α)x′),
 * summed in log-space. No error bound, no adaptivity: an independent check of the certified
 * accountant, accurate to ~1e-13 relative in the integral on small supports.
 */
export function oracleRenyi(
  p: { values: ArrayLike<number>; masses: ArrayLike<number> },
  q: { values: ArrayLike<number>; masses: ArrayLike<number> },
  family: 'laplace' | 'gaussian',
  s: number,
  alpha: number,
): number {
  const logDens = (d: typeof p, y: number) => {
    const t = Array.from(
      d.values,
      (x, k) =>
        Math.log(d.masses[k]) +
        (family === 'laplace' ? -Math.abs(y - x) / s - Math.log(2 * s) : -((y - x) ** 2) / (2 * s * s) - Math.log(s * Math.sqrt(2 * Math.PI))),
    );
    const m = Math.max(...t);
    return m + Math.log(t.reduce((a, v) => a + Math.exp(v - m), 0));
  };
  const atoms = [...new Set([...Array.from(p.values), ...Array.from(q.values)])].sort((a, b) => a - b);
  const centres = family === 'laplace' ? atoms : Array.from(p.values).flatMap((x) => Array.from(q.values, (x2) => alpha * x + (1 - alpha) * x2));
  // Laplace: the whole hull (tails are heavy); Gaussian: windows of ±40σ around atoms and centres.
  const pad = family === 'laplace' ? 70 * s : 40 * s;
  const windows =
    family === 'laplace' ? [[Math.min(...atoms) - pad, Math.max(...atoms) + pad]] : [...atoms, ...centres].sort((a, b) => a - b).map((c) => [c - pad, c + pad]);
  const merged: number[][] = [];
  for (const w of windows) {
    const last = merged[merged.length - 1];
    if (last && w[0] <= last[1]) last[1] = Math.max(last[1], w[1]);
    else merged.push([...w]);
  }
  // Gaussian features near where mixtures cross are ~σ/√α wide.
  const width = family === 'laplace' ? s / 8 : s / (8 * Math.sqrt(Math.max(1, alpha)));
  let m = -Infinity,
    sum = 0; // streaming log-sum-exp
  const add = (t: number) => {
    if (t <= m) sum += Math.exp(t - m);
    else {
      sum = sum * Math.exp(m - t) + 1;
      m = t;
    }
  };
  for (const [lo, hi] of merged) {
    const cuts = new Set<number>([lo, hi, ...atoms.filter((x) => x > lo && x < hi), ...centres.filter((x) => x > lo && x < hi)]);
    for (const x of atoms) for (let k = 0; k <= 50; k++) for (const y of [x - s * 2 ** -k, x + s * 2 ** -k]) if (y > lo && y < hi) cuts.add(y);
    const sorted = [...cuts].sort((a, b) => a - b);
    for (let i = 0; i + 1 < sorted.length; i++) {
      const a = sorted[i],
        b = sorted[i + 1];
      const n = Math.max(1, Math.ceil((b - a) / width));
      for (let j = 0; j < n; j++) {
        const l = a + ((b - a) * j) / n,
          r = a + ((b - a) * (j + 1)) / n,
          c = (l + r) / 2,
          h = (r - l) / 2;
        for (const [x, w] of GL8) for (const y of [c - h * x, c + h * x]) add(Math.log(w * h) + alpha * logDens(p, y) + (1 - alpha) * logDens(q, y));
      }
    }
  }
  return (m + Math.log(sum)) / (alpha - 1);
}
