// The messages between the page (main.ts) and its worker (worker.ts): one type per request and per
// answer. Every request carries an id and the kind of request it is; every answer repeats both, so
// the page shows only answers to the latest request of each kind.
import type { Skipped } from '../src/api/grid.js';
import type { AuditRow } from '../src/audit/rows.js';
import type { ColumnSummary } from '../src/sources/csvText.js';

/** The kinds of request; a newer request of a kind makes the older one's answers stale. */
export type Kind = 'data' | 'values' | 'calibrate' | 'audit' | 'release' | 'spec';

/** α as the form sends it: a number, or 'inf'. */
export type FormAlpha = number | 'inf';

/** The contamination fields of the form (λ = 0: none). */
export interface FormContamination {
  lambda: number;
  domain: [number, number];
}

/** A sequence table read as a Markov chain: its state, order and group columns, the query and the length. */
interface SequenceParams {
  state: string;
  orderBy: string;
  /** Independent sequences ('' for one sequence). */
  groupBy: string;
  /** count:STATE, sum:STATE=V,… or histogram. */
  query: string;
  /** The chain length T; absent: the longest sequence. */
  length?: number;
  /** Window counts instead of one count: `month`, a length N, or L1,L2,… (the CLI's `--window`). */
  window?: string;
}

/** The calibration form. */
export interface CalibrateParams {
  /** Present: the table is a time series, read as a Markov chain (the query and secret fields rest). */
  sequence?: SequenceParams;
  fileName: string;
  query: string;
  /** Further query columns: with them, one vector-valued query (docs/math.md §12). */
  also: string[];
  secretColumn: string;
  values: string[];
  given: string;
  alpha: FormAlpha;
  epsilon: number;
  /** An (ε, δ) target (the orders are searched); absent: the Rényi target (α, ε). */
  delta?: number;
  mechanisms: string[];
  methods: string[];
  /** `empirical`, `bootstrap` or `dirichlet` (with `priorDraws`), or the CLI's `--prior` text. */
  prior: string;
  /** A drawn class's number of draws, as typed (the N of `--prior bootstrap:N`). */
  priorDraws?: string;
  /** A drawn class's seed as typed (the CLI's `--seed`); absent: 0, as the CLI's default. */
  seed?: string;
  contamination: FormContamination;
  /** Publish a statistic of the table (per public group with `given`), not each row's value (docs/math.md §18): the query column's sum or mean, or the count or share of rows meeting `predicate`. */
  statistic?: 'sum' | 'mean' | 'count' | 'share';
  /** A count's or share's condition, one comparison (`textPredicate`); absent: every row. */
  predicate?: string;
  /** With a statistic: the column whose rows form one unit (`--unit`). */
  unit?: string;
  /** With a statistic: plan the budget for this error bar (±, in the statistic's units, 95%). */
  targetHalfwidth?: number;
  /** Threads for the calibrations (default: the machine's cores less one); `helpers` 0 starts them at once. */
  threads?: number;
  helpers?: number;
}

/** What the page asks, by `type`. */
export type Request =
  | { type: 'load'; name: string; text: string }
  | { type: 'load-parquet'; name: string; bytes: ArrayBuffer }
  | { type: 'builtin'; id: string }
  | { type: 'values'; column: string }
  | { type: 'calibrate'; params: CalibrateParams }
  | {
      type: 'audit';
      mechanism: string;
      scale: number;
      alpha: FormAlpha | number | undefined;
      epsilon: number;
      target: { epsilon: number; delta: number } | null;
    }
  | {
      type: 'release';
      mechanism: string;
      method: string;
      alpha: FormAlpha;
      epsilon: number;
      delta?: number;
      /** The value field (a number; NaN when empty). */
      value: number;
      /** A vector query's values as typed. */
      vector: string;
      methods: string[];
      contamination: FormContamination;
      count: number;
      allowNoNoise: boolean;
      /** A statistic per group: release the others where some groups hold one secret value (their absence tells so). */
      leaveOutGroups: boolean;
    }
  | { type: 'spec'; mechanism: string; alpha: FormAlpha; epsilon: number; delta?: number };

/** A request as posted: with its id and kind. */
export type Envelope<M> = M & { rid: number; kind: Kind };

/** One row of the results table. */
export interface ResultRow {
  mechanism: string;
  method: string;
  label: string;
  rule: string;
  scale: number;
  /** The 95% half-width of one coordinate's noise. */
  halfWidth: number;
  variance: number;
  binding: { prior: string; pair: [string, string] } | null;
  explanation: string;
  /** With an (ε, δ) target: the Rényi order and budget this row went through. */
  alpha?: number;
  renyiEpsilon?: number;
  /** A statistic per public group: the group and its number of rows n (public). */
  group?: string;
  units?: number;
}

/** A plan by accuracy for a statistic: per group, the smallest ε whose error bar is within ±H. */
export interface StatisticPlan {
  target: number;
  mechanism: string;
  groups: { group: string; epsilon: number; halfWidth: number; floor: boolean }[];
}

/** Rows behind the priors built from a table. */
export interface DataUsed {
  rows: number;
  used: number;
  dropped: number;
  /** What made a row dropped, where not a table's query, secret or public value (a sequence's state or order). */
  droppedWhy?: string;
  skippedGiven: string[];
}

/** One number behind a plot, for the text alternative. */
export interface PlotNumber {
  what: 'scale' | 'variance';
  mechanism: string;
  method: string;
  alpha: FormAlpha | number;
  epsilon: number;
  value: number;
}

/** What the worker answers, by `type`. */
export type Response =
  /** A long calculation's progress: units done of the total, and what runs now. */
  | { type: 'progress'; done: number; total: number; step: string }
  | { type: 'loaded'; columns: string[]; numeric: string[]; rows: number; summaries: ColumnSummary[] }
  | { type: 'loaded-builtin'; name: string; secrets: string[]; range: [number, number] }
  | { type: 'values'; column: string; values: string[]; total: number }
  | {
      type: 'results';
      alpha: FormAlpha;
      epsilon: number;
      delta?: number;
      scenario: string;
      data: DataUsed | null;
      /** Rows the table leaves out, and why (the grid's own record). */
      skipped: Skipped[];
      rows: ResultRow[];
      columns: string[];
      dimension?: number;
      /** A statistic: its label ("mean of chol"), the public group column, if any, and what it assumes (as the CLI prints it). */
      statistic?: { label: string; groupBy?: string; notes: string[] };
      plan?: StatisticPlan;
    }
  | { type: 'plots'; alpha: string; epsilon: string; numbers: PlotNumber[]; notPlotted: string[]; note?: string; remarks?: string[] }
  | {
      type: 'audit';
      /** With public groups (a statistic by group), each row names its group. */
      rows: (AuditRow & { group?: string })[];
      mechanism: string;
      scale: number;
      alpha: FormAlpha | number | undefined;
      epsilon: number;
      target: { epsilon: number; delta: number } | null;
      /** The rows are certified upper bounds (a vector query), not exact divergences. */
      bound: boolean;
    }
  | { type: 'no-noise'; reason: string }
  | { type: 'left-out'; reason: string }
  | {
      type: 'released';
      values: (number | number[])[];
      scale: number;
      method: string;
      guarantee: string;
      /** How many of the draws the calibration covered together. */
      together: number;
      confidence: number;
      intervals: ([number, number] | [number, number][])[];
      /** What the curator should know about this release (the value outside the laws, draws outside the data's range). */
      note?: string;
      /** With an (ε, δ) target: the Rényi order used. */
      alpha?: number;
      /** A statistic: each value's group and n, line by line; window counts: each window. */
      labels?: string[];
      /** Window counts of one series: one calibration for all, the guarantee theirs together. */
      windows?: true;
    }
  | {
      type: 'chain';
      states: string[];
      /** The estimated chain, rows and columns in the order of `states`, and the counts behind it. */
      transition: number[][];
      counts: number[][];
      sequences: number;
      longest: number;
      length: number;
      /** Other chains of the prior class (dirichlet or bootstrap draws). */
      draws: number;
      /** The states no secret names (none can occur under the chain), in words; '' when every state may. */
      note: string;
      heatmap: string;
      bars: string;
    }
  /** The spec of what was calibrated (null: none, e.g. a statistic per group). */
  | { type: 'spec'; spec: unknown }
  | { type: 'error'; message: string };
