import type { TableSource } from '../sources/table.js';

const ADULT = [
  'age',
  'workclass',
  'fnlwgt',
  'education',
  'education-num',
  'marital-status',
  'occupation',
  'relationship',
  'race',
  'sex',
  'capital-gain',
  'capital-loss',
  'hours-per-week',
  'native-country',
  'income',
];
const HEART = ['age', 'sex', 'cp', 'trestbps', 'chol', 'fbs', 'restecg', 'thalach', 'exang', 'oldpeak', 'slope', 'ca', 'thal', 'num'];

/**
 * The quirks of the UCI files as shipped, by file name: adult's ", " separator, no header and
 * `?` for missing; heart's headerless float-coded columns; student's `;` with a quoted header.
 * Options the user gives explicitly win.
 */
export function uciQuirks(path: string): Partial<TableSource> {
  const name = path.split(/[\\/]/).pop() ?? path;
  if (name === 'adult.data') return { header: false, separator: ', ', columns: ADULT };
  if (name === 'adult.test') return { header: false, separator: ', ', columns: ADULT, skip: 1 };
  if (/^processed\.(cleveland|hungarian|switzerland|va)\.data$/.test(name)) return { header: false, separator: ',', columns: HEART };
  if (/^student-(mat|por)\.csv$/.test(name)) return { header: true, separator: ';' };
  return {};
}
