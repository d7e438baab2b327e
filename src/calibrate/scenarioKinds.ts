import type { GaussianScenario } from '../gaussianPriors/gaussianScenario.js';
import type { VectorScenario } from '../vector/law.js';
import type { Scenario } from '../distribution/scenario.js';

/** Every kind of prior class the CLI reads: finite scalar laws, Gaussian (mixture) laws, finite vector laws. */
export type AnyScenario = Scenario | GaussianScenario | VectorScenario;
