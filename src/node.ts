// Pufferfish for Node: the core (`pufferfish`) plus what needs the file system, native engines or
// headless rendering. Heavy dependencies load only where used (DuckDB and pg with a table or a
// ledger, Vega and resvg with `reproduce`).
export * from './index.js';
export { loadSpecFile } from './spec/loadFile.js';
export { chainFromTable, scenarioFromTable, windowsFromTable, type TableWindows } from './api/table.js';
export type { SequenceQuery } from './sources/chainCounts.js';
export {
  sourceIdentity,
  recordStatistics,
  sourceLedgerLaws,
  recordedStatistic,
  recordedLabel,
  checkStatisticsSource,
  nextStatisticScale,
  statisticLevelWith,
  type TypedStatisticRelease,
  type StatisticsSource,
  type RecordedStatistic,
} from './api/sourceLedger.js';
export { statisticsScenario } from './api/jointStatistics.js';
export {
  statisticFromTable,
  privateGroupsStatistic,
  toStatistic,
  type TableStatistic,
  type StatisticGroup,
  type StatisticUnits,
  type PrivateGroups,
} from './api/statistic.js';
export { smallestEpsilon } from './api/accuracy.js';
export { parseStatistic, type Statistic, type StatisticKind } from './sources/statistic.js';
export { statisticValues, type StatisticValues } from './sources/statisticValues.js';
export { tableHistograms } from './sources/histograms.js';
export type { SecretQuery, TableHistograms, Histogram, UnitBootstrap } from './sources/histogramTypes.js';
export type { TableSource } from './sources/table.js';
export { uciScenario } from './uci/files.js';
export { uciQuirks } from './uci/formats.js';
export { randomSketch, parseProjection } from './sources/projection.js';
export { privatizeTable, type PrivatizeOptions } from './sources/privatize.js';
export { reproduce, type ReproduceOptions, type ReproduceResult } from './reproduce/reproduce.js';
export {
  initLedger,
  recordRelease,
  recordReleases,
  type LedgerBinding,
  confirmShown,
  checkLedger,
  ledgerFor,
  type LedgerRelease,
  type LedgerReport,
  type Recorded,
  type LedgerScenario,
} from './ledger/ledger.js';
export { ledgerStore, type LedgerStore, type LedgerMeta, type LedgerRow, type LedgerState } from './ledger/store.js';
export { lawsDigest } from './ledger/identity.js';
