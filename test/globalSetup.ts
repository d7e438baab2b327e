import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Starts a real PostgreSQL server on loopback for the PostgreSQL source tests. Nothing is
// installed here (`npm run setup` does that): without PostgreSQL the tests are skipped with the
// reason in their name, except under CI=true, where a missing server fails the run.
// PUFFERFISH_SKIP_PG=1 skips them on purpose.
const script = fileURLToPath(new URL('../scripts/pg-test-server.sh', import.meta.url));
let dir = '';

export function setup(): void {
  // A CLI run under load may pass ten seconds: its periodic progress lines on the piped stderr
  // would then depend on the machine's speed. Tests that check them set their own period.
  process.env.PUFFERFISH_PROGRESS_EVERY_MS ??= '3600000';
  if (process.env.PUFFERFISH_SKIP_PG === '1') {
    process.env.PUFFERFISH_PG_SKIPPED = 'PUFFERFISH_SKIP_PG=1';
    return;
  }
  let out: string;
  try {
    out = execFileSync('bash', [script, 'start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (e) {
    const why = String((e as { stderr?: string }).stderr ?? e)
      .trim()
      .split('\n')
      .pop();
    if (process.env.CI === 'true') throw new Error(`PostgreSQL tests cannot run on CI: ${why}`);
    process.env.PUFFERFISH_PG_SKIPPED = why || 'PostgreSQL could not be started';
    return;
  }
  const [url, d] = out.split(' ');
  dir = d;
  process.env.PUFFERFISH_PG_URL = url;
}

export function teardown(): void {
  if (dir) execFileSync('bash', [script, 'stop', dir]);
}
