import { describe, expect, it } from 'vitest';
import * as core from '../src/index.js';
import * as node from '../src/node.js';
import { InputError } from '../src/errors.js';

// Wrong shapes at the library's entry points: an InputError naming the argument (and the path in
// it), never a TypeError from deep inside.
const heart = core.builtinScenario('heart');
const ok = { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 } as const;
const budget = { alphas: [2], epsilon: 1 };
const store = node.ledgerStore(':memory:');

/** [entry point, call, the field the error must name]. */
const calls: [string, () => unknown, RegExp][] = [
  ['calibrate: no scenario', () => core.calibrate(null as never, ok), /^scenario$/],
  ['calibrate: a scenario without priors', () => core.calibrate({} as never, ok), /^scenario$/],
  ['calibrate: priors not a list', () => core.calibrate({ name: 'x', priors: 5 } as never, ok), /^scenario\.priors$/],
  ['calibrate: a prior without conditionals', () => core.calibrate({ name: 'x', priors: [{ name: 'p' }] } as never, ok), /^scenario\.priors\.0\.conditionals$/],
  ['calibrate: no settings', () => core.calibrate(heart, undefined as never), /^settings$/],
  ['calibrate: settings a number', () => core.calibrate(heart, 5 as never), /^settings$/],
  // A misspelt or foreign field was ignored: `relases: 4` gave one release's scale, `delta: 2` a Rényi scale.
  ['calibrate: a misspelt field', () => core.calibrate(heart, { ...ok, method: 'coupled', relases: 4 } as never), /^settings\.relases$/],
  ['calibrate: a δ it does not read', () => core.calibrate(heart, { ...ok, delta: 2 } as never), /^settings\.delta$/],
  ['calibrate: options a string', () => core.calibrate(heart, ok, 'x' as never), /^options$/],
  ['calibrateFor: no guarantee', () => core.calibrateFor(heart, null as never, { mechanism: 'laplace', method: 'theorem' }), /^guarantee$/],
  ['calibrateFor: no noise', () => core.calibrateFor(heart, { kind: 'renyi', alpha: 2, epsilon: 1 }, undefined as never), /^noise$/],
  [
    'calibrateEpsDelta: δ a string',
    () => core.calibrateEpsDelta(heart, { mechanism: 'laplace', method: 'theorem', epsilon: 1, delta: '1e-6' as never }),
    /^delta$/,
  ],
  ['calibrateMI: no settings', () => core.calibrateMI(heart, undefined as never), /^settings$/],
  ['calibrateTruncated: no interval', () => core.calibrateTruncated(heart, ok, undefined as never), /^interval$/],
  ['audit: no settings', () => core.audit(heart, null as never), /^settings$/],
  ['audit: no scenario', () => core.audit(undefined as never, { mechanism: 'laplace', scale: 1, alphas: [2], epsilon: 1, delta: 1e-6 }), /^scenario$/],
  ['release: no value', () => core.release(heart, ok, undefined as never), /^value$/],
  ['release: value a string', () => core.release(heart, ok, '1.4' as never), /^value$/],
  ['releaseColumn: column a number', () => core.releaseColumn(heart, ok, 5 as never), /^column$/],
  ['account: releases not a list', () => core.account(heart, {} as never, { alphas: [2] }), /^releases$/],
  ['account: no options', () => core.account(heart, [], undefined as never), /^options$/],
  ['nextReleaseScale: α a string', () => core.nextReleaseScale(heart, [], { mechanism: 'laplace' }, { alpha: '2' as never, epsilon: 1 }), /^alpha$/],
  ['budgetLevel: no budget', () => core.budgetLevel(heart, [], undefined as never), /^budget$/],
  ['smallestFittingScale: next missing', () => core.smallestFittingScale(heart, [], undefined as never, budget), /^next$/],
  ['fromCounts: counts not numbers', () => core.fromCounts([1, 2], ['a', 'b'] as never), /./],
  ['comonotoneCoupling: q not a law', () => core.comonotoneCoupling(core.fromCounts([1], [1]), {} as never), /^q(\.values)?$/],
  ['wInf: a number', () => core.wInf(5 as never), /^coupling$/],
  ['wassersteinP: order 0', () => core.wassersteinP(core.comonotoneCoupling(core.fromCounts([1], [1]), core.fromCounts([2], [1])), 0), /^p$/],
  ['exactRenyi: no noise', () => core.exactRenyi(core.fromCounts([1], [1]), core.fromCounts([2], [1]), undefined as never, 2), /^noise$/],
  ['discreteRenyi: α a string', () => core.discreteRenyi(core.fromCounts([1], [1]), core.fromCounts([2], [1]), '2' as never), /^alpha$/],
  ['noiseOf: an unknown family', () => core.noiseOf('x' as never, 1), /^family$/],
  ['noiseOf: a negative scale', () => core.noiseOf('laplace', -1), /^scale$/],
  ['rdpToDpEq5: α ≤ 1', () => core.rdpToDpEq5(1, 0.5, 1e-6), /^alpha$/],
  ['rdpToDpSharp: δ = 2', () => core.rdpToDpSharp(1, 2, 2), /^delta$/],
  ['symmetricInterval: a negative half-width', () => core.symmetricInterval(1, -1), /^halfWidth$/],
  ['project: a wrong dimension', () => core.project(core.projection([[1, 0]]), [1]), /^x$/],
  ['projectionMI: no projection', () => core.projectionMI(heart, null as never, 1), /^projection$/],
  ['exactMutualInformation: no noise', () => core.exactMutualInformation(heart.priors[0], 5 as never), /^noise$/],
];

const asyncCalls: [string, () => Promise<unknown>, RegExp][] = [
  ['auditReport: no settings', () => core.auditReport(heart, undefined as never), /^settings$/],
  ['initLedger: budget a number', () => node.initLedger(store, heart, 5 as never), /^budget$/],
  ['initLedger: no store', () => node.initLedger(null as never, heart, budget), /^store$/],
  ['recordRelease: no release', () => node.recordRelease(store, heart, undefined as never), /^release$/],
  ['scenarioFromTable: no query', () => node.scenarioFromTable('examples/heart.csv', undefined as never), /^query$/],
  ['chainFromTable: no options', () => node.chainFromTable('test/fixtures/weather/seattle-weather.csv.gz', undefined as never), /^options$/],
  [
    'chainFromTable: order a number',
    () => node.chainFromTable('test/fixtures/weather/seattle-weather.csv.gz', { sequence: 'weather', orderBy: 3 as never, query: 'count:rain' }),
    /^options\.orderBy$/,
  ],
  [
    'statisticFromTable: a statistic as text',
    () => node.statisticFromTable('examples/heart.csv', { statistic: 'mean:oldpeak' as never, secretColumn: 'fbs' }),
    /^statistic$/,
  ],
  [
    'statisticFromTable: a misspelt option (calibrated the whole table)',
    () => node.statisticFromTable('examples/heart.csv', { statistic: { kind: 'mean', column: 'oldpeak' }, secretColumn: 'fbs', groupby: 'sex' } as never),
    /^options\.groupby$/,
  ],
  [
    'chainFromTable: window counts asked of the whole-series source (gave the yearly count’s laws)',
    () =>
      node.chainFromTable('test/fixtures/weather/seattle-weather.csv.gz', {
        sequence: 'weather',
        orderBy: 'date',
        query: 'count:rain',
        window: 'month',
      } as never),
    /^options\.window$/,
  ],
  [
    'statisticFromTable: secret values as numbers (was "s.trim is not a function")',
    () => node.statisticFromTable('examples/heart.csv', { statistic: { kind: 'mean', column: 'oldpeak' }, secretColumn: 'fbs', values: [0, 1] as never }),
    /^options\.values\.0$/,
  ],
  ['statisticFromTable: no statistic', () => node.statisticFromTable('examples/heart.csv', { secretColumn: 'fbs' } as never), /^statistic$/],
  [
    'statisticFromTable: an unknown kind (was computed as a sum)',
    () => node.statisticFromTable('examples/heart.csv', { statistic: { kind: 'median' as never, column: 'oldpeak' }, secretColumn: 'fbs' }),
    /^statistic\.kind$/,
  ],
  [
    'statisticFromTable: a count of a column (was a sum)',
    () => node.statisticFromTable('examples/heart.csv', { statistic: { kind: 'count', column: 'oldpeak' }, secretColumn: 'fbs' }),
    /^statistic$/,
  ],
  [
    'statisticFromTable: a misspelt field',
    () => node.statisticFromTable('examples/heart.csv', { statistic: { kind: 'mean', column: 'oldpeak', units: 'age' } as never, secretColumn: 'fbs' }),
    /^statistic\.units$/,
  ],
  [
    'statisticFromTable: a predicate reading other rows (the CLI refuses it too)',
    () =>
      node.statisticFromTable('examples/heart.csv', {
        statistic: { kind: 'count', predicate: "oldpeak > (SELECT avg(oldpeak) FROM read_csv('examples/heart.csv'))" },
        secretColumn: 'fbs',
      }),
    /^statistic\.predicate$/,
  ],
  [
    'privatizeTable: no settings',
    () => node.privatizeTable({ kind: 'csv', location: 'examples/heart.csv' }, 'oldpeak', heart, undefined as never, '/tmp/x.csv'),
    /^settings$/,
  ],
];

const field = (e: unknown) => (e instanceof InputError ? (e.path ?? '') : `not an InputError: ${String(e)}`);

describe('wrong argument shapes: an InputError naming the argument', () => {
  it.each(calls)('%s', (_name, call, named) => {
    let err: unknown = null;
    try {
      call();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect(field(err)).toMatch(named);
  });
  it.each(asyncCalls)('%s', async (_name, call, named) => {
    const err = await call().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect(field(err)).toMatch(named);
  });
  it('the table-to-chain builder gives the CLI’s chain', async () => {
    const { scenario, states, length } = await node.chainFromTable('test/fixtures/weather/seattle-weather.csv.gz', {
      sequence: 'weather',
      orderBy: 'date',
      query: 'count:rain',
      length: 30,
    });
    expect(states).toContain('rain');
    expect(length).toBe(30);
    const r = core.calibrate(scenario, { mechanism: 'laplace', method: 'mqm-exact' as never, alpha: Infinity, epsilon: 1 });
    expect(r.scale).toBeGreaterThan(0);
  });
});
