import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli/run.js';
import { defaultHelp, parseSetting, refuseIn } from '../src/cli/flags.js';
import { MODES, type Mode, perGuarantee, SETTINGS, type SettingDecl, settingDefault, settingText } from '../src/settings.js';
import { validate, workerSettingsSchema } from '../src/spec/schema.js';
import { runInProcess } from './inProcess.js';
import { whereNotTaken } from '../src/cli/flagsCommand.js';

// One declaration per setting (src/settings.ts): the CLI's flags, their help and defaults, the
// spec schema's fields and the page's starting values are all read off it.
const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
const DECLS: [string, SettingDecl][] = Object.entries(SETTINGS);
const declOf = (flag: string) => DECLS.find(([, d]) => d.flag === flag)?.[1];
/** Flags whose absence the command reads itself: calibrate's and release's δ is an (ε, δ) target, a ledger's budget is required. */
const OWN_ABSENCE = ['calibrate --delta', 'release --delta', 'init --alpha', 'init --epsilon', 'init --delta'];

describe('one declaration per setting', () => {
  it('every flag of every command is a declared setting, and its help shows the declared default', async () => {
    const program = await buildProgram();
    const commands = all(program).slice(1);
    expect(commands.length).toBeGreaterThan(10);
    for (const c of commands)
      for (const o of c.options) {
        const where = `${c.name()} ${o.long}`;
        const d = declOf(o.long!);
        expect(d, `${where} is not declared in SETTINGS`).toBeDefined();
        if (d?.default === undefined) continue;
        // Where a flag's absence means something of its own (no (ε, δ) target; a budget a ledger requires) no default is shown.
        if (OWN_ABSENCE.includes(where)) {
          expect(o.description, where).not.toMatch(/\bdefault\b/);
          continue;
        }
        // A command may say what the setting means there; the default it shows is the declared one.
        expect(o.description, where).toContain(settingText(perGuarantee(d.default, 'renyi')));
        if (!/\bdefault\b/.test(d.help) && o.description.endsWith(defaultHelp(d))) continue;
        expect(o.description, where).toMatch(/\bdefault\b/);
      }
  });

  it('a flag absent takes the declared default, per guarantee where they differ', () => {
    for (const [name, d] of DECLS) {
      if (d.default === undefined) continue;
      expect(parseSetting(name as keyof typeof SETTINGS, undefined, 'mi'), name).toBe(perGuarantee(d.default, 'mi'));
      expect(parseSetting(name as keyof typeof SETTINGS, undefined), name).toBe(perGuarantee(d.default, 'renyi'));
    }
    expect(settingDefault('samples', 'mi')).not.toBe(settingDefault('samples'));
  });

  it('a whole-number setting takes its declared ends and refuses one past them', () => {
    for (const [name, d] of DECLS) {
      if (d.kind !== 'whole') continue;
      const [lo, hi] = [perGuarantee(d.min ?? 1, 'renyi'), d.max ?? Number.MAX_SAFE_INTEGER];
      const parse = (v: number) => parseSetting(name as keyof typeof SETTINGS, String(v));
      expect(parse(lo), name).toBe(lo);
      expect(parse(hi), name).toBe(hi);
      expect(() => parse(lo - 1), name).toThrow(d.flag);
      if (hi < Number.MAX_SAFE_INTEGER) expect(() => parse(hi + 1), name).toThrow(d.flag);
    }
  });

  it("the page's form starts at the declared defaults, its draw limit is declared, and its HTML carries none of its own", () => {
    const html = readFileSync(new URL('../web/index.html', import.meta.url), 'utf8');
    for (const id of ['alpha', 'epsilon', 'delta', 'count', 'contamination']) {
      const input = html.match(new RegExp(`<input id="${id}"[^>]*>`))?.[0];
      expect(input, id).toBeDefined();
      expect(input, id).not.toMatch(/\svalue=/);
    }
    const main = readFileSync(new URL('../web/main.ts', import.meta.url), 'utf8');
    expect(main).toMatch(/settingDefault\(name\)/);
    const max = SETTINGS.count.pageMax;
    expect(validate(workerSettingsSchema, { count: max }).ok).toBe(true);
    expect(validate(workerSettingsSchema, { count: max + 1 }).ok).toBe(false);
  });
});

describe('where a setting is not read is declared with it', () => {
  it('every mode refuses each setting that names it, by flag and with its reason, and nothing else; each is used by a command', () => {
    const src = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? src(join(dir, e.name)) : e.name.endsWith('.ts') ? [readFileSync(join(dir, e.name), 'utf8')] : [],
      );
    const code = src('src/cli').join('\n');
    for (const mode of Object.keys(MODES) as Mode[]) {
      const named = DECLS.filter(([, d]) => d.notIn?.includes(mode));
      expect(named.length, `mode ${mode} names no setting`).toBeGreaterThan(0);
      expect(code, `mode ${mode} is used by no command`).toMatch(new RegExp(`'${mode}'`));
      for (const [k, d] of named) expect(() => refuseIn(mode, { [k]: 'x' })).toThrow(`${d.flag}: is not taken ${MODES[mode]}`);
      // A setting the mode reads, or one not given (an unset switch, an empty list), passes.
      const read = DECLS.filter(([, d]) => !d.notIn?.includes(mode)).map(([k]) => [k, 'x']);
      expect(() => refuseIn(mode, Object.fromEntries(read))).not.toThrow();
      expect(() => refuseIn(mode, Object.fromEntries(named.map(([k]) => [k, k === 'secret' || k === 'release' ? [] : false])))).not.toThrow();
    }
    // The commands list no flags by hand: every refusal of a flag not read is a mode's or a guarantee's.
    expect(code.match(/refuseUnused\(\s*\[\s*\[/g) ?? []).toEqual([]);
  });

  it('a flag a mode does not read exits 2 naming it and the reason, never ignored', async () => {
    const seattle = [
      '--data',
      'test/fixtures/weather/seattle-weather.csv.gz',
      '--sequence',
      'weather',
      '--order-by',
      'date',
      '--window',
      'month',
      '--query',
      'count:rain',
    ];
    for (const [args, flag, mode] of [
      [['calibrate', ...seattle, '--fit', 'gaussian'], '--fit', 'window'],
      [['audit', ...seattle, '--scale', '2', '--guarantee', 'renyi'], '--guarantee', 'window'],
      [['calibrate', '--spec', 'examples/spec.json', '--given', 'sex'], '--given', 'spec'],
      [['calibrate', '--scenario', 'heart', '--spec-out', join(tmpdir(), 'never.json')], '--spec-out', 'scenario'],
    ] as [string[], string, Mode][]) {
      const r = await runInProcess(...args);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toBe(`error: ${flag}: is not taken ${MODES[mode]}\n`);
    }
  });
});

describe('the CLI and a spec file accept and refuse the same values', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pf-settings-'));
  const base = {
    name: 'toy',
    priors: [{ name: 'p', conditionals: { a: { values: [0, 1], counts: [3, 1] }, b: { values: [0, 1], counts: [1, 3] } } }],
    alpha: 2,
    epsilon: 1,
  };
  const basePath = join(dir, 'base.json');
  writeFileSync(basePath, JSON.stringify(base));
  // [setting, texts as typed on the command line]; the spec gets the same value as JSON.
  const CASES: [keyof typeof SETTINGS, string[]][] = [
    ['alpha', ['2', '0.5', '1', '0', '-1', 'inf', 'abc', '1e-320']],
    ['epsilon', ['1', '1e-300', '0', '-1', 'abc']],
    ['delta', ['1e-6', '0.5', '0', '1', '-1']],
    ['releases', ['1', '2', '1000000', '0', '1.5', '-2']],
    ['contamination', ['0', '0.1', '1', '1.5', '-0.1']],
    ['mechanism', ['laplace', 'gaussian', 'geometric', 'foo']],
    ['method', ['best', 'theorem', 'exact', 'foo', 'mqm']],
  ];
  const json = (t: string) => (t === 'inf' || Number.isNaN(Number(t)) ? t : Number(t));
  for (const [name, texts] of CASES)
    it(`${SETTINGS[name].flag}: ${texts.join(' ')}`, async () => {
      let accepted = 0;
      for (const t of texts) {
        // λ goes with the interval the moved mass may go to, given the same way.
        const domain = name === 'contamination';
        const viaFlag = await runInProcess('calibrate', '--spec', basePath, SETTINGS[name].flag, t, ...(domain ? ['--domain', '-1,2'] : []), '--json');
        const file = join(dir, `${name}.json`);
        writeFileSync(file, JSON.stringify({ ...base, [name]: json(t), ...(domain ? { domain: [-1, 2] } : {}) }));
        const viaSpec = await runInProcess('calibrate', '--spec', file, '--json');
        expect([viaFlag.status, viaSpec.status], `${name} = ${t}: ${viaFlag.stderr} | ${viaSpec.stderr}`).toEqual(viaFlag.status === 0 ? [0, 0] : [2, 2]);
        if (viaFlag.status === 0) {
          accepted++;
          // The same value gives the same calibration either way.
          expect(JSON.parse(viaSpec.stdout).results, `${name} = ${t}`).toEqual(JSON.parse(viaFlag.stdout).results);
        } else expect(viaSpec.stderr, `${name} = ${t}`).toContain(`spec.${name}`);
      }
      expect(accepted).toBeGreaterThan(0);
      expect(accepted).toBeLessThan(texts.length);
    });
});

describe('`pufferfish flags`: where each flag is not taken, from the declarations the refusals read', () => {
  it('is named in the help of every command with such a flag, and only there', async () => {
    for (const [args, named] of [
      [['calibrate', '--help'], true],
      [['ledger', 'init', '--help'], true],
      [['scenarios', '--help'], false],
    ] as const) {
      const r = await runInProcess(...args);
      expect(r.stdout.includes('`pufferfish flags` lists every such flag'), args.join(' ')).toBe(named);
    }
  });

  it('lists every declared situation of every setting, and the commands refuse there in those words', async () => {
    const out = await runInProcess('flags');
    expect(out.status).toBe(0);
    const rows = whereNotTaken();
    for (const d of Object.values(SETTINGS) as SettingDecl[])
      for (const m of d.notIn ?? []) {
        expect(rows.find((r) => r.flag === d.flag)?.where, d.flag).toContain(MODES[m]);
        expect(out.stdout).toContain(`${d.flag}\n`);
      }
    for (const { where } of rows) for (const w of where) expect(out.stdout).toContain(`  not taken ${w}\n`);
    const seattle = [
      '--data',
      'test/fixtures/weather/seattle-weather.csv.gz',
      '--sequence',
      'weather',
      '--order-by',
      'date',
      '--query',
      'count:rain',
      '--length',
      '30',
    ];
    for (const [args, flag, where] of [
      [['calibrate', '--scenario', 'heart', '--guarantee', 'mi', '--alpha', '2'], '--alpha', 'with --guarantee mi'],
      [['calibrate', ...seattle, '--given', 'wind'], '--given', MODES.sequence],
      [['account', '--scenario', 'heart', '--release', 'mechanism=laplace,scale=1', '--epsilon', '1'], '--epsilon', MODES.noNext],
    ] as const) {
      expect(rows.find((r) => r.flag === flag)?.where).toContain(where);
      const r = await runInProcess(...args);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${flag}: is not taken ${where}`);
    }
  });
});
