import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { reproduce } from '../src/reproduce/reproduce.js';
import { HAVE_UCI, UCI_DIR } from './uci.js';

const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
const parseCsv = (text: string) => {
  const [head, ...lines] = text.trim().split('\n');
  const cols = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i], v])));
};

describe('pufferfish reproduce --quick', () => {
  const out = mkdtempSync(join(tmpdir(), 'pufferfish-repro-'));
  const run = cli('reproduce', '--quick', '--out', out, '--json');

  it('writes CSV, SVG and PNG for every figure and a report', () => {
    expect(run.status).toBe(0);
    const files = JSON.parse(run.stdout).files as string[];
    for (const name of ['fig1-scales', 'fig1-variance-alpha', 'fig1-variance-epsilon', 'fig2-walpha', 'fig3-large-alpha', 'fig4-methods', 'fig4-saved']) {
      for (const ext of ['csv', 'svg', 'png']) expect(files).toContain(`${name}.${ext}`);
      const svg = readFileSync(join(out, `${name}.svg`), 'utf8');
      expect(svg.startsWith('<svg')).toBe(true);
      expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
      expect(svg).toMatch(/<text[^>]*>[^<]*(Rényi order α|privacy budget ε)/); // axis titles were drawn
      const png = readFileSync(join(out, `${name}.png`));
      expect([...png.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
      expect(png.readUInt32BE(16)).toBeGreaterThan(400); // width (IHDR)
      expect(png.readUInt32BE(20)).toBeGreaterThan(300); // height
    }
    expect(readFileSync(join(out, 'REPORT.md'), 'utf8')).toMatch(/## Figure 1[\s\S]*## Figure 2[\s\S]*## Figure 3[\s\S]*## Figure 4/);
  });

  it('its CSV numbers equal `pufferfish calibrate --json` for the same settings', () => {
    const rows = parseCsv(readFileSync(join(out, 'fig1-scales.csv'), 'utf8')).filter((r) => r.dataset === 'heart' && r.mechanism === 'gaussian');
    const json = JSON.parse(
      cli('calibrate', '--scenario', 'heart', '--mechanism', 'gaussian', '--method', 'theorem,pierquin', '--alpha', '1.5:5:0.5', '--epsilon', '0.5,1', '--json')
        .stdout,
    );
    expect(rows).toHaveLength(json.results.length);
    for (const r of json.results) {
      const row = rows.find((x) => x.methodKey === r.method && Number(x.alpha) === r.alpha && Number(x.epsilon) === r.epsilon)!;
      expect(Number(row.scale)).toBe(r.scale);
    }
    const f4 = parseCsv(readFileSync(join(out, 'fig4-methods.csv'), 'utf8')).filter(
      (r) => r.dataset === 'student-mat' && r.mechanism === 'laplace' && r.methodKey === 'exact' && r.alpha === '2',
    );
    const ex = JSON.parse(cli('calibrate', '--scenario', 'student-mat', '--method', 'exact', '--alpha', '2', '--epsilon', '0.5', '--json').stdout).results[0];
    expect(Number(f4[0].scale)).toBe(ex.scale);
  });

  it('is deterministic, and the UCI files give the same numbers as the embedded counts', async () => {
    const again = mkdtempSync(join(tmpdir(), 'pufferfish-repro2-'));
    await reproduce({ out: again, quick: true, figures: [1, 3], dataDir: HAVE_UCI ? UCI_DIR : undefined });
    const hash = (dir: string, f: string) =>
      createHash('sha256')
        .update(readFileSync(join(dir, f)))
        .digest('hex');
    for (const f of readdirSync(again).filter((f) => f !== 'REPORT.md')) expect(hash(again, f)).toBe(hash(out, f));
  });

  it('rejects unknown figures and missing data folders with exit 2', () => {
    expect(cli('reproduce', '--figure', '7').status).toBe(2);
    const r = cli('reproduce', '--quick', '--data-dir', '/nonexistent/dir');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: --data-dir: folder '\/nonexistent\/dir' does not exist/);
  });
});
