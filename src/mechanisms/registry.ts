import { absCost, etaPower, type Cost, type Eta } from '../conditions/costs.js';
import { InputError, unknownName } from '../errors.js';
import type { Scenario } from '../distribution/scenario.js';
import type { PointLaw, PointScenario } from '../distribution/points.js';
import type { Discrete } from '../distribution/discrete.js';
import { checkIntegerAtoms } from './geometric/kernel.js';
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

/**
 * What a family requires of the laws it is calibrated, accounted or released on: a family on the
 * integers (`composes: 'lattice'`, geometric) needs integer atoms (of a vector, the coordinates it
 * releases: `coordinates`, default all), else the two outputs live on
 * different lattices (docs/math.md §21). InputError naming `field` (default `mechanism`).
 * @example checkLawsFor('geometric', builtinScenario('student-mat')) // undefined
 */
export function checkLawsFor(mechanism: string, s: Scenario | PointScenario, coordinates?: readonly number[], field = 'mechanism'): void {
  if (mechanismDef(mechanism).composes !== 'lattice') return;
  try {
    for (const p of s.priors)
      for (const d of Object.values(p.conditionals) as (Discrete | PointLaw)[]) {
        if ('points' in d) checkIntegerAtoms(coordinates ? atomCoordinates(d, coordinates) : d.points);
        else if (d.values) checkIntegerAtoms(d.values);
      }
  } catch (e) {
    throw e instanceof InputError && field !== 'mechanism' ? new InputError(e.reason, field) : e;
  }
}

/** The values of the given coordinates of every atom of a vector law (the ones a release publishes). */
function atomCoordinates(d: PointLaw, coordinates: readonly number[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < d.masses.length; k++) for (const c of coordinates) out.push(d.points[k * d.d + c]);
  return out;
}

/**
 * A contamination class moves mass anywhere in an interval, off the integers too: a family on the
 * integers cannot cover it (the outputs would part lattices). InputError naming `contamination`.
 * @example checkContaminationFor('laplace') // undefined
 */
export function checkContaminationFor(mechanism: string): void {
  if (mechanismDef(mechanism).composes === 'lattice')
    throw new InputError(
      `is not taken with ${mechanism} noise: contaminating mass may sit between the integers, where the outputs would live on another lattice (D_α = ∞)`,
      'contamination',
    );
}

/** The family options with their defaults: c = |z|, η(θ) = 1/θ. */
export function noiseOptions(s: { cost?: Cost; eta?: Eta }): NoiseOptions {
  return { cost: s.cost ?? absCost, eta: s.eta ?? etaPower(1) };
}

/**
 * The family each family-specific construction is built on, so that code outside this folder
 * never names a family: the default noise; the projection mechanism and private means (a Gaussian
 * N(0, σ²I_k), docs/math.md §15–§16). (Gaussian priors take the families with rules for them,
 * `MechanismDef.mixture`.)
 */
export const FAMILY_OF = {
  default: 'laplace',
  projection: 'gaussian',
} as const satisfies Record<string, Mechanism>;
