import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphClient } from '../src/integrations/whatsapp/graph-client';
import { GraphApiError, graphErrorFrom } from '../src/integrations/whatsapp/graph-errors';
import { listAllTemplates } from '../src/integrations/whatsapp/message-templates';

/** A tiny stand-in that answers whatever the test needs, including never answering. */
let server: Server;
let base: string;
let handler: (url: URL, res: import('node:http').ServerResponse) => void = (_u, res) => res.end('{}');
const seen: Array<{ url: string; authorization?: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    handler(new URL(req.url ?? '/', 'http://x'), res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v23.0`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** The error a call that must fail rejects with. */
const failure = (p: Promise<unknown>): Promise<GraphApiError> =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: GraphApiError) => e,
  );

const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

describe('Graph errors in Spanish', () => {
  it('keeps Meta’s code and reason', () => {
    const token = graphErrorFrom({ message: 'Invalid OAuth access token', code: 190 }, 401);
    expect(token.message).toBe('Token de acceso inválido o expirado. (Meta #190: Invalid OAuth access token)');
    expect(token.statusCode).toBe(502);
    expect(token.isAuth).toBe(true);

    const limit = graphErrorFrom({ message: '(#80008) Too many calls', code: 80008 }, 400);
    expect(limit.message).toMatch(/^Se alcanzó el límite de llamadas de Meta para esta cuenta/);
    expect(limit.statusCode).toBe(429);
    expect(limit.isRateLimit).toBe(true);

    const rejected = graphErrorFrom(
      { message: 'Invalid parameter', code: 100, error_subcode: 2388040, error_user_title: 'Character limit exceeded', error_user_msg: 'Too long.' },
      400,
    );
    expect(rejected.message).toBe('Meta rechazó la plantilla. (Meta #100/2388040: Character limit exceeded: Too long.)');
    expect(rejected.statusCode).toBe(400);

    const unknown = graphErrorFrom(undefined, 503);
    expect(unknown.message).toMatch(/^El servicio de Meta no está disponible temporalmente\. \(Meta HTTP 503\)/);
  });
});

describe('graph client', () => {
  it('sends the token only in the Authorization header and parses errors', async () => {
    handler = (_u, res) => json(res, 401, { error: { message: 'Error validating access token', type: 'OAuthException', code: 190 } });
    const client = createGraphClient(base);
    const err = await failure(client.call({ method: 'GET', path: '/1001', token: 'secreto', query: { fields: 'id' } }));
    expect(err).toBeInstanceOf(GraphApiError);
    expect(err.message).toMatch(/#190/);
    expect(err.message).not.toContain('secreto');
    expect(seen.at(-1)).toEqual({ url: '/v23.0/1001?fields=id', authorization: 'Bearer secreto' });
  });

  it('turns a non-JSON failure and a refused connection into Spanish errors', async () => {
    handler = (_u, res) => res.writeHead(502).end('<html>Bad gateway</html>');
    const err = await failure(createGraphClient(base).call({ method: 'GET', path: '/x', token: 't' }));
    expect(err.message).toMatch(/^El servicio de Meta no está disponible temporalmente/);
    const refused = await failure(createGraphClient('http://127.0.0.1:1/v23.0').call({ method: 'GET', path: '/x', token: 't' }));
    expect(refused).toBeInstanceOf(GraphApiError);
    expect(refused.message).toMatch(/^No se pudo conectar con la API de WhatsApp de Meta/);
  });

  it('gives up after its timeout instead of hanging', async () => {
    handler = () => undefined; // never answers
    const started = Date.now();
    const err = await failure(createGraphClient(base).call({ method: 'GET', path: '/slow', token: 't', timeoutMs: 300 }));
    expect(err).toBeInstanceOf(GraphApiError);
    expect(err.message).toMatch(/Meta no respondió a tiempo/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('follows cursor paging until Graph stops sending paging.next', async () => {
    handler = (url, res) => {
      const after = url.searchParams.get('after');
      const page = after ? Number(after) : 0;
      json(res, 200, {
        data: [{ id: String(page), name: `t${page}`, language: 'es', status: 'APPROVED', category: 'UTILITY' }],
        paging: { cursors: { after: String(page + 1) }, ...(page < 2 && { next: `https://graph/next?after=${page + 1}` }) },
      });
    };
    const all = await listAllTemplates(createGraphClient(base), 't', '2001');
    expect(all.map((t) => t.name)).toEqual(['t0', 't1', 't2']);
  });
});
