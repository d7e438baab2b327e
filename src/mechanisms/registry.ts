import { absCost, etaPower, type Cost, type Eta } from '../conditions/costs.js';
import { unknownName } from '../errors.js';
import { exponential } from './exponential/exponential.js';
import { gaussian } from './gaussian/gaussian.js';
import { geometric } from './geometric/geometric.js';
import { laplace } from './laplace/laplace.js';
import type { MechanismDef, NoiseOptions } from './mechanism.js';

/**
 * Every noise family, by the name users type. A new family is one folder implementing
 * `MechanismDef` and one line here; `Mechanism` and `MECHANISMS` follow from this object.
 */
export const REGISTRY = { laplace, gaussian, exponential, geometric } as const satisfies Record<string, MechanismDef>;

/** A noise family by name. */
export type Mechanism = keyof typeof REGISTRY;
/**
 * The noise families: `laplace`, `gaussian`, `exponential`, `geometric` (two-sided, on the integers).
 * @example MECHANISMS // ['laplace', 'gaussian', 'exponential', 'geometric']
 */
export const MECHANISMS = Object.keys(REGISTRY) as Mechanism[];

/**
 * The family's definition; InputError naming `mechanism` for an unknown name.
 * @example mechanismDef('gaussian').parameter // 'sigma'
 */
export function mechanismDef(name: string): MechanismDef {
  if (!Object.hasOwn(REGISTRY, name)) throw unknownName('mechanism', String(name), MECHANISMS, 'mechanism', 'one of ');
  return REGISTRY[name as Mechanism];
}

/** The family options with their defaults: c = |z|, η(θ) = 1/θ. */
export function noiseOptions(s: { cost?: Cost; eta?: Eta }): NoiseOptions {
  return { cost: s.cost ?? absCost, eta: s.eta ?? etaPower(1) };
}

/**
 * The family each family-specific construction is built on, so that code outside this folder
 * never names a family: the default noise; Gaussian priors' closed forms (Gaussian noise on
 * Gaussian components, docs/math.md §11); the projection mechanism and private means (a Gaussian
 * N(0, σ²I_k), docs/math.md §15–§16).
 */
export const FAMILY_OF = {
  default: 'laplace',
  gaussianPriors: 'gaussian',
  projection: 'gaussian',
} as const satisfies Record<string, Mechanism>;
