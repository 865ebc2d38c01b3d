import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { createContext } from '../src/context';
import { KommoError } from '../src/integrations/kommo/errors';
import { AppError } from '../src/lib/errors';
import { createLog } from '../src/lib/log';
import { createTestApp, type TestApp } from './helpers/app';

/**
 * The process-wide collaborators live on AppContext, not in module singletons: two contexts in
 * one process share nothing, and Fastify logs through the context's logger.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('AppContext collaborators', () => {
  it('signals of one context never reach another context of the same process', () => {
    const other = createContext(t.ctx.config, t.ctx.database);
    const heard: string[] = [];
    t.ctx.signals.onSyncRequested(() => heard.push('sync'));
    t.ctx.signals.onSyncCancelled((id) => heard.push(`cancel ${id}`));
    t.ctx.signals.onCampaignChanged((id) => heard.push(`campaign ${id}`));
    other.signals.syncRequested();
    other.signals.syncCancelled(1);
    other.signals.campaignChanged(1);
    expect(heard).toEqual([]);
    t.ctx.signals.syncRequested();
    t.ctx.signals.syncCancelled(2);
    t.ctx.signals.campaignChanged(3);
    expect(heard).toEqual(['sync', 'cancel 2', 'campaign 3']);
  });

  it('each context holds its own Kommo and Graph clients', () => {
    const other = createContext(t.ctx.config, t.ctx.database);
    expect(other.kommo.sync).not.toBe(t.ctx.kommo.sync);
    expect(other.kommo.interactive).not.toBe(t.ctx.kommo.sync);
    expect(other.graph).not.toBe(t.ctx.graph);
  });

  it('Fastify logs requests through the context logger, paths only', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const ctx = { ...createContext(t.ctx.config, t.ctx.database), log: createLog({ LOG_LEVEL: 'info' }, sink) };
    const app = await buildApp(ctx, { logger: true });
    await app.inject({ method: 'GET', url: '/api/health?secret=x' });
    await app.close();
    const logged = lines.map((l) => JSON.parse(l) as { req?: { url?: string } });
    expect(logged.some((l) => l.req?.url === '/api/health')).toBe(true);
    expect(lines.join('')).not.toContain('secret=x');
  });
});

describe('integration errors are AppErrors', () => {
  it('a Kommo refusal the operator can fix is a 400, an outage a 502, never a 401', () => {
    for (const kind of ['invalid_subdomain', 'unauthorized', 'payment_required', 'not_found', 'rejected'] as const) {
      const err = new KommoError(kind, 'x', 401);
      expect(err).toBeInstanceOf(AppError);
      expect(err.statusCode).toBe(400);
    }
    for (const kind of ['blocked', 'unavailable', 'rate_limited'] as const) expect(new KommoError(kind, 'x', 429).statusCode).toBe(502);
  });

  it('a Kommo failure reaching the errors plugin is answered in Spanish with its status, not a 500', async () => {
    const app = await buildApp(t.ctx);
    app.get('/api/probe-kommo', { config: { public: true } }, async () => {
      throw new KommoError('unavailable', 'No se pudo conectar con Kommo (sin respuesta). Intenta de nuevo más tarde.');
    });
    const res = await app.inject({ method: 'GET', url: '/api/probe-kommo' });
    await app.close();
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ error: 'No se pudo conectar con Kommo (sin respuesta). Intenta de nuevo más tarde.' });
  });
});
