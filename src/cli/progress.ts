import { InputError } from '../errors.js';

/** How long work runs before its bar appears: `PUFFERFISH_PROGRESS_AFTER_MS` (default a second; 0 at once, for tests). */
function showAfterMs(env: Record<string, string | undefined> = process.env): number {
  const raw = env.PUFFERFISH_PROGRESS_AFTER_MS;
  if (raw === undefined) return 1000;
  if (!/^\d+$/.test(raw.trim())) throw new InputError(`'${raw}' is not a whole number of milliseconds`, 'PUFFERFISH_PROGRESS_AFTER_MS');
  return Number(raw);
}

/**
 * A progress bar on stderr for work that may run for seconds: shown only on a terminal, never with
 * --json, and only once the work has run for a second (quick runs print nothing); when shown, a
 * final line gives the elapsed time. (The bar library is loaded only when it can be shown.)
 */
export async function progressBar(label: string, enabled: boolean): Promise<{ update(done: number, total: number, step?: string): void; stop(): void }> {
  if (!enabled || !process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const { Presets, SingleBar } = await import('cli-progress');
  const after = showAfterMs();
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
      process.stderr.write(`${label}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    },
  };
}
