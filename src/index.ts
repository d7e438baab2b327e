// Pufferfish: Rényi Pufferfish privacy for correlated data. Data flow:
// law source → secret-conditional laws → coupling → bound → certified scale → release / audit / account.
// This entry is the browser-safe core: no Node built-ins, no native or heavy dependency (a test
// walks its import graph). Files, tables (DuckDB, PostgreSQL), ledgers and figure rendering are in
// `pufferfish/node`. Every export is documented with an example that a test runs.

// Errors: bad input names its field; a numerical routine that cannot certify says so.
export { InputError, NumericalError } from './errors.js';

// Law sources: finite laws, scenarios (a prior class of secret-conditional laws), built-in and spec scenarios.
export { fromCounts, fromWeights, pointMass, mean, type Discrete, type Law } from './distribution/discrete.js';
export { pointLaw, type PointLaw, type PointScenario } from './distribution/points.js';
export { lawKindOf, type AnyScenario, type LawKind } from './distribution/lawKind.js';
export {
  pairsOf,
  perVariable,
  secretsOf,
  type Scenario,
  type Prior,
  type SecretVariable,
  SOURCE_METHOD_NAMES,
  type SourceMethod,
  type SourceSettings,
} from './distribution/scenario.js';
export type { GaussianScenario, GaussianMixture, WeightedComponent } from './distribution/mixture.js';
export { builtinScenario, BUILTIN_IDS } from './scenarios/builtin.js';
export { scenarioFromSpec, parseSpecText, type SpecDefaults, type SpecStatistic } from './spec/load.js';

// Couplings and divergences.
export { comonotoneCoupling, type Coupling } from './coupling/comonotone.js';
export { wassersteinP, w1, wInf } from './coupling/wasserstein.js';
export { exactRenyi, discreteRenyi, type ExactOptions, type ExactDivergence } from './divergence/exactRenyi.js';
export type { Noise, OnePassIntegral } from './divergence/kernel.js';
export type { Mixture2 } from './divergence/mixture.js';
export { noiseOf, type NoiseFamily } from './mechanisms/kernels.js';
export { mechanismDef } from './mechanisms/registry.js';
export type { MechanismDef, NoiseOptions, ProductNoise } from './mechanisms/mechanism.js';
export { costs, type Cost, type Eta } from './conditions/costs.js';
export type { Bounded } from './numerics/logExpectation.js';
export type { Evaluation } from './numerics/smallestScale.js';
export type { Progress } from './calibrate/driver.js';

// Calibration: the smallest noise a guarantee allows.
export {
  calibrate,
  calibrateKind,
  applicableMethods,
  MECHANISMS,
  METHODS,
  type Mechanism,
  type Method,
  type SingleMethod,
  type CalibrationSettings,
  type CalibrationResult,
  type PairScale,
  type CalibrateOptions,
} from './calibrate/calibrate.js';
export type { Contamination } from './calibrate/contamination.js';
export { statisticFromText } from './api/statisticLaws.js';
export type { TextTable } from './sources/csvText.js';
export { calibrateFor, type Guarantee, type GuaranteeResult, type NoiseChoice } from './api/guarantee.js';
export { calibrateEpsDelta, type EpsDeltaResult, type EpsDeltaSettings, type EpsDeltaTarget } from './calibrate/epsDelta.js';
export type { PointSettings, BoxContamination } from './calibrate/points.js';
export type { CalibrationKind, PairLabel, SingleSettings } from './calibrate/kind.js';
export type { Solution, SolvedUnit, Unit } from './calibrate/driver.js';
export type { ScaleProblem } from './numerics/smallestScale.js';
export type { NoNoise } from './mechanisms/mechanism.js';
export type { ResultText, SourceMethodName } from './calibrate/result.js';
export { calibrationGrid, thisThread, type GridRequest, type GridRow, type GridRunner, type GridProgress, type Refusals, type Skipped } from './api/grid.js';
export { calibrationCurves, type CurveRequest, type Curves, type ScalePoint, type VariancePoint } from './api/curves.js';
export type { MiSettings, MiMethod, MiSingleMethod, MiCalibrationResult } from './mi/calibrateMI.js';
export { calibrateMI } from './mi/calibrate.js';
export type { MiKindSettings } from './mi/calibrateMI.js';
export { exactMutualInformation, type MutualInformation } from './mi/mutualInformation.js';
export { calibrateMean, meanSampleSize, type MeanCalibration } from './mi/mean.js';
export { projection, project, calibrateProjection, projectionMI, type Projection, type ProjectionCalibration } from './mi/projection.js';
export { calibrateTruncated, type TruncatedCalibration } from './release/truncated.js';

// Audit: what a given scale guarantees.
export { audit, auditKind, type AnySettings, type AuditKind, type AuditRow, type AuditSettings } from './audit/audit.js';
export type { AuditDirection, CertifiedBound } from './audit/directions.js';
export type { EmpiricalRow, MiAuditRow, MiBoundRow, MiRow } from './audit/rows.js';
export type { RobustnessReport } from './audit/robustness.js';
export { empiricalAudit, type EmpiricalAuditResult, type EmpiricalClaim } from './audit/empirical.js';
export { auditReport, type AuditReport, type AuditReportSettings, type CertifiedOrder } from './audit/report.js';
export { rdpToDpEq5, rdpToDpSharp } from './audit/conversion.js';

// Window counts of a Markov chain (docs/math.md §19): a count per window, all windows together.
export { validateSpec, neverPossible, type MarkovModel, type ValidChain, type StepQuery, type InitialLaw } from './markov/chain.js';
export type { WindowBound } from './markov/windows.js';
export { windowScenario, type SeriesOrigin, type WindowScenario } from './markov/windowScenario.js';
export {
  calibrateWindows,
  windowsExponent,
  WINDOW_METHODS,
  type WindowExactOptions,
  type WindowMethod,
  type WindowNoise,
  type WindowResult,
  type WindowSettings,
} from './calibrate/windows.js';
export { auditWindows, type WindowAuditRow } from './audit/windows.js';
export { releaseWindows, drawWindows, type WindowRelease } from './release/windows.js';

// Releases, with exact samplers and error bars.
export {
  release,
  releaseColumn,
  releaseKind,
  type ReleaseKind,
  type ReleaseShape,
  type ReleaseBasis,
  type ReleaseOptions,
  type ReleaseResult,
  type PointReleaseResult,
  type ColumnResult,
  type PointColumnResult,
} from './release/release.js';
export { symmetricInterval, truncatedInterval } from './release/interval.js';
export { cryptoSource, type RandomSource } from './sampling/random.js';

// Accounting: releases of one value together (Pufferfish levels do not add up).
export {
  account,
  accountKind,
  nextReleaseScale,
  type NextReleaseSettings,
  nextScaleKind,
  type AccountKind,
  type AnyAccountOptions,
  type AnyRelease,
  type Release,
  type Accounting,
  type AccountRow,
  type JointMethod,
} from './account/account.js';
export type { AccountShare, NextUnit } from './account/rows.js';
export { budgetLevel, smallestFittingScale, type Budget, type BudgetLevel, type ReleaseGroup } from './account/budget.js';
