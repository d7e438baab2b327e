/**
 * Markov chains as a law source: the spec, its validation, and the stationary law.
 *
 * A chain is X_0, …, X_{T−1} (times are 0-based here; Song et al. count from 1) on k states with
 * transition matrix P and initial law q. Every user-chosen name (state, chain) is kept in a Map
 * or an array, never as an object key, so "constructor" or "__proto__" are ordinary names.
 */
import { InputError, NumericalError, unknownName } from '../errors.js';
import { ratioToNumber } from '../numerics/float.js';
import { dyadic } from './extended.js';
import { checkShape, OBJECT } from '../shapes.js';

/** The spec's shape errors, one wording each. */
const notObject = (path: string, shape = '') => new InputError(`is not an object${shape}`, path);
const notName = (path: string) => new InputError('is not a non-empty string', path);
/** A spec value as the message quotes it: a string says so (JSON numbers are written without quotes). */
const asGiven = (v: unknown) => (typeof v === 'string' ? `the string ${JSON.stringify(v)} (numbers are written without quotes)` : String(v));
const notFinite = (v: unknown, path: string) => new InputError(`${asGiven(v)} is not a finite number`, path);

/** Where the chain starts: its stationary law, a given law, or any law at all (the class of all of them). */
type Initial = 'stationary' | number[] | 'any';

export interface MarkovChain {
  name: string;
  /** Row x is the law of X_{t+1} given X_t = x, in the order of `states`. */
  transition: number[][];
  initial: Initial;
}

/** The released statistic: a count of one state, a sum of per-state values, or the histogram of states. */
export type MarkovQuery = { count: string } | { sum: Record<string, number> } | { histogram: true };

/** The query with states as indices: `values[x]` is the per-step value of state x (0 when not named). */
export type StepQuery = { kind: 'count'; state: number } | { kind: 'sum'; values: number[] } | { kind: 'histogram' };

/** A validated chain; `initial` is the stationary law already computed when the spec asked for it. */
export interface ValidChain {
  name: string;
  transition: number[][];
  initial: InitialLaw | 'any';
  /** True when `initial` was computed as the stationary law. */
  stationary: boolean;
}

/**
 * An initial law with its rounding count: each q[x] is the exact law's entry times a factor in
 * [(1−u)^r, (1−u)^−r], u = 2^−53, r = `roundings` (0 for a law given in the spec).
 */
export interface InitialLaw {
  law: number[];
  roundings: number;
}

/** A validated chain class with its query (and windows), as `validateSpec` makes it. */
export interface MarkovModel {
  states: string[];
  stateIndex: Map<string, number>;
  chains: ValidChain[];
  length: number;
  query: StepQuery;
  /** How much one X_t moves the query: 1 for a count, the range of the values for a sum, 2 (ℓ₁) for the histogram. */
  lipschitz: number;
  /**
   * The class of every chain on `states` with eigengap ≥ gap and stationary π_min ≥ piMin (Song et
   * al. 2017, MQMApprox), given instead of `chains` (which is then empty): only the methods that
   * read no transition matrix apply.
   */
  eigengap?: { gap: number; piMin: number };
  /** A count (or a sum of whole-number values) released per window (docs/math.md §19): the windows' lengths, tiling `length`. */
  windows?: number[];
  /** Where a spec gave the query (`spec.markov.query`): a refusal of it names that field, not a flag. */
  queryAt?: string;
}

/** Rows must sum to 1 within this (the spec is typed by people and rounded by machines). */
const ROW_SUM_TOLERANCE = 1e-12;

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function field(obj: Record<string, unknown>, key: string, path: string): unknown {
  if (!Object.hasOwn(obj, key)) throw new InputError('is missing', `${path}.${key}`);
  return obj[key];
}

function checkStates(raw: unknown, path: string): { states: string[]; stateIndex: Map<string, number> } {
  if (!Array.isArray(raw) || raw.length < 2) throw new InputError('needs a list of at least two states', path);
  const stateIndex = new Map<string, number>();
  raw.forEach((s, i) => {
    if (typeof s !== 'string' || s.length === 0) throw notName(`${path}[${i}]`);
    if (stateIndex.has(s)) throw new InputError(`state "${s}" is listed twice`, `${path}[${i}]`);
    stateIndex.set(s, i);
  });
  return { states: raw as string[], stateIndex };
}

/**
 * Checks that `raw` is a probability vector of length k: finite, non-negative, summing to 1 within 1e-12.
 * @example checkProbabilities([0.5, 0.5], 2, 'p') // [0.5, 0.5]; checkProbabilities([0.5, 0.4], 2, 'p') throws "p: row sums to 0.9, …"
 */
function checkProbabilities(raw: unknown, k: number, path: string, what = 'row'): number[] {
  if (!Array.isArray(raw) || raw.length !== k) {
    throw new InputError(`needs ${k} entries, one per state, but has ${Array.isArray(raw) ? raw.length : 'none'}`, path);
  }
  let sum = 0;
  raw.forEach((v, j) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw notFinite(v, `${path}[${j}]`);
    if (v < 0) throw new InputError(`${v} is negative`, `${path}[${j}]`);
    sum += v;
  });
  // The floating sum of k entries in [0, 1] errs by at most k·2^−53 (1e-13 for k = 1000): far inside the tolerance.
  if (!(Math.abs(sum - 1) <= ROW_SUM_TOLERANCE)) throw new InputError(`${what} sums to ${sum}, not 1 (within ${ROW_SUM_TOLERANCE})`, path);
  return raw as number[];
}

function checkTransition(raw: unknown, k: number, path: string): number[][] {
  if (!Array.isArray(raw) || raw.length !== k) {
    throw new InputError(`needs ${k} rows (a ${k}×${k} matrix), but has ${Array.isArray(raw) ? raw.length : 'none'}`, path);
  }
  return raw.map((row, x) => checkProbabilities(row, k, `${path}[${x}]`));
}

function checkInitial(raw: unknown, transition: number[][], path: string): { initial: InitialLaw | 'any'; stationary: boolean } {
  if (raw === 'any') return { initial: 'any', stationary: false };
  if (raw === 'stationary') return { initial: stationaryLaw(transition, path), stationary: true };
  if (typeof raw === 'string') throw new InputError(`"${raw}" is not "stationary", "any" or a list of probabilities`, path);
  return { initial: { law: checkProbabilities(raw, transition.length, path, 'initial law'), roundings: 0 }, stationary: false };
}

/** A misspelt key ("intial") must not fall back to a default silently: only known keys are taken. */
function onlyKeys(raw: Record<string, unknown>, known: readonly string[], path: string): void {
  for (const key of Object.keys(raw))
    if (!known.includes(key)) throw new InputError(`Unrecognized key: ${JSON.stringify(key)} (known: ${known.join(', ')})`, path);
}

function checkChain(raw: unknown, k: number, path: string): ValidChain {
  if (!isRecord(raw)) throw notObject(path);
  onlyKeys(raw, ['name', 'transition', 'initial', 'transitionCounts'], path);
  const name = field(raw, 'name', path);
  if (typeof name !== 'string' || name.length === 0) throw notName(`${path}.name`);
  const transition = checkTransition(field(raw, 'transition', path), k, `${path}.transition`);
  const initial = Object.hasOwn(raw, 'initial') ? raw.initial : 'stationary'; // the usual prior for a chain
  return { name, transition, ...checkInitial(initial, transition, `${path}.initial`) };
}

function checkChains(raw: unknown, k: number, path: string): ValidChain[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new InputError('needs a list of at least one chain', path);
  const names = new Set<string>();
  return raw.map((c, i) => {
    const chain = checkChain(c, k, `${path}[${i}]`);
    if (names.has(chain.name)) throw new InputError(`chain "${chain.name}" is named twice`, `${path}[${i}].name`);
    names.add(chain.name);
    return chain;
  });
}

function checkLength(raw: unknown, path: string): number {
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 1) throw new InputError(`${asGiven(raw)} is not an integer ≥ 1`, path);
  return raw;
}

function stateOf(name: unknown, stateIndex: Map<string, number>, path: string): number {
  const i = typeof name === 'string' ? stateIndex.get(name) : undefined;
  if (i === undefined) throw unknownName('state', typeof name === 'string' ? name : JSON.stringify(name), [...stateIndex.keys()], path);
  return i;
}

function checkSum(raw: unknown, stateIndex: Map<string, number>, path: string): StepQuery {
  if (!isRecord(raw)) throw notObject(path, ' {state: value, …}');
  const values = new Array<number>(stateIndex.size).fill(0);
  const keys = Object.keys(raw);
  if (keys.length === 0) throw new InputError('names no state', path);
  for (const key of keys) {
    const v = raw[key];
    const x = stateOf(key, stateIndex, `${path}.${key}`);
    if (typeof v !== 'number' || !Number.isFinite(v)) throw notFinite(v, `${path}.${key}`);
    values[x] = v;
  }
  return { kind: 'sum', values };
}

/** The window keys a count query may carry (docs/math.md §19). */
const WINDOW_KEYS = ['windows', 'windowLength'];

function checkQuery(raw: unknown, stateIndex: Map<string, number>, path: string): StepQuery {
  if (!isRecord(raw)) throw notObject(path);
  const keys = Object.keys(raw).filter((k) => !WINDOW_KEYS.includes(k));
  if (keys.length < Object.keys(raw).length && keys[0] !== 'count' && keys[0] !== 'sum')
    throw new InputError('windows take a count or a sum per window: give "count" or "sum" with "windows" or "windowLength"', path);
  if (keys.length !== 1) throw new InputError('needs exactly one of "count", "sum", "histogram"', path);
  const [kind] = keys;
  if (kind === 'count') return { kind: 'count', state: stateOf(raw.count, stateIndex, `${path}.count`) };
  if (kind === 'sum') return checkSum(raw.sum, stateIndex, `${path}.sum`);
  if (kind === 'histogram' && raw.histogram === true) return { kind: 'histogram' };
  if (kind === 'histogram') throw new InputError('must be true', `${path}.histogram`);
  throw new InputError(`"${kind}" is not one of "count", "sum", "histogram"`, path);
}

/**
 * The Lipschitz constant of the query in one X_t: how far F moves when one state changes.
 * @example lipschitzOf({ kind: 'sum', values: [0, 2.5, -1] }) // 3.5
 */
export function lipschitzOf(query: StepQuery): number {
  if (query.kind === 'count') return 1;
  if (query.kind === 'histogram') return 2; // one count down, another up: ℓ₁ distance 2
  return Math.max(...query.values) - Math.min(...query.values);
}

/**
 * Which states each time may hold under one chain, read off the zeros of its initial law and
 * kernel (no marginal is multiplied out, so none underflows to a false 0). `visit` sees each
 * time's possible states; returning true stops the walk. A chain whose initial law is 'any' may
 * start anywhere.
 */
export function walkPossibleStates(chain: ValidChain, length: number, visit: (possible: readonly number[]) => boolean | undefined): void {
  const k = chain.transition.length;
  let possible = [...Array(k).keys()].filter((a) => chain.initial === 'any' || chain.initial.law[a] > 0);
  for (let i = 0; i < length; i++) {
    if (visit(possible)) return;
    const next = new Set<number>();
    for (const a of possible) for (let b = 0; b < k; b++) if (chain.transition[a][b] > 0) next.add(b);
    possible = [...next].sort((x, y) => x - y);
  }
}

/**
 * The states no chain of the class gives positive probability at any time (a state of a fitted
 * chain seen only at the series' start: the stationary start gives it 0): no secret names them.
 * @example neverPossible(validateSpec({ states: ['a', 'b', 'x'], chains: [{ name: 'p', transition: [[0.5, 0.5, 0], [0.5, 0.5, 0], [0.5, 0.5, 0]], initial: [0.5, 0.5, 0] }], length: 3, query: { count: 'a' } })) // ['x']
 */
export function neverPossible(model: MarkovModel): string[] {
  checkShape(OBJECT, model, 'model');
  if (model.eigengap) return [];
  const seen = new Set<number>();
  for (const c of model.chains)
    walkPossibleStates(c, model.length, (possible) => {
      for (const a of possible) seen.add(a);
      return false;
    });
  return model.states.filter((_, a) => !seen.has(a));
}

/** The sentence saying which states no secret names (see `neverPossible`), or '' when every state may occur. */
export function neverPossibleNote(model: MarkovModel): string {
  const none = neverPossible(model);
  if (!none.length) return '';
  const list = none.map((x) => `'${x}'`).join(', ');
  return `${none.length > 1 ? 'states' : 'state'} ${list} ${none.length > 1 ? 'have' : 'has'} probability 0 at every time under the chain${model.chains.length > 1 ? 's' : ''}: no secret X_i = ${none[0]} is protected, as none can occur`;
}

/**
 * The eigengap class {gap, piMin}: every chain on k states whose eigengap is at least `gap`
 * (0 < gap ≤ 1: 1 − |λ₂| of a reversible chain, (1 − |λ₂(P·P*)|)/2 otherwise) and whose stationary
 * law's least entry is at least `piMin` (0 < piMin ≤ 1/k: k entries sum to 1).
 */
function checkEigengap(raw: unknown, k: number, path: string): { gap: number; piMin: number } {
  if (!isRecord(raw)) throw notObject(path, ' {"gap": g, "piMin": p}');
  onlyKeys(raw, ['gap', 'piMin'], path);
  const gap = field(raw, 'gap', path),
    piMin = field(raw, 'piMin', path);
  if (typeof gap !== 'number' || !Number.isFinite(gap)) throw notFinite(gap, `${path}.gap`);
  if (!(gap > 0 && gap <= 1)) throw new InputError(`${gap} is not in (0, 1]: a chain's eigengap is at most 1, and 0 bounds nothing`, `${path}.gap`);
  if (typeof piMin !== 'number' || !Number.isFinite(piMin)) throw notFinite(piMin, `${path}.piMin`);
  // Within the rows' tolerance: an approximate stationary law (the reference's first row of P^100) can exceed 1/k by rounding.
  if (!(piMin > 0 && piMin <= 1 / k + ROW_SUM_TOLERANCE))
    throw new InputError(`${piMin} is not in (0, 1/${k}]: the least of ${k} stationary probabilities is at most 1/${k}`, `${path}.piMin`);
  return { gap, piMin };
}

/**
 * Validates a `markov` spec and computes what it implies (stationary laws, the query's indices,
 * its Lipschitz constant). Throws InputError naming the offending field under `path`.
 * @example validateSpec({ states: ['dry', 'wet'], chains: [{ name: 'c', transition: [[0.8, 0.2], [0.3, 0.7]], initial: 'stationary' }], length: 100, query: { count: 'wet', windowLength: 50 } }).windows // [50, 50]
 */
export function validateSpec(raw: unknown, path = 'markov'): MarkovModel {
  if (!isRecord(raw)) throw notObject(path);
  onlyKeys(raw, ['states', 'chains', 'eigengap', 'length', 'query'], path);
  const { states, stateIndex } = checkStates(field(raw, 'states', path), `${path}.states`);
  const byClass = Object.hasOwn(raw, 'eigengap');
  if (byClass && Object.hasOwn(raw, 'chains'))
    throw new InputError('gives both "chains" and "eigengap": give the chains, or the eigengap class of chains (MQMApprox only)', path);
  if (!byClass && !Object.hasOwn(raw, 'chains'))
    throw new InputError('needs "chains" (the transition matrices) or "eigengap" (a class of chains: {"gap", "piMin"})', path);
  const chains = byClass ? [] : checkChains(raw.chains, states.length, `${path}.chains`);
  const eigengap = byClass ? checkEigengap(raw.eigengap, states.length, `${path}.eigengap`) : undefined;
  const length = checkLength(field(raw, 'length', path), `${path}.length`);
  const query = checkQuery(field(raw, 'query', path), stateIndex, `${path}.query`);
  const windows = windowsOfQuery(raw.query as Record<string, unknown>, length, `${path}.query`);
  return {
    states,
    stateIndex,
    chains,
    length,
    query,
    lipschitz: lipschitzOf(query),
    ...(eigengap ? { eigengap } : {}),
    ...(windows ? { windows } : {}),
  };
}

/** A count or sum query's windows: `"windows": [L1, L2, …]` tiling the length, or `"windowLength": N` dividing it. */
function windowsOfQuery(q: Record<string, unknown>, length: number, path: string): number[] | undefined {
  const has = (k: string) => Object.hasOwn(q, k);
  if (has('windows') && has('windowLength')) throw new InputError('gives both "windows" and "windowLength": give one', path);
  const whole = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 1;
  if (has('windowLength')) {
    const n = q.windowLength;
    if (!whole(n)) throw new InputError(`${asGiven(n)} is not a whole number of steps ≥ 1`, `${path}.windowLength`);
    if (length % (n as number) !== 0) throw new InputError(`windows of ${n} steps do not tile the chain's ${length}`, `${path}.windowLength`);
    return new Array<number>(length / (n as number)).fill(n as number);
  }
  if (!has('windows')) return undefined;
  const w = q.windows;
  if (!Array.isArray(w) || w.length === 0 || !w.every(whole)) throw new InputError('must be a list of whole numbers of steps ≥ 1', `${path}.windows`);
  const total = (w as number[]).reduce((a, b) => a + b, 0);
  if (total !== length) throw new InputError(`the windows cover ${total} steps but the chain has ${length}: they must tile it`, `${path}.windows`);
  return [...(w as number[])];
}

/** reach[i][j]: j can be reached from i in zero or more steps (Warshall's closure; k is small). */
function reachability(P: readonly (readonly number[])[]): boolean[][] {
  const k = P.length;
  const reach = P.map((row, i) => row.map((p, j) => p > 0 || i === j));
  for (let m = 0; m < k; m++) {
    for (let i = 0; i < k; i++) if (reach[i][m]) for (let j = 0; j < k; j++) reach[i][j] ||= reach[m][j];
  }
  return reach;
}

/**
 * The closed communicating classes of P (sets no path leaves), each as a sorted list of states.
 * @example closedClasses([[1, 0], [0.5, 0.5]]) // [[0]]
 */
export function closedClasses(P: readonly (readonly number[])[]): number[][] {
  const reach = reachability(P);
  const k = P.length;
  const classes: number[][] = [];
  const seen = new Array<boolean>(k).fill(false);
  for (let i = 0; i < k; i++) {
    if (seen[i]) continue;
    const cls = [...Array(k).keys()].filter((j) => reach[i][j] && reach[j][i]);
    for (const j of cls) seen[j] = true;
    const closed = cls.every((x) => P[x].every((p, j) => p === 0 || reach[j][x]));
    if (closed) classes.push(cls);
  }
  return classes;
}

/**
 * The off-diagonal entries of a block as non-negative integers: each double is m·2^e exactly,
 * so one common power of two makes them all integers (scaling every rate by a constant does not
 * change the stationary law).
 */
function integerRates(block: readonly (readonly number[])[]): bigint[][] {
  const parts = block.map((row, i) => row.map((v, j) => (i === j ? { m: 0n, e: 0 } : dyadic(v))));
  const low = Math.min(0, ...parts.flat().map((d) => (d.m === 0n ? 0 : d.e)));
  return parts.map((row) => row.map((d) => d.m << BigInt(d.e - low)));
}

/**
 * One GTH elimination step in integers: the censored chain on 0..n−1 scaled by s_n,
 * A[i][j] ← s_n·A[i][j] + A[i][n]·A[n][j]. As in Bareiss's elimination every new entry is
 * divisible by the previous step's s; the division is made only when checked exact (it keeps
 * the numbers at about k·53 bits instead of doubling their size each step).
 */
function eliminate(A: bigint[][], n: number, s: bigint, previous: bigint): void {
  let divisible = previous !== 1n;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (i === j) continue;
      A[i][j] = s * A[i][j] + A[i][n] * A[n][j];
      divisible &&= A[i][j] % previous === 0n;
    }
  }
  if (!divisible) return;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j) A[i][j] /= previous;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/**
 * Grassmann–Taksar–Heyman elimination on an irreducible block, exact in integers: GTH never
 * subtracts, and each step's censored chain is kept as an integer matrix up to a common factor
 * (which does not change its stationary law). Returns integers proportional to the stationary
 * law of the chain with the block's off-diagonal rates (its diagonal is never read).
 */
function exactGth(block: readonly (readonly number[])[]): bigint[] {
  const m = block.length;
  const A = integerRates(block);
  const s = new Array<bigint>(m).fill(0n);
  for (let n = m - 1; n >= 1; n--) {
    for (let j = 0; j < n; j++) s[n] += A[n][j];
    if (s[n] === 0n) throw new NumericalError('GTH elimination met an empty row: the block is not irreducible');
    eliminate(A, n, s[n], n === m - 1 ? 1n : s[n + 1]);
  }
  // π_n = Σ_{i<n} π_i·A[i][n]/s_n, kept as integers X ∝ π by scaling the earlier ones by s_n.
  const X: bigint[] = [1n];
  for (let n = 1; n < m; n++) {
    let v = 0n;
    for (let i = 0; i < n; i++) v += X[i] * A[i][n];
    for (let i = 0; i < n; i++) X[i] *= s[n];
    X.push(v);
    const g = X.reduce(gcd);
    if (g > 1n) for (let i = 0; i <= n; i++) X[i] /= g;
  }
  return X;
}

/**
 * The stationary law of P: exact (GTH in integers) on the unique closed class, zero on the
 * transient states, then rounded to doubles: each π_j is the exact value times a factor within
 * (1−u)^∓2 (`roundings` = 2; ratioToNumber rounds within 1.0001·u). Exact for the chain with P's
 * off-diagonal entries, whose diagonal is 1 minus the rest of its row (P itself when its rows
 * sum to exactly 1). Throws InputError when the stationary law is not unique (two or more
 * closed classes).
 * @example stationaryLaw([[0.8, 0.2], [0.3, 0.7]]).law // [0.6, 0.4]
 */
export function stationaryLaw(P: readonly (readonly number[])[], path = 'initial'): InitialLaw {
  const classes = closedClasses(P);
  if (classes.length !== 1) {
    throw new InputError(`the chain has ${classes.length} closed classes, so its stationary law is not unique; give the initial law`, path);
  }
  const [cls] = classes;
  const X = exactGth(cls.map((i) => cls.map((j) => P[i][j])));
  const total = X.reduce((a, b) => a + b, 0n);
  const law = new Array<number>(P.length).fill(0);
  cls.forEach((s, i) => {
    law[s] = ratioToNumber(X[i], total);
  });
  return { law, roundings: 2 };
}
