import { InputError } from '../errors.js';

/** A whole number of milliseconds from the environment (tests set them), or the default. */
function msFrom(name: string, fallback: number, env: Record<string, string | undefined> = process.env): number {
  const raw = env[name];
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new InputError(`'${raw}' is not a whole number of milliseconds`, name);
  return Number(raw);
}

type Progress = { update(done: number, total: number, step?: string): void; stop(): void };

/**
 * Progress on stderr for work that may run for seconds, never with --json. On a terminal, a bar
 * once the work has run for a second (`PUFFERFISH_PROGRESS_AFTER_MS`; quick runs print nothing)
 * and a final line with the elapsed time. Where stderr is a pipe or a file (a log, CI), one line
 * at most every ten seconds (`PUFFERFISH_PROGRESS_EVERY_MS`), so a long run is never silent.
 * (The bar library is loaded only when it can be shown.)
 */
export async function progressBar(label: string, enabled: boolean): Promise<Progress> {
  if (!enabled) return { update: () => {}, stop: () => {} };
  return process.stderr.isTTY ? terminalBar(label) : progressLines(label);
}

/**
 * `progressBar` for a search whose number of steps is not known ahead (a ledger's plan: the scales
 * it tries): the trials so far and the last one, in place of a bar's share.
 */
async function progressTrials(label: string, enabled: boolean): Promise<TrialProgress> {
  const p = await progressBar(label, enabled);
  return { trial: (k, scale) => p.update(k, 0, `trial scale ${scale.toPrecision(6)}`), stop: () => p.stop() };
}

/**
 * Runs a search with its trials shown on stderr (`progressTrials`; nothing with --json), stopped
 * however it ends.
 */
export async function withTrials<T>(label: string, enabled: boolean, search: (onTrial: (trial: number, scale: number) => void) => T | Promise<T>): Promise<T> {
  const p = await progressTrials(label, enabled);
  try {
    return await search((k, scale) => p.trial(k, scale));
  } finally {
    p.stop();
  }
}

/** A search's progress: each trial as it is made, and the end. */
interface TrialProgress {
  trial(trial: number, scale: number): void;
  stop(): void;
}

async function terminalBar(label: string): Promise<Progress> {
  const { Presets, SingleBar } = await import('cli-progress');
  const after = msFrom('PUFFERFISH_PROGRESS_AFTER_MS', 1000);
  const t0 = performance.now();
  // No total (0): a search's trials counted, not a share of the work.
  const bar = new SingleBar({ format: `${label} [{bar}] {value}/{total} {step}`, hideCursor: true, stream: process.stderr }, Presets.shades_classic);
  const trials = new SingleBar({ format: `${label}: {value} trial(s) {step}`, hideCursor: true, stream: process.stderr }, Presets.shades_classic);
  let shown: typeof bar | null = null;
  return {
    update(done, total, step = '') {
      if (!shown && performance.now() - t0 < after) return;
      if (!shown) {
        shown = total === 0 ? trials : bar;
        shown.start(total, done, { step });
      }
      if (shown === bar) bar.setTotal(total);
      shown.update(done, { step });
    },
    stop() {
      if (!shown) return;
      shown.stop();
      process.stderr.write(`${label}: done in ${seconds(t0)} s\n`);
    },
  };
}

const seconds = (t0: number) => ((performance.now() - t0) / 1000).toFixed(1);

/** One line per period on a non-terminal stderr: `calibrate: 12/40 units (30%), 20.0 s — step`. */
function progressLines(label: string): Progress {
  const every = msFrom('PUFFERFISH_PROGRESS_EVERY_MS', 10_000);
  const t0 = performance.now();
  let last = t0;
  let printed = false;
  return {
    update(done, total, step = '') {
      const now = performance.now();
      if (now - last < every) return;
      last = now;
      printed = true;
      const share = total > 0 ? ` (${Math.floor((100 * done) / total)}%)` : '';
      const count = total > 0 ? `${done}/${total} units${share}` : `${done} trial(s)`;
      process.stderr.write(`${label}: ${count}, ${seconds(t0)} s${step ? ` — ${step}` : ''}\n`);
    },
    stop() {
      if (printed) process.stderr.write(`${label}: done in ${seconds(t0)} s\n`);
    },
  };
}
