import type { GaussianScenario } from '../distribution/mixture.js';
import type { PointScenario } from '../distribution/points.js';
import type { Scenario } from '../distribution/scenario.js';

/** Every kind of prior class the CLI reads: finite scalar laws, Gaussian (mixture) laws, finite vector laws. */
export type AnyScenario = Scenario | GaussianScenario | PointScenario;
