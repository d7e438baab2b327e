// Pufferfish for Node: the core (`pufferfish`) plus what needs the file system, native engines or
// headless rendering. Heavy dependencies load only where used (DuckDB and pg with a table,
// Vega and resvg with `reproduce`).
export * from './index.js';
export { loadSpecFile, MAX_SPEC_BYTES } from './spec/loadFile.js';
export { uciHistograms, uciScenario } from './uci/files.js';
export { tableHistograms } from './sources/histograms.js';
export { sourceKind, sourceLabel, type TableSource } from './sources/table.js';
export { DATASETS, fetchDataset, availableDir, cacheDir, isComplete, type Dataset } from './uci/datasets.js';
export { privatizeTable } from './sources/privatize.js';
export { reproduce, type ReproduceOptions } from './reproduce/reproduce.js';
export { initLedger, recordRelease, confirmShown, checkLedger, ledgerFor, type LedgerRelease, type LedgerReport, type Recorded } from './ledger/ledger.js';
export { duckdbStore, postgresStore, ledgerStore, type LedgerStore, type LedgerMeta, type LedgerRow, type LedgerState } from './ledger/store.js';
export { lawsDigest } from './ledger/identity.js';
