import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const VENDORED = fileURLToPath(new URL('./fixtures/uci', import.meta.url));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * The vendored UCI copies (test/fixtures/uci, gzip) unpacked once into a temporary folder keyed
 * by their checksums, every file checked against SHA256SUMS. Written to a scratch folder and
 * renamed into place, so parallel test workers never see a half-written copy.
 */
function unpackVendored(): string {
  const sums = readFileSync(join(VENDORED, 'SHA256SUMS'), 'utf8');
  const dir = join(tmpdir(), `pufferfish-uci-${sha256(Buffer.from(sums)).slice(0, 16)}`);
  if (existsSync(join(dir, 'SHA256SUMS'))) return dir;
  const scratch = mkdtempSync(join(tmpdir(), 'pufferfish-uci-unpack-'));
  const walk = (d: string): string[] => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
  for (const gz of walk(VENDORED).filter((f) => f.endsWith('.gz'))) {
    const rel = relative(VENDORED, gz).replace(/\.gz$/, '');
    const bytes = gunzipSync(readFileSync(gz));
    const line = sums.split('\n').find((l) => l.trim().endsWith(`./${rel}`));
    if (!line || line.split(/\s+/)[0] !== sha256(bytes)) throw new Error(`vendored ${rel}: SHA-256 mismatch or not listed`);
    mkdirSync(dirname(join(scratch, rel)), { recursive: true });
    writeFileSync(join(scratch, rel), bytes);
  }
  writeFileSync(join(scratch, 'SHA256SUMS'), sums);
  try {
    renameSync(scratch, dir);
  } catch {
    rmSync(scratch, { recursive: true, force: true }); // another worker won the race
  }
  return dir;
}

/** The UCI copies: $PUFFERFISH_UCI_DIR when set, else the vendored ones (always available). */
export const UCI_DIR = process.env.PUFFERFISH_UCI_DIR ?? unpackVendored();
export const HAVE_UCI = existsSync(join(UCI_DIR, 'SHA256SUMS'));

/** Throws unless `file` (relative to UCI_DIR) matches its line in SHA256SUMS. */
export function verifyUci(file: string): void {
  const sums = readFileSync(join(UCI_DIR, 'SHA256SUMS'), 'utf8');
  const line = sums.split('\n').find((l) => l.trim().endsWith(`./${file}`));
  if (!line) throw new Error(`${file} is not listed in SHA256SUMS`);
  if (sha256(readFileSync(join(UCI_DIR, file))) !== line.split(/\s+/)[0]) throw new Error(`${file}: SHA-256 mismatch`);
}
