import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { InputError } from '../errors.js';

/** A file of a dataset: where it lands (relative to the data folder) and its SHA-256. */
interface DatasetFile {
  path: string;
  sha256: string;
}

/** A UCI dataset: plain files at `base/remote`, or members of one zip archive. */
export interface Dataset {
  name: string;
  page: string;
  files: DatasetFile[];
  /** Path below the UCI base URL of each file, or of the zip holding them. */
  remote: { file?: Record<string, string>; zip?: string };
}

/** Official UCI locations (the legacy file tree; CC BY 4.0). Hashes: as in test/fixtures/uci/SHA256SUMS (the vendored copies). */
const UCI_BASE_URL = 'https://archive.ics.uci.edu/ml/machine-learning-databases';

export const DATASETS: readonly Dataset[] = [
  {
    name: 'adult',
    page: 'https://archive.ics.uci.edu/dataset/2/adult',
    files: [
      { path: 'adult/adult.data', sha256: '5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d' },
      { path: 'adult/adult.test', sha256: 'a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05' },
      { path: 'adult/adult.names', sha256: 'c248284c0b5de30c9e1958d6cdd168a34a654758b620e68f46aefa83fc0a576a' },
    ],
    remote: { file: { 'adult/adult.data': 'adult/adult.data', 'adult/adult.test': 'adult/adult.test', 'adult/adult.names': 'adult/adult.names' } },
  },
  {
    name: 'heart-disease',
    page: 'https://archive.ics.uci.edu/dataset/45/heart+disease',
    files: [
      { path: 'heart-disease/processed.cleveland.data', sha256: 'a74b7efa387bc9d108d7d0115d831fe9b414b29ae7124f331b622b4efa0427c8' },
      { path: 'heart-disease/processed.hungarian.data', sha256: 'd1ad108f785768cd3d7e82dc522e6f5a61eea93cccfb3a46ee8076f73fc3d796' },
      { path: 'heart-disease/processed.switzerland.data', sha256: '834a405ccf5b66ab4056bb77794adc8df0b7125186454c0a1d002d33c6c3b314' },
      { path: 'heart-disease/processed.va.data', sha256: 'e7c93d8d0d2acdadfa4c5e8de768e2191e7f618b952e29623f1f0d5949ff6b8f' },
      { path: 'heart-disease/heart-disease.names', sha256: 'ec7ed5aa4ed8321097808f47b836301c2a0c36f3bb09c40b8b43b622363e6b61' },
    ],
    remote: {
      file: Object.fromEntries(
        ['processed.cleveland.data', 'processed.hungarian.data', 'processed.switzerland.data', 'processed.va.data', 'heart-disease.names'].map((f) => [
          `heart-disease/${f}`,
          `heart-disease/${f}`,
        ]),
      ),
    },
  },
  {
    name: 'student',
    page: 'https://archive.ics.uci.edu/dataset/320/student+performance',
    files: [
      { path: 'student/student-mat.csv', sha256: 'e47f9ee225e1ee6e69b7564e6dac7123e80b8486677fe111f351964cef5dec80' },
      { path: 'student/student-por.csv', sha256: 'a7594a11d7771c0efe1a740824e0e833da9c4cad07c39a9766a874575563fb3f' },
      { path: 'student/student.txt', sha256: 'f8d3e734e237071312790ca667330c66d75e706317f8d5e2125c479d70e962c1' },
    ],
    remote: { zip: '00320/student.zip' },
  },
];

/** Which dataset a built-in scenario reads. */
export const SCENARIO_DATASET: Record<string, string> = { adult: 'adult', heart: 'heart-disease', 'student-mat': 'student', 'student-por': 'student' };

/** The cache folder: $PUFFERFISH_CACHE_DIR, else $XDG_CACHE_HOME/pufferfish/uci, else ~/.cache/pufferfish/uci. */
export function cacheDir(): string {
  return process.env.PUFFERFISH_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'pufferfish', 'uci');
}

export function dataset(name: string): Dataset {
  const d = DATASETS.find((x) => x.name === name);
  if (!d) throw new InputError(`unknown dataset '${name}' (${DATASETS.map((x) => x.name).join(', ')})`, 'dataset');
  return d;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** True when every file of the dataset is in `dir` with the right hash. */
export function isComplete(d: Dataset, dir: string): boolean {
  return d.files.every((f) => existsSync(join(dir, f.path)) && sha256(readFileSync(join(dir, f.path))) === f.sha256);
}

/** Writes `bytes` to dir/f.path only if its SHA-256 matches; otherwise nothing is kept. */
function place(dir: string, f: DatasetFile, bytes: Uint8Array, from: string): void {
  const got = sha256(bytes);
  const target = join(dir, f.path);
  if (got !== f.sha256) {
    rmSync(target, { force: true });
    throw new InputError(`checksum mismatch for ${f.path} from ${from}: expected ${f.sha256}, got ${got}; the file was removed`, 'dataset');
  }
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, bytes);
}

async function download(url: string): Promise<Uint8Array> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(60_000) });
  } catch (e) {
    throw new InputError(`cannot download ${url}: ${(e as Error).message}`, 'dataset');
  }
  if (!res.ok) throw new InputError(`cannot download ${url}: HTTP ${res.status}`, 'dataset');
  return new Uint8Array(await res.arrayBuffer());
}

/** A gzip file's bytes unpacked; a file that is not gzip is refused naming it. */
function gunzipped(path: string): Uint8Array {
  try {
    return gunzipSync(readFileSync(path));
  } catch (e) {
    throw new InputError(`${path} is not a readable gzip file (${(e as Error).message})`, 'data-dir');
  }
}

/**
 * The copies vendored in the repository (test/fixtures/uci, gzip, checked against the same
 * SHA-256 sums), when this package runs from a clone of it; null in an installed package.
 */
export function vendoredDir(): string | null {
  const dir = fileURLToPath(new URL('../../test/fixtures/uci', import.meta.url));
  return existsSync(join(dir, 'SHA256SUMS')) ? dir : null;
}

/**
 * Copies a dataset from a local folder (`from`, plain or gzipped files), else from the copies
 * vendored in the repository when run from a clone (offline), else downloads it from UCI (or
 * `baseUrl`), into `dir`,
 * checking every file's SHA-256; a file that does not match is removed, never used. Zipped
 * archives (student) are unpacked in memory and their members checked the same way.
 */
export async function fetchDataset(name: string, opts: { dir?: string; from?: string; baseUrl?: string } = {}): Promise<string> {
  const d = dataset(name);
  const dir = opts.dir ?? cacheDir();
  const from = opts.from ?? (opts.baseUrl === undefined && !process.env.PUFFERFISH_UCI_BASE_URL ? vendoredDir() : null);
  if (from) {
    for (const f of d.files) {
      const src = join(from, f.path);
      // A folder may hold the files gzipped (as the repository vendors them): the same bytes once unpacked.
      if (existsSync(src)) {
        if (src !== join(dir, f.path)) place(dir, f, readFileSync(src), src);
      } else if (existsSync(`${src}.gz`)) place(dir, f, gunzipped(`${src}.gz`), `${src}.gz`);
      else throw new InputError(`${src} does not exist (nor ${src}.gz)`, 'data-dir');
    }
    return dir;
  }
  const base = opts.baseUrl ?? process.env.PUFFERFISH_UCI_BASE_URL ?? UCI_BASE_URL;
  if (d.remote.zip) {
    const url = `${base}/${d.remote.zip}`;
    const { unzipSync } = await import('fflate'); // only fetching unzips: not loaded for reads
    const members = unzipSync(await download(url));
    for (const f of d.files) {
      const file = f.path.split('/').pop()!;
      const key = Object.keys(members).find((k) => k === file || k.endsWith(`/${file}`));
      if (!key) throw new InputError(`${url} has no member ${file}`, 'dataset');
      place(dir, f, members[key], `${url}:${key}`);
    }
  } else {
    for (const f of d.files) {
      const url = `${base}/${d.remote.file![f.path]}`;
      place(dir, f, await download(url), url);
    }
  }
  return dir;
}

/** The first folder ($PUFFERFISH_DATA_DIR, then the cache) holding a verified copy of the dataset, or null. */
export function availableDir(name: string, dirs: (string | undefined)[] = [process.env.PUFFERFISH_DATA_DIR, cacheDir()]): string | null {
  const d = dataset(name);
  for (const dir of dirs) if (dir && isComplete(d, dir)) return dir;
  return null;
}
