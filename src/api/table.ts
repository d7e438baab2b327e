import type { Scenario } from '../distribution/scenario.js';
import { InputError } from '../errors.js';
import { tableHistograms } from '../sources/histograms.js';
import type { SecretQuery } from '../sources/histogramTypes.js';
import { parsePriorClass, tableScenario } from '../sources/priors.js';
import { sourceKind, sourceLabel, type TableSource } from '../sources/table.js';
import { pointScenarioOf, type PointScenario } from '../distribution/points.js';

/**
 * The scenario of a table, as the CLI's `--data` builds it: the query column's histogram per
 * secret (a column's values, or named SQL predicates), split by a public `given` column, under
 * the empirical prior or a robust class (`bootstrap:N`, `dirichlet:N`). The aggregation runs in
 * DuckDB (files) or PostgreSQL; no row leaves the engine. Several `queries` give a vector law.
 * @example (await scenarioFromTable('examples/heart.csv', { query: 'oldpeak', secretColumn: 'fbs' })).priors.length // 1
 */
export async function scenarioFromTable(
  location: string | TableSource,
  query: SecretQuery,
  opts: { prior?: string; seed?: number; pairs?: [string, string][]; name?: string } = {},
): Promise<Scenario | PointScenario> {
  const source: TableSource = typeof location === 'string' ? { kind: sourceKind(location), location } : location;
  const h = await tableHistograms(source, query);
  if (h.secrets.length < 2) throw new InputError(`needs at least two secrets with rows, got ${h.secrets.length}`, 'secretColumn');
  const name = opts.name ?? `${sourceLabel(source.location)}: ${query.queries?.join(',') ?? query.query}`;
  const { scenario } = tableScenario(h, {
    name,
    ...(opts.prior ? { prior: parsePriorClass(opts.prior, opts.seed ?? 0) } : {}),
    ...(opts.pairs ? { pairs: opts.pairs } : {}),
    ...(query.given ? { given: query.given } : {}),
  });
  return h.vectors ? pointScenarioOf(scenario, h.vectors) : scenario;
}
