import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDir, fetchDataset, isComplete, dataset } from '../src/uci/datasets.js';
import { HAVE_UCI, UCI_DIR } from './uci.js';

// A stand-in for UCI on loopback: serves the vendored copies (student as a zip, like UCI), and a
// corrupted adult under /bad. Tests never reach the internet.
let server: Server;
let base = '';
beforeAll(async () => {
  const zip = zipSync({
    'student-mat.csv': readFileSync(join(UCI_DIR, 'student/student-mat.csv')),
    'student-por.csv': readFileSync(join(UCI_DIR, 'student/student-por.csv')),
    'student.txt': readFileSync(join(UCI_DIR, 'student/student.txt')),
  });
  server = createServer((req, res) => {
    const url = req.url ?? '';
    if (url === '/00320/student.zip') {
      res.end(zip);
      return;
    }
    const bad = url.startsWith('/bad/');
    const file = join(UCI_DIR, url.replace(/^\/bad/, ''));
    if (!existsSync(file)) {
      res.statusCode = 404;
      res.end();
      return;
    }
    const bytes = readFileSync(file);
    if (bad) bytes[100] ^= 1;
    res.end(bytes);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});
afterAll(() => server?.close());

describe.runIf(HAVE_UCI)('datasets (served on loopback)', () => {
  it('fetches plain files and zipped archives, checking every SHA-256', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pufferfish-cache-'));
    for (const name of ['adult', 'heart-disease', 'student']) {
      await fetchDataset(name, { dir, baseUrl: base });
      expect(isComplete(dataset(name), dir)).toBe(true);
    }
    expect(availableDir('student', [dir])).toBe(dir);
  });

  it('a checksum mismatch removes the file and fails with a clear error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pufferfish-cache-'));
    await expect(fetchDataset('adult', { dir, baseUrl: `${base}/bad` })).rejects.toThrow(/checksum mismatch for adult\/adult\.data .* the file was removed/);
    expect(existsSync(join(dir, 'adult/adult.data'))).toBe(false);
  });

  it('CLI: fetch into $PUFFERFISH_CACHE_DIR, then path, and built-in scenarios read the files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pufferfish-cache-'));
    const env = { ...process.env, PUFFERFISH_CACHE_DIR: dir, PUFFERFISH_UCI_BASE_URL: base };
    const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    const run = (...args: string[]) => promisify(execFile)(process.execPath, [BIN, ...args], { env });
    expect((await run('datasets', 'fetch', 'heart-disease')).stdout).toMatch(/heart-disease: 5 files verified/);
    expect((await run('datasets', 'path', 'heart-disease')).stdout.trim()).toBe(join(dir, 'heart-disease'));
    const withFiles = JSON.parse((await run('calibrate', '--scenario', 'heart', '--method', 'theorem', '--json')).stdout).results[0].scale;
    const embedded = JSON.parse(
      (
        await promisify(execFile)(process.execPath, [BIN, 'calibrate', '--scenario', 'heart', '--method', 'theorem', '--json'], {
          env: { ...process.env, PUFFERFISH_CACHE_DIR: mkdtempSync(join(tmpdir(), 'empty-')) },
        })
      ).stdout,
    ).results[0].scale;
    expect(withFiles).toBe(embedded);
    await expect(run('datasets', 'path', 'student')).rejects.toMatchObject({ code: 2 });
  });
});
