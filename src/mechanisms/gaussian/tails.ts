import type { Domain, DomainInput, Integrand, PowerIntegrand } from '../../divergence/kernel.js';
import { logAddExp, U, type Mixture } from '../../divergence/mixture.js';

/** log of the Mills-ratio bound Φ(−z) ≤ φ(z)/z, z > 0. */
export const logMills = (z: number) => -0.5 * z * z - Math.log(z * Math.sqrt(2 * Math.PI));

/**
 * Integration stops at cut-offs at least 8.8σ beyond the atoms and beyond the centres
 * αx + (1−α)x′ of the end atoms; the rest is bounded in closed form (docs/math.md §4): on the left
 * tail p ≤ φ(y−x₀) and q ≥ v₀φ(y−x′₀), φ^αφ^{1−α} is a shifted Gaussian, then Mills' ratio; for
 * α < 1, p^α q^{1−α} ≤ αp + (1−α)q.
 */
export function gaussianDomain(f: Integrand, { z0, zN, LO, HI, scale: s, extraNats }: Omit<DomainInput, 'atEnds'>): Domain {
  const shifted = f.tail.mode === 'shifted';
  const muL = f.tail.mode === 'shifted' ? f.tail.muL : z0;
  const muR = f.tail.mode === 'shifted' ? f.tail.muR : zN;
  const shiftL = f.tail.mode === 'shifted' ? f.tail.shiftL : f.tail.logC;
  const shiftR = f.tail.mode === 'shifted' ? f.tail.shiftR : f.tail.logC;
  const zstar = Math.sqrt(2 * (39 + Math.max(0, shiftL, shiftR) + extraNats));
  const cutL = Math.min(z0, muL) - zstar * s,
    cutR = Math.max(zN, muR) + zstar * s;
  // An interval lying wholly in a tail keeps zstar·σ of itself (the integrand peaks at its near end).
  const lo = Math.max(LO, Math.min(cutL, HI - zstar * s));
  const hi = Math.min(HI, Math.max(cutR, LO + zstar * s));
  // Tails are bounded only where a cut-off (not the interval) ends the domain; there lo ≤ min(x₀, μ_L).
  const zL = ((shifted ? muL : z0) - lo) / s,
    zR = (hi - (shifted ? muR : zN)) / s;
  const left = LO < lo ? shiftL + logMills(zL) : -Infinity;
  const right = HI > hi ? shiftR + logMills(zR) : -Infinity;
  // The bounding density e^{shift}·φ(z)/σ at each cut-off.
  const edgeL = LO < lo ? shiftL - 0.5 * zL * zL - Math.log(s * Math.sqrt(2 * Math.PI)) : -Infinity;
  const edgeR = HI > hi ? shiftR - 0.5 * zR * zR - Math.log(s * Math.sqrt(2 * Math.PI)) : -Infinity;
  // The bound's own rounding: a relative 1e-9 on a quantity charged in full anyway.
  return {
    lo,
    hi,
    breaks: [lo, hi, muL, muR],
    tails: { logValue: -Infinity, logBound: logAddExp(left, right) + 1e-9, logRound: -Infinity, logEdge: logAddExp(edgeL, edgeR) + 1e-9 },
  };
}

/** Level-0 panels a one-pass rule may lay: 64 per atom, plus 65 536 (beyond, atoms lie hundreds of σ apart). */
const PANELS_PER_ATOM = 64;

/**
 * What the whole-line Gaussian rules share (or, with `interval`, the rules over it): each integrand's domain (with its own tails), the union
 * [lo, hi] they cover, its natural unit σ/√α′ (α′ = max(1, α − ½): the width of the integrand's
 * peak), each integrand's powers in the order [P, Q] (typed, so integer and fractional α compile to
 * one shape), the most panels a rule may lay, and how far a computed grid point lo + j·h may sit
 * from the real one (4u(|y| + |lo| + |j|·h)).
 */
export function gaussianWholeLine(fs: PowerIntegrand[], P: Mixture, Q: Mixture, sigma: number, extraNats: number, interval?: readonly [number, number]) {
  const z0 = Math.min(P.x[0], Q.x[0]),
    zN = Math.max(P.x[P.x.length - 1], Q.x[Q.x.length - 1]);
  // Built by push, not map: an array from map may come out packed or holey by how map ran, and the
  // rules' hot loops deoptimised on every such change of map (about a hundred times in one calibration).
  const doms: ReturnType<typeof gaussianDomain>[] = [];
  const powers: Float64Array[] = [];
  for (const f of fs) {
    doms.push(gaussianDomain(f, { z0, zN, LO: interval?.[0] ?? -Infinity, HI: interval?.[1] ?? Infinity, scale: sigma, extraNats }));
    powers.push(f.mixtures[0] === P ? Float64Array.of(f.powers[0], f.powers[1]) : Float64Array.of(f.powers[1], f.powers[0]));
  }
  let lo = Infinity,
    hi = -Infinity;
  for (const d of doms) {
    lo = Math.min(lo, d.lo);
    hi = Math.max(hi, d.hi);
  }
  const sharp = Math.max(1, ...fs.map((f) => f.sensitivity / 2));
  return {
    doms,
    lo,
    hi,
    unit: sigma / Math.sqrt(sharp),
    powers,
    maxPanels: PANELS_PER_ATOM * (P.x.length + Q.x.length) + 65536,
    pointErr: (y: number, j: number, h: number) => 4 * U * (Math.abs(y) + Math.abs(lo) + Math.abs(j) * h),
  };
}
