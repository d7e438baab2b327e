// Window counts of a Markov chain (docs/math.md §19): the path-coupled bound on the Rényi
// divergence of the vector (C_1 + N_1, …, C_m + N_m), C_w the count of one state over window w,
// between the chain conditioned on X_i = a and on X_i = b. The two conditioned chains are coupled
// step by step with the maximal coupling of their kernel rows (the future forwards, the past
// through the reversed chain); by joint convexity (docs/math.md §4)
//   e^{(α−1)D_α} ≤ E_γ[ Π_w e^{(α−1)ρ(Δ_w)} ],  Δ_w = C_w^a − C_w^b,
// ρ the noise's shift divergence. The expectation is a dynamic programme over (pair of states,
// running difference of the current window); once the pair has met, every later difference is 0.
import { EPS } from '../numerics/float.js';

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
type Step = { u: number; v: number; p: number };

/**
 * The maximal coupling of two laws on the states: the pair meets at z with mass min(p_z, q_z),
 * and otherwise moves to (z₁, z₂) by the product of the normalised residuals (disjoint supports,
 * so z₁ ≠ z₂ there).
 */
function maximalCoupling(p: readonly number[], q: readonly number[]): Step[] {
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
  // The residual mass summed, not 1 − met: no cancellation when the rows nearly agree.
  const rest = ru.reduce((a, b) => a + b, 0);
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
}

/** `steps` (per pair u, v) as flat arrays (see FlatSteps). */
function flatten(steps: Step[][][], f: readonly number[]): FlatSteps {
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
  return { hasMet, met, from, to: Int32Array.from(to), shift: Int32Array.from(shift), p: Float64Array.from(p) };
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
export function pathCoupledBound(chain: WindowChain, lengths: readonly number[], factor: (d: number, window: number) => number, below = false): WindowBound {
  const k = chain.initial.length;
  const T = lengths.reduce((a, b) => a + b, 0);
  const f = chain.contribution;
  const spread = Math.max(...f) - Math.min(...f);
  const D = Math.max(...lengths) * spread;
  const width = 2 * D + 1;
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
  const rev = Array.from({ length: T }, (_, t) => (t > 0 ? flatten(reversedCouplings(chain.transition, mu, t), f) : null));
  const q = pastValues(k, T, D, Fs, L, spread, rev);
  // Worse: a larger expectation (α > 1), a smaller one (α < 1).
  const worse = below ? (x: number, y: number) => !(x >= y) : (x: number, y: number) => !(x <= y);
  const none = below ? Infinity : 0;
  let best = none;
  let binding: WindowBound['binding'] = null;
  const perTime = new Float64Array(T).fill(none);
  for (let w = 0; w < lengths.length; w++) {
    const M = windowPast(k, D, L, w, f, spread, rev, q);
    for (let i = L.start[w]; i <= L.end[w]; i++)
      for (let a = 0; a < k; a++)
        for (let b = a + 1; b < k; b++) {
          if (!(mu[i][a] > 0 && mu[i][b] > 0)) continue;
          const value = secretValue(i, a, b, { k, D, L, f, spread, rev, h, q, M });
          if (worse(value, perTime[i])) perTime[i] = value;
          if (worse(value, best) || binding === null) {
            best = value;
            binding = { time: i, a, b };
          }
        }
  }
  // Every value is a sum of positive terms (no cancellation). Along the T + 1 steps of either side a
  // term meets one coupling mass (at most 4 roundings: a min, a difference, a product, a quotient),
  // one factor, one product and a sum of at most k² + 1 terms (k² roundings); so each term, and the
  // total, is within relative n·2⁻⁵³/(1 − n·2⁻⁵³) of the exact value, n = (T + 1)(k² + 8) + 16.
  const n = (T + 1) * (k * k + 8) + 16;
  const rounding = (n * EPS) / (1 - n * EPS);
  const charged = (v: number) => (below ? Math.log(v) - rounding : Math.log(v) + rounding);
  // No pair at a time: exponent/(α−1) = −∞ either way.
  return { exponent: charged(best), binding, perTime: perTime.map((v) => (v === none ? (below ? Infinity : -Infinity) : charged(v))) };
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
function reversedCouplings(P: readonly (readonly number[])[], mu: number[][], t: number): Step[][][] {
  const k = P.length;
  const row = (v: number) => Array.from({ length: k }, (_, u) => (mu[t][v] > 0 ? (mu[t - 1][u] * P[u][v]) / mu[t][v] : 0));
  const rows = Array.from({ length: k }, (_, v) => row(v));
  return rows.map((_, u) => rows.map((__, v) => (u === v || !(mu[t][u] > 0 && mu[t][v] > 0) ? [] : maximalCoupling(rows[u], rows[v]))));
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
 * q_t(u, v, d): the same for the past, through the reversed chain from time t down to 0, d being
 * the difference of t's window over its times from t up to where the traversal entered it.
 */
function pastValues(k: number, T: number, D: number, Fs: Float64Array[], L: Layout, spread: number, rev: (FlatSteps | null)[]): Float64Array[] {
  const width = 2 * D + 1;
  const q: Float64Array[] = new Array(T);
  for (let t = 0; t < T; t++) {
    const cur = new Float64Array(k * k * width);
    const w = L.of[t];
    const opens = t === L.start[w];
    const F = Fs[w];
    const steps = rev[t];
    const r = reach(L.end[w] - t + 1, spread, D);
    for (let pair = 0; pair < k * k; pair++) {
      if (pair % (k + 1) === 0) continue; // u = v
      const base = pair * width + D;
      if (!steps) {
        for (let d = -r; d <= r; d++) cur[base + d] = F[d + D];
        continue;
      }
      const { hasMet, met, from, to, shift, p } = steps;
      const prev = q[t - 1];
      if (opens) {
        // The earlier window is a fresh one: the expectation before t is the same for every d.
        let s = hasMet[pair] ? met[pair] : 0;
        for (let j = from[pair]; j < from[pair + 1]; j++) s += p[j] * (Math.abs(shift[j]) <= D ? prev[to[j] * width + shift[j] + D] : Infinity);
        for (let d = -r; d <= r; d++) cur[base + d] = F[d + D] * s;
        continue;
      }
      for (let d = -r; d <= r; d++) {
        let s = hasMet[pair] ? met[pair] * F[d + D] : 0;
        for (let j = from[pair]; j < from[pair + 1]; j++) {
          const dn = d + shift[j];
          s += p[j] * (Math.abs(dn) <= D ? prev[to[j] * width + dn + D] : Infinity);
        }
        cur[base + d] = s;
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
 */
function windowPast(
  k: number,
  D: number,
  L: Layout,
  w: number,
  f: readonly number[],
  spread: number,
  rev: (FlatSteps | null)[],
  q: Float64Array[],
): Float64Array[] {
  const width = 2 * D + 1;
  const s = L.start[w];
  const M: Float64Array[] = [];
  for (let t = s; t < L.end[w]; t++) {
    const cur = new Float64Array(k * k * width);
    const steps = rev[t];
    // M_{t−1}'s differences reach over t − s times.
    const r = reach(t - s, spread, D);
    for (let u = 0; u < k; u++)
      for (let v = 0; v < k; v++) {
        if (u === v) continue;
        const delta = f[u] - f[v];
        if (t === s) {
          cur[at(k, width, u, v, delta, D)] = outerPast(k, D, steps, q, s, u, v);
          continue;
        }
        const prev = M[t - 1 - s];
        const { hasMet, met, from, to, p } = steps!;
        const pair = u * k + v;
        if (hasMet[pair]) cur[at(k, width, u, v, delta, D)] += met[pair];
        const out = pair * width + D + delta;
        for (let j = from[pair]; j < from[pair + 1]; j++) {
          const base = to[j] * width + D;
          for (let x = -r; x <= r; x++) {
            const m = prev[base + x];
            if (m === 0) continue;
            cur[out + x] += p[j] * m;
          }
        }
      }
    M.push(cur);
  }
  return M;
}

/** The expected product of the windows before time s, from the pair (u, v) at s (1 at s = 0 or once met). */
function outerPast(k: number, D: number, steps: FlatSteps | null, q: Float64Array[], s: number, u: number, v: number): number {
  if (!steps) return 1;
  const width = 2 * D + 1;
  const pair = u * k + v;
  let sum = steps.hasMet[pair] ? steps.met[pair] : 0;
  for (let j = steps.from[pair]; j < steps.from[pair + 1]; j++) sum += steps.p[j] * q[s - 1][steps.to[j] * width + steps.shift[j] + D];
  return sum;
}

/** The bound's expectation for the secret X_i = a against X_i = b: the past of i's window convolved with its future. */
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
    M: Float64Array[];
  },
): number {
  const { k, D, L, f } = c;
  const width = 2 * D + 1;
  const s = L.start[L.of[i]];
  const steps = c.rev[i];
  // A(x): the past of the window (times s … i−1) has difference x, weighted by the outer past.
  const A = new Float64Array(width);
  if (i === s) A[D] = outerPast(k, D, steps, c.q, s, a, b);
  else {
    const { hasMet, met, from, to, p } = steps!;
    const pair = a * k + b;
    if (hasMet[pair]) A[D] += met[pair];
    const r = reach(i - s, c.spread, D);
    for (let j = from[pair]; j < from[pair + 1]; j++) {
      const base = to[j] * width + D;
      for (let x = -r; x <= r; x++) A[x + D] += p[j] * c.M[i - 1 - s][base + x];
    }
  }
  const own = f[a] - f[b];
  let total = 0;
  for (let x = -D; x <= D; x++) {
    if (A[x + D] === 0) continue;
    const d0 = x + own;
    total += A[x + D] * (Math.abs(d0) <= D ? c.h[i][at(k, width, a, b, d0, D)] : Infinity);
  }
  return total;
}
