import type { MarkovModel } from './chain.js';
import { checkWindows } from './calendar.js';

/**
 * The window counts of a chain as a law source (docs/math.md §19): the chain class, its windows
 * and their labels. It lists no per-secret laws (`priors` is empty): the operations that take it
 * read the chain (the path-coupled bound), and the others refuse it by name.
 */
export interface WindowScenario {
  readonly name: string;
  readonly lawKind: 'windows';
  readonly priors: readonly never[];
  readonly model: MarkovModel;
  readonly lengths: readonly number[];
  readonly labels: readonly string[];
  /** Where a table's series lies and the chain spec it was estimated as (a series' ledger keeps both). */
  readonly origin?: SeriesOrigin;
}

/**
 * A table's series as flags name it, and the `"markov"` spec the chain class was estimated as: what
 * a series' ledger records when it is opened, so that the windows of rows that arrive afterwards are
 * read under the same chain (the table's later rows would change the estimate).
 */
export interface SeriesOrigin {
  readonly sequence: string;
  readonly orderBy: string;
  readonly query: string;
  readonly window: string;
  /** The order value of the series' first step (a calendar's first day, YYYY-MM-DD); null: the table's first row. */
  readonly start: string | null;
  readonly prior: string | null;
  readonly seed: string | null;
  /** Rows of the table the chain was estimated from. */
  readonly rows: number;
  readonly markov: unknown;
}

/**
 * A chain's window counts as a law source; the windows must tile its length.
 * @example windowScenario(validateSpec({ states: ['a', 'b'], chains: [{ name: 'c', transition: [[0.9, 0.1], [0.2, 0.8]], initial: 'stationary' }], length: 4, query: { count: 'b' } }), [2, 2], 'toy').lawKind // 'windows'
 */
export function windowScenario(
  model: MarkovModel,
  lengths: readonly number[],
  name: string,
  labels?: readonly string[],
  origin?: SeriesOrigin,
): WindowScenario {
  checkWindows(lengths, model.length);
  return {
    name,
    lawKind: 'windows',
    priors: [],
    model,
    lengths: [...lengths],
    labels: labels ? [...labels] : lengths.map((_, w) => `window ${w + 1}`),
    ...(origin ? { origin } : {}),
  };
}
