import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { InputError } from '../errors.js';
import { numberSetting, settingOption } from './flags.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.wasm': 'application/wasm',
};

/** Sent with every response: no sniffing, no framing, no base or form targets, no referrer. */
const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};

/** The built app (`npm run build` writes it next to `dist/`). */
export const APP_DIR = fileURLToPath(new URL('../../dist-web/', import.meta.url));

/**
 * Serves the built single-page app on 127.0.0.1 only (the data never leaves the machine; the
 * page itself makes no request but to this origin): GET and HEAD only, the Host header must name
 * this server (no DNS rebinding), malformed URLs answer 400 and the server lives on, paths stay
 * inside the app. Resolves with the server and its URL.
 */
export function serveApp(requested: number): Promise<{ server: Server; url: string }> {
  if (!existsSync(join(APP_DIR, 'index.html'))) throw new InputError(`the web app is not built (${APP_DIR}); run npm run build`, 'serve');
  const root = normalize(APP_DIR);
  let port = 0;
  const server = createServer((req, res) => {
    // Every answer, errors included, carries the hardening headers.
    const send = (status: number, headers: Record<string, string>, body?: string) => {
      res.writeHead(status, { ...SECURITY_HEADERS, ...headers });
      res.end(body);
    };
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }, 'method not allowed');
      // DNS rebinding: a page on another name resolving to 127.0.0.1 must not read this origin.
      if (req.headers.host !== `127.0.0.1:${port}` && req.headers.host !== `localhost:${port}`)
        return send(421, { 'content-type': 'text/plain' }, 'misdirected request');
      let path: string;
      try {
        path = decodeURIComponent((req.url ?? '/').split('?')[0]);
      } catch {
        return send(400, { 'content-type': 'text/plain' }, 'bad request');
      }
      const file = normalize(join(root, path === '/' ? 'index.html' : path));
      if (path.includes('\0') || !file.startsWith(root.endsWith(sep) ? root : root + sep) || !existsSync(file) || !statSync(file).isFile()) {
        return send(404, { 'content-type': 'text/plain' }, 'not found');
      }
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      if (req.method === 'HEAD') return res.end();
      createReadStream(file)
        .on('error', () => res.destroy())
        .pipe(res);
    } catch {
      if (!res.headersSent) send(500, { 'content-type': 'text/plain' }, 'internal error');
      else res.destroy();
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new InputError(e.code === 'EADDRINUSE' ? `port ${requested} is in use` : e.message, '--port')));
    server.listen(requested, '127.0.0.1', () => {
      const a = server.address();
      port = typeof a === 'object' && a ? a.port : port;
      resolve({ server, url: `http://127.0.0.1:${port}/` });
    });
  });
}

/** Registers `serve`. */
export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('Serve the local web calibrator on 127.0.0.1 (the table never leaves the machine).')
    .addOption(settingOption('port'))
    .action(async (o: { port: string }) => {
      const port = numberSetting('port', o.port);
      const { url } = await serveApp(port);
      process.stdout.write(`Pufferfish web calibrator: ${url}  (Ctrl-C to stop)\n`);
      await new Promise(() => {}); // serve until interrupted
    });
}
