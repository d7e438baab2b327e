import { request } from 'node:http';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApp } from '../src/cli/serve.js';

let server: Server;
let port = 0;
beforeAll(async () => {
  const s = await serveApp(0);
  server = s.server;
  port = Number(new URL(s.url).port);
});
afterAll(() => server?.close());

/** A raw request (the Host header and the path are sent exactly as given). */
function get(
  path: string,
  opts: { method?: string; host?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: { host: opts.host ?? `127.0.0.1:${port}` } }, (res) => {
      let body = '';
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('pufferfish serve: a hardened local server', () => {
  it('serves the page with the security headers', async () => {
    const r = await get('/');
    expect(r.status).toBe(200);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['referrer-policy']).toBe('no-referrer');
    const csp = String(r.headers['content-security-policy']);
    for (const d of ["frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'", "default-src 'self'"]) expect(csp).toContain(d);
    expect((await get('/', { host: `localhost:${port}` })).status).toBe(200);
  });

  it('answers a malformed URL with 400 and keeps serving', async () => {
    expect((await get('/%')).status).toBe(400);
    expect((await get('/%E0%A4%A')).status).toBe(400);
    const next = await get('/');
    expect(next.status).toBe(200);
    expect(next.body).toMatch(/<html/i);
  });

  it('refuses other methods, other hosts (DNS rebinding) and paths outside the app', async () => {
    const post = await get('/', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect((await get('/', { host: 'evil.example' })).status).toBe(421);
    expect((await get('/', { host: `evil.example:${port}` })).status).toBe(421);
    expect((await get('/../package.json')).status).toBe(404);
    expect((await get('/%2e%2e/package.json')).status).toBe(404);
    const head = await get('/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });
});
