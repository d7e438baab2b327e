import { tableHistograms } from '../dist/sources/histograms.js';
import { parseStatistic } from '../dist/sources/statistic.js';
const st = { ...parseStatistic('sum:x'), unit: 'hh' };
const h = await tableHistograms({ kind: 'csv', location: 'scratch/u.csv' }, { query: '', contributions: [st], givens: [], secretColumn: 's' });
console.log(JSON.stringify([...h.groups].map(([g, m]) => [g, [...m]])), h.vectors, h.rows);
