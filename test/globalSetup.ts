import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Starts a real PostgreSQL server on loopback for the PostgreSQL source tests (installing
// Debian's package when missing). PUFFERFISH_SKIP_PG=1 skips it on machines without root;
// CI never sets it, so there the tests always run.
const script = fileURLToPath(new URL('../scripts/pg-test-server.sh', import.meta.url));
let dir = '';

export function setup(): void {
  if (process.env.PUFFERFISH_SKIP_PG === '1') return;
  const out = execFileSync('bash', [script, 'start'], { encoding: 'utf8' }).trim();
  const [url, d] = out.split(' ');
  dir = d;
  process.env.PUFFERFISH_PG_URL = url;
}

export function teardown(): void {
  if (dir) execFileSync('bash', [script, 'stop', dir]);
}
