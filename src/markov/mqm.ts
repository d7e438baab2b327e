/**
 * Baselines for ε-Pufferfish privacy (α = ∞) on Markov chains, computed exactly as the
 * reference MATLAB code of Song, Wang, Chaudhuri (SIGMOD 2017, github shs037/pufferfish) does:
 * GroupDP, the Markov Quilt Mechanism (MQMExact from powers of P, MQMApprox from the eigengap
 * class) and GK16 (Ghosh–Kleinberg inferential privacy, binary chains). Each returns the
 * Laplace scale b for a query of Lipschitz constant L (the code's L = 1 scales times L; its
 * histogram uses L = 2). Nodes are numbered 1..T here, as in the code.
 *
 * A quilt for node i is {X_{i−a}, X_{i+b}}; a = i means no left node (the whole left side is in
 * the nearby set), b = T − i + 1 no right node, and the nearby set has card a + b − 1 either way.
 * The scale of a quilt is card/(ε − e), e its max-influence; a node takes its best quilt, and
 * the mechanism the worst node.
 */
import { InputError } from '../errors.js';
import { stationaryLaw, type MarkovModel } from './chain.js';

/** A chain of a finite class for MQMExact: its initial law (a vector, e.g. the stationary law) or every initial law. */
export interface QuiltChain {
  transition: readonly (readonly number[])[];
  initial: readonly number[] | 'any';
}

/**
 * The chains of a validated spec as MQMExact's class (a stationary start as its computed law).
 * @example mqmExact(quiltChains(validateSpec(spec)), spec.length, 1)
 */
export function quiltChains(model: MarkovModel): QuiltChain[] {
  return model.chains.map((c) => ({ transition: c.transition, initial: c.initial === 'any' ? 'any' : c.initial.law }));
}

export interface MqmExactOptions {
  lipschitz?: number;
  /**
   * 'interior' searches nodes 2..T−1 only, as k_findBest_2dir_exact*.m do; 'all' (the default)
   * every node, since the guarantee is for every X_i. 'all' is never below 'interior'; the two
   * agree on every chain of the reference tests (stationary and 'any' starts).
   */
  nodes?: 'all' | 'interior';
}

export interface MqmExactResult {
  /** The Laplace scale L·σ, σ = max over nodes of the node's best card/(ε − e). */
  scale: number;
  sigma: number;
  /** The node that needs the most noise and its best quilt (a = node: no left node; b = T − node + 1: no right node). */
  node: number;
  a: number;
  b: number;
}

function checkPositive(v: number, path: string): void {
  if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) throw new InputError(`${String(v)} is not a positive finite number`, path);
}

function checkLength(T: number): void {
  if (!Number.isSafeInteger(T) || T < 1) throw new InputError(`${String(T)} is not an integer ≥ 1`, 'length');
}

function checkLipschitz(L: number): void {
  if (typeof L !== 'number' || !(L >= 0) || !Number.isFinite(L)) throw new InputError(`${String(L)} is not a non-negative finite number`, 'lipschitz');
}

/**
 * Group differential privacy: the whole chain is one group, so the scale is L·T/ε.
 * @example groupDp(100, 1) // 100
 */
export function groupDp(length: number, epsilon: number, lipschitz = 1): number {
  checkLength(length);
  checkPositive(epsilon, 'epsilon');
  checkLipschitz(lipschitz);
  return (lipschitz * length) / epsilon;
}

type Matrix = number[][];

function multiply(A: readonly (readonly number[])[], B: readonly (readonly number[])[]): Matrix {
  return A.map((row) => B[0].map((_, j) => row.reduce((s, v, l) => s + v * B[l][j], 0)));
}

/** P^1..P^n, each as P·P^{b−1} (the order of exactRatio*Generate.m). */
function powers(P: readonly (readonly number[])[], n: number): Matrix[] {
  const out: Matrix[] = [[], P.map((r) => [...r])];
  for (let b = 2; b <= n; b++) out.push(multiply(P, out[b - 1]));
  return out;
}

/** max over j of u[j]/v[j], skipping 0/0 (MATLAB's max ignores the NaN) and giving ∞ for x/0. */
function maxRatio(u: readonly number[], v: readonly number[]): number {
  let m = Number.NaN;
  for (let j = 0; j < u.length; j++) {
    const r = u[j] / v[j];
    if (!Number.isNaN(r) && !(r <= m)) m = r;
  }
  return m;
}

function column(A: Matrix, j: number): number[] {
  return A.map((row) => row[j]);
}

/** The ordered pairs (s, t), s ≠ t, of k states. */
function orderedPairs(k: number): [number, number][] {
  const out: [number, number][] = [];
  for (let s = 0; s < k; s++) for (let t = 0; t < k; t++) if (s !== t) out.push([s, t]);
  return out;
}

/**
 * Per chain and ordered pair (s, t), the factors of the max-influence ratio
 * P(X_{i−a} = x, X_{i+b} = y | X_i = s)/P(· | X_i = t) = up(a)·prior(i)·down(b), each maximised
 * on its own (x and y range freely): down(b) = max_y P^b(s,y)/P^b(t,y),
 * up(a) = max_x P^a(x,s)/P^a(x,t), prior(i) = P(X_i = t)/P(X_i = s) for a given start, and for
 * 'any' its supremum over all starts, max_x P^{i−1}(x,t)/P^{i−1}(x,s) (exactRatioMultiGenerate.m
 * with two arguments). A prior that is NaN marks a pair with a secret of probability 0 at i:
 * Pufferfish compares secrets of positive probability only, so the pair is skipped there.
 */
interface Factors {
  down: number[][];
  up: number[][];
  prior: number[][];
}

function marginals(P: readonly (readonly number[])[], q: readonly number[], T: number): number[][] {
  const c = [[...q]];
  for (let i = 2; i <= T; i++) c.push(multiply([c[i - 2]], P)[0]);
  return c; // c[i − 1] is the law of X_i (computeProbability.m)
}

function factors(chain: QuiltChain, T: number): Factors {
  const k = chain.transition.length;
  const pw = powers(chain.transition, Math.max(T - 1, 1));
  const pairs = orderedPairs(k);
  const down = pairs.map(([s, t]) => [Number.NaN, ...pw.slice(1, T).map((M) => maxRatio(M[s], M[t]))]);
  const up = pairs.map(([s, t]) => [Number.NaN, ...pw.slice(1, T).map((M) => maxRatio(column(M, s), column(M, t)))]);
  const prior = pairs.map(([s, t]) => priorRatios(chain, pw, T, s, t));
  return { down, up, prior };
}

function priorRatios(chain: QuiltChain, pw: Matrix[], T: number, s: number, t: number): number[] {
  const out = [Number.NaN]; // index 0 unused: nodes are 1..T
  if (chain.initial === 'any') {
    // At node 1 the prior ratio is unbounded over starts; no quilt of node 1 has a left node to use it.
    for (let i = 1; i <= T; i++) out.push(i === 1 ? Number.POSITIVE_INFINITY : maxRatio(column(pw[i - 1], t), column(pw[i - 1], s)));
    return out;
  }
  const c = marginals(chain.transition, chain.initial, T);
  for (let i = 1; i <= T; i++) out.push(c[i - 1][s] > 0 && c[i - 1][t] > 0 ? c[i - 1][t] / c[i - 1][s] : Number.NaN);
  return out;
}

/** e^{max-influence} of quilt (a, b) at node i over the class: the largest ratio over chains and pairs (1 for no quilt node at all). */
function influence(all: readonly Factors[], i: number, a: number, b: number, T: number): number {
  let worst = 1; // a pair s = s contributes 1 (k_findBest_2dir_exact_multi.m starts its max there)
  for (const f of all) {
    for (let j = 0; j < f.down.length; j++) {
      if (Number.isNaN(f.prior[j][i])) continue;
      const d = b <= T - i ? f.down[j][b] : 1;
      const u = a < i ? f.up[j][a] * f.prior[j][i] : 1;
      const r = d * u;
      if (r > worst) worst = r;
    }
  }
  return worst;
}

interface Best {
  noise: number;
  a: number;
  b: number;
}

/**
 * Node i's smallest card/(ε − e) over all quilts, searched by increasing card: since e ≥ 0 a
 * quilt of card n needs at least n/ε, so the search stops once n/ε exceeds the best so far
 * (the same minimum as the reference's full search, in time O((σε)²) per node).
 */
function bestQuilt(all: readonly Factors[], i: number, T: number, epsilon: number): Best {
  let best: Best = { noise: Number.POSITIVE_INFINITY, a: i, b: T - i + 1 };
  for (let card = 1; card <= T && card / epsilon <= best.noise; card++) {
    for (let a = Math.max(1, card + i - T); a <= Math.min(i, card); a++) {
      const b = card + 1 - a;
      const lambda = epsilon - Math.log(influence(all, i, a, b, T));
      if (!(lambda >= 0)) continue;
      const noise = card / lambda;
      if (noise < best.noise || (noise === best.noise && (a < best.a || (a === best.a && b < best.b)))) best = { noise, a, b };
    }
  }
  return best;
}

/**
 * MQMExact for a finite class of chains: the max-influence of each quilt is the largest over
 * the chains (and the ordered state pairs) of the exact ratios from the powers of P; as
 * k_findBest_2dir_exact.m (binary, given start) and k_findBest_2dir_exact_multi.m ('any').
 * @example mqmExact([{ transition: [[0.8, 0.2], [0.3, 0.7]], initial: [0.6, 0.4] }], 100, 1).scale // 10.1200…
 */
export function mqmExact(chains: readonly QuiltChain[], length: number, epsilon: number, options: MqmExactOptions = {}): MqmExactResult {
  checkLength(length);
  checkPositive(epsilon, 'epsilon');
  const L = options.lipschitz ?? 1;
  checkLipschitz(L);
  if (chains.length === 0) throw new InputError('needs at least one chain', 'chains');
  const T = length;
  const all = chains.map((c) => factors(c, T));
  const interior = options.nodes === 'interior' && T >= 3; // the reference would return −1 for T ≤ 2
  let worst: Best & { node: number } = { noise: -1, a: 0, b: 0, node: 0 };
  for (let i = interior ? 2 : 1; i <= (interior ? T - 1 : T); i++) {
    const best = bestQuilt(all, i, T, epsilon);
    if (best.noise > worst.noise) worst = { ...best, node: i };
  }
  return { scale: L * worst.noise, sigma: worst.noise, node: worst.node, a: worst.a, b: worst.b };
}

/** The eigengap class of MQMApprox: chains with eigengap ≥ gap and stationary π_min ≥ piMin. */
export interface EigengapClass {
  gap: number;
  piMin: number;
}

/** log((1 + Δ)/(1 − Δ)) with Δ = e^{−g t}/π_min, NaN when Δ ≥ 1 (no bound from t steps). */
function approxDelta(cls: EigengapClass, t: number): number {
  const D = (1 / cls.piMin) * Math.exp(-cls.gap * t);
  return D >= 1 ? Number.NaN : Math.log((1 + D) / (1 - D));
}

/** Node i's noises over (a, b) in the reference's column-major order; the first minimum wins, NaN skipped. */
function approxNode(cls: EigengapClass, i: number, T: number, epsilon: number): Best {
  let best: Best = { noise: Number.NaN, a: 0, b: 0 };
  for (let a = 1; a <= i; a++) {
    const da = a < i ? approxDelta(cls, a) : 0;
    for (let b = 1; b <= T - i + 1; b++) {
      const db = b <= T - i ? approxDelta(cls, b) : 0;
      let lambda = epsilon - (2 * da + db);
      if (lambda < 0) lambda = Number.NaN;
      const noise = (a + b - 1) / lambda;
      if (!Number.isNaN(noise) && (Number.isNaN(best.noise) || noise < best.noise)) best = { noise, a, b };
    }
  }
  return best;
}

/**
 * MQMApprox on the eigengap class, as k_findBest_2dir.m: upstream influence 2·log((1+Δ(a))/(1−Δ(a))),
 * downstream log((1+Δ(b))/(1−Δ(b))); the search starts at node ⌊T/2⌋ and walks towards the side
 * whose quilt reached the end of the chain, stopping when a node's best quilt has nodes on both
 * sides (or on neither, or the walk turns back); the scale is the worst node visited.
 * @example mqmApprox({ gap: 0.5, piMin: 0.4 }, 100, 1).toFixed(2) // '20.07' (q = 0.2, p = 0.7)
 */
export function mqmApprox(cls: EigengapClass, length: number, epsilon: number, lipschitz = 1): number {
  checkPositive(cls.gap, 'eigengap.gap');
  checkPositive(cls.piMin, 'eigengap.piMin');
  checkLength(length);
  checkPositive(epsilon, 'epsilon');
  checkLipschitz(lipschitz);
  const T = length;
  if (T === 1) return lipschitz / epsilon; // one node, no quilt: the reference's search would start at node 0
  let worst = -1;
  let status = '';
  let i = Math.floor(T / 2);
  while (i >= 1 && i <= T) {
    const best = approxNode(cls, i, T, epsilon);
    if (best.noise > worst) worst = best.noise;
    if (best.b === T - i + 1 && best.a === i) break;
    if (best.b <= T - i && best.a <= i - 1) break;
    if (best.a === i) {
      if (status === 'no right') break;
      status = 'no left';
      i++;
    } else {
      if (status === 'no left') break;
      status = 'no right';
      i--;
    }
  }
  return lipschitz * worst;
}

/** GK16's result: a Laplace scale, or why the method does not apply. */
export type Gk16Result = { scale: number } | { notApplicable: string };

/** γ of inferentialPrivacy_cal_gamma.m, with its arguments (p, q) = (P(1|1), P(1|0)). */
function gk16Gamma(p: number, q: number): number {
  const f1 = (p ** 2 + p * (1 - q)) / (p ** 2 + q * (1 - p));
  const f2 = ((p / q) * ((1 - q) ** 2 + q * (1 - p))) / ((1 - p) * (1 - q) + p * (1 - p));
  const f3 = (((1 - p) / (1 - q)) * ((1 - q) * q + q * p)) / ((1 - p) * q + p ** 2);
  const f4 = ((1 - q) ** 2 + p * (1 - q)) / ((1 - q) ** 2 + q * (1 - p));
  const fs = [f1, f2, f3, f4];
  const m = Math.max(...[...fs, ...fs.map((f) => 1 / f)].filter((f) => !Number.isNaN(f)));
  return Math.log(m) / 2;
}

/** max_i of the row sums of (I − Γ)^{−1}, Γ tridiagonal with γ off the diagonal: the solve of (I − Γ)x = 1 (Thomas; I − Γ is positive definite here). */
function maxRowSum(gamma: number, T: number): number {
  const c = new Array<number>(T).fill(0);
  const d = new Array<number>(T).fill(0);
  for (let j = 0; j < T; j++) {
    const denom = 1 - (j > 0 ? -gamma * c[j - 1] : 0);
    c[j] = -gamma / denom;
    d[j] = (1 + (j > 0 ? gamma * d[j - 1] : 0)) / denom;
  }
  const x = new Array<number>(T).fill(0);
  for (let j = T - 1; j >= 0; j--) x[j] = d[j] - (j < T - 1 ? c[j] * x[j + 1] : 0);
  return Math.max(...x);
}

/**
 * GK16 ('paper exact' of inferentialPrivacy2.m, as run_synthetic.m runs it): for the binary chain
 * [[1−q, q], [1−p, p]], DP at ε' = ε / max_i 2·Σ_j[(I − Γ)^{−1}]_ij and scale L/ε'. Not
 * applicable to other chains, nor when ‖Γ‖₂ = 2γ·cos(π/(T+1)) ≥ 1 (the code checks this only
 * for γ > 1/2, where alone it can happen).
 * @example gk16([[0.8, 0.2], [0.3, 0.7]], 100, 1) // { notApplicable: … }; gk16([[0.9, 0.1], [0.8, 0.2]], 100, 1) // { scale: 6.7669… }
 */
export function gk16(transition: readonly (readonly number[])[], length: number, epsilon: number, lipschitz = 1): Gk16Result {
  checkLength(length);
  checkPositive(epsilon, 'epsilon');
  checkLipschitz(lipschitz);
  if (transition.length !== 2) return { notApplicable: `GK16 handles binary chains only; this one has ${transition.length} states` };
  const q = transition[0][1];
  const p = transition[1][1];
  const gamma = gk16Gamma(p, q);
  const T = length;
  const norm = T > 1 ? 2 * gamma * Math.cos(Math.PI / (T + 1)) : 0;
  if (!(norm < 1)) return { notApplicable: `‖Γ‖₂ = ${norm} ≥ 1 (γ = ${gamma}, T = ${T}): the inferential-privacy bound does not converge` };
  const dpEpsilon = Math.max(0, epsilon / (2 * maxRowSum(gamma, T)));
  if (!(dpEpsilon > 0)) return { notApplicable: 'the DP budget ε′ is 0' };
  return { scale: lipschitz / dpEpsilon };
}

function matrixPower(P: readonly (readonly number[])[], n: number): Matrix {
  let result: Matrix = P.map((r) => [...r]);
  let base: Matrix = result;
  let e = n - 1;
  while (e > 0) {
    if (e & 1) result = multiply(result, base);
    e >>= 1;
    if (e > 0) base = multiply(base, base);
  }
  return result;
}

/**
 * The first row of P^100 (by repeated squaring, as MATLAB's mpower): the approximate stationary
 * law run_synthetic.m starts MQMExact from and both scripts take π_min from. It is off by about
 * |λ₂|^100 (2·10⁻¹⁰ relative for q = 0.1, p = 0.9); pass it as `initial` to mirror the code to the last digits.
 * @example referenceStationary([[0.8, 0.2], [0.3, 0.7]]) // [0.6000000000000029, 0.4000000000000018]
 */
export function referenceStationary(transition: readonly (readonly number[])[]): number[] {
  return matrixPower(transition, 100)[0];
}

/** Eigenvalues of a symmetric matrix (cyclic Jacobi rotations; accurate to a few u·‖S‖). */
function symmetricEigenvalues(S: Matrix): number[] {
  const A = S.map((r) => [...r]);
  const n = A.length;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += A[p][q] ** 2;
    if (off < 1e-40) break;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) rotate(A, p, q);
  }
  return A.map((r, i) => r[i]);
}

function rotate(A: Matrix, p: number, q: number): void {
  if (A[p][q] === 0) return;
  const theta = (A[q][q] - A[p][p]) / (2 * A[p][q]);
  const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
  const c = 1 / Math.sqrt(t * t + 1);
  const s = t * c;
  for (let k = 0; k < A.length; k++) {
    const akp = A[k][p];
    const akq = A[k][q];
    A[k][p] = c * akp - s * akq;
    A[k][q] = s * akp + c * akq;
  }
  for (let k = 0; k < A.length; k++) {
    const apk = A[p][k];
    const aqk = A[q][k];
    A[p][k] = c * apk - s * aqk;
    A[q][k] = s * apk + c * aqk;
  }
}

/** The second largest |eigenvalue| of P·P* (P* the time reversal under pi): P·P* = G·diag(pi) with G symmetric. */
function secondEigenvalueOfReversal(P: readonly (readonly number[])[], pi: readonly number[]): number {
  const k = P.length;
  const G = P.map((ri) => P.map((rl) => ri.reduce((s, v, j) => s + (v * rl[j]) / pi[j], 0)));
  const S = G.map((row, i) => row.map((g, l) => Math.sqrt(pi[i]) * g * Math.sqrt(pi[l])));
  const ev = symmetricEigenvalues(S)
    .map(Math.abs)
    .sort((x, y) => y - x);
  return k > 1 ? ev[1] : 0;
}

/**
 * The eigengap class of one chain as the reference scripts compute it. 'binary' (run_synthetic.m,
 * 2 states): gap = 1 − |λ₂(P)|. 'multi' (run_realData.m): gap = (1 − |λ₂(P·P*)|)/2, with P* the
 * reversal under the first row of P^4096. Both take piMin = min of the first row of P^100 (an
 * approximate stationary law, off by |λ₂|^100 for a slowly mixing chain); here the exact
 * stationary law's minimum is taken where it is smaller.
 * @example eigengapOf([[0.8, 0.2], [0.3, 0.7]], 'binary') // { gap: 0.5, piMin: 0.4 } (to rounding)
 */
export function eigengapOf(transition: readonly (readonly number[])[], convention: 'binary' | 'multi'): EigengapClass {
  const k = transition.length;
  // The scripts' π_min (P^100's first row) overstates a slowly mixing chain's rare state, and a larger
  // π_min means too little noise: the smaller of it and the exact stationary law's is taken.
  const piMin = Math.min(...referenceStationary(transition), ...stationaryLaw(transition, 'transition').law);
  if (convention === 'binary') {
    if (k !== 2) throw new InputError(`the 'binary' eigengap convention needs 2 states, not ${k}`, 'transition');
    return withGap(1 - Math.abs(transition[0][0] + transition[1][1] - 1), piMin);
  }
  const pi = matrixPower(transition, 4096)[0];
  // A periodic chain's powers do not converge (a 3-cycle's P^4096 is P): the reversal is undefined.
  if (!pi.every((v) => v > 0))
    throw new InputError(
      "the chain is periodic or has a transient state (P^4096's first row, the reference's stationary law, has a 0), so it has no time reversal; MQMApprox needs an aperiodic irreducible chain",
      'transition',
    );
  return withGap((1 - secondEigenvalueOfReversal(transition, pi)) / 2, piMin);
}

/** The class, refused where its gap is 0: a chain that never forgets its start (periodic or reducible) has no eigengap bound. */
function withGap(gap: number, piMin: number): EigengapClass {
  if (!(gap > 0))
    throw new InputError(
      `the eigengap is ${gap === 0 ? '0' : String(gap)} (|λ₂| = 1: the chain is periodic or reducible, so it never forgets its start); MQMApprox needs an aperiodic irreducible chain`,
      'transition',
    );
  return { gap, piMin };
}

/**
 * run_realData.m's chain length for both MQM searches ("max range to search for Markov Quilt"):
 * l = 8·⌈log((e^{ε/6} + 1)/(e^{ε/6} − 1)/π_min)/(2·gap)⌉. The script runs MQMApprox and MQMExact
 * on a chain of this length, not on the data's length.
 * @example referenceSearchLength(1, 0.375, 0.4) // 40
 */
export function referenceSearchLength(epsilon: number, gap: number, piMin: number): number {
  const r = (Math.exp(epsilon / 6) + 1) / (Math.exp(epsilon / 6) - 1);
  return 2 * 2 * 2 * Math.ceil(Math.log(r / piMin) / (2 * gap));
}
