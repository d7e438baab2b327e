import type { TableSource } from '../sources/table.js';
import { UCI_SCENARIOS, type UciScenarioDef } from './scenarios.js';

// The column names come from the scenario definitions: one list per file, in one place.
const columnsOf = (id: UciScenarioDef['id']): string[] => [...(UCI_SCENARIOS.find((d) => d.id === id)?.columns ?? [])];
const ADULT = columnsOf('adult');
const HEART = columnsOf('heart');

/**
 * The quirks of the UCI files as shipped, by file name: adult's ", " separator, no header and
 * `?` for missing; heart's headerless float-coded columns; student's `;` with a quoted header.
 * Options the user gives explicitly win (the CLI applies these by file name; the library on request).
 * @example const location = 'test/fixtures/uci/heart-disease/processed.cleveland.data.gz';
 * (await statisticFromTable({ kind: 'csv', location, ...uciQuirks(location) }, { statistic: { kind: 'mean', column: 'chol' }, secretColumn: 'fbs' })).groups[0].units // 303
 */
export function uciQuirks(path: string): Partial<TableSource> {
  // A gzip copy (the repository's vendored files) is the same table: DuckDB reads it directly.
  const name = (path.split(/[\\/]/).pop() ?? path).replace(/\.gz$/, '');
  if (name === 'adult.data') return { header: false, separator: ', ', columns: ADULT };
  if (name === 'adult.test') return { header: false, separator: ', ', columns: ADULT, skip: 1 };
  if (/^processed\.(cleveland|hungarian|switzerland|va)\.data$/.test(name)) return { header: false, separator: ',', columns: HEART };
  if (/^student-(mat|por)\.csv$/.test(name)) return { header: true, separator: ';' };
  return {};
}
