import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : []));

describe('library hygiene', () => {
  it('never uses Math.random (releases draw only from the platform CSPRNG)', () => {
    const offenders = files(SRC).filter((f) => /Math\s*\.\s*random|Math\s*\[\s*['"]random/.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('cites only what ships: no MATH.md or seed files outside the repository', () => {
    const offenders = files(SRC).filter((f) => /MATH\.md|\.\.\/shared|seed 00\d/.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('packaging: a LICENSE, prepack (not prepare), caret ranges for runtime dependencies, docs/math.md shipped', () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/MIT License/);
    expect(pkg.scripts.prepare).toBeUndefined();
    expect(pkg.scripts.prepack).toBeDefined();
    for (const [name, range] of Object.entries(pkg.dependencies)) expect(range, name).toMatch(/^\^/);
    expect(pkg.files).toContain('docs/math.md');
    expect(pkg.keywords.length).toBeGreaterThan(0);
  });
});
