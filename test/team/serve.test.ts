import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { addMember, migrate, openPool, revokeMember } from '../../packages/team/src/index.js';
import { VALID_KEY } from '../support/fake-openrouter.js';
import { tempDir } from '../support/harness.js';
import { waitFor, within } from '../support/wait.js';
import { cli } from './cli.js';
import { startPostgres, type TestPostgres } from './postgres.js';

// A cluster of this file's own: these tests stop and restart it.
let postgres: TestPostgres;
let pool: pg.Pool;
let server: ChildProcess;
let base: string;

beforeAll(async () => {
  postgres = await startPostgres();
  pool = openPool(postgres.url);
  await migrate(pool);
  server = spawn(
    process.execPath,
    [path.join(inject('cliDir'), 'dist', 'bin.js'), 'serve', '--http', '--port', '0', '--connections', '3'],
    {
      cwd: await tempDir('plm-serve-'),
      env: { PATH: process.env.PATH ?? '', PARALLEL_LLM_DATABASE_URL: postgres.url, OPENROUTER_API_KEY: VALID_KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  server.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+\/mcp/.test(stderr) || server.exitCode !== null, 20_000);
  base = /listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stderr)?.[1] ?? '';
  if (!base) throw new Error(`the server did not start: ${stderr}`);
}, 60_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await within(10_000, exited);
  }
  await pool?.end();
  await postgres?.remove();
});

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A request whose body is announced but never sent when `body` is undefined: a reply to it
 * proves the server answered without reading the body.
 */
function request(method: string, pathname: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${pathname}`, { method, headers: { 'Content-Type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    if (body === undefined) {
      req.setHeader('Content-Length', '100000');
      req.flushHeaders();
    } else req.end(body);
  });
}

const call = (token?: string) => request('POST', '/mcp', token === undefined ? {} : { Authorization: `Bearer ${token}` }, undefined);

describe('serve --http: health, auth and the database', () => {
  it('keeps to the connections it is given: 20 health checks at once open at most 3', async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, () => request('GET', '/healthz', {}, '')));
    expect(replies.map((reply) => reply.status)).toEqual(Array.from({ length: 20 }, () => 200));
    const { rows } = await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'parallel-llm-mcp serve'",
    );
    expect(rows[0]!.n).toBeGreaterThan(0);
    expect(rows[0]!.n).toBeLessThanOrEqual(3);
  });

  it('answers /healthz 200 while the database answers', async () => {
    const health = await request('GET', '/healthz', {}, '');
    expect([health.status, JSON.parse(health.body)]).toEqual([200, { status: 'ok' }]);
  });

  it('answers 401 with WWW-Authenticate: Bearer to no token and to an unknown one, before reading the body', async () => {
    const none = await within(5_000, call());
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="parallel-llm-mcp"');
    const unknown = await within(5_000, call('plm_not-a-token'));
    expect(unknown.status).toBe(401);
    expect(unknown.headers['www-authenticate']).toMatch(/^Bearer realm="parallel-llm-mcp", error="invalid_token"/);
  });

  it('lets a member’s token through, and refuses it within 10 s of its revocation', async () => {
    const { token } = await addMember(pool, { name: 'ann' });
    // Past the auth: the MCP transport's own answer to a request that accepts no event stream.
    expect((await call(token)).status).toBe(406);
    await revokeMember(pool, 'ann');
    const revoked = Date.now();
    await waitFor(async () => (await call(token)).status === 401, 10_000);
    expect(Date.now() - revoked).toBeLessThan(10_000);
  });

  it('while the database is down: /healthz 503 within its second, a valid token 503 with Retry-After, never 401, an MCP call a clear error at once; all recover when it is back', async () => {
    const { token } = await addMember(pool, { name: 'bob' });
    const { token: carolToken } = await addMember(pool, { name: 'carol' });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${carolToken}` } },
    });
    const client = new Client({ name: 'team-test', version: '1.0.0' });
    await client.connect(transport);
    // The test cluster commits without waiting for the disk; an immediate stop would lose bob.
    await pool.query('CHECKPOINT');
    await postgres.stop();
    try {
      const started = Date.now();
      const health = await request('GET', '/healthz', {}, '');
      expect(health.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(3_000);
      // Carol's token is still trusted from connecting: her session's lookup is what finds the database gone.
      const calling = Date.now();
      await expect(within(10_000, client.listTools())).rejects.toMatchObject({
        code: 503,
        message: expect.stringContaining('the team database does not answer'),
      });
      expect(Date.now() - calling).toBeLessThan(5_000);
      const refused = await within(10_000, call(token));
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
    } finally {
      await postgres.start();
    }
    await waitFor(async () => (await request('GET', '/healthz', {}, '')).status === 200, 10_000);
    expect((await call(token)).status).toBe(406);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('process_prompt');
    await client.close();
  });

  it('refuses to start without a database URL, saying why', async () => {
    const ran = await cli(['serve', '--http', '--port', '0']);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/^parallel-llm-mcp serve: PARALLEL_LLM_DATABASE_URL is not set/);
    expect((await cli(['serve'])).stderr).toContain('parallel-llm-mcp serve: needs --http');
    expect((await cli(['serve', '--http', '--connections', '2'])).stderr).toContain('--connections takes 3 to 1000, not "2"');
  });
});
