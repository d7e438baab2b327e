import { account } from '../account/account.js';
import { checkShape, OBJECT } from '../shapes.js';
import type { Accounting } from '../account/rows.js';
import { certifiedAt } from '../calibrate/calibrate.js';
import { byLaw, type AnyScenario } from '../distribution/lawKind.js';
import type { Scenario } from '../distribution/scenario.js';
import { InputError } from '../errors.js';
import { mechanismDef } from '../mechanisms/registry.js';
import { checkSetting, checkSeveralReleases } from '../settings.js';
import { audit, auditEmpirical, auditMI, robustness, type AnySettings } from './audit.js';
import type { RobustnessReport } from './robustness.js';
import type { AuditRow, EmpiricalRow, MiRow } from './rows.js';

/** What an audit report covers beyond the certified rows. */
export interface AuditReportSettings extends AnySettings {
  /** The sampling test of the claimed (α, ε) at the first α. */
  empirical?: { samples: number; level: number };
  /** The contamination report over this domain (one LO,HI, or one per coordinate). */
  robustness?: { domain: readonly (readonly [number, number])[] };
}

/** An order whose rows miss ε, but every (prior, pair) is certified by a condition calibrate stops on. */
export interface CertifiedOrder {
  alpha: number;
  by: string[];
}

/** Everything `audit` reports for a scale: the rows, their verdict, and the optional parts. */
export interface AuditReport {
  rows: AuditRow[];
  /** Releases the verdict is for. On ℝ^d the rows bound them together; on ℝ `joint` does. */
  releases: number;
  /** On ℝ with N > 1: the exact joint account of the N releases (the verdict is theirs). */
  joint: Accounting | null;
  mi: MiRow[];
  empirical: EmpiricalRow[] | null;
  robustness: RobustnessReport | null;
  certified: CertifiedOrder[];
  /** Rows (or joint rows) over ε that no calibration condition certifies: 0 is a pass. */
  over: number;
}

/**
 * Audits a scale on any law source, with the MI rows where the guarantee applies, the empirical
 * test and the robustness report when asked, N releases together, and the verdict: a row over ε
 * still passes when the calibration's own conditions certify the scale (the audit of a calibrated
 * scale never fails by a rounding the calibration did not make).
 * @example (await auditReport(builtinScenario('heart'), { mechanism: 'laplace', scale: 1, alphas: [2], epsilon: 1, delta: 1e-6 })).over // 0
 */
export async function auditReport(
  scenario: AnyScenario,
  s: AuditReportSettings,
  opts: { onProgress?: (done: number, total: number, step?: string) => void } = {},
): Promise<AuditReport> {
  checkShape(OBJECT, s, 'settings');
  const n = checkSetting('releases', s.releases ?? 1, 'releases', String(s.releases));
  if (n > 1 && s.empirical) throw new InputError('samples one release; with --releases the certified rows decide for the releases together', 'empirical');
  checkSeveralReleases(n, s.scale);
  if ((s.empirical || s.robustness) && s.alphas.length !== 1)
    throw new InputError(`the ${s.empirical ? 'empirical audit tests one claimed α' : 'robustness report takes one α'}`, 'alpha');
  // On ℝ the rows are one release's exact divergences and the joint accountant decides N; on ℝ^d
  // the coupled bound takes the N releases inside every row.
  const joint =
    n > 1
      ? byLaw<Accounting | null>(
          scenario,
          {
            finite: (sc) => jointOf(sc, s, n),
            points: () => {
              if (s.robustness) throw new InputError('reports one release; with --releases the certified rows decide', 'robustness');
              return null;
            },
          },
          'the audit',
        )
      : null;
  const rows = audit(scenario, joint ? { ...s, releases: 1 } : s, opts);
  const mi = await auditMI(scenario, s);
  const onSampled = opts.onProgress && ((done: number, total: number) => opts.onProgress!(done, total, 'empirical test'));
  const empirical = s.empirical ? auditEmpirical(scenario, { ...s, alpha: s.alphas[0], ...s.empirical }, { onProgress: onSampled }) : null;
  const robust = s.robustness ? robustness(scenario, { ...s, alpha: s.alphas[0], domain: s.robustness.domain }) : null;
  const failing = joint ? joint.rows.filter((r) => !(r.divergence <= s.epsilon)) : rows.filter((r) => !(r.slack >= 0));
  const certified: CertifiedOrder[] = [];
  if (s.scale > 0)
    for (const alpha of new Set(failing.map((r) => r.alpha))) {
      // No calibration condition exists at this order (Gaussian noise at α < 1): nothing to certify by.
      if (mechanismDef(s.mechanism).alphaRange(alpha)) continue;
      const settings = { mechanism: s.mechanism, alpha, epsilon: s.epsilon, cost: s.cost, eta: s.eta, ...(n > 1 ? { releases: n } : {}) };
      const c = certifiedAt(scenario, s.coordinateScales ? { ...settings, coordinateScales: s.coordinateScales } : settings, s.scale);
      if (c.certified) certified.push({ alpha, by: [...new Set(c.units.map((u) => String(u.by)))] });
    }
  const over = failing.filter((r) => !certified.some((c) => c.alpha === r.alpha)).length;
  return { rows, releases: n, joint, mi, empirical, robustness: robust, certified, over };
}

/** The exact joint account of N releases at the audited scale (finite laws on ℝ). */
function jointOf(scenario: Scenario, s: AuditReportSettings, n: number): Accounting {
  const { mechanism, scale, cost, eta } = s;
  return account(
    scenario,
    Array.from({ length: n }, () => ({ mechanism, scale, cost, eta })),
    { alphas: s.alphas, delta: s.delta },
  );
}
