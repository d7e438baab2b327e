/**
 * The paper's three UCI experiments (arXiv 2605.05723 §3.3) and plain readers for the files
 * as UCI ships them: the reference for the embedded counts (tables are read by DuckDB).
 */
export interface UciScenarioDef {
  id: 'adult' | 'heart' | 'student-mat' | 'student-por';
  title: string;
  file: string;
  separator: string;
  /** Column names when the file has no header row. */
  columns?: string[];
  query: string;
  secretColumn: string;
  secrets: string[];
}

export const UCI_SCENARIOS: readonly UciScenarioDef[] = [
  {
    id: 'adult',
    title: 'adult: education-num by relationship (Husband vs Not-in-family)',
    file: 'adult/adult.data',
    separator: ',',
    columns: [
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
    ],
    query: 'education-num',
    secretColumn: 'relationship',
    secrets: ['Husband', 'Not-in-family'],
  },
  {
    id: 'heart',
    title: 'heart (Cleveland): oldpeak by fasting blood sugar fbs (0 vs 1)',
    file: 'heart-disease/processed.cleveland.data',
    separator: ',',
    columns: ['age', 'sex', 'cp', 'trestbps', 'chol', 'fbs', 'restecg', 'thalach', 'exang', 'oldpeak', 'slope', 'ca', 'thal', 'num'],
    query: 'oldpeak',
    secretColumn: 'fbs',
    secrets: ['0', '1'],
  },
  ...(['mat', 'por'] as const).map((course) => ({
    id: `student-${course}` as const,
    title: `student-${course}: final grade G3 by guardian (mother vs father)`,
    file: `student/student-${course}.csv`,
    separator: ';',
    query: 'G3',
    secretColumn: 'guardian',
    secrets: ['mother', 'father'],
  })),
];
