import { Option, type Command } from 'commander';
import { asFlagError, parseDelta } from './flags.js';
import { MECHANISMS, type Mechanism } from '../calibrate/calibrate.js';
import { costs } from '../conditions/costs.js';
import { InputError } from '../errors.js';
import { decimal, wholeNumber } from './numbers.js';
import { isDecimal } from '../numerics/float.js';
import { EXIT, setCommandExit } from './exitCode.js';
import { BUILTIN_IDS } from '../scenarios/builtin.js';
import { parseGrid, parseNames } from './grid.js';
import { auditTable, jsonAlpha, jsonNumber, numDown, numUp, table } from './format.js';
import type { RobustnessReport } from '../audit/robustness.js';
import type { Accounting } from '../account/account.js';
import type { AuditRow, EmpiricalRow } from '../audit/audit.js';
import { loadScenario, parseCoordinateScales, parseRanges, parseReleases, withSourceOptions, type CalibrateOptions } from './input.js';
import { isPointScenario, type PointScenario } from '../distribution/points.js';
import { progressBar } from './progress.js';

interface AuditOptions extends CalibrateOptions {
  scale?: string;
  delta?: string;
  empirical?: boolean;
  samples?: string;
  level?: string;
  robustness?: boolean;
}

async function runAudit(o: AuditOptions): Promise<void> {
  if (o.guarantee !== undefined && o.guarantee !== 'renyi' && o.guarantee !== 'mi')
    throw new InputError(`must be renyi or mi, got '${o.guarantee}'`, '--guarantee');
  if (o.guarantee === 'mi') {
    if (!o.empirical) throw new InputError('takes --empirical here (the sliced-MI test); the certified MI rows are printed with every audit', '--guarantee');
    return (await import('./projectionCommand.js')).auditSlicedCli(o);
  }
  if (o.projection !== undefined) return (await import('./projectionCommand.js')).auditProjectionCli(o);
  const { audit, auditEmpirical, auditMI } = await import('../audit/audit.js');
  const { scenario: loaded, d } = await loadScenario(o, { vector: true });
  if (o.scale === undefined) throw new InputError('is required (the noise scale to audit: Laplace b, Gaussian σ, exponential θ)', '--scale');
  const scale = decimal(o.scale, '--scale');
  if (!(scale >= 0) || !Number.isFinite(scale)) throw new InputError(`must be a finite number ≥ 0 (0: the data's own divergence), got '${o.scale}'`, '--scale');
  const delta = parseDelta(o.delta, d.delta ?? 1e-6);
  const mechanism = o.mechanism ? parseNames(o.mechanism, 'mechanism', MECHANISMS)[0] : (d.mechanism ?? 'laplace');
  const alphas = o.alpha ? parseGrid(o.alpha, 'alpha', true) : [d.alpha ?? 2];
  const epsilons = o.epsilon ? parseGrid(o.epsilon, 'epsilon') : [d.epsilon ?? 1];
  if (epsilons.length !== 1) throw new InputError('takes one value for audit', '--epsilon');
  const cost = o.cost ? costs[parseNames(o.cost, 'cost', Object.keys(costs))[0]] : d.cost;
  let rows: AuditRow[];
  if (isPointScenario(loaded))
    return auditVectorCommand(o, loaded, { mechanism, scale, alphas, epsilon: epsilons[0], delta }, d.coordinateScales, d.releases, d.domain);
  const scenario = loaded;
  if (o.coordinateScales !== undefined)
    throw new InputError('apply to vector queries (several --query columns, or vector values in a spec)', '--coordinate-scales');
  const releases = o.releases !== undefined ? parseReleases(o.releases) : (d.releases ?? 1);
  if (releases > 1 && o.empirical)
    throw new InputError('samples one release; with --releases the certified rows decide for the releases together', '--empirical');
  const bar = await progressBar('audit', !o.json);
  try {
    rows = audit(
      scenario,
      { mechanism, scale, alphas, epsilon: epsilons[0], delta, cost, eta: d.eta },
      { onProgress: (done, total) => bar.update(done, total) },
    );
  } catch (e) {
    throw asFlagError(e);
  } finally {
    bar.stop();
  }
  // The MI rows beside the Rényi ones, where MI applies to these secrets (not a chain's).
  const canMI = (mechanism !== 'exponential' || (cost ?? costs.abs) === costs.abs) && !scenario.miNotApplicable;
  const mi = canMI ? await auditMI(scenario, { mechanism, scale, cost, eta: d.eta }) : [];
  let empirical: Awaited<ReturnType<typeof auditEmpirical>> = [];
  if (o.empirical) {
    const { samples, level } = empiricalOptions(o, alphas);
    empirical = await auditEmpirical(scenario, { mechanism, scale, alphas, alpha: alphas[0], epsilon: epsilons[0], delta, cost, eta: d.eta, samples, level });
  }
  let robust: RobustnessReport | null = null;
  if (o.robustness) {
    const { robustness } = await import('../audit/robustness.js');
    const domain = o.domain?.split(',').map((x) => (isDecimal(x) ? Number(x) : NaN)) ?? d.domain;
    if (domain?.length !== 2 || !domain.every(Number.isFinite) || !(domain[0] < domain[1]))
      throw new InputError(
        `is needed with --robustness: LO,HI with finite LO < HI (the interval an adversary may move mass to), got '${o.domain ?? ''}'`,
        '--domain',
      );
    if (alphas.length !== 1) throw new InputError('the robustness report takes one α', '--alpha');
    try {
      robust = robustness(scenario, { mechanism, scale, alpha: alphas[0], epsilon: epsilons[0], domain: domain as [number, number], cost, eta: d.eta });
    } catch (e) {
      throw asFlagError(e);
    }
  }
  // Verdict: every row must be certified within ε (value + error ≤ ε); exit 1 otherwise.
  // --releases N: the N releases of one value together (docs/math.md §9); the verdict is theirs.
  const n = releases;
  let joint: Accounting | null = null;
  if (n > 1) {
    if (scale === 0) throw new InputError('auditing several releases needs a scale > 0', '--scale');
    const { account } = await import('../account/account.js');
    try {
      joint = account(
        scenario,
        Array.from({ length: n }, () => ({ mechanism, scale, cost, eta: d.eta })),
        { alphas, delta },
      );
    } catch (e) {
      throw asFlagError(e);
    }
  }
  const failing = joint ? joint.rows.filter((r) => !(r.divergence <= epsilons[0])) : rows.filter((r) => !(r.slack >= 0));
  // An order whose rows miss ε may still be certified by a condition calibrate stops on (the
  // same rules and rounding): then the scale meets it, and the audit of a calibrated scale passes.
  const certified: { alpha: number | 'inf'; by: string[] }[] = [];
  if (scale > 0)
    for (const alpha of new Set(failing.map((r) => r.alpha))) {
      const { certifiedAt } = await import('../calibrate/calibrate.js');
      const c = certifiedAt(scenario, { mechanism, alpha, epsilon: epsilons[0], cost, eta: d.eta, ...(n > 1 ? { releases: n } : {}) }, scale);
      if (c.certified) certified.push({ alpha: jsonAlpha(alpha), by: [...new Set(c.units.map((u) => String(u.by)))] });
    }
  const isCertified = (a: number) => certified.some((c) => c.alpha === jsonAlpha(a));
  const over = failing.filter((r) => !isCertified(r.alpha)).length;
  const verdict = over === 0 ? 'pass' : 'fail';
  setCommandExit(over === 0 ? EXIT.ok : EXIT.checkFailed);
  if (o.json) {
    const out = {
      scenario: scenario.name,
      mechanism,
      scale,
      epsilon: epsilons[0],
      delta,
      verdict,
      over,
      ...(certified.length ? { certified } : {}),
      rows: rows.map((r) => Object.fromEntries(Object.entries({ ...r, alpha: jsonAlpha(r.alpha) }).map(([k, v]) => [k, jsonNumber(v)]))),
      mi,
      ...(joint
        ? {
            releases: {
              n,
              rows: joint.rows.map((r) => ({
                ...r,
                alpha: jsonAlpha(r.alpha),
                divergence: jsonNumber(r.divergence),
                naiveSum: jsonNumber(r.naiveSum),
                slack: jsonNumber(epsilons[0] - r.divergence),
              })),
            },
          }
        : {}),
      ...(o.empirical ? { empirical } : {}),
      ...(robust ? { robustness: robustJson(robust) } : {}),
    };
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
    return;
  }
  process.stdout.write(`${scenario.name}\n${mechanism} noise, scale ${scale}; slack to ε = ${epsilons[0]}; (ε′, δ) at δ = ${delta}\n\n${auditTable(rows)}\n`);
  const certs = [...new Set(rows.map((r) => r.certificate))];
  const CERT = {
    'bernstein-ellipse': 'certified quadrature (Bernstein-ellipse bounds, docs/math.md §8)',
    'sup-at-atoms': 'α = ∞: exact supremum at the atoms (docs/math.md §4)',
    'data-processing': "the data's own divergence, an upper bound on any release of it (data processing, docs/math.md §4)",
    'coupled-bound': 'coupled bound over the better of two transport couplings (an upper bound, docs/math.md §12)',
  } as const;
  process.stdout.write(`\nerror bounds: ${certs.map((c) => CERT[c]).join('; ')}\n`);
  for (const c of certified)
    process.stdout.write(
      `\nα = ${c.alpha === 'inf' ? '∞' : c.alpha}: rows above ε, but every (prior, pair) is certified within ε at this scale by ${c.by.join(', ')} (the conditions calibrate uses, docs/math.md §3–§4)\n`,
    );
  if (mi.length) {
    process.stdout.write(`\nmutual information I(Y; S) (secrets weighted by their probabilities):\n`);
    for (const m of mi)
      process.stdout.write(
        `  ${m.prior}: ${m.nats.toPrecision(6)} nats = ${m.bits.toPrecision(6)} bits (± ${m.error.toExponential(1)})${m.impliedByPufferfish !== null ? `; the exact ε-PP level implies ≤ ${m.impliedByPufferfish.toPrecision(6)} nats` : ''}\n`,
      );
  }
  process.stdout.write(empiricalLines(empirical, 'the exact rows above decide'));
  if (joint) {
    process.stdout.write(`\n${n} releases of the same value together (docs/math.md §9; the verdict is theirs):\n`);
    process.stdout.write(
      `${table(
        ['α', 'joint D_α ≤', 'slack', 'naive sum'],
        joint.rows.map((r) => [r.alpha === Infinity ? '∞' : String(r.alpha), numUp(r.divergence), numDown(epsilons[0] - r.divergence), numUp(r.naiveSum)]),
        [0, 1, 2, 3],
      )}\n`,
    );
  }
  process.stdout.write(robustLines(robust));
  process.stdout.write(`\nverdict: ${over === 0 ? 'pass' : `fail (${over} row${over === 1 ? '' : 's'} over ε)`}\n`);
}

/** The robustness report's lines (none without one). */
function robustLines(robust: RobustnessReport | null): string {
  if (!robust) return '';
  return (
    `\nrobustness (ε-contamination, docs/math.md §10): every prior within λ of the class, mass moved anywhere in the domain\n` +
    `${table(
      ['λ', 'D_α ≤', 'slack'],
      robust.rows.map((r) => [String(r.lambda), numUp(r.divergence), numDown(r.slack)]),
      [0, 1, 2],
    )}\n` +
    `largest λ within ε: ${numDown(robust.largestLambda)}${robust.binding ? `; binding: prior '${robust.binding.prior}', pair ${robust.binding.pair.join(' vs ')} (group totals ${robust.binding.counts.join(' and ')})` : ''}\n` +
    (robust.warning ? `warning: ${robust.warning}\n` : '')
  );
}

/** The robustness report as JSON (non-finite numbers as text). */
const robustJson = (robust: RobustnessReport) => ({
  ...robust,
  rows: robust.rows.map((r) => ({ ...r, divergence: jsonNumber(r.divergence), slack: jsonNumber(r.slack) })),
});

/** `--samples` and `--level` of the empirical audit, checked (it tests one claimed α). */
function empiricalOptions(o: AuditOptions, alphas: number[]): { samples: number; level: number } {
  if (alphas.length !== 1) throw new InputError('the empirical audit tests one claimed α', '--alpha');
  const samples = o.samples === undefined ? 50_000 : wholeNumber(o.samples, '--samples', 100, 10_000_000);
  const level = o.level === undefined ? 1e-3 : decimal(o.level, '--level');
  if (!(level > 0 && level < 1)) throw new InputError(`must be in (0, 1), got '${o.level}'`, '--level');
  return { samples, level };
}

/** The empirical audit's lines, one per pair; `decides`: what does decide privacy. */
function empiricalLines(empirical: EmpiricalRow[], decides: string): string {
  return empirical
    .map((e) => {
      const r = e.result;
      const power = `a sampling test of limited power${r.resolution !== null ? `: its confidence bounds cost about ${r.resolution.toPrecision(2)} in ε here, so smaller violations go unseen` : ''}`;
      const witness = r.verdict === 'violation' && r.witness ? ` (witness: ${r.witness.set}, ${r.witness.direction})` : '';
      return `\nempirical audit, ${e.prior}: ${e.pair.join(' vs ')} (${r.samples} draws per secret, false-alarm level ${r.level}): ε at δ = ${r.delta} is at least ${r.lowerBound.toPrecision(4)}; the claim implies ≤ ${r.claimed.toPrecision(4)} → ${r.verdict}${r.verdict === 'violation' ? witness : ` (${power}; not evidence of privacy — ${decides})`}\n`;
    })
    .join('');
}

/**
 * `audit` of a vector query: certified upper bounds on D_α per pair (`auditPoints`), and with
 * `--empirical` the sampling test through one-number statistics; the exact, MI, robustness and
 * joint-release parts are for one-column queries.
 */
async function auditVectorCommand(
  o: AuditOptions,
  scenario: PointScenario,
  s: { mechanism: Mechanism; scale: number; alphas: number[]; epsilon: number; delta: number },
  specScales?: number[],
  specReleases?: number,
  specDomain?: [number, number] | [number, number][],
): Promise<void> {
  // --releases N: every row bounds the N releases together (the verdict is theirs).
  const n = o.releases !== undefined ? parseReleases(o.releases) : (specReleases ?? 1);
  if (n > 1 && o.empirical) throw new InputError('samples one release; with --releases the certified rows decide for the releases together', '--empirical');
  const { auditPoints } = await import('../account/points.js');
  const coordinateScales = parseCoordinateScales(o.coordinateScales) ?? specScales;
  let rows: AuditRow[];
  let empirical: EmpiricalRow[] = [];
  let robust: RobustnessReport | null = null;
  let mi: { prior: string; atMost: number; how: string }[] = [];
  const bar = await progressBar('audit', !o.json);
  try {
    rows = auditPoints(scenario, { ...s, coordinateScales, releases: n }, { onProgress: (done, total) => bar.update(done, total) });
    if ((s.mechanism === 'laplace' || s.mechanism === 'gaussian') && !scenario.miNotApplicable) {
      const { miBoundsPoints } = await import('../mi/points.js');
      mi = miBoundsPoints(scenario, { mechanism: s.mechanism, scale: s.scale, coordinateScales });
    }
    if (o.robustness) {
      // The contamination box: one LO,HI per coordinate (or one for all), from --domain or the spec.
      const ranges =
        o.domain !== undefined
          ? parseRanges(o.domain)
          : specDomain && (Array.isArray(specDomain[0]) ? (specDomain as [number, number][]) : [specDomain as [number, number]]);
      if (!ranges)
        throw new InputError('is needed with --robustness: LO,HI;LO,HI;… (the box an adversary may move mass to, one range per coordinate)', '--domain');
      if (s.alphas.length !== 1) throw new InputError('the robustness report takes one α', '--alpha');
      if (n > 1) throw new InputError('reports one release; with --releases the certified rows decide', '--robustness');
      const { robustnessPoints } = await import('../account/points.js');
      const d = Object.values(scenario.priors[0].conditionals)[0].d;
      robust = robustnessPoints(scenario, { ...s, alpha: s.alphas[0], box: ranges.length === 1 ? Array(d).fill(ranges[0]) : ranges, coordinateScales });
    }
    if (o.empirical) {
      // The real release path through d + 1 one-number statistics (docs/math.md §12).
      const { samples, level } = empiricalOptions(o, s.alphas);
      if (s.mechanism !== 'laplace' && s.mechanism !== 'gaussian') throw new InputError('vector queries take laplace or gaussian noise', '--mechanism');
      const { auditEmpiricalPoints } = await import('../audit/pointsEmpirical.js');
      empirical = auditEmpiricalPoints(scenario, { ...s, mechanism: s.mechanism, alpha: s.alphas[0], samples, level, coordinateScales });
    }
  } catch (e) {
    throw asFlagError(e);
  } finally {
    bar.stop();
  }
  // An order whose rows miss ε is still met when the calibration's own certificate holds at this
  // scale: every vector bound is certified on a fixed coupling and falls as the scale grows, so a
  // scale at or above the calibrated one is certified by the same condition.
  const certified: { alpha: number | 'inf'; by: string[] }[] = [];
  if (s.scale > 0 && (s.mechanism === 'laplace' || s.mechanism === 'gaussian'))
    for (const alpha of new Set(rows.filter((r) => !(r.slack >= 0)).map((r) => r.alpha))) {
      const { calibratePoints } = await import('../calibrate/points.js');
      const c = calibratePoints(scenario, {
        mechanism: s.mechanism,
        method: 'best',
        alpha,
        epsilon: s.epsilon,
        ...(n > 1 ? { releases: n } : {}),
        ...(coordinateScales ? { coordinateScales } : {}),
      });
      if (c.scale <= s.scale) certified.push({ alpha: jsonAlpha(alpha), by: [String(c.winner ?? c.method)] });
    }
  const over = rows.filter((r) => !(r.slack >= 0) && !certified.some((c) => c.alpha === jsonAlpha(r.alpha))).length;
  setCommandExit(over === 0 ? EXIT.ok : EXIT.checkFailed);
  if (o.json) {
    const out = {
      scenario: scenario.name,
      ...(certified.length ? { certified } : {}),
      mechanism: s.mechanism,
      scale: s.scale,
      epsilon: s.epsilon,
      delta: s.delta,
      ...(n > 1 ? { releases: n } : {}),
      verdict: over === 0 ? 'pass' : 'fail',
      ...(robust ? { robustness: robustJson(robust) } : {}),
      ...(mi.length ? { mi } : {}),
      over,
      rows: rows.map((r) => Object.fromEntries(Object.entries({ ...r, alpha: jsonAlpha(r.alpha) }).map(([k, v]) => [k, jsonNumber(v)]))),
      ...(o.empirical ? { empirical } : {}),
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    `${scenario.name}\n${s.mechanism} noise per coordinate, scale ${s.scale}${n > 1 ? `; ${n} releases of the same value together (docs/math.md §9; the verdict is theirs)` : ''}; slack to ε = ${s.epsilon}; (ε′, δ) at δ = ${s.delta}\n\n${auditTable(rows)}\n` +
      `\nD_α here is an upper bound (coupled bound over a transport coupling, or the data's own D_α; docs/math.md §12): a pass is certified, a fail may be the bound's looseness.\n` +
      certified
        .map((c) => `α = ${c.alpha === 'inf' ? '∞' : c.alpha}: rows above ε, but the calibration's own certificate (${c.by.join(', ')}) holds at this scale\n`)
        .join('') +
      `verdict: ${over === 0 ? 'pass' : `fail (${over} row(s) over ε)`}\n` +
      (mi.length
        ? `\nmutual information I(Y; S) (secrets weighted by their probabilities), upper bounds:\n${mi.map((m) => `  ${m.prior}: ≤ ${numUp(m.atMost)} nats (${m.how === 'max-entropy' ? 'max-entropy bound summed over the coordinates, docs/math.md §12' : "the data's own I(X; S), data processing"})`).join('\n')}\n`
        : '') +
      empiricalLines(empirical, 'the certified bounds above decide') +
      robustLines(robust),
  );
}

/** Registers `audit`. */
export function auditCommand(program: Command): void {
  withSourceOptions(program.command('audit'))
    .description('Exact Rényi divergence of the released outputs at a given noise scale, per prior, pair and direction.')
    .option('--spec <file>', 'scenario spec (JSON)')
    .addOption(new Option('--scenario <name>', 'built-in scenario of the paper').choices(BUILTIN_IDS))
    .option('--scale <s>', 'noise scale to audit: Laplace b, Gaussian σ, exponential θ (required)')
    .option('--coordinate-scales <w1,w2,…>', 'vector queries: coordinate i has noise wᵢ × the scale (default all 1)')
    .option('--mechanism <m>', `noise: ${MECHANISMS.join(' | ')} (default: spec, else laplace)`)
    .option('--alpha <grid>', 'Rényi order(s): A | A,B,… | FROM:TO:STEP | inf (Laplace) (default: spec, else 2)')
    .option('--epsilon <e>', 'budget the slack is measured against (default: spec, else 1)')
    .option('--delta <d>', 'δ for the (ε′, δ) conversions (default 1e-6)')
    .option('--cost <c>', 'exponential mechanism cost (exact accounting: abs only)')
    .option('--empirical', 'also test the claimed (α, ε) by sampling the real release path (Clopper–Pearson, threshold sets)')
    .option('--samples <n>', 'empirical audit: draws per secret (default 50000)')
    .option('--level <a>', 'empirical audit: false-alarm probability bound (default 1e-3)')
    .option('--releases <n>', 'audit N releases of the same value together (the verdict is theirs; docs/math.md §9)')
    .option('--guarantee <g>', 'with --empirical: mi runs the sliced-MI test of ε-MI Pufferfish (default renyi)')
    .option('--projection <file|random:K>', 'the ε-MI level of a projection release A·f(X) + N(0, σ²I_k) at σ = --scale')
    .option('--robustness', 'also: the guarantee at this scale for contamination λ = 0, 0.001, 0.01, 0.1, 1, and the largest λ within ε (needs --domain)')
    .option(
      '--domain <lo,hi>',
      "with --robustness: the interval an adversary may move mass to (must cover every value; a vector query: one range per coordinate, 'LO,HI;LO,HI')",
    )
    .option('--json', 'print {"rows": [...], "mi": [...]} as JSON, mirroring the tables')
    .addHelpText(
      'after',
      `
Columns: D_α and its proven error bound (certified Gauss–Kronrod quadrature, docs/math.md §8); slack = ε − (D_α + error);
ε′ at δ by eq. (5) of the paper, ε′ = D_α + log(1/δ)/(α−1), and by the sharper conversion
ε′ = D_α + log((α−1)/α) − (log δ + log α)/(α−1) (Canonne–Kamath–Steinke 2020, Prop. 12);
ε-PP = the exact ε-Pufferfish level sup log p/q of Laplace-shaped noise.

Example:
  pufferfish audit --scenario heart --scale 0.8 --alpha 1.5,2,4,inf`,
    )
    .action((o: AuditOptions) => runAudit(o));
}
