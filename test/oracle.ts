// Independent reference implementations for tests: deliberately naive and different in
// method from the library (no BigInt walk, no log-space, no Brent, no error bounds).

/** π* by expanding both histograms into L = lcm(N, M) equal units and pairing unit i with unit i. */
export function unitCoupling(p: { values: number[]; counts: number[] }, q: { values: number[]; counts: number[] }) {
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const N = sum(p.counts), M = sum(q.counts), L = (N / gcd(N, M)) * M;
  const units = (h: { values: number[]; counts: number[] }, per: number) => {
    const idx = h.values.map((_, i) => i).sort((a, b) => h.values[a] - h.values[b]);
    const out: number[] = [];
    for (const i of idx) for (let k = 0; k < h.counts[i] * per; k++) out.push(h.values[i]);
    return out;
  };
  const a = units(p, L / N), b = units(q, L / M);
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
export function bisect(f: (s: number) => number, lo: number, hi: number): number {
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
  bisect((b) => (alpha / (2 * alpha - 1)) * Math.exp(((alpha - 1) * w) / b) + ((alpha - 1) / (2 * alpha - 1)) * Math.exp((-alpha * w) / b) - Math.exp((alpha - 1) * eps), 1e-9, 1e9);

/** The naive float north-west-corner walk (what not to do): subtracts float masses. */
export function floatCoupling(p: { values: number[]; weights: number[] }, q: { values: number[]; weights: number[] }) {
  const out: { x: number; y: number; m: number }[] = [];
  let i = 0, j = 0, ra = p.weights[0], rb = q.weights[0];
  while (i < p.values.length && j < q.values.length) {
    const t = Math.min(ra, rb);
    if (t > 0) out.push({ x: p.values[i], y: q.values[j], m: t });
    ra -= t; rb -= t;
    if (ra <= 0) ra = p.weights[++i];
    if (rb <= 0) rb = q.weights[++j];
  }
  return out;
}
