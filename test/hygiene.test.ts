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
});
