// Pufferfish: Rényi Pufferfish privacy for correlated data. Data flow:
// table → conditional distributions → coupling → bound → certified scale.
// This entry is the browser-safe core: no Node built-ins, no native or heavy dependency (a test
// walks its import graph). Files, tables (DuckDB, PostgreSQL), UCI downloads and figure
// rendering are in `pufferfish/node`.
export { InputError, NumericalError } from './errors.js';
export { fromCounts, fromWeights, pointMass, mean, type Discrete } from './distribution/discrete.js';
export { comonotoneCoupling, transpose, distances, type Coupling } from './coupling/comonotone.js';
export { wassersteinP, w1, wInf } from './coupling/wasserstein.js';
export { logExpectationExp, type Bounded } from './numerics/logExpectation.js';
export { brentBracket, type BrentOptions, type Bracket } from './numerics/brent.js';
export { smallestFeasibleScale, isFeasible, slack, type Evaluation, type ScaleProblem, type ScaleSolution } from './numerics/smallestScale.js';
export { absCost, sqrtCost, costs, etaPower, type Cost, type Eta } from './conditions/costs.js';
export { momentProblem, supProblem, powerIntensity, type Intensity } from './conditions/moment.js';
export { theorem1Problem } from './conditions/theorem1.js';
export { theorem2Problem, remark2Problem, remark2Sigma } from './conditions/theorem2.js';
export { corollary1Problem } from './conditions/corollary1.js';
export { proposition1Problem } from './conditions/proposition1.js';
export { pierquinLaplaceProblem, pierquinGaussianProblem, laplaceRdp, scaledLaplaceRdp } from './conditions/pierquin.js';
export { songProblem } from './conditions/song.js';
export {
  calibrate,
  calibrationRule,
  applicableMethods,
  checkSettings,
  noiseVariance,
  MECHANISMS,
  METHODS,
  METHOD_LABEL,
  SINGLE_METHODS,
  type Mechanism,
  type Method,
  type SingleMethod,
  type CalibrationSettings,
  type CalibrationResult,
  type CalibrationRule,
  type PairScale,
} from './calibrate/calibrate.js';
export { pairsOf, secretsOf, type Scenario, type Prior } from './distribution/scenario.js';
export { pairCouplings, type PairCoupling } from './coupling/pairs.js';
export { specSchema, settingsEntries, workerSettingsSchema, validate, type Spec } from './spec/schema.js';
export { scenarioFromSpec, parseSpecText, parseAlpha, formatPath, type SpecDefaults } from './spec/load.js';
export { builtinScenario, BUILTIN_IDS } from './scenarios/builtin.js';
export { UCI_SCENARIOS, type UciScenarioDef } from './uci/scenarios.js';
export { audit, type AuditRow, type AuditSettings } from './audit/audit.js';
export { rdpToDpEq5, rdpToDpSharp } from './audit/conversion.js';
export { coupledLaplaceProblem } from './conditions/coupled.js';
export { exactProblem, exactEvaluation } from './conditions/exact.js';
export { exactRenyi, discreteRenyi, logMassIn, type ExactOptions, type ExactDivergence } from './divergence/exactRenyi.js';
export { exactLaplaceDInf, exactLaplaceDInfTruncated } from './mechanisms/laplace/dInf.js';
export { mixtureOf, type Mixture } from './divergence/mixture.js';
export type { Noise } from './divergence/kernel.js';
export type { NoiseFamily } from './mechanisms/kernels.js';
export { KERNELS, mixtureLogDensity, mixtureLogDensityPlain } from './mechanisms/kernels.js';
export type { NoiseKernel, Integrand } from './divergence/kernel.js';
export { REGISTRY, mechanismDef, noiseOptions } from './mechanisms/registry.js';
export {
  isNotApplicable,
  type MechanismDef,
  type RuleTable,
  type RuleEntry,
  type RuleContext,
  type NotApplicable,
  type NoNoise,
  type MiBound,
} from './mechanisms/mechanism.js';
export { cryptoSource, webCryptoSource, bufferedSource, LazyUniform, type RandomSource } from './sampling/random.js';
export { laplaceNoise, gaussianNoise, sqrtCostNoise, drawRelease, type ExactNoise, type DrawOptions } from './sampling/samplers.js';
export { release, releaseColumn, samplerFor, type ReleaseOptions, type ReleaseResult } from './release/release.js';
export { calibrateTruncated, type TruncatedCalibration } from './release/truncated.js';
export { secretProbabilities } from './distribution/scenario.js';
export { exactMutualInformation, discreteMutualInformation, klEnclosure, type MutualInformation } from './mi/mutualInformation.js';
export { calibrateMI, MI_METHODS, type MiMethod, type MiSettings } from './mi/calibrateMI.js';
export { empiricalAudit, clopperPearson, incompleteBeta, type EmpiricalAuditResult, type EmpiricalClaim } from './audit/empirical.js';
export { auditMI, auditEmpirical, type MiAuditRow, type EmpiricalRow } from './audit/audit.js';
export { tableScenario, parsePriorClass, seededUniform, binomial, type PriorClass } from './sources/priors.js';
export { logGamma, bitLength, ldexp, nextUp, toDecimal, ratioToNumber } from './numerics/float.js';
export type { SecretQuery, TableHistograms, Histogram } from './sources/histogramTypes.js';
export { checkPredicate } from './sources/predicate.js';
export {
  parseDelimited,
  textHistograms,
  distinctValues,
  numericColumns,
  columnSummaries,
  type ColumnSummary,
  secretText,
  canonical,
  VectorAtoms,
  type TextTable,
} from './sources/csvText.js';
export { scaleVsAlphaChart, varianceChart, type Row as ChartRow } from './reproduce/charts.js';
export { uciQuirks } from './uci/formats.js';
export { calibrateFor, type Guarantee, type GuaranteeResult, type NoiseChoice } from './api/guarantee.js';
export { solveUnits, bestOf, type Unit, type SolvedUnit, type Solution } from './calibrate/driver.js';
export { bracketAbove, bracketBelow } from './numerics/bracket.js';
export type { MiCalibrationResult, MiSingleMethod } from './mi/calibrateMI.js';
export { account, nextReleaseScale, type Release, type Accounting, type AccountRow, type JointMethod } from './account/account.js';
export { budgetLevel, smallestFittingScale, checkBudget, type Budget, type BudgetLevel, type ReleaseGroup } from './account/budget.js';
export { symmetricInterval, truncatedInterval, checkConfidence, DEFAULT_CONFIDENCE } from './release/interval.js';
export {
  calibrateEpsDelta,
  epsDeltaTrials,
  epsDeltaBest,
  renyiBudgetFor,
  DEFAULT_DELTA_ALPHAS,
  type EpsDeltaResult,
  type EpsDeltaTrial,
} from './calibrate/epsDelta.js';
export { checkContamination, contaminatedProblem, type Contamination, type ContaminatedProblem } from './calibrate/contamination.js';
export { robustness, SMALL_GROUP, type RobustnessReport, type RobustnessSettings } from './audit/robustness.js';
// Vector queries (several columns released together; docs/math.md §12).
export { vectorLaw, vectorScenarioOf, isVectorScenario, type VectorLaw, type VectorScenario } from './vector/law.js';
export { calibrateVector, dimensionOf, type VectorSettings } from './vector/calibrate.js';
export { releaseVector, releaseVectorColumn } from './vector/release.js';
export { auditVector, accountVector, nextVectorReleaseScale, type VectorRelease } from './vector/audit.js';
export { optimalCoupling, wInfVector, type VectorCoupling, type Norm } from './vector/coupling.js';
export { scenarioSpec } from './spec/write.js';
