import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { InputError } from '../errors.js';

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.wasm': 'application/wasm' };

/** The built app (`npm run build` writes it next to `dist/`). */
export const APP_DIR = fileURLToPath(new URL('../../dist-web/', import.meta.url));

/**
 * Serves the built single-page app on 127.0.0.1 only (the data never leaves the machine; the
 * page itself makes no request but to this origin). Resolves with the server and its URL.
 */
export function serveApp(port: number): Promise<{ server: Server; url: string }> {
  if (!existsSync(join(APP_DIR, 'index.html'))) throw new InputError(`the web app is not built (${APP_DIR}); run npm run build`, 'serve');
  const root = normalize(APP_DIR);
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]);
    const file = normalize(join(root, path === '/' ? 'index.html' : path));
    if (!file.startsWith(root.endsWith(sep) ? root : root + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store', 'content-security-policy': "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; connect-src 'self'" });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new InputError(e.code === 'EADDRINUSE' ? `port ${port} is in use` : e.message, '--port')));
    server.listen(port, '127.0.0.1', () => {
      const a = server.address();
      resolve({ server, url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : port}/` });
    });
  });
}

/** Registers `serve`. */
export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('Serve the local web calibrator on 127.0.0.1 (the table never leaves the machine).')
    .option('--port <p>', 'port (0 = any free one)', '8737')
    .action(async (o: { port: string }) => {
      const port = Number(o.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InputError(`must be a port number, got '${o.port}'`, '--port');
      const { url } = await serveApp(port);
      process.stdout.write(`Pufferfish web calibrator: ${url}  (Ctrl-C to stop)\n`);
      await new Promise(() => {}); // serve until interrupted
    });
}
