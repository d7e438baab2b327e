// Window counts of a Markov chain (docs/math.md §19): the path-coupled bound on the Rényi
// divergence of the vector (C_1 + N_1, …, C_m + N_m), C_w the count of one state over window w,
// between the chain conditioned on X_i = a and on X_i = b. The two conditioned chains are coupled
// step by step with the maximal coupling of their kernel rows (the future forwards, the past
// through the reversed chain); by joint convexity (docs/math.md §4)
//   e^{(α−1)D_α} ≤ E_γ[ Π_w e^{(α−1)ρ(Δ_w)} ],  Δ_w = C_w^a − C_w^b,
// ρ the noise's shift divergence. The expectation is a dynamic programme over (pair of states,
// running difference of the current window); once the pair has met, every later difference is 0.
import { InputError } from '../errors.js';
import { EPS } from '../numerics/float.js';
import {
  boundaryCoupling,
  keptShare,
  sortedCoupling,
  sortedShiftBound,
  WindowLaws,
  type SortedCoupling,
  type BoundaryCache,
  type CountLaw,
} from './boundary.js';

/** A chain as the bound reads it: its kernel, the law of X_1, the per-step contribution f. */
export interface WindowChain {
  /** Row x is the law of X_{t+1} given X_t = x. */
  transition: readonly (readonly number[])[];
  /** The law of X_1. */
  initial: readonly number[];
  /** The whole-number contribution f(x) of each state to its window's count (a count: 0 or 1). */
  contribution: readonly number[];
}

/** One successor of a pair of states under the maximal coupling: the two next states (-1: the pair met), and its mass. */
export type Step = { u: number; v: number; p: number };

/**
 * The maximal coupling of two laws on the states: the pair meets at z with mass min(p_z, q_z),
 * and otherwise moves to (z₁, z₂) by the product of the normalised residuals (disjoint supports,
 * so z₁ ≠ z₂ there).
 */
export function maximalCoupling(p: readonly number[], q: readonly number[], computed = false): Step[] {
  let met = 0;
  const ru: number[] = [];
  const rv: number[] = [];
  for (let z = 0; z < p.length; z++) {
    const c = Math.min(p[z], q[z]);
    met += c;
    ru.push(p[z] - c);
    rv.push(q[z] - c);
  }
  const steps: Step[] = met > 0 ? [{ u: -1, v: -1, p: met }] : [];
  // The residual mass summed, not 1 − met: no cancellation when the rows nearly agree. Rows that are
  // `computed` (not the model's own numbers) may sum to slightly different totals: dividing by the
  // larger residual keeps both margins of the unmet part below their rows, however small it is.
  const rest = computed
    ? Math.max(
        ru.reduce((a, b) => a + b, 0),
        rv.reduce((a, b) => a + b, 0),
      )
    : ru.reduce((a, b) => a + b, 0);
  if (rest <= 0) return steps;
  for (let x = 0; x < p.length; x++) if (ru[x] > 0) for (let y = 0; y < q.length; y++) if (rv[y] > 0) steps.push({ u: x, v: y, p: (ru[x] * rv[y]) / rest });
  return steps;
}

/**
 * The couplings of every pair of states, flat (the dynamic programme's inner loops read typed
 * arrays): pair u·k + v meets with mass `met` (`hasMet`: a meeting step exists), and its unmet
 * successors j in from[pair] … from[pair + 1] − 1 go to pair `to[j]` with mass `p[j]`, the
 * running difference moving by `shift[j]` = f(u′) − f(v′). Same order as the steps: sums stay bit-identical.
 */
interface FlatSteps {
  hasMet: Uint8Array;
  met: Float64Array;
  from: Int32Array;
  to: Int32Array;
  shift: Int32Array;
  p: Float64Array;
  /**
   * Rows known only up to a relative error (the reversed chain's, computed from the marginals): per
   * pair, the factor `keep` ≤ 1 that puts the coupling's margins below the true rows, and the mass
   * `lost` a true coupling moves some other way (charged at the largest value it can reach).
   * Absent: the rows are the model's own numbers (the forward kernel).
   */
  keep?: Float64Array;
  lost?: Float64Array;
}

/** `steps` (per pair u, v) as flat arrays (see FlatSteps). */
function flatten(steps: Step[][][], f: readonly number[], robust?: { keep: Float64Array; lost: Float64Array }): FlatSteps {
  const k = steps.length;
  const from = new Int32Array(k * k + 1);
  const to: number[] = [],
    shift: number[] = [],
    p: number[] = [];
  const hasMet = new Uint8Array(k * k),
    met = new Float64Array(k * k);
  for (let u = 0; u < k; u++)
    for (let v = 0; v < k; v++) {
      const pair = u * k + v;
      from[pair] = to.length;
      for (const st of steps[u][v]) {
        if (st.u < 0) {
          hasMet[pair] = 1;
          met[pair] = st.p;
          continue;
        }
        to.push(st.u * k + st.v);
        shift.push(f[st.u] - f[st.v]);
        p.push(st.p);
      }
    }
  from[k * k] = to.length;
  return { hasMet, met, from, to: Int32Array.from(to), shift: Int32Array.from(shift), p: Float64Array.from(p), ...(robust ?? {}) };
}

/** The windows' layout: each time's window, and each window's first and last time (0-based). */
interface Layout {
  of: Int32Array;
  start: Int32Array;
  end: Int32Array;
}

/** Windows of the given lengths, tiling 0 … T−1. */
function layout(lengths: readonly number[]): Layout {
  const T = lengths.reduce((a, b) => a + b, 0);
  const of = new Int32Array(T);
  const start = new Int32Array(lengths.length);
  const end = new Int32Array(lengths.length);
  let t = 0;
  lengths.forEach((L, w) => {
    start[w] = t;
    for (let k = 0; k < L; k++) of[t++] = w;
    end[w] = t - 1;
  });
  return { of, start, end };
}

/**
 * The result of the bound at one scale: the worst bound over secret times and pairs, and where.
 * `exponent` bounds (α−1)·D_α from above for α > 1 and from below for α < 1, so exponent/(α−1) is an
 * upper bound on D_α either way.
 */
export interface WindowBound {
  /** The bound on (α−1)·D_α at the worst time i and pair (a, b), with its rounding charged. */
  exponent: number;
  /** The secret time (0-based) and states that attain it. */
  binding: { time: number; a: number; b: number } | null;
  /** Per secret time (0-based), the worst exponent over its pairs, rounding charged (exponent/(α−1) = −∞: no pair there). */
  perTime: Float64Array;
}

/**
 * The path-coupled bound for one chain. `factor(d, w)` is e^{(α−1)ρ(|d|)} for a difference d in
 * window w at that window's noise (1 at d = 0), ρ an upper bound on the shifted noise's D_α; a
 * window not released (yet) has the factor 1: it moves no output. The secret may lie at any time,
 * an unreleased window's included. For α > 1 (`below` false) the factors are ≥ 1 and the worst
 * time and pair has the largest expectation, bounded from above (joint convexity); for α ∈ (0, 1)
 * (`below`) they are ≤ 1 and the worst has the smallest, bounded from below (joint concavity of
 * ∫p^α q^{1−α}, docs/math.md §19).
 * @example pathCoupledBound({ transition: [[0.9, 0.1], [0.1, 0.9]], initial: [0.5, 0.5], contribution: [0, 1] }, [2, 2], (d) => Math.exp(d * d)).binding?.time
 */
export function pathCoupledBound(
  chain: WindowChain,
  lengths: readonly number[],
  factor: (d: number, window: number) => number,
  below = false,
  exact?: WindowExact,
): WindowBound {
  const k = chain.initial.length;
  const T = lengths.reduce((a, b) => a + b, 0);
  const f = chain.contribution;
  const spread = Math.max(...f) - Math.min(...f);
  const D = Math.max(...lengths) * spread;
  const width = 2 * D + 1;
  // Checked before any table is laid: a sum's spread makes them as wide as it is.
  checkWindowSize(k, T, width, spread);
  const Fs = lengths.map((_, w) => {
    const F = new Float64Array(width);
    for (let d = -D; d <= D; d++) F[d + D] = d === 0 ? 1 : factor(Math.abs(d), w);
    return F;
  });
  const L = layout(lengths);
  const mu = marginals(chain, T);
  const forward = chain.transition.map((_, u) => chain.transition.map((__, v) => (u === v ? [] : maximalCoupling(chain.transition[u], chain.transition[v]))));
  const h = futureValues(k, T, D, Fs, L, spread, flatten(forward, f));
  // The reversed chain's couplings from each time t to t − 1 (none at t = 0).
  const constant = constantColumns(chain.transition);
  const rev = Array.from({ length: T }, (_, t) => (t > 0 ? reversedCouplings(chain.transition, mu, t, f, constant) : null));
  const q = pastValues(k, T, D, Fs, L, spread, rev, below);
  // Every value is a sum of positive terms (no cancellation). Along the T + 1 steps of either side a
  // term meets one coupling mass (at most 4 roundings: a min, a difference, a product, a quotient),
  // one factor, one product, a sum of at most k² + 1 terms (k² roundings), and on the past's side
  // the scaling by `keep` and the lost mass's term (two more); so each term, and the total, is within
  // relative n·2⁻⁵³/(1 − n·2⁻⁵³) of the exact value, n = (T + 1)(k² + 10) + 16. (The reversed
  // kernel's own error, from the marginals, is not a rounding of these sums: `keep` and `lost` carry it.)
  const n = (T + 1) * (k * k + 10) + 16;
  const rounding = (n * EPS) / (1 - n * EPS);
  const charged = (v: number) => (below ? Math.log(v) - rounding : Math.log(v) + rounding);
  // Worse: a larger exponent (α > 1), a smaller one (α < 1).
  const worse = below ? (x: number, y: number) => !(x >= y) : (x: number, y: number) => !(x <= y);
  const none = below ? Infinity : -Infinity;
  const meets = (x: number) => exact?.target !== undefined && (below ? x >= exact.target : x <= exact.target);
  const inner = exact ? boundaryContext(chain, mu, L, D, h, q, Fs, factor, exact, below, rounding) : null;
  let best = none;
  let binding: WindowBound['binding'] = null;
  const perTime = new Float64Array(T).fill(none);
  const deferred: { i: number; a: number; b: number; value: number }[] = [];
  // With `stopAtFailure`, the window that failed last is tried first: a scale that fails is found
  // failing at once.
  const first = exact?.stopAtFailure ? Math.min(exact.firstWindow ?? 0, lengths.length - 1) : 0;
  for (let n = 0; n < lengths.length; n++) {
    const w = (first + n) % lengths.length;
    const past = windowPast(k, D, L, w, f, spread, rev, q, below);
    for (let i = L.start[w]; i <= L.end[w]; i++)
      for (let a = 0; a < k; a++)
        for (let b = a + 1; b < k; b++) {
          if (!(mu[i][a] > 0 && mu[i][b] > 0)) continue;
          let value = charged(secretValue(i, a, b, { k, D, L, f, spread, rev, h, q, past, below }));
          if (exact?.worstOnly) {
            deferred.push({ i, a, b, value });
            continue;
          }
          // The secret's window exactly where the path value alone misses the target: either bound holds.
          if (inner && !meets(value)) {
            const other = bothWays(inner, i, a, b, exact?.target, worse);
            if (worse(value, other)) value = other;
          }
          if (worse(value, perTime[i])) perTime[i] = value;
          if (worse(value, best) || binding === null) {
            best = value;
            binding = { time: i, a, b };
          }
          if (exact?.stopAtFailure && exact.target !== undefined && !meets(value)) return { exponent: best, binding, perTime };
        }
  }
  // Only the worst pair matters: the pairs in order of their path values, worst first, each refined
  // only until it is no worse than the worst so far; once a path value is no worse, none after it is.
  deferred.sort((x, y) => (worse(x.value, y.value) ? -1 : worse(y.value, x.value) ? 1 : 0));
  let refining = true;
  for (const d of deferred) {
    let value = d.value;
    refining &&= binding === null || worse(value, best);
    if (inner && refining) {
      const other = bothWays(inner, d.i, d.a, d.b, binding === null ? undefined : best, worse);
      if (worse(value, other)) value = other;
    }
    if (worse(value, perTime[d.i])) perTime[d.i] = value;
    if (worse(value, best) || binding === null) {
      best = value;
      binding = { time: d.i, a: d.a, b: d.b };
    }
  }
  // No pair at a time: exponent/(α−1) = −∞ either way.
  return {
    exponent: best === none ? charged(below ? Infinity : 0) : best,
    binding,
    perTime: perTime.map((v) => (v === none ? (below ? Infinity : -Infinity) : v)),
  };
}

/**
 * A refusal of the window bounds for this chain or size (not of the input): the methods that keep
 * no tables and need no error proof (the MQM, group DP) still answer.
 */
export class WindowBoundsRefused extends InputError {
  constructor(
    reason: string,
    path: string,
    /** The refusal in a few words, for an answer that goes on without these bounds. */
    readonly brief: string,
  ) {
    super(reason, path);
  }
}

/** The most values the path bound's two passes may hold (8 bytes each), as the exact laws' table limit. */
const MAX_WINDOW_ENTRIES = 4e7;

/**
 * The forward and backward passes keep k²·(2D + 1) values per time: refused by name beyond the limit
 * (a long series at a fine window would otherwise run for minutes and exhaust memory); the MQM and
 * group DP, which keep none, still answer in `best`.
 */
function checkWindowSize(k: number, T: number, width: number, spread: number): void {
  const entries = 2 * T * k * k * width;
  const sums = spread > 1 ? `, a window sum whose values span ${spread}` : '';
  if (entries > MAX_WINDOW_ENTRIES)
    throw new WindowBoundsRefused(
      `the window bounds need ${entries.toExponential(2)} values (T = ${T}, ${k} states, ${width} differences per time${sums}), more than the limit ${MAX_WINDOW_ENTRIES}: release a shorter series (--length, or the spec's markov.length)${spread > 1 ? ', smaller values (under Laplace or Gaussian noise, values sharing a larger common factor)' : ''}, or use mqm-exact or group-dp`,
      'markov.length',
      `the series needs ${entries.toExponential(2)} values, past their limit of ${MAX_WINDOW_ENTRIES.toExponential(0)}`,
    );
}

/** The smallest positive probability the path-coupled bound takes: its products and quotients of two stay normal doubles. */
const SMALLEST_PROBABILITY = 2 ** -500;

/**
 * The path-coupled bound's error proof counts relative roundings, which hold for normal doubles
 * only, and a marginal that underflows to 0 would drop its secret (Pufferfish protects every
 * secret of positive probability, however small). So every positive entry of the chain and every
 * marginal the chain can reach (its zero pattern propagated exactly, as booleans) must be at least
 * 2^−500; a chain with a smaller one is refused, naming the time and state.
 * @example checkProbabilityRange({ transition: [[1, 1e-200], [0.5, 0.5]], initial: [1, 0], contribution: [0, 1] }, 3, 'c', ['dry', 'rain']) // throws: P(X_2 = rain) is 1e-200
 */
export function checkProbabilityRange(chain: WindowChain, T: number, name: string, states: readonly string[]): void {
  const tiny = (v: number) => v > 0 && v < SMALLEST_PROBABILITY;
  const refuse = (what: string, v: number) =>
    new WindowBoundsRefused(
      `chain '${name}': ${what} is ${v.toPrecision(3)}, below 2^−500 (≈ 3·10⁻¹⁵¹), where the window bounds' floating-point error proof no longer holds; a secret of such a probability is still a secret, so the chain is refused (round it to 0 if it is impossible)`,
      'markov.chains',
      `in chain '${name}', ${what} is ${v.toPrecision(3)}, below 2^−500, where their rounding proof fails`,
    );
  chain.initial.forEach((v, x) => {
    if (tiny(v)) throw refuse(`the initial probability of ${states[x]}`, v);
  });
  chain.transition.forEach((row, x) => {
    row.forEach((v, y) => {
      if (tiny(v)) throw refuse(`the transition ${states[x]} → ${states[y]}`, v);
    });
  });
  const mu = marginals(chain, T);
  let reach = chain.initial.map((v) => v > 0);
  for (let t = 0; t < T; t++) {
    if (t > 0) reach = chain.transition[0].map((_, y) => reach.some((r, x) => r && chain.transition[x][y] > 0));
    reach.forEach((r, y) => {
      if (r && !(mu[t][y] >= SMALLEST_PROBABILITY)) throw refuse(`P(X_${t + 1} = ${states[y]})`, mu[t][y]);
    });
  }
}

/** μ_t, the law of X_t for t = 0 … T−1. */
function marginals(chain: WindowChain, T: number): number[][] {
  const mu = [chain.initial.slice()];
  for (let t = 1; t < T; t++) {
    const prev = mu[t - 1];
    mu.push(chain.transition[0].map((_, y) => prev.reduce((s, px, x) => s + px * chain.transition[x][y], 0)));
  }
  return mu;
}

/** The reversed kernel's maximal couplings from time t to t − 1: rows μ_{t−1}(u)P(u, v)/μ_t(v). */
/**
 * Per state, whether its column of P is constant (it is entered whatever the last state): its
 * reversed row at every time is then μ_{t−1} normalised, exactly (`reversedCouplings`).
 */
const constantColumns = (P: readonly (readonly number[])[]): boolean[] => P.map((_, v) => P.every((r) => r[v] === P[0][v]));

function reversedCouplings(P: readonly (readonly number[])[], mu: number[][], t: number, f: readonly number[], constant: readonly boolean[]): FlatSteps {
  const k = P.length;
  const row = (v: number) => Array.from({ length: k }, (_, u) => (mu[t][v] > 0 ? (mu[t - 1][u] * P[u][v]) / mu[t][v] : 0));
  const rows = Array.from({ length: k }, (_, v) => row(v));
  const steps = rows.map((_, u) => rows.map((__, v) => (u === v || !(mu[t][u] > 0 && mu[t][v] > 0) ? [] : maximalCoupling(rows[u], rows[v], true))));
  // μ_t is computed over t steps of k products and sums (relative (k + 1)·2⁻⁵³ each), a row entry
  // from μ_{t−1} and μ_t with three more roundings: each entry within η of the true reversed kernel's.
  const n = 2 * t * (k + 1) + 3;
  const eta = (n * EPS) / (1 - n * EPS);
  const keep = new Float64Array(k * k).fill(1),
    lost = new Float64Array(k * k);
  // Two states of constant columns have equal reversed rows, and the true maximal coupling meets
  // with all of its mass (the row sums to 1: μ_t(v) is Σ μ_{t−1}(x)P(x, v) by definition) — nothing
  // lost to the marginals' rounding, which would otherwise be charged at the window's largest factor.
  for (let u = 0; u < k; u++)
    for (let v = 0; v < k; v++) {
      if (steps[u][v].length === 0) continue;
      if (constant[u] && constant[v]) {
        steps[u][v] = [{ u: -1, v: -1, p: 1 }];
        continue;
      }
      const r = robustShare(rows[u], rows[v], steps[u][v], eta);
      keep[u * k + v] = r.keep;
      lost[u * k + v] = r.lost;
    }
  return flatten(steps, f, { keep, lost });
}

/**
 * A coupling `steps` computed from rows p, q known within a relative η per entry: the factor c ≤ 1
 * such that c times the steps' margins (recomputed, each a sum of at most k + 1 masses) lie below
 * the true rows, and the mass 1 − c·Σ steps (rounded up) that a true coupling moves otherwise.
 */
export function robustShare(p: readonly number[], q: readonly number[], steps: readonly Step[], eta: number): { keep: number; lost: number } {
  const rows = p.map((x, z) => Math.min(x, q[z])),
    cols = rows.slice();
  let total = 0;
  for (const st of steps) {
    total += st.p;
    if (st.u < 0) continue;
    rows[st.u] += st.p;
    cols[st.v] += st.p;
  }
  return keptShare(p, q, rows, cols, total, eta);
}

/** Flat index of (pair u, v; difference d) in a value table. */
const at = (k: number, width: number, u: number, v: number, d: number, D: number) => (u * k + v) * width + d + D;

/**
 * How far a window's running difference can reach after `n` of its times: n·(max f − min f), at
 * most D. The tables below are filled only that far: every read stays within it (a step moves the
 * difference by at most the spread), so the values are those of the full tables.
 */
const reach = (n: number, spread: number, D: number) => Math.min(D, n * spread);

/**
 * h_t(u, v, d): the expected product of the window factors from time t on, given the pair (u, v)
 * at t and the current window's difference d so far (time t included). Computed backwards.
 */
function futureValues(k: number, T: number, D: number, Fs: Float64Array[], L: Layout, spread: number, steps: FlatSteps): Float64Array[] {
  const width = 2 * D + 1;
  const { hasMet, met, from, to, shift, p } = steps;
  const h: Float64Array[] = new Array(T);
  for (let t = T - 1; t >= 0; t--) {
    const cur = new Float64Array(k * k * width);
    const w = L.of[t];
    const closes = t === L.end[w];
    const F = Fs[w];
    const next = h[t + 1];
    const r = reach(t - L.start[w] + 1, spread, D);
    for (let pair = 0; pair < k * k; pair++) {
      if (pair % (k + 1) === 0) continue; // u = v
      const base = pair * width + D;
      if (t === T - 1) {
        for (let d = -r; d <= r; d++) cur[base + d] = F[d + D];
        continue;
      }
      if (closes) {
        // The next window starts afresh: the expectation after t is the same for every d.
        let s = hasMet[pair] ? met[pair] : 0;
        for (let j = from[pair]; j < from[pair + 1]; j++) s += p[j] * (Math.abs(shift[j]) <= D ? next[to[j] * width + shift[j] + D] : Infinity);
        for (let d = -r; d <= r; d++) cur[base + d] = F[d + D] * s;
        continue;
      }
      for (let d = -r; d <= r; d++) {
        let s = hasMet[pair] ? met[pair] * F[d + D] : 0;
        for (let j = from[pair]; j < from[pair + 1]; j++) {
          const dn = d + shift[j];
          s += p[j] * (Math.abs(dn) <= D ? next[to[j] * width + dn + D] : Infinity);
        }
        cur[base + d] = s;
      }
    }
    h[t] = cur;
  }
  return h;
}

/**
 * The largest value of a table at each difference x, over every pair not met and every step of the
 * difference within the spread: what a mass the coupling does not place can reach (top[x + D]).
 */
function reachable(table: Float64Array, k: number, D: number, spread: number): Float64Array {
  const width = 2 * D + 1;
  const col = new Float64Array(width);
  for (let pair = 0; pair < k * k; pair++) {
    if (pair % (k + 1) === 0) continue;
    for (let y = 0; y < width; y++) col[y] = Math.max(col[y], table[pair * width + y]);
  }
  const top = new Float64Array(width);
  for (let x = 0; x < width; x++) for (let s = -spread; s <= spread; s++) if (x + s >= 0 && x + s < width) top[x] = Math.max(top[x], col[x + s]);
  return top;
}

/**
 * q_t(u, v, d): the same for the past, through the reversed chain from time t down to 0, d being
 * the difference of t's window over its times from t up to where the traversal entered it. The
 * reversed kernel is known within a relative error: its couplings are scaled by `keep`, and their
 * `lost` mass is charged at the largest value it can reach (met: the window's factor; or any pair
 * one step on), an upper bound for α > 1; for α < 1 (`below`) the lost mass is dropped (a lower bound).
 */
function pastValues(k: number, T: number, D: number, Fs: Float64Array[], L: Layout, spread: number, rev: (FlatSteps | null)[], below: boolean): Float64Array[] {
  const width = 2 * D + 1;
  const q: Float64Array[] = new Array(T);
  for (let t = 0; t < T; t++) {
    const cur = new Float64Array(k * k * width);
    const w = L.of[t];
    const opens = t === L.start[w];
    const F = Fs[w];
    const steps = rev[t];
    const r = reach(L.end[w] - t + 1, spread, D);
    const top = steps && !below ? reachable(q[t - 1], k, D, spread) : null;
    for (let pair = 0; pair < k * k; pair++) {
      if (pair % (k + 1) === 0) continue; // u = v
      const base = pair * width + D;
      if (!steps) {
        for (let d = -r; d <= r; d++) cur[base + d] = F[d + D];
        continue;
      }
      const { hasMet, met, from, to, shift, p } = steps;
      const keep = steps.keep ? steps.keep[pair] : 1;
      const lost = top && steps.lost ? steps.lost[pair] : 0;
      const prev = q[t - 1];
      if (opens) {
        // The earlier window is a fresh one: the expectation before t is the same for every d.
        let s = hasMet[pair] ? met[pair] : 0;
        for (let j = from[pair]; j < from[pair + 1]; j++) s += p[j] * (Math.abs(shift[j]) <= D ? prev[to[j] * width + shift[j] + D] : Infinity);
        s = keep * s + (lost > 0 ? lost * Math.max(1, top![D]) : 0);
        for (let d = -r; d <= r; d++) cur[base + d] = F[d + D] * s;
        continue;
      }
      for (let d = -r; d <= r; d++) {
        let s = hasMet[pair] ? met[pair] * F[d + D] : 0;
        for (let j = from[pair]; j < from[pair + 1]; j++) {
          const dn = d + shift[j];
          s += p[j] * (Math.abs(dn) <= D ? prev[to[j] * width + dn + D] : Infinity);
        }
        cur[base + d] = keep * s + (lost > 0 ? lost * Math.max(F[d + D], top![d + D]) : 0);
      }
    }
    q[t] = cur;
  }
  return q;
}

/**
 * The past of the secret's window w: M_t(u, v)[x] for t in w, the mass of reversed coupled paths
 * from (u, v) at t whose difference over w's times s … t is x, each weighted by the expected
 * product of the windows before w (the outer past). M_s(u, v) is that outer value at x = δ(u, v).
 * The reversed couplings are scaled by their `keep`; `lost[t − s]` holds, per pair, the mass the
 * couplings from it did not place (to be charged at the largest value it can reach), and `outer`
 * the largest outer value at s (at least 1: a met pair's).
 */
interface WindowPast {
  M: Float64Array[];
  lost: Float64Array[];
  outer: number;
}

function windowPast(
  k: number,
  D: number,
  L: Layout,
  w: number,
  f: readonly number[],
  spread: number,
  rev: (FlatSteps | null)[],
  q: Float64Array[],
  below: boolean,
): WindowPast {
  const width = 2 * D + 1;
  const s = L.start[w];
  const M: Float64Array[] = [];
  const lost: Float64Array[] = [];
  let outer = 1;
  const top = s > 0 && !below ? reachable(q[s - 1], k, D, spread) : null;
  for (let t = s; t < L.end[w]; t++) {
    const cur = new Float64Array(k * k * width);
    const gone = new Float64Array(k * k);
    const steps = rev[t];
    // M_{t−1}'s differences reach over t − s times.
    const r = reach(t - s, spread, D);
    for (let u = 0; u < k; u++)
      for (let v = 0; v < k; v++) {
        if (u === v) continue;
        const delta = f[u] - f[v];
        if (t === s) {
          const value = outerPast(k, D, steps, q, s, u, v, top);
          cur[at(k, width, u, v, delta, D)] = value;
          outer = Math.max(outer, value);
          continue;
        }
        const prev = M[t - 1 - s];
        const { hasMet, met, from, to, p } = steps!;
        const pair = u * k + v;
        if (hasMet[pair]) cur[at(k, width, u, v, delta, D)] += met[pair];
        const out = pair * width + D + delta;
        let moved = 0;
        for (let j = from[pair]; j < from[pair + 1]; j++) {
          moved += p[j] * lost[t - 1 - s][to[j]];
          const base = to[j] * width + D;
          for (let x = -r; x <= r; x++) {
            const m = prev[base + x];
            if (m === 0) continue;
            cur[out + x] += p[j] * m;
          }
        }
        const keep = steps!.keep ? steps!.keep[pair] : 1;
        if (keep !== 1) for (let x = pair * width; x < (pair + 1) * width; x++) cur[x] *= keep;
        gone[pair] = keep * moved + (steps!.lost ? steps!.lost[pair] : 0);
      }
    M.push(cur);
    lost.push(gone);
  }
  return { M, lost, outer };
}

/**
 * The expected product of the windows before time s, from the pair (u, v) at s (1 at s = 0 or once
 * met); the reversed coupling's lost mass charged at the largest value of q_{s−1} it can reach (`top`, absent for α < 1).
 */
function outerPast(k: number, D: number, steps: FlatSteps | null, q: Float64Array[], s: number, u: number, v: number, top: Float64Array | null): number {
  if (!steps) return 1;
  const width = 2 * D + 1;
  const pair = u * k + v;
  let sum = steps.hasMet[pair] ? steps.met[pair] : 0;
  for (let j = steps.from[pair]; j < steps.from[pair + 1]; j++) sum += steps.p[j] * q[s - 1][steps.to[j] * width + steps.shift[j] + D];
  const keep = steps.keep ? steps.keep[pair] : 1;
  const lost = top && steps.lost ? steps.lost[pair] : 0;
  return keep * sum + (lost > 0 ? lost * Math.max(1, top![D]) : 0);
}

/**
 * The bound's expectation for the secret X_i = a against X_i = b: the past of i's window convolved
 * with its future. The reversed couplings' lost mass (α > 1) is charged at the largest outer value
 * times the largest future value of the pair at i.
 */
function secretValue(
  i: number,
  a: number,
  b: number,
  c: {
    k: number;
    D: number;
    L: Layout;
    f: readonly number[];
    spread: number;
    rev: (FlatSteps | null)[];
    h: Float64Array[];
    q: Float64Array[];
    past: WindowPast;
    below: boolean;
  },
): number {
  const { k, D, L, f } = c;
  const width = 2 * D + 1;
  const s = L.start[L.of[i]];
  const steps = c.rev[i];
  const pair = a * k + b;
  // A(x): the past of the window (times s … i−1) has difference x, weighted by the outer past.
  const A = new Float64Array(width);
  let lost = 0;
  if (i === s) A[D] = outerPast(k, D, steps, c.q, s, a, b, s > 0 && !c.below ? reachable(c.q[s - 1], k, D, c.spread) : null);
  else {
    const { hasMet, met, from, to, p } = steps!;
    if (hasMet[pair]) A[D] += met[pair];
    const r = reach(i - s, c.spread, D);
    for (let j = from[pair]; j < from[pair + 1]; j++) {
      lost += p[j] * c.past.lost[i - 1 - s][to[j]];
      const base = to[j] * width + D;
      for (let x = -r; x <= r; x++) A[x + D] += p[j] * c.past.M[i - 1 - s][base + x];
    }
    const keep = steps!.keep ? steps!.keep[pair] : 1;
    if (keep !== 1) for (let x = 0; x < width; x++) A[x] *= keep;
    lost = keep * lost + (steps!.lost ? steps!.lost[pair] : 0);
  }
  const own = f[a] - f[b];
  let total = 0;
  for (let x = -D; x <= D; x++) {
    if (A[x + D] === 0) continue;
    const d0 = x + own;
    total += A[x + D] * (Math.abs(d0) <= D ? c.h[i][at(k, width, a, b, d0, D)] : Infinity);
  }
  if (lost > 0 && !c.below) {
    let future = 0;
    for (let x = pair * width; x < (pair + 1) * width; x++) future = Math.max(future, c.h[i][x]);
    total += lost * c.past.outer * future;
  }
  return total;
}

/**
 * The exact divergences the boundary-coupled bound needs, from the layer that knows the noise.
 * Both return an upper bound on D_α (its error included; ∞ allowed) of two laws of the secret's
 * window count: `data` of the counts themselves (no noise; by data processing an upper bound at any
 * scale), `noisy` with window w's noise (0 for a window not released).
 */
export interface WindowExact {
  data(p: CountLaw, q: CountLaw): number;
  noisy(p: CountLaw, q: CountLaw, w: number): number;
  /** Windows with equal keys have equal noise: their divergences are computed once. */
  noiseKey(w: number): string;
  /** The order α (the laws' rounding is charged through it). */
  alpha: number;
  /** (α−1)ε: a pair whose path-coupled exponent already meets it is not refined. */
  target?: number;
  /**
   * Return at the first pair that misses `target` (its exponent and binding; `perTime` then covers
   * only the pairs seen): a calibration needs only to know that the scale fails.
   */
  stopAtFailure?: boolean;
  /** With `stopAtFailure`: the window to try first (the one that failed last). */
  firstWindow?: number;
  /**
   * Only the worst exponent is wanted (an account's level): each pair is refined only until it is no
   * worse than the worst so far. `perTime` then holds upper bounds for the other times.
   */
  worstOnly?: boolean;
  /** What is kept across calls for this chain (it does not depend on the scale). */
  cache?: BoundaryCache;
}

/** What the boundary-coupled value reads, for one chain at one set of scales. */
interface BoundaryContext {
  laws: WindowLaws;
  mu: number[][];
  L: Layout;
  k: number;
  D: number;
  f: readonly number[];
  spread: number;
  h: Float64Array[];
  q: Float64Array[];
  factor: (d: number, window: number) => number;
  exact: WindowExact;
  below: boolean;
  rounding: number;
  Fs: Float64Array[];
  dataCache: Map<number, number>;
  skeletons: Map<number, Skeleton>;
  sorted: Map<number, SortedCoupling>;
  noisyCache: Map<string, Map<number, number>>;
}

function boundaryContext(
  chain: WindowChain,
  mu: number[][],
  L: Layout,
  D: number,
  h: Float64Array[],
  q: Float64Array[],
  Fs: Float64Array[],
  factor: (d: number, window: number) => number,
  exact: WindowExact,
  below: boolean,
  rounding: number,
): BoundaryContext {
  const f = chain.contribution;
  const cache: BoundaryCache = exact.cache ?? { data: new Map() };
  cache.laws ??= new WindowLaws(chain.transition, mu, f);
  cache.skeletons ??= new Map();
  cache.sorted ??= new Map();
  return {
    laws: cache.laws,
    mu,
    L,
    k: chain.initial.length,
    D,
    f,
    spread: Math.max(...f) - Math.min(...f),
    h,
    q,
    factor,
    exact,
    below,
    rounding,
    Fs,
    dataCache: cache.data,
    skeletons: cache.skeletons as Map<number, Skeleton>,
    sorted: cache.sorted as Map<number, SortedCoupling>,
    noisyCache: new Map(),
  };
}

/** The boundary states' law given the secret: normalised weights, or null without that boundary. */
function boundaryLaw(weights: (x: number) => number, k: number): number[] {
  const w = Array.from({ length: k }, (_, x) => weights(x));
  const z = w.reduce((s, x) => s + x, 0);
  return w.map((x) => x / z);
}

/**
 * The boundary-coupled bound of an unordered pair: the worse of its two directions. Unlike the path
 * bound's shifts, the window's exact divergence is not symmetric (D_α(W_a ‖ W_b) ≠ D_α(W_b ‖ W_a)).
 */
function bothWays(c: BoundaryContext, i: number, a: number, b: number, target: number | undefined, worse: (x: number, y: number) => boolean): number {
  const ab = boundaryValue(c, i, a, b, target, false);
  const ba = boundaryValue(c, i, a, b, target, true);
  return worse(ba, ab) ? ba : ab;
}

/**
 * The scale-free part of one secret pair's boundary-coupled bound: per term (a pair of coupled
 * boundary states on each side), its coupling mass, the boundary states, the two window laws,
 * their noise-free divergence and sorted coupling; and the mass each side's coupling leaves to
 * other couplings.
 */
interface Skeleton {
  mass: Float64Array;
  states: Int32Array;
  p: CountLaw[];
  q: CountLaw[];
  data: Float64Array;
  /** The other direction's noise-free divergences (b against a), filled when first needed. */
  dataBack: Float64Array | null;
  /** The sorted couplings' shift bounds at the scales of the call `shiftFor` (both directions share them). */
  shift: Float64Array;
  shiftFor: BoundaryContext | null;
  sorted: SortedCoupling[];
  restLeft: number;
  restRight: number;
  etaLaw: number;
}

/** The noise-free divergence of two window laws, kept across scales. */
function lawsData(c: BoundaryContext, p: CountLaw, q: CountLaw): number {
  const key = p.id * 2 ** 26 + q.id;
  const d = c.dataCache.get(key) ?? c.exact.data(p, q);
  c.dataCache.set(key, d);
  return d;
}

/** The skeleton of the secret X_i = a against X_i = b (see Skeleton). */
function skeleton(c: BoundaryContext, i: number, a: number, b: number): Skeleton {
  const { L, k, spread, laws, mu } = c;
  const w = L.of[i];
  const s = L.start[w],
    e = L.end[w];
  const before = i - s,
    after = e - i;
  const T = L.of.length;
  const U = EPS * 1.01;
  // Left boundary X_{s−1}: μ_{s−1}(u)·P^{before+1}(u, a), normalised; its relative error: μ's steps,
  // the bridge's steps and its sum over counts, the product and the normalisation.
  const etaL = ((s + before + 4) * (k + 2) + (before + 1) * spread + 8) * U;
  const none = { entries: [{ u: -1, v: -1, mass: 1 }], rest: 0 };
  const left =
    s === 0
      ? none
      : boundaryCoupling(
          boundaryLaw((u) => mu[s - 1][u] * laws.before(before, a, u).z, k),
          boundaryLaw((u) => mu[s - 1][u] * laws.before(before, b, u).z, k),
          etaL,
        );
  const etaR = ((after + 4) * (k + 2) + (after + 1) * spread + 8) * U;
  const right =
    e === T - 1
      ? none
      : boundaryCoupling(
          boundaryLaw((v) => laws.after(after, a, v).z, k),
          boundaryLaw((v) => laws.after(after, b, v).z, k),
          etaR,
        );
  const etaLaw = ((before + after + 4) * (k + 2) + 2 * (e - s + 2) * spread + 8) * U;
  const n = left.entries.length * right.entries.length;
  const sk: Skeleton = {
    mass: new Float64Array(n),
    states: new Int32Array(4 * n),
    p: [],
    q: [],
    data: new Float64Array(n),
    dataBack: null,
    shift: new Float64Array(n),
    shiftFor: null,
    sorted: [],
    restLeft: left.rest,
    restRight: right.rest,
    etaLaw,
  };
  let j = 0;
  for (const l of left.entries)
    for (const r of right.entries) {
      const p = laws.law(before, after, a, l.u, r.u),
        q = laws.law(before, after, b, l.v, r.v);
      const d = lawsData(c, p, q);
      sk.mass[j] = l.mass * r.mass;
      sk.states.set([l.u, l.v, r.u, r.v], 4 * j);
      sk.p.push(p);
      sk.q.push(q);
      sk.data[j] = d;
      const key = p.id * 2 ** 26 + q.id;
      const sorted = c.sorted.get(key) ?? sortedCoupling(p, q, etaLaw);
      c.sorted.set(key, sorted);
      sk.sorted.push(sorted);
      j++;
    }
  return sk;
}

/**
 * The boundary-coupled bound for the secret X_i = a against X_i = b (docs/math.md §19): the
 * boundary states (u, v) given a and (u′, v′) given b are coupled side by side (past and future are
 * independent given X_i); given them, the outer past, the secret's window and the outer future are
 * independent, so by joint convexity
 *   e^{(α−1)D_α} ≤ Σ γ · Past(u, u′) · e^{(α−1)D_α(W_a(u, v) ‖ W_b(u′, v′))} · Future(v, v′)
 * with the window's laws exact (bridges of the chain) and the outer values the path-coupled ones.
 * Returns the exponent, its rounding charged.
 */
function boundaryValue(c: BoundaryContext, i: number, a: number, b: number, target: number | undefined, back: boolean): number {
  const { L, k, D, f, exact, below } = c;
  const key = (i * k + a) * k + b;
  const sk = c.skeletons.get(key) ?? skeleton(c, i, a, b);
  c.skeletons.set(key, sk);
  // The other direction (X_i = b against X_i = a) is the same skeleton transposed: the couplings'
  // states swapped, the laws swapped (the sorted coupling's distances are symmetric).
  const P = back ? sk.q : sk.p,
    Q = back ? sk.p : sk.q;
  if (back && !sk.dataBack) sk.dataBack = Float64Array.from(sk.p, (x, j) => lawsData(c, sk.q[j], x));
  const data = back ? (sk.dataBack as Float64Array) : sk.data;
  const [one, two] = back ? [1, 0] : [0, 1];
  const width = 2 * D + 1;
  const w = L.of[i];
  const s = L.start[w],
    e = L.end[w];
  const T = L.of.length;
  const past = (u: number, u2: number) => (s === 0 || u === u2 ? 1 : c.q[s - 1][(u * k + u2) * width + f[u] - f[u2] + D]);
  const future = (v: number, v2: number) => (e === T - 1 || v === v2 ? 1 : c.h[e + 1][(v * k + v2) * width + f[v] - f[v2] + D]);
  const am1 = exact.alpha - 1;
  const F = c.Fs[w];
  const shift = (d: number) => (d <= D ? F[d + D] : c.factor(d, w));
  // Both bounds on the window's factor hold: the counts' own divergence (data processing) and the
  // shift bound of their sorted coupling; the better one is kept, the exact one computed only if needed.
  const better = below ? Math.max : Math.min;
  const n = sk.mass.length;
  const weight = new Float64Array(n),
    factor = new Float64Array(n);
  const st = sk.states;
  if (sk.shiftFor !== c) {
    for (let j = 0; j < n; j++) sk.shift[j] = sortedShiftBound(sk.sorted[j], shift, below);
    sk.shiftFor = c;
  }
  let sum = 0;
  for (let j = 0; j < n; j++) {
    weight[j] = sk.mass[j] * past(st[4 * j + one], st[4 * j + two]) * future(st[4 * j + 2 + one], st[4 * j + 2 + two]);
    factor[j] = better(Math.exp(am1 * data[j]), sk.shift[j]);
    sum += weight[j] * factor[j];
  }
  // The mass a true coupling moves otherwise, at the largest factor any boundary pair can have:
  // the outer values' largest and the window moved by its whole range (ρ of a shift bounds D_α).
  let restFactor = 0;
  if (!below && sk.restLeft + sk.restRight > 0) {
    let maxPast = 1,
      maxFuture = 1;
    for (let u = 0; u < k; u++)
      for (let u2 = 0; u2 < k; u2++) {
        maxPast = Math.max(maxPast, past(u, u2));
        maxFuture = Math.max(maxFuture, future(u, u2));
      }
    restFactor = (sk.restLeft + sk.restRight) * maxPast * maxFuture * c.factor((e - s + 1) * c.spread, w);
  }
  // Roundings beyond the outer values': the laws' masses (each within η of exact moves ∫p^α q^{1−α}
  // by a factor within e^{±(α + |1−α|)η/(1−η)}), four products per term and the sum of the terms.
  const charge = c.rounding + ((exact.alpha + Math.abs(am1)) * sk.etaLaw) / (1 - sk.etaLaw) + (n + 8) * EPS * 1.01;
  // A fresh sum of the positive terms (the running one is only a guide while refining).
  const total = () => {
    let t = restFactor;
    for (let j = 0; j < n; j++) t += weight[j] * factor[j];
    return below ? Math.log(t) - charge : Math.log(t) + charge;
  };
  const meets = (x: number) => target !== undefined && (below ? x >= target : x <= target);
  const guide = (x: number) => (below ? Math.log(x) - charge : Math.log(x) + charge);
  sum += restFactor;
  let value = total();
  if (meets(value)) return value;
  // Refine the heaviest terms first with the noisy window's divergence, until the target is met.
  const order = Array.from({ length: n }, (_, j) => j).sort((x, y) =>
    below ? weight[x] * factor[x] - weight[y] * factor[y] : weight[y] * factor[y] - weight[x] * factor[x],
  );
  const noisy = c.noisyCache.get(exact.noiseKey(w)) ?? new Map<number, number>();
  c.noisyCache.set(exact.noiseKey(w), noisy);
  for (const j of order) {
    const pk = P[j].id * 2 ** 26 + Q[j].id;
    const d = noisy.get(pk) ?? exact.noisy(P[j], Q[j], w);
    noisy.set(pk, d);
    const refined = better(factor[j], Math.exp(am1 * d));
    sum += weight[j] * (refined - factor[j]);
    factor[j] = refined;
    if (meets(guide(sum))) {
      value = total();
      if (meets(value)) return value;
    }
  }
  return total();
}
