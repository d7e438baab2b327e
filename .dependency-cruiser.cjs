/**
 * The layers of src/, lowest first: a module imports only its own layer and those below it, and
 * nothing imports in a circle (docs/architecture.md). Tests may import any layer.
 */
const LAYERS = [
  ['base', ['^src/(errors|records|settings|shapes)\\.ts$', '^src/(numerics|io|sampling)/']],
  ['laws', ['^src/distribution/', '^src/markov/']],
  ['couplings', ['^src/coupling/']],
  ['divergences', ['^src/divergence/', '^src/gaussianPriors/']],
  ['mechanisms', ['^src/mechanisms/', '^src/conditions/']],
  [
    'calibration',
    [
      '^src/calibrate/(?!pool|parallel|parallelWorker|threadWorker|wire)',
      '^src/mi/',
    ],
  ],
  ['release-audit-account', ['^src/(release|audit|account)/']],
  ['threads', ['^src/calibrate/(pool|parallel|parallelWorker|threadWorker|wire)\\.ts$']],
  ['api', ['^src/(api|sources|spec|uci|scenarios|reproduce|ledger)/', '^src/(index|node)\\.ts$']],
  ['cli-web', ['^src/cli/', '^web/']],
];

const TESTS = '\\.test\\.ts$';
const upward = LAYERS.slice(0, -1).map(([name, from], i) => ({
  name: `layer-${name}`,
  comment: `${name} imports only its own layer and those below it`,
  severity: 'error',
  from: { path: from, pathNot: TESTS },
  to: { path: LAYERS.slice(i + 1).flatMap(([, p]) => p) },
}));

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'no import cycles', from: { pathNot: TESTS }, to: { circular: true } },
    {
      name: 'layered',
      severity: 'error',
      comment: 'every source module belongs to a layer',
      from: { path: '^src/', pathNot: [TESTS, ...LAYERS.flatMap(([, p]) => p)] },
      to: {},
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '(^|/)(dist|dist-web|node_modules)/' },
  },
};
