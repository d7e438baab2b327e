import { readFileSync } from 'node:fs';
import { InputError } from '../errors.js';
import { decimalValue } from '../numerics/float.js';
import { checkProjectionWidth, projection, type Projection } from '../mi/projection.js';
import { seededUniform } from './priors.js';

/** The largest sketch drawn: rows, and rows × columns. */
const MAX_SKETCH_ROWS = 100_000;
const MAX_SKETCH_ENTRIES = 10_000_000;

/**
 * A seeded Gaussian sketch: k×d entries N(0, 1/k) (Box–Muller on the seeded generator), so a
 * projection is reproduced exactly from (k, d, seed). The matrix is public; it never depends on
 * the data.
 * @example randomSketch(2, 5, 1).rows.length // 2
 */
export function randomSketch(k: number, d: number, seed: number): Projection {
  if (!Number.isSafeInteger(k) || k < 1) throw new InputError(`needs k ≥ 1 rows, got ${k}`, 'projection');
  // A sketch is drawn whole: bounded so a typo (random:1000000000) is an error, not an hour of work.
  if (k > MAX_SKETCH_ROWS || k * d > MAX_SKETCH_ENTRIES)
    throw new InputError(`random:${k} for ${d} column(s) is more than ${MAX_SKETCH_ROWS} rows or ${MAX_SKETCH_ENTRIES} entries`, 'projection');
  const u = seededUniform(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  return projection(Array.from({ length: k }, () => Array.from({ length: d }, () => normal() / Math.sqrt(k))));
}

/**
 * `--projection FILE | random:K` for a query of d columns: a file holds the k×d matrix as JSON
 * (an array of rows) or as CSV lines of numbers; `random:K` is a seeded Gaussian sketch. A
 * projection learned from the data (PCA) is not offered: the matrix would itself be a release
 * about the data, outside the guarantee.
 * @example parseProjection('random:2', 3, 7).rows.length // 2
 */
export function parseProjection(text: string, d: number, seed: number): Projection {
  const m = /^random:(\d+)$/.exec(text.trim());
  if (m) return randomSketch(Number(m[1]), d, seed);
  if (/^pca/i.test(text.trim()))
    throw new InputError(
      'pca is not offered: a projection learned from the data is itself a release about the data, outside the guarantee; give a matrix file or random:K',
      'projection',
    );
  let raw: string;
  try {
    raw = readFileSync(text, 'utf8');
  } catch {
    throw new InputError(`cannot read '${text}' (a JSON or CSV file with the k×d matrix, or random:K)`, 'projection');
  }
  let rows: number[][];
  try {
    rows = raw.trim().startsWith('[')
      ? (JSON.parse(raw) as number[][])
      : raw
          .trim()
          .split(/\r?\n/)
          .map((l) => l.split(',').map((x) => decimalValue(x.trim())));
  } catch {
    throw new InputError(`'${text}' is not a JSON array of rows`, 'projection');
  }
  const A = projection(rows);
  checkProjectionWidth(A, d);
  return A;
}
