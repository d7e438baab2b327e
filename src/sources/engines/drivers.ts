import { createRequire } from 'node:module';

// Both drivers are CommonJS. Loaded with `require`, not `import`: an ESM import first lexes every
// CommonJS file for its export names, which costs each start the lexing of DuckDB's files.
const require = createRequire(import.meta.url);

/** DuckDB's Node API (`@duckdb/node-api`). */
export const duckdb = (): typeof import('@duckdb/node-api') => require('@duckdb/node-api');

/** node-postgres (`pg`). */
export const pg = (): typeof import('pg') => require('pg');
