import { NumericalError } from '../errors.js';
import { EPS } from './float.js';

export interface BrentOptions {
  /** Absolute tolerance on the bracket width. Default 0 (purely relative). */
  xtol?: number;
  /** Relative tolerance on the bracket width. Default 4·2^-52, SciPy's floor. */
  rtol?: number;
  /** Iteration cap; exceeding it throws rather than returning an uncertified point. */
  maxIter?: number;
}

export interface Bracket {
  /** Final bracket ends: f(infeasible) > 0 ≥ f(feasible). */
  infeasible: number;
  feasible: number;
  iterations: number;
}

/**
 * Brent's method (Brent 1973, as in SciPy's `brentq`) for a sign change of `f` on [a, b],
 * with f(a) > 0 ≥ f(b) or f(a) ≤ 0 < f(b). Unlike `brentq`, it returns both ends of the
 * final bracket labelled by sign, so a caller that needs `f ≤ 0` (a privacy condition) takes
 * the feasible end instead of a best guess that may sit on the wrong side of the root.
 *
 * Failure modes: throws `NumericalError` if the ends do not bracket a sign change, if `f`
 * returns NaN, or after `maxIter` iterations.
 */
export function brentBracket(f: (x: number) => number, a: number, b: number, opts: BrentOptions = {}): Bracket {
  const xtol = opts.xtol ?? 0;
  const rtol = opts.rtol ?? 4 * EPS;
  const maxIter = opts.maxIter ?? 200;
  let xpre = a,
    xcur = b;
  let fpre = f(xpre),
    fcur = f(xcur);
  if (Number.isNaN(fpre) || Number.isNaN(fcur)) throw new NumericalError('brent: NaN at a bracket end');
  if (fpre > 0 === fcur > 0) throw new NumericalError(`brent: [${a}, ${b}] does not bracket a sign change`);
  let xblk = xpre,
    fblk = fpre,
    spre = 0,
    scur = 0;
  for (let i = 1; i <= maxIter; i++) {
    if (fpre > 0 !== fcur > 0) {
      xblk = xpre;
      fblk = fpre;
      spre = scur = xcur - xpre;
    }
    if (Math.abs(fblk) < Math.abs(fcur)) {
      xpre = xcur;
      xcur = xblk;
      xblk = xpre;
      fpre = fcur;
      fcur = fblk;
      fblk = fpre;
    }
    const delta = (xtol + rtol * Math.abs(xcur)) / 2;
    const sbis = (xblk - xcur) / 2;
    if (fcur === 0 || Math.abs(sbis) < delta) {
      return fcur > 0 ? { infeasible: xcur, feasible: xblk, iterations: i } : { infeasible: xblk, feasible: xcur, iterations: i };
    }
    if (Math.abs(spre) > delta && Math.abs(fcur) < Math.abs(fpre)) {
      let stry: number;
      if (xpre === xblk) {
        stry = (-fcur * (xcur - xpre)) / (fcur - fpre); // secant
      } else {
        const dpre = (fpre - fcur) / (xpre - xcur);
        const dblk = (fblk - fcur) / (xblk - xcur);
        stry = (-fcur * (fblk * dblk - fpre * dpre)) / (dblk * dpre * (fblk - fpre)); // inverse quadratic
      }
      if (2 * Math.abs(stry) < Math.min(Math.abs(spre), 3 * Math.abs(sbis) - delta)) {
        spre = scur;
        scur = stry;
      } else {
        spre = sbis;
        scur = sbis;
      }
    } else {
      spre = sbis;
      scur = sbis;
    }
    xpre = xcur;
    fpre = fcur;
    xcur += Math.abs(scur) > delta ? scur : sbis > 0 ? delta : -delta;
    fcur = f(xcur);
    if (Number.isNaN(fcur)) throw new NumericalError(`brent: NaN at x = ${xcur}`);
  }
  throw new NumericalError(`brent: no convergence in ${maxIter} iterations`);
}
