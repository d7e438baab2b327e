import { InputError } from '../errors.js';
import type { Solution, Unit } from './driver.js';
import type { CalibrationResult, ResultText } from './result.js';
import type { CalibrationSettings, SingleMethod } from './rules.js';
import type { Contamination } from './contamination.js';

/**
 * The contamination class of a vector query (docs/math.md §10, §12): the moved mass goes anywhere in a
 * box, coordinate i in `box[i]` (default: `domain` on every coordinate).
 */
export type BoxContamination = Contamination & { box?: readonly (readonly [number, number])[] };

/** Settings of a calibration on any kind of law: the scalar ones, plus the noise weight of each coordinate of a vector. */
export interface PointSettings extends CalibrationSettings {
  /** Coordinate i's noise is wᵢ times the calibrated scale (default all 1). */
  coordinateScales?: readonly number[];
  contamination?: BoxContamination;
}

/**
 * Settings for a law on ℝ: coordinate weights and a contamination box apply to vector-valued
 * queries only, and are refused rather than ignored.
 */
export function oneCoordinate<S extends { coordinateScales?: readonly number[]; contamination?: { box?: unknown } }>(s: S): S {
  if (s.coordinateScales) throw new InputError('apply to vector queries (several --query columns, or vector values in a spec)', 'coordinateScales');
  if (s.contamination?.box) throw new InputError('gives one range per coordinate; this query has one column: give LO,HI', 'domain');
  return s;
}

/** A (prior, pair) unit's label: every kind names its units so. */
export interface PairLabel {
  prior: string;
  pair: readonly [string, string];
}

/** Settings of one method (not `best`). */
export type SingleSettings = PointSettings & { method: SingleMethod };

/**
 * What a kind of law supplies to the one calibration (`calibrate/calibrate.ts`), in the pattern of
 * dp_accounting's `AdditiveNoisePrivacyLoss`: the algorithm — methods of `best`, units solved
 * together, the maximum re-checked, D_α ≤ D_∞ across orders, a law source's own methods and mass
 * error — is written once; a kind gives its units, its methods and its words.
 */
export interface CalibrationKind<S, L extends PairLabel = PairLabel> {
  /**
   * Checks what this kind refuses whatever the order (the family on these laws, the settings only
   * vectors take), once before any work; the settings the calibration runs with.
   */
  check(scenario: S, settings: PointSettings): PointSettings;
  /** The methods `best` runs at these settings, and what its explanation says of those left out. */
  bestMethods(scenario: S, settings: PointSettings): { methods: readonly SingleMethod[]; note: string };
  /** One method's units (its (prior, pair) conditions, built lazily), the settings checked against the laws. */
  units(scenario: S, settings: SingleSettings): Unit<L>[];
  /** The words of a solved calibration (rule, condition, notes) beside the pairs' scales. */
  text(scenario: S, settings: SingleSettings, sol: Solution<L>): ResultText;
  /** Whether one method's calibration searches only its largest unit, checking the others there. */
  largestOnly?(scenario: S): boolean;
  /** A certified check that the α = ∞ run of the same method cannot beat `r` (it is then skipped). */
  infinityLarger?(scenario: S, settings: PointSettings, r: CalibrationResult): boolean;
}
