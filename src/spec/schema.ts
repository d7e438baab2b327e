import { z } from 'zod';
import { MECHANISMS } from '../calibrate/calibrate.js';

/** `alpha`: a positive number, or "inf" for ε-Pufferfish privacy (α = ∞). */
export const alphaSchema = z.union([z.number(), z.string().regex(/^(inf|infinity|∞)$/i, 'must be a number or "inf"')]);

const conditionalSchema = z
  .object({
    values: z.array(z.number()).min(1, 'needs at least one value'),
    counts: z.array(z.number()).optional(),
    weights: z.array(z.number()).optional(),
    /** P(S = this secret) under the prior (mutual information only). */
    probability: z.number().min(0).optional(),
  })
  .strict()
  .refine((c) => (c.counts === undefined) !== (c.weights === undefined), 'give exactly one of "counts" or "weights"');

export const specSchema = z
  .object({
    name: z.string().optional(),
    priors: z
      .array(z.object({ name: z.string().min(1), conditionals: z.record(z.string(), conditionalSchema) }).strict())
      .min(1, 'needs at least one prior'),
    pairs: z.array(z.tuple([z.string(), z.string()])).optional(),
    ordered: z.boolean().optional(),
    mechanism: z.enum(MECHANISMS).optional(),
    method: z.string().optional(),
    guarantee: z.enum(['renyi', 'mi']).optional(),
    alpha: alphaSchema.optional(),
    epsilon: z.number().optional(),
    /** Exponential mechanism: cost c(z) and η(θ) = θ^(−power). */
    cost: z.enum(['abs', 'sqrt']).optional(),
    eta: z.object({ power: z.number().positive().max(64, 'η(θ) = θ^(−power) needs power ≤ 64 (larger powers overflow every scale)') }).strict().optional(),
  })
  .strict();

export type Spec = z.infer<typeof specSchema>;
