import { InputError } from '../errors.js';

// The bootstrap class of a table's statistics (docs/math.md §20): draw i reweights every unit by a
// Poisson(1) weight that is a function of (seed, i, the unit's identity) alone. So the same draw
// gives every statistic of the table the same units with the same weights, and the laws of several
// statistics under a draw project onto each one's laws under it: a source ledger's class stays one
// set of priors however many statistics it records. Browser-safe: the engines compute the weight
// in SQL (md5 is in both DuckDB and PostgreSQL), text tables here, to the same integer.

/**
 * Poisson(1)'s distribution function at k = 0…16 times 2⁵² (rounded to nearest; computed to 60
 * digits): a 52-bit uniform h gets weight #{k : h ≥ T_k}, whose law is Poisson(1) to within 2⁻⁵²
 * per value (P(X > 16) < 2⁻⁵³ is folded into 16's mass).
 */
const POISSON_THRESHOLDS: readonly number[] = [
  1656781714176974, 3313563428353948, 4141954285442435, 4418084571138597, 4487117142562638, 4500923656847446, 4503224742561581, 4503553469092171,
  4503594559908495, 4503599125554753, 4503599582119379, 4503599623625254, 4503599627084077, 4503599627350140, 4503599627369145, 4503599627370412,
  4503599627370491,
];

/**
 * The text whose md5 draws a unit's weight in draw `draw`: seed and draw first (digits only, so
 * the unit's text after the second colon cannot make two keys equal).
 */
const weightKey = (seed: number, draw: number, unit: string): string => `${seed}:${draw}:${unit}`;

/**
 * A unit's Poisson(1) weight from the first 52 bits of its key's md5 (13 hex digits).
 */
function poissonWeight(md5Hex: string): number {
  const h = Number.parseInt(md5Hex.slice(0, 13), 16);
  let w = 0;
  while (w < POISSON_THRESHOLDS.length && h >= POISSON_THRESHOLDS[w]) w++;
  return w;
}

/**
 * The weight as SQL, `h` being the SQL integer of the key's md5's first 52 bits (`Engine.md5Bits`).
 * @example unitWeightSql('h').startsWith('CASE WHEN h < 1656781714176974 THEN 0') // true
 */
export const unitWeightSql = (h: string): string =>
  `CASE ${POISSON_THRESHOLDS.map((t, k) => `WHEN ${h} < ${t} THEN ${k}`).join(' ')} ELSE ${POISSON_THRESHOLDS.length} END`;

/**
 * The most rows a bootstrap class's draws may hold together (draws × the table's distinct (group,
 * secret, value) rows): streamed from the engine and tallied, about 150 bytes per row in all (adult's
 * 22 019 distinct weights by sex: 0.56 GB at 181 draws, 1.6 GB and 31 s at 454 for Theorem 1; the
 * page's text path 0.9 GB and 95 s there, most of it the units' md5). Kept inside a JavaScript heap.
 */
export const MAX_DRAWN_ROWS = 10_000_000;

/**
 * Refuses a class whose draws would exceed `MAX_DRAWN_ROWS`, naming the most draws that fit.
 * @example checkDrawnSize(1000, 100) // fits: nothing thrown
 */
export function checkDrawnSize(distinctRows: number, draws: number): void {
  if (distinctRows * draws <= MAX_DRAWN_ROWS) return;
  const fit = Math.floor(MAX_DRAWN_ROWS / distinctRows);
  throw Object.assign(
    new InputError(
      `bootstrap:${draws} would reweigh the table's ${distinctRows} distinct (group, secret, value) rows ${draws} times, above the ${MAX_DRAWN_ROWS} rows this tool holds at once: take ${fit >= 1 ? `at most bootstrap:${fit}` : 'the empirical prior'}, or a statistic of fewer distinct values`,
      'prior',
    ),
    { drawnSize: { distinctRows, draws, fit } },
  );
}

/** The refusal of `checkDrawnSize`, with its numbers (a source ledger words it for its fixed class). */
export const drawnSizeOf = (e: unknown): { distinctRows: number; draws: number; fit: number } | undefined =>
  e instanceof InputError ? (e as InputError & { drawnSize?: { distinctRows: number; draws: number; fit: number } }).drawnSize : undefined;

/**
 * The weights of one unit in draws 1…`draws` (draw 0, the table itself, weighs every unit 1).
 * @example unitWeights('7', { draws: 3, seed: 0 }).length // 3
 */
export function unitWeights(unit: string, c: { draws: number; seed: number }): number[] {
  return Array.from({ length: c.draws }, (_, i) => poissonWeight(md5Hex(weightKey(c.seed, i + 1, unit))));
}

const S = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20];
const S2 = [4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21];
const SHIFTS = [...S, ...S2];
const K = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) >>> 0);

/**
 * MD5 of a text's UTF-8 bytes, as lowercase hex (RFC 1321): what SQL's `md5(text)` gives, for
 * text tables without an engine. Not for security: only to agree with the engines' weights.
 * @example md5Hex('a') // '0cc175b9c0f1b6a831c399e269772661'
 */
export function md5Hex(text: string): string {
  const bytes = new TextEncoder().encode(text);
  const words = new Uint32Array((((bytes.length + 8) >>> 6) + 1) * 16);
  bytes.forEach((b, i) => {
    words[i >> 2] |= b << ((i % 4) * 8);
  });
  words[bytes.length >> 2] |= 0x80 << ((bytes.length % 4) * 8);
  words[words.length - 2] = (bytes.length * 8) >>> 0;
  words[words.length - 1] = Math.floor(bytes.length / 2 ** 29);
  const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];
  for (let o = 0; o < words.length; o += 16) {
    let [a, b, c, d] = h;
    for (let i = 0; i < 64; i++) {
      const round = i >> 4;
      const f = round === 0 ? (b & c) | (~b & d) : round === 1 ? (d & b) | (~d & c) : round === 2 ? b ^ c ^ d : c ^ (b | ~d);
      const g = round === 0 ? i : round === 1 ? (5 * i + 1) % 16 : round === 2 ? (3 * i + 5) % 16 : (7 * i) % 16;
      const x = (a + f + K[i] + words[o + g]) >>> 0;
      const r = SHIFTS[i];
      [a, d, c] = [d, c, b];
      b = (b + ((x << r) | (x >>> (32 - r)))) >>> 0;
    }
    h[0] = (h[0] + a) >>> 0;
    h[1] = (h[1] + b) >>> 0;
    h[2] = (h[2] + c) >>> 0;
    h[3] = (h[3] + d) >>> 0;
  }
  return h.map((w) => Array.from({ length: 4 }, (_, j) => ((w >>> (8 * j)) & 0xff).toString(16).padStart(2, '0')).join('')).join('');
}
