import { describe, expect, it } from 'vitest';
import { EMBEDDED_COUNTS } from '../src/uci/embedded.js';
import { UCI_SCENARIOS } from '../src/uci/scenarios.js';
import { uciHistograms } from '../src/uci/files.js';
import { builtinScenario } from '../src/scenarios/builtin.js';
import { HAVE_UCI, UCI_DIR, verifyUci } from './uci.js';

// The vendored UCI copies (test/fixtures/uci) are always available.
describe.runIf(HAVE_UCI)(`embedded counts equal the UCI files (${UCI_DIR})`, () => {
  it.each(UCI_SCENARIOS.map((d) => [d.id, d] as const))('%s', (_id, def) => {
    verifyUci(def.file);
    const h = uciHistograms(def, UCI_DIR);
    expect(h.conditionals).toEqual(EMBEDDED_COUNTS[def.id]);
  });

  it('row and group totals match the UCI documentation', () => {
    const adult = uciHistograms(UCI_SCENARIOS[0], UCI_DIR);
    expect(adult.rows).toBe(32561);
    const total = (s: string) => adult.conditionals[s].counts.reduce((a, b) => a + b, 0);
    expect(total('Husband')).toBe(13193);
    expect(total('Not-in-family')).toBe(8305);
    const heart = uciHistograms(UCI_SCENARIOS[1], UCI_DIR);
    expect(heart.rows).toBe(303);
    expect(heart.conditionals['0'].counts.reduce((a, b) => a + b, 0) + heart.conditionals['1'].counts.reduce((a, b) => a + b, 0)).toBe(303);
    expect(uciHistograms(UCI_SCENARIOS[2], UCI_DIR).rows).toBe(395);
    expect(uciHistograms(UCI_SCENARIOS[3], UCI_DIR).rows).toBe(649);
  });
});

describe('built-in scenarios', () => {
  it('have one empirical prior and the paper’s pair', () => {
    const s = builtinScenario('adult');
    expect(s.priors.map((p) => p.name)).toEqual(['empirical']);
    expect(s.pairs).toEqual([['Husband', 'Not-in-family']]);
    expect(builtinScenario('heart').pairs).toEqual([['0', '1']]);
    expect(() => builtinScenario('nope')).toThrow("scenario: unknown scenario 'nope'");
  });
});
