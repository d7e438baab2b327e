import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { calibrate } from '../src/calibrate/calibrate.js';
import { parseAnySpecText } from '../src/spec/load.js';

// Defects a hostile or unlucky user found that gave too little noise or published a secret: each
// test here failed before its fix.
const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 });
const dir = mkdtempSync(join(tmpdir(), 'pufferfish-reliability-'));
const file = (name: string, text: string) => {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
};
const scales = (stdout: string) => (JSON.parse(stdout).results as { scale: number }[]).map((r) => r.scale);

describe('secrets named like Object.prototype members', () => {
  const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'prototype', 'valueOf'];
  const rows = names.flatMap((n, k) => Array.from({ length: 12 }, (_, i) => `${n},${3 * k + (i % 4)}`));
  const csv = file('proto.csv', `job,x\n${rows.join('\n')}\n`);

  it('survive --spec-out and give the table scale back from the spec', () => {
    const out = join(dir, 'proto-spec.json');
    const t = cli('calibrate', '--data', csv, '--query', 'x', '--secret-column', 'job', '--method', 'theorem,coupled', '--spec-out', out, '--json');
    expect(t.status, t.stderr).toBe(0);
    const spec = JSON.parse(readFileSync(out, 'utf8'));
    expect(Object.keys(spec.priors[0].conditionals).sort()).toEqual([...names].sort());
    const s = cli('calibrate', '--spec', out, '--method', 'theorem,coupled', '--json');
    expect(s.status, s.stderr).toBe(0);
    expect(scales(s.stdout)).toEqual(scales(t.stdout));
    // The binding pair involves the far-apart secrets, and no secret vanished on the way.
    expect(JSON.parse(s.stdout).results[0].explanation).toMatch(/over 15 \(prior, pair\)/);
  });

  it('are kept by the spec loader (library), and a pair naming an absent one is refused', () => {
    const raw = `{"priors":[{"name":"p","conditionals":{"__proto__":{"values":[0],"counts":[1]},"constructor":{"values":[9],"counts":[1]}}}]}`;
    const s = parseAnySpecText(raw);
    expect(s.kind).toBe('finite');
    if (s.kind !== 'finite') return;
    expect(Object.keys(s.scenario.priors[0].conditionals)).toEqual(['__proto__', 'constructor']);
    const r = calibrate(s.scenario, { mechanism: 'laplace', method: 'wasserstein-inf', alpha: 2, epsilon: 1 });
    expect(r.scale).toBeCloseTo(9, 9);
    const bad = `{"priors":[{"name":"p","conditionals":{"a":{"values":[0],"counts":[1]},"b":{"values":[9],"counts":[1]}}}],"pairs":[["a","toString"]]}`;
    expect(() => parseAnySpecText(bad)).toThrow(/unknown secret 'toString'/);
  });
});

describe('--given: a public value without some secret keeps the pairs it has', () => {
  // Group 2 has secrets a and b far apart but no c: its a-vs-b pair must still be calibrated.
  const lines = ['g,s,x'];
  for (let i = 0; i < 30; i++) lines.push(`1,a,${i % 3}`, `1,b,${i % 4}`, `1,c,${1 + (i % 3)}`, `2,a,${i % 2}`, `2,b,${8 + (i % 3)}`);
  const csv = file('given.csv', `${lines.join('\n')}\n`);

  it('calibrates a vs b in the group that lacks c, says what is left out, and the spec round-trips', () => {
    const out = join(dir, 'given-spec.json');
    const r = cli('calibrate', '--data', csv, '--query', 'x', '--secret-column', 's', '--given', 'g', '--method', 'theorem', '--spec-out', out, '--json');
    expect(r.status, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.results[0].binding).toEqual({ prior: 'empirical | g=2', pair: ['a', 'b'] });
    expect(json.source.absentGiven).toEqual([{ value: '2', absent: ['c'] }]);
    // The group-2 pair alone, as its own table, needs the same scale.
    const alone = file(
      'alone.csv',
      `s,x\n${lines
        .filter((l) => l.startsWith('2,'))
        .map((l) => l.slice(2))
        .join('\n')}\n`,
    );
    const a = cli('calibrate', '--data', alone, '--query', 'x', '--secret-column', 's', '--method', 'theorem', '--json');
    expect(scales(r.stdout)).toEqual(scales(a.stdout));
    const s = cli('calibrate', '--spec', out, '--method', 'theorem', '--json');
    expect(s.status, s.stderr).toBe(0);
    expect(scales(s.stdout)).toEqual(scales(r.stdout));
    const text = cli('calibrate', '--data', csv, '--query', 'x', '--secret-column', 's', '--given', 'g', '--method', 'theorem');
    expect(text.stdout).toMatch(/pairs left out where a secret has no rows: 2 \(no c\)/);
  });

  it('a prior may omit a secret only by naming it absent', () => {
    const base = { name: 'x' };
    const spec = (second: object) =>
      JSON.stringify({
        ...base,
        priors: [{ name: 'p', conditionals: { a: { values: [0], counts: [1] }, b: { values: [1], counts: [1] }, c: { values: [2], counts: [1] } } }, second],
      });
    const two = { a: { values: [0], counts: [1] }, b: { values: [5], counts: [1] } };
    expect(() => parseAnySpecText(spec({ name: 'q', conditionals: two }))).toThrow(/prior 'q' is missing secret 'c'/);
    const ok = parseAnySpecText(spec({ name: 'q', conditionals: two, absent: ['c'] }));
    if (ok.kind !== 'finite') throw new Error('finite expected');
    expect(calibrate(ok.scenario, { mechanism: 'laplace', method: 'wasserstein-inf', alpha: 2, epsilon: 1 }).scale).toBeCloseTo(5, 9);
    expect(() => parseAnySpecText(spec({ name: 'q', conditionals: two, absent: ['d'] }))).toThrow(/absent: names secret 'd'/);
  });
});
