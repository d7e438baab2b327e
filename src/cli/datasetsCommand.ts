import type { Command } from 'commander';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import { availableDir, cacheDir, DATASETS, dataset, fetchDataset, vendoredDir } from '../uci/datasets.js';
import { UCI_SCENARIOS } from '../uci/scenarios.js';
import { settingOption } from './flags.js';

/** Registers `datasets` and `scenarios`. */
export function datasetsCommand(program: Command): void {
  const ds = program.command('datasets').description('The UCI datasets of the paper: list, fetch (SHA-256 checked) and locate them.');
  ds.command('list')
    .description('List the datasets and where a verified copy is.')
    .action(() => {
      for (const d of DATASETS) {
        const at = availableDir(d.name);
        process.stdout.write(`${d.name.padEnd(14)} ${at ? `ready: ${at}` : 'not fetched'}  (${d.page})\n`);
      }
    });
  ds.command('fetch <name>')
    .description(
      `Put a verified copy in the cache (${'$'}PUFFERFISH_CACHE_DIR, default ~/.cache/pufferfish/uci): from --data-dir, else from the repository's vendored copies (offline, in a clone), else downloaded from UCI.`,
    )
    .addOption(settingOption('dataDir', 'copy from this folder (laid out like UCI: adult/adult.data, …; plain or .gz) instead of downloading'))
    .action(async (name: string, o: { dataDir?: string }) => {
      const from = o.dataDir ?? vendoredDir();
      const dir = await fetchDataset(name, { ...(from ? { from } : {}) });
      process.stdout.write(`${name}: ${dataset(name).files.length} files verified in ${dir}${from ? ` (copied from ${from})` : ' (downloaded from UCI)'}\n`);
    });
  ds.command('path <name>')
    .description('Print the folder holding a verified copy (exit 2 if there is none).')
    .action((name: string) => {
      const d = dataset(name);
      const dir = availableDir(name);
      if (!dir)
        throw new InputError(
          `no verified copy of '${name}' (checked ${process.env.PUFFERFISH_DATA_DIR ? `${process.env.PUFFERFISH_DATA_DIR} and ` : ''}${cacheDir()}); run: pufferfish datasets fetch ${name}`,
          'dataset',
        );
      process.stdout.write(`${join(dir, d.files[0].path.split('/')[0])}\n`);
    });
  program
    .command('scenarios')
    .description('List the built-in scenarios.')
    .action(() => {
      for (const d of UCI_SCENARIOS) process.stdout.write(`${d.id.padEnd(12)} ${d.title}\n`);
    });
}
