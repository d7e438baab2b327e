import { userRecord } from '../records.js';
import type { Prior, Scenario } from '../distribution/scenario.js';
import { pointScenarioOf, type PointScenario } from '../distribution/points.js';
import { fromCounts, fromWeights } from '../distribution/discrete.js';
import { InputError } from '../errors.js';
import { checkWhole, PRIOR_DRAWS } from '../settings.js';
import { logGamma } from '../numerics/float.js';
import type { Histogram, TableHistograms, UnitBootstrap } from './histogramTypes.js';

/**
 * Seeded generator for *prior classes* (bootstrap, Dirichlet): reproducible by design, never
 * used for releases (those draw from the CSPRNG). xoshiro128** seeded through SplitMix32.
 */
export function seededUniform(seed: number): () => number {
  let z = seed >>> 0;
  const split = () => {
    z = (z + 0x9e3779b9) >>> 0;
    let t = z;
    t = Math.imul(t ^ (t >>> 16), 0x85ebca6b) >>> 0;
    t = Math.imul(t ^ (t >>> 13), 0xc2b2ae35) >>> 0;
    return (t ^ (t >>> 16)) >>> 0;
  };
  const s = [split(), split(), split(), split()];
  const next32 = () => {
    const r = Math.imul(((Math.imul(s[1], 5) << 7) | (Math.imul(s[1], 5) >>> 25)) >>> 0, 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] = (s[2] ^ t) >>> 0;
    s[3] = ((s[3] << 11) | (s[3] >>> 21)) >>> 0;
    return r;
  };
  return () => ((next32() >>> 5) * 67108864 + (next32() >>> 6)) / 9007199254740992; // 53 bits in [0,1)
}

/** Binomial(n, p) by inversion, searching outwards from the mode (exact law; O(√(np(1−p))) steps). */
export function binomial(n: number, p: number, u: () => number): number {
  if (n === 0 || p <= 0) return 0;
  if (p >= 1) return n;
  const m = Math.min(n, Math.floor((n + 1) * p));
  const logPm = logGamma(n + 1) - logGamma(m + 1) - logGamma(n - m + 1) + m * Math.log(p) + (n - m) * Math.log1p(-p);
  const r = p / (1 - p);
  let target = u();
  let lo = m,
    hi = m,
    pLo = Math.exp(logPm),
    pHi = pLo;
  target -= pLo;
  if (target < 0) return m;
  for (;;) {
    const nextHi = hi < n ? (pHi * (n - hi) * r) / (hi + 1) : 0;
    const nextLo = lo > 0 ? (pLo * lo) / ((n - lo + 1) * r) : 0;
    if (nextHi === 0 && nextLo === 0) return m; // rounding left mass unassigned: mode
    if (nextHi >= nextLo) {
      hi++;
      pHi = nextHi;
      target -= pHi;
      if (target < 0) return hi;
    } else {
      lo--;
      pLo = nextLo;
      target -= pLo;
      if (target < 0) return lo;
    }
  }
}

/** Standard normal (Box–Muller) and Gamma(shape, 1) (Marsaglia–Tsang; shape < 1 boosted). */
export function gamma(shape: number, u: () => number): number {
  if (shape < 1) return gamma(shape + 1, u) * u() ** (1 / shape);
  const d = shape - 1 / 3,
    c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const z = Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
    const v = (1 + c * z) ** 3;
    if (v <= 0) continue;
    const x = u();
    if (Math.log(x) < 0.5 * z * z + d - d * v + d * Math.log(v)) return d * v;
  }
}

export interface PriorClass {
  kind: 'empirical' | 'bootstrap' | 'dirichlet';
  draws?: number;
  concentration?: number;
  seed?: number;
}

/** `bootstrap:N`, `dirichlet:N[:C]` or `empirical`. */
export function parsePriorClass(text: string, seed = 0): PriorClass {
  const m = /^(empirical|bootstrap:(\d+)|dirichlet:(\d+)(?::([0-9.eE+-]+))?)$/.exec(text.trim());
  if (!m) throw new InputError(`must be empirical, bootstrap:N or dirichlet:N[:CONCENTRATION], got '${text}'`, 'prior');
  if (m[1] === 'empirical') return { kind: 'empirical' };
  const draws = Number(m[2] ?? m[3]);
  if (!(draws >= PRIOR_DRAWS.min && draws <= PRIOR_DRAWS.max))
    throw new InputError(`N must be from ${PRIOR_DRAWS.min} to ${PRIOR_DRAWS.max}, got ${draws}`, 'prior');
  checkWhole('seed', seed);
  if (m[2]) return { kind: 'bootstrap', draws, seed };
  const concentration = m[4] === undefined ? 1 : Number(m[4]);
  if (!(concentration > 0) || !Number.isFinite(concentration)) throw new InputError(`concentration must be > 0, got '${m[4]}'`, 'prior');
  return { kind: 'dirichlet', draws, concentration, seed };
}

/**
 * A statistic's bootstrap class, whose draws the engine (or a text table's tally) weighs unit by
 * unit (`unitWeights.ts`); undefined for the empirical prior or a Dirichlet class.
 * @example unitBootstrap('bootstrap:20', 3) // { draws: 20, seed: 3 }
 */
export function unitBootstrap(prior: string | undefined, seed = 0): UnitBootstrap | undefined {
  const cls = prior === undefined ? undefined : parsePriorClass(prior, seed);
  return cls?.kind === 'bootstrap' ? { draws: cls.draws!, seed } : undefined;
}

function resample(h: Histogram, cls: PriorClass, u: () => number): { values: number[]; weights?: number[]; counts?: number[] } {
  if (cls.kind === 'bootstrap') {
    // Multinomial(n, p̂) as sequential binomials: the conditional of n resampled rows.
    const n = h.counts.reduce((a, b) => a + b, 0);
    let left = n,
      mass = 1;
    const counts = h.counts.map((c, i) => {
      if (i === h.counts.length - 1) return left;
      const p = c / n / mass;
      const k = binomial(left, Math.min(1, p), u);
      left -= k;
      mass -= c / n;
      return k;
    });
    return { values: h.values, counts };
  }
  // Posterior of a multinomial under a symmetric Dirichlet(C) prior: Dirichlet(counts + C).
  const g = h.counts.map((c) => gamma(c + cls.concentration!, u));
  const s = g.reduce((a, b) => a + b, 0);
  return { values: h.values, weights: g.map((x) => x / s) };
}

export interface TableScenario {
  scenario: Scenario;
  /** Public values left out because fewer than two secrets have rows there (no pair to protect). */
  skippedGiven: string[];
  /** Public values where some secrets have no rows: their pairs with those secrets are left out there. */
  absentGiven: { value: string; absent: string[] }[];
}

const NO_PAIR = 'no public value has rows of two secrets';

/**
 * Whether `tableScenario` refused for want of a pair (no public value holds two secrets), and for
 * nothing else: a caller may read that as "nothing to protect", never a refusal of its size.
 * @example isNoPair(new InputError('no public value has rows of two secrets', 'given')) // true
 */
export const isNoPair = (e: unknown): boolean => e instanceof InputError && e.path === 'given' && e.reason === NO_PAIR;

/** Most priors a table scenario may build (draws × public values). */
const MAX_PRIORS = 20_000;

/**
 * A scenario from table histograms: per public value, the empirical conditionals plus, for a
 * robust class, N bootstrap (stratified: each conditional resamples its own rows) or Dirichlet
 * posterior draws. The class always contains the empirical prior itself.
 */
export function tableScenario(h: TableHistograms, opts: { name: string; prior?: PriorClass; pairs?: [string, string][]; given?: string }): TableScenario {
  const cls = opts.prior ?? { kind: 'empirical' };
  if (h.draws && cls.kind !== 'empirical') throw new Error('a statistic bootstrap draws its priors in the engine: no prior class beside it');
  const drawn = h.draws?.length ?? cls.draws ?? 0;
  // Bound the work before doing it: every prior is calibrated for every pair.
  const total = h.groups.size * (1 + drawn);
  if (total > MAX_PRIORS) {
    throw new InputError(
      `would build ${total} priors (${h.groups.size} public value(s) × ${1 + drawn}), each calibrated for every secret pair; at most ${MAX_PRIORS}: use fewer draws or a coarser --given (or --group-by) column`,
      'prior',
    );
  }
  const u = seededUniform(cls.seed ?? 0);
  const priors: Prior[] = [];
  const skippedGiven: string[] = [];
  const absentGiven: { value: string; absent: string[] }[] = [];
  for (const [gv, m] of h.groups) {
    // A public value without rows of some secret still constrains the pairs it has rows for.
    const present = h.secrets.filter((s) => m.has(s));
    const absent = h.secrets.filter((s) => !m.has(s));
    if (present.length < 2) {
      skippedGiven.push(gv);
      continue;
    }
    if (absent.length) absentGiven.push({ value: gv, absent });
    // (A given of '' names groups whose keys say their columns themselves: a source's several group columns.)
    const suffix = opts.given ? ` | ${opts.given}=${gv}` : opts.given === '' && gv !== '' ? ` | ${gv}` : '';
    const conds = (make: (hist: Histogram, s: string) => Prior['conditionals'][string]) => userRecord(present.map((s) => [s, make(m.get(s)!, s)]));
    // Secrets weighted by their row counts (for mutual information).
    const probabilities = userRecord(present.map((s) => [s, m.get(s)!.counts.reduce((a, b) => a + b, 0)]));
    const none = absent.length ? { absent } : {};
    priors.push({ name: `empirical${suffix}`, conditionals: conds((x, s) => fromCounts(x.values, x.counts, `${s}${suffix}`)), probabilities, ...none });
    // A statistic's bootstrap: draw i is the same units reweighted (`unitWeights.ts`); a secret whose
    // units all drew weight 0 is absent from that prior, and a prior with fewer than two is none.
    h.draws?.forEach((d, i) => {
      const md = d.get(gv) ?? new Map<string, Histogram>();
      const has = h.secrets.filter((s) => md.has(s));
      if (has.length < 2) return;
      const left = h.secrets.filter((s) => !md.has(s));
      priors.push({
        name: `bootstrap#${i + 1}${suffix}`,
        conditionals: userRecord(has.map((s) => [s, fromCounts(md.get(s)!.values, md.get(s)!.counts, `${s}${suffix}`)])),
        probabilities: userRecord(has.map((s) => [s, md.get(s)!.counts.reduce((a, b) => a + b, 0)])),
        ...(left.length ? { absent: left } : {}),
      });
    });
    for (let i = 1; i <= (h.draws ? 0 : (cls.draws ?? 0)); i++) {
      priors.push({
        name: `${cls.kind}#${i}${suffix}`,
        probabilities,
        ...none,
        conditionals: conds((x, s) => {
          const r = resample(x, cls, u);
          return r.counts ? fromCounts(r.values, r.counts, s) : fromWeights(r.values, r.weights!, s);
        }),
      });
    }
  }
  if (priors.length === 0) throw new InputError(NO_PAIR, 'given');
  return { scenario: { name: opts.name, priors, pairs: opts.pairs }, skippedGiven, absentGiven };
}

/** A table's laws as every edge takes them: the scenario (on ℝ^d for a vector query), what was left out, and the rows behind it. */
export interface TableLaws extends Omit<TableScenario, 'scenario'> {
  scenario: Scenario | PointScenario;
  /** Rows behind the priors built (those of public values left out are not counted). */
  used: number;
}

/**
 * The laws of a table's histograms (the engine's, or the page's own parse), built one way for the
 * CLI's `--data`, `scenarioFromTable` and the web page: `tableScenario`, a vector query's atoms
 * mapped back to its vectors, and the rows the priors rest on.
 * @example tableLaws({ groups: new Map([['', new Map([['a', { values: [0, 1], counts: [3, 1] }], ['b', { values: [0, 1], counts: [1, 3] }]])]]), rows: 8, dropped: 0, secrets: ['a', 'b'] }, { name: 't' }).used // 8
 */
export function tableLaws(h: TableHistograms, opts: Parameters<typeof tableScenario>[1]): TableLaws {
  const t = tableScenario(h, opts);
  let used = 0;
  for (const [gv, g] of h.groups) if (!t.skippedGiven.includes(gv)) for (const hist of g.values()) used += hist.counts.reduce((a, b) => a + b, 0);
  return { ...t, scenario: h.vectors ? pointScenarioOf(t.scenario, h.vectors) : t.scenario, used };
}
