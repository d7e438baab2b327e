// The Markov-chain cases of `npm run bench`, also alone: `npm run bench:markov`. Each is timed once
// (the runs take seconds to minutes) against the chain's own MQMExact on the same chains, in this run.
import { pathToFileURL } from 'node:url';
import { calibrate } from '../src/calibrate/calibrate.js';
import type { Scenario } from '../src/distribution/scenario.js';
import { validateSpec } from '../src/markov/chain.js';
import { mqmExact, quiltChains } from '../src/markov/mqm.js';
import { markovScenario } from '../src/markov/source.js';
import { SEATTLE_COUNTS, SEATTLE_STATES } from '../src/reproduce/markov.js';

type Row = { group: string; case: string; reference: string; meanMs: number; referenceMs: number; ratio: number; note?: string };

const timed = (f: () => unknown) => {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
};

const binary = (q: number, p: number) =>
  validateSpec({
    states: ['0', '1'],
    chains: [
      {
        name: 'c',
        transition: [
          [1 - q, q],
          [1 - p, p],
        ],
        initial: 'stationary',
      },
    ],
    length: 100,
    query: { count: '1' },
  });

const seattle = (length: number) =>
  validateSpec({
    states: SEATTLE_STATES,
    chains: [{ name: 'seattle', transition: SEATTLE_COUNTS.map((row) => row.map((c) => c / row.reduce((a, b) => a + b, 0))), initial: 'stationary' }],
    length,
    query: { count: 'rain' },
  });

/** `best` at α = ∞, ε = 1 (laws included: building them is the source's cost) on each model, one thread. */
const best = (models: ReturnType<typeof validateSpec>[]) => () => {
  for (const m of models) calibrate(markovScenario(m, 'c').scenario as Scenario, { mechanism: 'laplace', method: 'best', alpha: Infinity, epsilon: 1 });
};
const quilt = (models: ReturnType<typeof validateSpec>[]) => () => {
  for (const m of models) mqmExact(quiltChains(m), m.length, 1, { lipschitz: m.lipschitz });
};

/** The rows: Song's 81-chain grid (T = 100) and Seattle's rainy days (T = 365 and 1,461), best against mqm-exact. */
export async function markovRows(): Promise<Row[]> {
  const grid = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9].flatMap((q) => [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9].map((p) => binary(q, p)));
  const rows: Row[] = [];
  const add = (name: string, models: ReturnType<typeof validateSpec>[], note?: string) => {
    const [a, r] = [timed(best(models)), timed(quilt(models))];
    rows.push({
      group: 'markov chains',
      case: name,
      reference: 'mqm-exact on the same chains',
      meanMs: a,
      referenceMs: r,
      ratio: a / r,
      ...(note ? { note } : {}),
    });
    process.stderr.write('.');
  };
  add("best (laws, every method, the chain's own included) on Song's 81 chains, T = 100, α = ∞", grid);
  add('best on Seattle, rainy days in T = 365 (five states, 3 650 pairs)', [seattle(365)]);
  add('best on Seattle, rainy days in T = 1 461 (14 610 pairs)', [seattle(1461)]);
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await markovRows())
    console.log(`${r.case}: ${(r.meanMs / 1000).toFixed(2)} s; ${r.reference}: ${r.referenceMs.toFixed(1)} ms; ratio ${r.ratio.toFixed(0)}`);
}
