import type { Discrete } from '../src/distribution/discrete.js';

/** Gauss–Legendre nodes and weights on [−1, 1] (Newton on P_n). */
function gaussLegendre(n: number): { x: number[]; w: number[] } {
  const x: number[] = [],
    w: number[] = [];
  for (let i = 1; i <= n; i++) {
    let z = Math.cos((Math.PI * (i - 0.25)) / (n + 0.5)),
      dp = 0;
    for (let it = 0; it < 100; it++) {
      let p0 = 1,
        p1 = z;
      for (let k = 2; k <= n; k++) [p0, p1] = [p1, ((2 * k - 1) * z * p1 - (k - 1) * p0) / k];
      dp = (n * (z * p1 - p0)) / (z * z - 1);
      const dz = p1 / dp;
      z -= dz;
      if (Math.abs(dz) < 1e-16) break;
    }
    x.push(z);
    w.push(2 / ((1 - z * z) * dp * dp));
  }
  return { x, w };
}

/** An additive noise density for the test oracle: Laplace b or Gaussian σ. */
export type Kernel = { family: string; scale: number };
const density = (k: Kernel, z: number) =>
  k.family === 'laplace' ? Math.exp(-Math.abs(z) / k.scale) / (2 * k.scale) : Math.exp(-(z * z) / (2 * k.scale ** 2)) / (k.scale * Math.sqrt(2 * Math.PI));

/** 1-D nodes: Gauss–Legendre on cells cut at the atoms (kinks) and geometrically towards ±60 scales. */
function nodes1d(atoms: number[], s: number): { y: number[]; w: number[] } {
  const cuts = new Set<number>(atoms);
  for (const a of atoms)
    for (let k = 0; k <= 60; k++) {
      const d = s * 2 ** (k / 4) * 0.01;
      if (d < 60 * s) {
        cuts.add(a - d);
        cuts.add(a + d);
      }
    }
  return cellNodes(cuts, atoms, s);
}

/**
 * D_α of two releases Y₁ = X + N₁, Y₂ = X + N₂ of the same X (independent noise), by plain 2-D
 * tensor quadrature — an oracle independent of the library's certified engine (accurate to about
 * 1e-9 relative on small cases), at several orders and in both directions from one pass over the grid.
 */
export function twoReleaseRenyiAt(p: Discrete, q: Discrete, k1: Kernel, k2: Kernel, alphas: readonly number[]): { pq: number[]; qp: number[] } {
  const atoms = [...new Set([...p.values, ...q.values])].sort((a, c) => a - c);
  const a = nodes1d(atoms, k1.scale),
    b = nodes1d(atoms, k2.scale);
  const f = (d: Discrete, k: Kernel, ys: number[]) => ys.map((y) => Float64Array.from(d.values, (x) => density(k, y - x)));
  const p1 = f(p, k1, a.y),
    p2 = f(p, k2, b.y),
    q1 = f(q, k1, a.y),
    q2 = f(q, k2, b.y);
  const pq = alphas.map(() => 0),
    qp = alphas.map(() => 0);
  // Row i's mass × first-coordinate density, formed once: the same products as inline.
  const pm = new Float64Array(p.values.length),
    qm = new Float64Array(q.values.length);
  for (let i = 0; i < a.y.length; i++) {
    for (let m = 0; m < pm.length; m++) pm[m] = p.masses[m] * p1[i][m];
    for (let m = 0; m < qm.length; m++) qm[m] = q.masses[m] * q1[i][m];
    for (let j = 0; j < b.y.length; j++) {
      const [pr, qr] = [p2[j], q2[j]];
      let pp = 0,
        qq = 0;
      for (let m = 0; m < pm.length; m++) pp += pm[m] * pr[m];
      for (let m = 0; m < qm.length; m++) qq += qm[m] * qr[m];
      // In logs: far in a Gaussian tail pp^α underflows to 0 while qq^{1−α} overflows.
      if (!(pp > 0 && qq > 0)) continue;
      const lp = Math.log(pp),
        lq = Math.log(qq),
        wij = a.w[i] * b.w[j];
      for (let k = 0; k < alphas.length; k++) {
        const alpha = alphas[k];
        pq[k] += wij * Math.exp(alpha * lp + (1 - alpha) * lq);
        qp[k] += wij * Math.exp(alpha * lq + (1 - alpha) * lp);
      }
    }
  }
  return { pq: pq.map((t, k) => Math.log(t) / (alphas[k] - 1)), qp: qp.map((t, k) => Math.log(t) / (alphas[k] - 1)) };
}

/**
 * D_α of two 2-D vector laws under independent noise per coordinate (kernels k1, k2), by the
 * same plain tensor quadrature: the oracle for vector calibrations.
 */
export function vectorRenyi2d(
  p: { points: Float64Array; masses: Float64Array },
  q: { points: Float64Array; masses: Float64Array },
  k1: Kernel,
  k2: Kernel,
  alpha: number,
): number {
  const coords = (c: number) => [...new Set([...p.points.filter((_, i) => i % 2 === c), ...q.points.filter((_, i) => i % 2 === c)])].sort((a, b) => a - b);
  const a = lightNodes(coords(0), k1.scale),
    b = lightNodes(coords(1), k2.scale);
  const dens = (m: { points: Float64Array }, k: Kernel, ys: number[], c: number) =>
    ys.map((y) => Float64Array.from({ length: m.points.length / 2 }, (_, j) => density(k, y - m.points[2 * j + c])));
  const p1 = dens(p, k1, a.y, 0),
    p2 = dens(p, k2, b.y, 1),
    q1 = dens(q, k1, a.y, 0),
    q2 = dens(q, k2, b.y, 1);
  const pm = new Float64Array(p.masses.length),
    qm = new Float64Array(q.masses.length);
  let total = 0;
  for (let i = 0; i < a.y.length; i++) {
    for (let m = 0; m < pm.length; m++) pm[m] = p.masses[m] * p1[i][m];
    for (let m = 0; m < qm.length; m++) qm[m] = q.masses[m] * q1[i][m];
    for (let j = 0; j < b.y.length; j++) {
      const [pr, qr] = [p2[j], q2[j]];
      let pp = 0,
        qq = 0;
      for (let m = 0; m < pm.length; m++) pp += pm[m] * pr[m];
      for (let m = 0; m < qm.length; m++) qq += qm[m] * qr[m];
      if (pp > 0 && qq > 0) total += a.w[i] * b.w[j] * Math.exp(alpha * Math.log(pp) + (1 - alpha) * Math.log(qq));
    }
  }
  return Math.log(total) / (alpha - 1);
}

/** Fewer 1-D nodes than `nodes1d` (cells at the atoms and 2^k scales from them, k = −6…6, out to ±60 scales). */
function lightNodes(atoms: number[], s: number): { y: number[]; w: number[] } {
  const cuts = new Set<number>(atoms);
  for (const a of atoms)
    for (let k = -6; k <= 6; k++) {
      cuts.add(a - s * 2 ** k);
      cuts.add(a + s * 2 ** k);
    }
  return cellNodes(cuts, atoms, s);
}

/** 12-point Gauss–Legendre on every cell between the cuts, out to ±60 scales beyond the atoms. */
function cellNodes(cuts: Set<number>, atoms: number[], s: number): { y: number[]; w: number[] } {
  cuts.add(atoms[0] - 60 * s);
  cuts.add(atoms[atoms.length - 1] + 60 * s);
  const ends = [...cuts].sort((a, c) => a - c);
  const gl = gaussLegendre(12);
  const y: number[] = [],
    w: number[] = [];
  for (let i = 0; i + 1 < ends.length; i++) {
    const h = (ends[i + 1] - ends[i]) / 2,
      c = (ends[i + 1] + ends[i]) / 2;
    gl.x.forEach((x, j) => {
      y.push(c + h * x);
      w.push(h * gl.w[j]);
    });
  }
  return { y, w };
}
