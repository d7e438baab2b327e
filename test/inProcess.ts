import { escapeControls, main } from '../src/cli/run.js';

/**
 * One `pufferfish` command line run in this process (the sources, not dist/), with what it writes
 * to stdout and stderr captured: for tests whose subject is the command's work rather than the
 * process boundary (exit codes, signals, concurrency stay with real processes). Stdout gets the
 * binary's control-character escaping.
 */
export async function runInProcess(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const [stdout, stderr] = [process.stdout.write, process.stderr.write];
  const text = (c: string | Uint8Array) => (typeof c === 'string' ? c : Buffer.from(c).toString('utf8'));
  process.stdout.write = ((c: string | Uint8Array) => out.push(escapeControls(text(c))) > 0) as typeof process.stdout.write;
  process.stderr.write = ((c: string | Uint8Array) => err.push(text(c)) > 0) as typeof process.stderr.write;
  try {
    const status = await main(['node', 'pufferfish', ...args]);
    return { status, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = stdout;
    process.stderr.write = stderr;
  }
}
