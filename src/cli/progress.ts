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

async function terminalBar(label: string): Promise<Progress> {
  const { Presets, SingleBar } = await import('cli-progress');
  const after = msFrom('PUFFERFISH_PROGRESS_AFTER_MS', 1000);
  const t0 = performance.now();
  const bar = new SingleBar({ format: `${label} [{bar}] {value}/{total} {step}`, hideCursor: true, stream: process.stderr }, Presets.shades_classic);
  let shown = false;
  return {
    update(done, total, step = '') {
      if (!shown && performance.now() - t0 < after) return;
      if (!shown) {
        bar.start(total, done, { step });
        shown = true;
      }
      bar.setTotal(total);
      bar.update(done, { step });
    },
    stop() {
      if (!shown) return;
      bar.stop();
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
      process.stderr.write(`${label}: ${done}/${total} units${share}, ${seconds(t0)} s${step ? ` — ${step}` : ''}\n`);
    },
    stop() {
      if (printed) process.stderr.write(`${label}: done in ${seconds(t0)} s\n`);
    },
  };
}
