import { tableHistograms } from '../src/sources/histograms.js';
import { parseStatistic } from '../src/sources/statistic.js';
import { unitWeights } from '../src/sources/unitWeights.js';
const show = (m: any) => JSON.stringify([...m].map(([g, mm]: any) => [g, [...mm]]));
for (const unit of ['hh', undefined]) {
  const st = { ...parseStatistic('sum:x')!, ...(unit ? { unit } : {}) };
  const h = await tableHistograms({ kind: 'csv', location: 'scratch/u.csv' }, { query: '', contributions: [st], givens: [], secretColumn: 's', bootstrap: { draws: 3, seed: 7 } });
  console.log(unit, show(h.groups), h.vectors, h.rows);
  h.draws!.forEach((d, i) => console.log(' draw', i + 1, show(d)));
  for (const id of unit ? ['1', '2', '3', '4'] : ['1', '2', '3', '4', '5', '6']) console.log('  w', id, unitWeights(id, { draws: 3, seed: 7 }));
}
