// The shared data model of table sources: what to histogram, and what comes back. Engine-free
// (browser-safe): the DuckDB and PostgreSQL engines live in engines/.
import type { Statistic } from './statistic.js';

/** What to histogram: the numeric query column, and the secrets (a column's values or predicates). */
export interface SecretQuery {
  query: string;
  /** Several numeric columns released together (a vector query): their joint law per secret. */
  queries?: string[];
  /** Each value of this column is a secret (optionally only `values`). */
  secretColumn?: string;
  values?: string[];
  /** Or named SQL predicates, e.g. { older: 'age >= 50' }; a row may satisfy several. */
  predicates?: Record<string, string>;
  /** Public column: every pair is split by its value (structured secrets of Nuradha–Goldfeld). */
  given?: string;
  /** The flag that named `given`, for errors (default 'given'; a statistic's groups: '--group-by'). */
  givenFlag?: string;
  /** A statistic's one-unit contribution replaces the query column (docs/math.md §18). */
  contribution?: Statistic;
  /**
   * Several statistics sharing one unit column: the law of one unit's vector of contributions
   * (docs/math.md §20), a missing value contributing 0 (every unit with a secret is in it); the
   * groups are keyed by `jointKey`.
   */
  contributions?: Statistic[];
  /** Several public columns (a source ledger's group columns): every pair is split by their values together. */
  givens?: string[];
  /**
   * A statistic's bootstrap class (`unitWeights.ts`): the histograms of draws 1…`draws` too, each
   * unit weighted by its Poisson(1) weight (the unit: the `unit` column's text, else the row's position in the file).
   */
  bootstrap?: UnitBootstrap;
}

/** N draws of the units' Poisson(1) weights, keyed by the seed. */
export interface UnitBootstrap {
  draws: number;
  seed: number;
}

/** Distinct values with their counts. */
export type Histogram = { values: number[]; counts: number[] };

/** A table's histograms of the query column per public value and secret, with the rows read and dropped. */
export interface TableHistograms {
  /** Per public value ('' without --given): per secret, the histogram of the query column. */
  groups: Map<string, Map<string, Histogram>>;
  rows: number;
  /** Rows dropped for a missing/non-numeric query value or a missing secret or public value. */
  dropped: number;
  secrets: string[];
  /** How given secret names were matched to the table's texts (shown with the source). */
  notes?: string[];
  /** With `contributions`: each group key's values of the `givens` columns (null: missing). */
  givenValues?: Map<string, (string | null)[]>;
  /** Vector queries: histogram values are indices into this list of atoms (one per distinct row vector). */
  vectors?: number[][];
  /** With `bootstrap`: draw i's groups at index i − 1, counts being the units' weights (a weight 0 leaves a unit out). */
  draws?: Map<string, Map<string, Histogram>>[];
}
