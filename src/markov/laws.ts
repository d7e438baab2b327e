/**
 * The exact secret-conditional laws of an additive query F = Σ_t f(X_t) on a Markov chain: for
 * each time i and state a, the law of F given X_i = a.
 *
 * f takes values on an integer grid (the count of a state, a sum of per-state values on their
 * common decimal grid, or the histogram coded as one integer), so F's law is a finite list of
 * masses. With α_i(x, c) = P(X_i = x, Σ_{s≤i} f(X_s) = c) and
 * β_i(x, c) = P(Σ_{s>i} f(X_s) = c | X_i = x), the joint law is the convolution
 * P(X_i = a, F = c) = Σ_{c₁} α_i(a, c₁)·β_i(a, c − c₁); α is swept forward once, β is tabled
 * backward once, and each (i, a) costs one convolution.
 *
 * Error bound. Every term is non-negative, so each computed number is its exact value times a
 * product of rounding factors (1+δ), |δ| ≤ u = 2^−53, each within [(1−u), (1−u)^−1]. We count
 * r, the most factors on any path into a mass: one forward or backward step adds k + 1 (a
 * product, k − 1 additions, and the dropping of terms below 2^−998 of their sum, which moves it
 * by less than one rounding); the convolution adds at most its number of non-zero terms;
 * normalising by the total P(X_i = a) doubles r and adds the n − 1 additions of the total and
 * the division. So each mass is its exact value times (1+θ), |θ| ≤ (1−u)^−r − 1 ≤ r·u/(1 − r·u)
 * = `relativeError`. The exact value is that of the chain with the transition and initial law
 * as given (their double values, read as exact reals), normalised by its own P(X_i = a), so
 * rows summing to 1 only within 1e-12 still define a law. Numbers are kept as m·2^e
 * (./extended.ts), so nothing underflows: `logMasses` are always covered; a double in
 * `masses` below 2^−1022 is not (`underflow` counts them).
 */
import { InputError } from '../errors.js';
import { ratioToNumber, toDecimal } from '../numerics/float.js';
import type { InitialLaw, MarkovModel, StepQuery } from './chain.js';
import { DROP_GAP, type ExtArray, addExt, extArray, POW2, POW2_OFFSET, setExt, toDouble, toLog, ZERO_EXPONENT } from './extended.js';

/** u, the unit roundoff of doubles (round to nearest). */
const UNIT_ROUNDOFF = 2 ** -53;

/** The chain and query as the sweeps read them: each state adds `shifts[x]` (≥ 0) to F's integer code. */
export interface StepModel {
  transition: readonly (readonly number[])[];
  length: number;
  shifts: readonly number[];
  kind: 'scalar' | 'vector';
  /** The value of F for a code (scalar queries). */
  value: (code: number) => number;
  /** The state histogram for a code (histogram queries). */
  vector: (code: number) => number[];
}

interface LawCore {
  /** 0-based time i and state index a of the secret X_i = a. */
  time: number;
  state: number;
  /** P(F = atom | X_i = a), atoms with positive mass only. */
  masses: Float64Array;
  logMasses: Float64Array;
  /** P(X_i = a) and its log, as computed (same error bound with half the roundings). */
  probability: number;
  logProbability: number;
  /** r above: every mass is exact·(1+θ), |θ| ≤ (1−u)^−r − 1. */
  roundings: number;
  relativeError: number;
  /** A bound on |logMasses[j] − log(exact mass)|: the relative error plus the rounding of the log itself. */
  logError: number;
  /** How many masses are below 2^−1022, where the double in `masses` lost accuracy (use `logMasses`). */
  underflow: number;
}

export interface FiniteSecretLaw extends LawCore {
  kind: 'scalar';
  /** The atoms of F, increasing. */
  values: Float64Array;
}

interface PointSecretLaw extends LawCore {
  kind: 'vector';
  /** The atoms of F (histograms, one count per state), in lexicographic order. */
  vectors: number[][];
}

export type SecretLaw = FiniteSecretLaw | PointSecretLaw;

export interface LawOptions {
  /** The times i to compute (0-based); all of 0..T−1 when absent. */
  times?: readonly number[];
  /** Refuse problems whose backward table would hold more entries than this (12 bytes each). */
  maxTableEntries?: number;
  /** Field path for errors about the size of the problem. */
  path?: string;
}

const DEFAULT_MAX_TABLE = 4e7;

// Local copies of the imported constants: bundlers and test runners may turn imports into
// property reads, which the inner loops below would pay for on every term.
const POW2_TABLE = POW2;
const POW2_AT = POW2_OFFSET;
const DROP = DROP_GAP;

/** Exponents of a block are within this of each other, so products of scaled mantissas stay ≥ 2^−960. */
const BLOCK_SPREAD = 480;

/**
 * γ(r) = r·u/(1 − r·u): the relative error after r rounding factors (Higham's γ_r; ≥ (1−u)^−r − 1).
 * @example gamma(1000) // 1.11e-13
 */
function gamma(r: number): number {
  const ru = r * UNIT_ROUNDOFF;
  return ru < 1 ? ru / (1 - ru) : Infinity;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

/** (num · 10^scale) as the double nearest it (within ~1 ulp), for a signed BigInt num. */
function decimalToNumber(num: bigint, scale: number): number {
  if (scale >= 0) return Number(num * 10n ** BigInt(scale));
  const v = ratioToNumber(num < 0n ? -num : num, 10n ** BigInt(-scale));
  return num < 0n ? -v : v;
}

/**
 * The per-state values of a sum query on their common grid: each value is read as the decimal it
 * prints as (0.1 is 1/10, as elsewhere in the toolkit), so values = lo + g·shift exactly for
 * integers shift ≥ 0, and F = T·lo + g·code. Atoms are the doubles nearest those decimals.
 * @example sumGrid([0, 0.5, 1.25], 2).shifts // [0, 2, 5]; value(7) = 1.75
 */
export function sumGrid(values: readonly number[], length: number): { shifts: number[]; value: (code: number) => number } {
  const decimals = values.map(toDecimal);
  const scale = Math.min(...decimals.map((d) => d.exponent));
  const ints = decimals.map((d) => d.digits * 10n ** BigInt(d.exponent - scale));
  let lo = ints[0];
  for (const v of ints) if (v < lo) lo = v; // BigInts: Math.min does not take them
  const g = ints.reduce((acc, v) => gcd(acc, v - lo), 0n) || 1n;
  const shifts = ints.map((v) => Number((v - lo) / g));
  const base = BigInt(length) * lo;
  return { shifts, value: (code) => decimalToNumber(base + g * BigInt(code), scale) };
}

/**
 * The model the sweeps read, for one chain's transition matrix, the chain length and the query.
 * @example stepModel([[0.8, 0.2], [0.3, 0.7]], 100, { kind: 'count', state: 1 }).shifts // [0, 1]
 */
export function stepModel(transition: readonly (readonly number[])[], length: number, query: StepQuery): StepModel {
  const k = transition.length;
  const base = { transition, length, vector: (): number[] => [], value: (c: number) => c };
  if (query.kind === 'count') return { ...base, kind: 'scalar', shifts: transition.map((_, x) => (x === query.state ? 1 : 0)) };
  if (query.kind === 'sum') return { ...base, kind: 'scalar', ...sumGrid(query.values, length) };
  const radix = length + 1; // a count is at most T, so codes add digit by digit without carries
  const shifts = transition.map((_, x) => radix ** (k - 1 - x));
  const vector = (code: number) => shifts.map((s) => Math.floor(code / s) % radix);
  return { ...base, kind: 'vector', shifts, vector };
}

/** The transition matrix as extended numbers, row-major. */
function weights(P: readonly (readonly number[])[]): ExtArray {
  const k = P.length;
  const w = extArray(k * k);
  for (let x = 0; x < k; x++) for (let y = 0; y < k; y++) setExt(w, x * k + y, P[x][y], 0);
  return w;
}

function widthOf(model: StepModel): number {
  return Math.max(...model.shifts);
}

/**
 * One forward (α_t → α_{t+1}: out(y, c) = Σ_x prev(x, c − s(y))·P(x, y)) or backward
 * (β_{t+1} → β_t: out(x, c) = Σ_y P(x, y)·prev(y, c − s(y))) step. Each sum is taken relative
 * to its largest term's exponent, found in a first pass, so the scaled terms never underflow.
 */
function combine(prev: ExtArray, len: number, w: ExtArray, shifts: readonly number[], forward: boolean): ExtArray {
  const k = shifts.length;
  const outLen = len + Math.max(...shifts);
  const out = extArray(k * outLen);
  const top = new Int32Array(outLen);
  const sum = new Float64Array(outLen);
  for (let o = 0; o < k; o++) {
    top.fill(2 * ZERO_EXPONENT);
    sum.fill(0);
    for (let j = 0; j < k; j++) {
      const wi = forward ? j * k + o : o * k + j;
      if (w.m[wi] === 0) continue;
      const sh = shifts[forward ? o : j];
      maxPass(prev, j * len, len, w.e[wi], top, sh);
    }
    for (let j = 0; j < k; j++) {
      const wi = forward ? j * k + o : o * k + j;
      if (w.m[wi] === 0) continue;
      sumPass(prev, j * len, len, w.m[wi], w.e[wi], top, sum, shifts[forward ? o : j]);
    }
    for (let c = 0; c < outLen; c++) if (sum[c] > 0) setExt(out, o * outLen + c, sum[c], top[c]);
  }
  return out;
}

function maxPass(prev: ExtArray, base: number, len: number, we: number, top: Int32Array, sh: number): void {
  const e = prev.e;
  for (let c = 0; c < len; c++) {
    const t = e[base + c] + we;
    if (t > top[c + sh]) top[c + sh] = t;
  }
}

function sumPass(prev: ExtArray, base: number, len: number, wm: number, we: number, top: Int32Array, sum: Float64Array, sh: number): void {
  const { m, e } = prev;
  for (let c = 0; c < len; c++) {
    const d = e[base + c] + we - top[c + sh];
    if (d >= -DROP) sum[c + sh] += m[base + c] * wm * POW2_TABLE[d + POW2_AT];
  }
}

/** β_t for t = 0..T−1; β_t has (T−1−t)·W + 1 codes per state, W the largest shift. */
function backwardTables(model: StepModel, w: ExtArray): ExtArray[] {
  const { length: T, shifts } = model;
  const k = shifts.length;
  const betas = new Array<ExtArray>(T);
  betas[T - 1] = extArray(k);
  for (let x = 0; x < k; x++) setExt(betas[T - 1], x, 1, 0);
  for (let t = T - 2; t >= 0; t--) betas[t] = combine(betas[t + 1], (T - 2 - t) * widthOf(model) + 1, w, shifts, false);
  return betas;
}

/** α_0(x, s(x)) = q(x). */
function firstForward(model: StepModel, q: readonly number[]): ExtArray {
  const W = widthOf(model);
  const k = q.length;
  const alpha = extArray(k * (W + 1));
  for (let x = 0; x < k; x++) setExt(alpha, x * (W + 1) + model.shifts[x], q[x], 0);
  return alpha;
}

function view(x: ExtArray, start: number, n: number): ExtArray {
  return { m: x.m.subarray(start, start + n), e: x.e.subarray(start, start + n) };
}

function nonZeros(x: ExtArray): number {
  let n = 0;
  for (let j = 0; j < x.m.length; j++) if (x.m[j] !== 0) n++;
  return n;
}

interface Block {
  start: number;
  end: number;
  exponent: number;
}

/** Splits x into runs whose non-zero exponents span at most BLOCK_SPREAD; returns them and x scaled per run. */
function blocks(x: ExtArray): { list: Block[]; scaled: Float64Array } {
  const list: Block[] = [];
  let start = 0;
  let lo = Infinity;
  let hi = -Infinity;
  const n = x.m.length;
  for (let c = 0; c < n; c++) {
    if (x.m[c] === 0) continue;
    const e = x.e[c];
    if (Math.max(hi, e) - Math.min(lo, e) > BLOCK_SPREAD) {
      list.push({ start, end: c, exponent: hi });
      start = c;
      lo = e;
      hi = e;
    } else {
      lo = Math.min(lo, e);
      hi = Math.max(hi, e);
    }
  }
  if (hi > -Infinity) list.push({ start, end: n, exponent: hi });
  const scaled = new Float64Array(n);
  for (const b of list) for (let c = b.start; c < b.end; c++) if (x.m[c] !== 0) scaled[c] = x.m[c] * POW2_TABLE[x.e[c] - b.exponent + POW2_AT];
  return { list, scaled };
}

/**
 * out = A ∗ B for dense A, B: block by block, each block pair a plain double convolution (its
 * products ≥ 2^−960, so exact scaling and no underflow), each output's partial sum added once
 * into out. Output-major dot products with four accumulators: any summation tree of n terms
 * has depth ≤ n − 1, so the bound of the sequential sum still holds, at a third of the time.
 */
function convolveDense(A: ExtArray, B: ExtArray, out: ExtArray): void {
  const a = blocks(A);
  const b = blocks(B);
  const nB = B.m.length;
  const reversed = b.scaled.reverse();
  for (const I of a.list) for (const J of b.list) dotConvolve(a.scaled, reversed, nB, I, J, out);
}

function dotConvolve(a: Float64Array, br: Float64Array, nB: number, I: Block, J: Block, out: ExtArray): void {
  const E = I.exponent + J.exponent;
  for (let c = I.start + J.start; c <= I.end + J.end - 2; c++) {
    const hi = Math.min(I.end - 1, c - J.start);
    const off = nB - 1 - c; // b[c − c1] = br[off + c1]
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let c1 = Math.max(I.start, c - J.end + 1);
    for (; c1 + 3 <= hi; c1 += 4) {
      s0 += a[c1] * br[off + c1];
      s1 += a[c1 + 1] * br[off + c1 + 1];
      s2 += a[c1 + 2] * br[off + c1 + 2];
      s3 += a[c1 + 3] * br[off + c1 + 3];
    }
    for (; c1 <= hi; c1++) s0 += a[c1] * br[off + c1];
    const s = s0 + s1 + (s2 + s3);
    if (s > 0) addExt(out, c, s, E);
  }
}

/** out = A ∗ B term by term over the non-zero entries (histograms: sparse codes). */
function convolveSparse(A: ExtArray, B: ExtArray, out: ExtArray): void {
  const ib: number[] = [];
  for (let c = 0; c < B.m.length; c++) if (B.m[c] !== 0) ib.push(c);
  for (let c1 = 0; c1 < A.m.length; c1++) {
    if (A.m[c1] === 0) continue;
    for (const c2 of ib) addExt(out, c1 + c2, A.m[c1] * B.m[c2], A.e[c1] + B.e[c2]);
  }
}

/** m·2^e as a double: exact from 2^−1022 up, rounded into the subnormals (or to 0) below. */
function scaleToDouble(m: number, e: number): number {
  if (e < -1100) return 0;
  return e >= -1022 ? m * POW2_TABLE[e + POW2_AT] : m * POW2_TABLE[e + 60 + POW2_AT] * POW2_TABLE[-60 + POW2_AT];
}

/** Normalises the joint masses out(c) = P(X_i = a, code c) into the law given X_i = a. */
function finish(model: StepModel, out: ExtArray, time: number, state: number, jointRoundings: number): SecretLaw | null {
  const codes: number[] = [];
  for (let c = 0; c < out.m.length; c++) if (out.m[c] !== 0) codes.push(c);
  if (codes.length === 0) return null;
  const total = extArray(1);
  for (const c of codes) addExt(total, 0, out.m[c], out.e[c]);
  const n = codes.length;
  const masses = new Float64Array(n);
  const logMasses = new Float64Array(n);
  let underflow = 0;
  let logMax = 0;
  for (let j = 0; j < n; j++) {
    const ratio = out.m[codes[j]] / total.m[0]; // in (1/2, 2): one rounding
    const e = out.e[codes[j]] - total.e[0];
    masses[j] = scaleToDouble(ratio, e);
    logMasses[j] = Math.log(ratio) + e * Math.LN2;
    if (masses[j] < 2 ** -1022) underflow++;
    logMax = Math.max(logMax, -logMasses[j]);
  }
  const roundings = 2 * jointRoundings + n;
  const relativeError = gamma(roundings);
  const core = {
    time,
    state,
    masses,
    logMasses,
    probability: toDouble(total, 0),
    logProbability: toLog(total, 0),
    roundings,
    relativeError,
    logError: -Math.log1p(-relativeError) + 4 * UNIT_ROUNDOFF * (logMax + 1),
    underflow,
  };
  if (model.kind === 'vector') return { ...core, kind: 'vector', vectors: codes.map(model.vector) };
  return { ...core, kind: 'scalar', values: Float64Array.from(codes, model.value) };
}

/** How a refusal of the laws' table begins: the chain methods, which need no table, still apply then. */
export const TABLE_REFUSAL = 'the exact laws need a table of';

function checkSize(model: StepModel, options: LawOptions): void {
  const T = model.length;
  const W = widthOf(model);
  const entries = model.shifts.length * ((W * T * (T - 1)) / 2 + T);
  const limit = options.maxTableEntries ?? DEFAULT_MAX_TABLE;
  if (entries > limit) {
    throw new InputError(
      `${TABLE_REFUSAL} ${entries.toExponential(2)} entries (T = ${T}, ${W} grid steps per time), more than the limit ${limit}`,
      options.path ?? 'markov.length',
    );
  }
}

/** The laws at time i for every state, from α_i and β_i. */
function lawsAt(model: StepModel, alpha: ExtArray, beta: ExtArray, i: number, qRoundings: number): (SecretLaw | null)[] {
  const { length: T, shifts } = model;
  const k = shifts.length;
  const W = widthOf(model);
  const nA = (i + 1) * W + 1;
  const nB = (T - 1 - i) * W + 1;
  const stepRoundings = (T - 1) * (k + 1) + qRoundings;
  return shifts.map((_, a) => {
    const A = view(alpha, a * nA, nA);
    const B = view(beta, a * nB, nB);
    const out = extArray(T * W + 1);
    if (model.kind === 'vector') convolveSparse(A, B, out);
    else convolveDense(A, B, out);
    return finish(model, out, i, a, stepRoundings + Math.min(nonZeros(A), nonZeros(B)));
  });
}

function wantedTimes(model: StepModel, options: LawOptions): Set<number> {
  const T = model.length;
  const times = options.times ?? [...Array(T).keys()];
  times.forEach((t, j) => {
    if (!Number.isInteger(t) || t < 0 || t >= T) throw new InputError(`${t} is not a time in 0..${T - 1}`, `times[${j}]`);
  });
  return new Set(times);
}

function sweep(model: StepModel, w: ExtArray, betas: ExtArray[], initial: InitialLaw, times: Set<number>, visit: Visit): void {
  const W = widthOf(model);
  let alpha = firstForward(model, initial.law);
  const last = Math.max(...times);
  for (let i = 0; i <= last; i++) {
    if (times.has(i)) visit(i, lawsAt(model, alpha, betas[i], i, initial.roundings));
    if (i < last) alpha = combine(alpha, (i + 1) * W + 1, w, model.shifts, true);
  }
}

/** Receives the laws at one time i: laws[a] given X_i = a, null where P(X_i = a) = 0. */
type Visit = (time: number, laws: (SecretLaw | null)[]) => void;

/**
 * Streams the laws of F given X_i = a for each wanted time i (increasing) and every state a,
 * for the chain started from `initial`. Memory: the backward tables, k·T²·W/2 entries.
 * @example forEachSecretLaws(stepModel(P, 100, { kind: 'count', state: 1 }), { law: [0.6, 0.4], roundings: 0 },
 *   (i, laws) => console.log(i, laws[0]?.masses, laws[1]?.masses))
 */
function forEachSecretLaws(model: StepModel, initial: InitialLaw, visit: Visit, options: LawOptions = {}): void {
  checkSize(model, options);
  const times = wantedTimes(model, options);
  if (times.size === 0) return;
  const w = weights(model.transition);
  sweep(model, w, backwardTables(model, w), initial, times, visit);
}

/**
 * The laws of F given X_i = a as a table laws[j][a] over the wanted times (options.times, or all).
 * @example secretLaws(stepModel([[0.8, 0.2], [0.3, 0.7]], 3, { kind: 'count', state: 1 }), { law: [0.6, 0.4], roundings: 0 })[0][1]
 *   // the law of 1 + (count over X_1, X_2) given X_0 = 1: values [1, 2, 3]
 */
export function secretLaws(model: StepModel, initial: InitialLaw, options: LawOptions = {}): (SecretLaw | null)[][] {
  const table: (SecretLaw | null)[][] = [];
  forEachSecretLaws(model, initial, (_, laws) => table.push(laws), options);
  return table;
}

/**
 * For a chain whose initial law may be anything: the laws with the chain started at each state x
 * (point masses), sharing one backward table. Under an initial law q the law of F given X_i = a
 * is the mixture Σ_x q_x·Z_x·L_x / Σ_x q_x·Z_x of these laws L_x, with weights
 * Z_x = P(X_i = a | X_0 = x) (each law's `probability`). The point masses alone do not bound
 * the class: the mixture weights differ between the two secrets of a pair, so a mixed start can
 * be worse than every point start. What they do give, at α = ∞: for every q and output y,
 * log p_a(y)/p_b(y) ≤ max_x log[Z^a_x·(L^a_x∗noise)(y) / (Z^b_x·(L^b_x∗noise)(y))] + max_x log(Z^b_x/Z^a_x)
 * (the mediant inequality on both sums), the bound Song et al.'s code uses for "any".
 * visit(x, i, laws) is called for each start x and wanted time i.
 * @example forEachPointStartLaws(model, (x, i, laws) => …)
 */
export function forEachPointStartLaws(
  model: StepModel,
  visit: (start: number, time: number, laws: (SecretLaw | null)[]) => void,
  options: LawOptions = {},
): void {
  checkSize(model, options);
  const times = wantedTimes(model, options);
  if (times.size === 0) return;
  const w = weights(model.transition);
  const betas = backwardTables(model, w);
  const k = model.shifts.length;
  for (let x = 0; x < k; x++) {
    const law = model.shifts.map((_, y) => (y === x ? 1 : 0));
    sweep(model, w, betas, { law, roundings: 0 }, times, (i, laws) => visit(x, i, laws));
  }
}

/**
 * The laws of one chain of a validated spec: for a given or stationary start, visit(null, i, laws);
 * for initial "any", the point-start components, visit(x, i, laws) for each start x (see
 * forEachPointStartLaws for what they do and do not bound).
 * @example forEachChainLaws(validateSpec(spec), 0, (start, i, laws) => …)
 */
export function forEachChainLaws(
  model: MarkovModel,
  chain: number,
  visit: (start: number | null, time: number, laws: (SecretLaw | null)[]) => void,
  options: LawOptions = {},
): void {
  const c = model.chains[chain];
  const steps = stepModel(c.transition, model.length, model.query);
  if (c.initial === 'any') forEachPointStartLaws(steps, visit, options);
  else forEachSecretLaws(steps, c.initial, (i, laws) => visit(null, i, laws), options);
}
