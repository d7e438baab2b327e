// Pufferfish: Rényi Pufferfish privacy for correlated data. Data flow:
// table → conditional distributions → coupling → bound → certified scale.
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
export { calibrate, calibrationRule, applicableMethods, checkSettings, noiseVariance, MECHANISMS, METHODS, SINGLE_METHODS, type Mechanism, type Method, type SingleMethod, type CalibrationSettings, type CalibrationResult, type CalibrationRule, type PairScale } from './calibrate/calibrate.js';
export { pairsOf, secretsOf, pairCouplings, type Scenario, type Prior, type PairCoupling } from './calibrate/scenario.js';
export { specSchema, type Spec } from './spec/schema.js';
export { scenarioFromSpec, loadSpecFile, parseAlpha } from './spec/load.js';
export { builtinScenario, BUILTIN_IDS } from './scenarios/builtin.js';
export { UCI_SCENARIOS, uciHistograms, type UciScenarioDef } from './scenarios/uci.js';
