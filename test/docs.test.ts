import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The docs run as written: every command line of README.md's and docs/cli.md's shell examples
// (```sh blocks), in order, from a folder that looks like the repository root (its examples/,
// test/ and docs/ linked in; outputs land in the folder), with `pufferfish` the built CLI and a
// fresh dataset cache. A line's trailing `# exit N` states its exit code (default 0); `# not run:`
// says why a line cannot run here (a placeholder server address), and is listed, not hidden.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'dist/cli/main.js');

interface DocLine {
  doc: string;
  line: number;
  command: string;
  exit: number;
  skip?: string;
}

/** The shell lines of a Markdown file's ```sh blocks, continuation lines joined. */
function docLines(doc: string): DocLine[] {
  const text = readFileSync(join(ROOT, doc), 'utf8').split('\n');
  const out: DocLine[] = [];
  let inSh = false;
  for (let i = 0; i < text.length; i++) {
    if (/^```/.test(text[i])) {
      inSh = !inSh && /^```(sh|bash)\s*$/.test(text[i]);
      continue;
    }
    if (!inSh || /^\s*(#|$)/.test(text[i])) continue;
    const start = i;
    let command = text[i];
    while (command.endsWith('\\')) command = `${command.slice(0, -1)} ${text[++i].trim()}`;
    // A here-document runs to its terminator line, as one command.
    const here = command.match(/<<-?\s*'?(\w+)'?/)?.[1];
    if (here) while (i + 1 < text.length && text[i] !== here) command += `\n${text[++i]}`;
    const exit = Number(command.match(/#\s*exit (\d+)/)?.[1] ?? 0);
    const skip = command.match(/#\s*not run: (.*)$/)?.[1];
    out.push({ doc, line: start + 1, command, exit, ...(skip ? { skip } : {}) });
  }
  return out;
}

const lines = [...docLines('README.md'), ...docLines('docs/cli.md')];
// npm scripts (install, test, the dev server) are the project's own steps, not examples of the CLI.
const examples = lines.filter((l) => !/^npm\b/.test(l.command));

/** A folder laid out like the repository root, with `pufferfish` on the path's stead. */
function workspace(): { cwd: string; env: NodeJS.ProcessEnv } {
  const cwd = mkdtempSync(join(tmpdir(), 'pufferfish-docs-'));
  for (const d of ['examples', 'test', 'docs', 'dist', 'dist-web', 'node_modules', 'package.json']) symlinkSync(join(ROOT, d), join(cwd, d));
  const env = { ...process.env, PUFFERFISH_CACHE_DIR: join(cwd, 'cache'), PUFFERFISH_DATA_DIR: '', BASH_ENV: '' };
  return { cwd, env };
}

/** The line run by bash with `pufferfish` and `npx pufferfish` the built CLI. */
const script = (command: string) => `pufferfish() { node ${JSON.stringify(BIN)} "$@"; }\nset -e\n${command.replace(/\bnpx pufferfish\b/g, 'pufferfish')}\n`;

describe('the docs run as written (README.md, docs/cli.md)', () => {
  it('finds the examples (and names those that cannot run here)', () => {
    expect(examples.length).toBeGreaterThan(40);
    expect(examples.filter((l) => l.skip).map((l) => `${l.doc}:${l.line}: ${l.skip}`)).toEqual([
      expect.stringMatching(/^docs\/cli\.md:\d+: needs your server$/),
      expect.stringMatching(/^docs\/cli\.md:\d+: needs your server$/),
    ]);
  });

  it('every command exits as the doc states', async () => {
    const { cwd, env } = workspace();
    const failed: string[] = [];
    for (const l of examples.filter((x) => !x.skip)) {
      if (/^pufferfish serve\b/.test(l.command)) {
        failed.push(...(await serves(l, cwd, env)));
        continue;
      }
      const t0 = performance.now();
      const r = spawnSync('bash', ['-c', script(l.command)], { cwd, env, encoding: 'utf8', timeout: 180_000 });
      if (process.env.PUFFERFISH_DOCS_TIMES) process.stderr.write(`${((performance.now() - t0) / 1000).toFixed(1)} s ${l.doc}:${l.line}\n`);
      if (r.status !== l.exit)
        failed.push(`${l.doc}:${l.line} exit ${r.status} (expected ${l.exit}): ${l.command}\n${r.stderr.split('\n').slice(0, 2).join('\n')}`);
    }
    expect(failed).toEqual([]);
  }, 900_000);
});

/** `serve` runs until stopped: it must print its address and answer a request. */
async function serves(l: DocLine, cwd: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { cwd, env });
  try {
    const address = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (b) => {
        out += String(b);
        const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
        if (m) resolve(m[0]);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}`)));
      setTimeout(() => reject(new Error('no address within 20 s')), 20_000);
    });
    const res = await fetch(address);
    return res.ok ? [] : [`${l.doc}:${l.line}: GET ${address} answered ${res.status}`];
  } catch (e) {
    return [`${l.doc}:${l.line}: ${(e as Error).message}`];
  } finally {
    child.kill();
  }
}
