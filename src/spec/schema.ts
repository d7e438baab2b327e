import * as v from 'valibot';
import { RANGES, type RangeName, SETTINGS, SETTING_RANGES } from '../settings.js';
import { MECHANISMS } from '../mechanisms/registry.js';

// Valibot rather than zod: the same declarative schema, loaded in a fraction of the time, which
// keeps the browser-safe core entry quick to import (docs/benchmarks.md, "Measurements behind design choices").

/** A finite number (JSON has no ∞ or NaN; library callers might pass them). */
const finite = () => v.pipe(v.number(), v.finite());
/** [LO, HI] with LO < HI: where contaminating mass may go. */
const range = v.pipe(
  v.tuple([finite(), finite()]),
  v.check(([lo, hi]) => lo < hi, 'needs LO < HI'),
);

/** `alpha`: a positive number, or "inf" for ε-Pufferfish privacy (α = ∞). */
const alphaSchema = v.union([v.number(), v.pipe(v.string(), v.regex(/^(inf|infinity|∞)$/i, 'must be a number or "inf"'))], 'must be a number or "inf"');

const sdSchema = () => v.pipe(finite(), v.minValue(0, 'must be ≥ 0'));
const componentSchema = v.strictObject({ weight: v.pipe(finite(), v.minValue(0, 'must be ≥ 0')), mean: finite(), sd: sdSchema() });

/**
 * One secret's conditional law of X: finite (`values` with `counts` or `weights`), a Gaussian
 * (`gaussian: {mean, sd}`), or a Gaussian mixture (`mixture: [{weight, mean, sd}, …]`;
 * docs/math.md §11). One object with optional keys, so every error still names its field.
 */
const conditionalSchema = v.pipe(
  v.strictObject({
    /** Numbers, or vectors of one length d (a vector query; docs/math.md §12). */
    values: v.optional(
      v.pipe(
        v.array(
          v.union(
            [finite(), v.pipe(v.array(finite()), v.minLength(1, 'a vector needs at least one coordinate'))],
            'must be a number or a vector (an array of numbers)',
          ),
        ),
        v.minLength(1, 'needs at least one value'),
        v.check((xs) => xs.every((x) => Array.isArray(x)) || xs.every((x) => !Array.isArray(x)), 'must be all numbers or all vectors (arrays of numbers)'),
      ),
    ),
    counts: v.optional(v.array(finite())),
    weights: v.optional(v.array(finite())),
    gaussian: v.optional(v.strictObject({ mean: finite(), sd: sdSchema() })),
    mixture: v.optional(v.pipe(v.array(componentSchema), v.minLength(1, 'needs at least one component'))),
    /** P(S = this secret) under the prior (mutual information only). */
    probability: v.optional(v.pipe(finite(), v.minValue(0))),
  }),
  v.check(
    (c) => [c.values, c.gaussian, c.mixture].filter((x) => x !== undefined).length === 1,
    'give exactly one of "values" (with "counts" or "weights"), "gaussian" or "mixture"',
  ),
  v.check(
    (c) => (c.values === undefined ? c.counts === undefined && c.weights === undefined : (c.counts === undefined) !== (c.weights === undefined)),
    'give exactly one of "counts" or "weights" with "values" (and neither with "gaussian" or "mixture")',
  ),
);

/** A number in one of the settings' declared ranges, refused with that range's one message. */
const inRangeOf = (range: RangeName) =>
  v.check(
    (x: number) => RANGES[range].ok(x),
    (issue) => `${RANGES[range].message}, got ${issue.input}`,
  );

/** A ranged setting's spec field: a finite number in the range its declaration gives (`SETTINGS`). */
const rangedSetting = (name: keyof typeof SETTING_RANGES) => v.optional(v.pipe(finite(), inRangeOf(SETTING_RANGES[name])));

/**
 * The calibration settings, one schema for every edge that takes them: spec files (below), the
 * web worker's messages (`workerSettingsSchema`), and — through the field↔flag map — CLI errors.
 */
export const settingsEntries = {
  mechanism: v.optional(v.picklist(MECHANISMS)),
  method: v.optional(v.string()),
  guarantee: v.optional(v.picklist(SETTINGS.guarantee.choices)),
  alpha: v.optional(alphaSchema),
  epsilon: rangedSetting('epsilon'),
  /** An (ε, δ) target: ε is met with probability 1 − δ, through the best Rényi order (docs/math.md §3). */
  delta: rangedSetting('delta'),
  /** Releases of the same value the guarantee covers together (docs/math.md §9). */
  releases: rangedSetting('releases'),
  /** ε-contamination λ ∈ [0, 1] and the domain [LO, HI] the moved mass may go to (docs/math.md §10). */
  contamination: rangedSetting('contamination'),
  /** A vector query may give one [LO, HI] per coordinate: the box. */
  domain: v.optional(
    v.union([range, v.pipe(v.array(range), v.minLength(1, 'needs at least one [LO, HI]'))], 'must be [LO, HI] with LO < HI, or one such pair per coordinate'),
  ),
  /** Vector queries: coordinate i's noise is wᵢ times the calibrated scale. */
  coordinateScales: v.optional(v.array(v.pipe(finite(), v.gtValue(0, 'must be > 0')))),
  /** Exponential mechanism: cost c(z) and η(θ) = θ^(−power). */
  cost: v.optional(v.picklist(['abs', 'sqrt'])),
  eta: v.optional(
    v.strictObject({ power: v.pipe(finite(), v.gtValue(0), v.maxValue(64, 'η(θ) = θ^(−power) needs power ≤ 64 (larger powers overflow every scale)')) }),
  ),
};

/**
 * An object keyed by user data (secret names) as a Map of its own entries, each value checked by
 * `value`. Valibot's `record` silently drops the keys `__proto__`, `prototype` and `constructor`:
 * a secret of that name would vanish from the spec and with it the pairs that need the most noise.
 */
const userKeyed = <S extends v.GenericSchema>(value: S) =>
  v.pipe(
    v.custom<Record<string, unknown>>((x) => typeof x === 'object' && x !== null && !Array.isArray(x), 'must be an object'),
    v.transform((x) => new Map(Object.entries(x))),
    v.map(v.string(), value),
  );

/**
 * A statistic of n units (docs/math.md §18): the priors' conditionals are then one unit's
 * contribution (a value for sum and mean, a number of rows for count and share), and a mean's or
 * share's scale is the sum's divided by `units`.
 */
const statisticSchema = v.strictObject({
  kind: v.picklist(['sum', 'mean', 'count', 'share'], 'must be "sum", "mean", "count" or "share"'),
  /** n, the number of units, taken as public. */
  units: v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(1, 'must be ≥ 1')),
  column: v.optional(v.string()),
  predicate: v.optional(v.string()),
  unit: v.optional(v.string()),
});

/** The scenario spec: priors (each secret's conditional law of X), pairs, and calibration defaults. */
export const specSchema = v.strictObject({
  statistic: v.optional(statisticSchema),
  name: v.optional(v.string()),
  priors: v.pipe(
    v.array(
      v.strictObject({
        name: v.pipe(v.string(), v.minLength(1)),
        conditionals: userKeyed(conditionalSchema),
        /** Secrets this prior gives probability 0: their pairs are not constrained under it. */
        absent: v.optional(v.array(v.string())),
      }),
    ),
    v.minLength(1, 'needs at least one prior'),
  ),
  pairs: v.optional(v.array(v.tuple([v.string(), v.string()]))),
  ordered: v.optional(v.boolean()),
  ...settingsEntries,
});

/** A Markov-chain spec: `markov` (validated by markov/chain.ts) instead of priors, with the same settings. */
export const markovSpecSchema = v.strictObject({
  name: v.optional(v.string()),
  markov: v.unknown(),
  ...settingsEntries,
});

/** The web worker's calibrate/audit/release settings: the same fields, plus the page's lists. */
export const workerSettingsSchema = v.object({
  ...settingsEntries,
  mechanisms: v.optional(v.array(v.picklist(MECHANISMS))),
  methods: v.optional(v.array(v.string())),
  value: v.optional(finite()),
  count: v.optional(v.pipe(v.number(), inRangeOf('count'), v.maxValue(SETTINGS.count.pageMax, `must be ≤ ${SETTINGS.count.pageMax}`))),
  scale: v.optional(v.pipe(finite(), v.minValue(0, 'must be ≥ 0'))),
});

/** A scenario spec file, as the schema reads it (docs/cli.md, "Scenario spec"). */
export type Spec = v.InferOutput<typeof specSchema>;

/**
 * Validates `raw`: its typed value, or the first problem with its path (keys and indices) and message.
 * @example validate(specSchema, { name: 'x' }).ok // false (no priors)
 */
export function validate<S extends v.GenericSchema>(
  schema: S,
  raw: unknown,
): { ok: true; value: v.InferOutput<S> } | { ok: false; path: PropertyKey[]; message: string } {
  const r = v.safeParse(schema, raw, { abortEarly: true });
  if (r.success) return { ok: true, value: r.output };
  const issue = r.issues[0];
  const path = (issue.path ?? []).map((p) => p.key as PropertyKey);
  // An unknown key is reported at its object, naming the key.
  const last = issue.path?.[issue.path.length - 1];
  if (issue.type === 'strict_object' && last && last.origin === 'key') {
    // A required key left out is reported at the same place as an unknown one: tell them apart.
    if (issue.received === 'undefined') return { ok: false, path: path.slice(0, -1), message: `is missing the required key ${JSON.stringify(last.key)}` };
    return { ok: false, path: path.slice(0, -1), message: `Unrecognized key: ${JSON.stringify(last.key)}` };
  }
  return { ok: false, path, message: issue.message };
}
