import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { insertMappings, insertTemplate, insertWhatsAppAccount } from './helpers/campaign-fixtures';
import { startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';

/**
 * The public API end to end on the engine bed: API keys (scopes, revocation, expiry, the
 * creator's role), the rate limit, idempotency (same body, other body, concurrent), problem
 * details on every error, and a campaign created, started and followed with a key.
 */
const NUMBER = { phoneNumberId: '771001', wabaId: '661001', token: 'tok-v1', rate: 50 };
let bed: EngineBed;
let seq = 0;

const createKey = async (body: Record<string, unknown>, headers = bed.headers) => {
  const res = await bed.t.app.inject({ method: 'POST', url: '/api/api-keys', headers, payload: { name: `clave ${++seq}`, ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; key: string; start: string };
};
const v1 = (key: string, method: 'GET' | 'POST', url: string, payload?: unknown, idem?: string | null) =>
  bed.t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}`, ...(method === 'POST' && idem !== null ? { 'idempotency-key': idem ?? `k-${++seq}` } : {}) },
    payload: payload as Record<string, unknown> | undefined,
  });
const expectProblem = (res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, status: number, kind: string) => {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toContain('application/problem+json');
  const body = res.json() as { type: string; title: string; status: number; detail: string };
  expect(body).toMatchObject({ type: `urn:masivo:problema:${kind}`, status });
  expect(body.title.length).toBeGreaterThan(3);
  expect(body.detail.length).toBeGreaterThan(3);
  return body;
};

beforeAll(async () => {
  bed = await startEngineBed({ numbers: [NUMBER], contacts: 12 });
});
afterAll(async () => bed?.close());

describe('API keys', () => {
  it('is shown once with its prefix; only its hash is stored; the list shows start, never the key', async () => {
    const created = await createKey({ scopes: ['campaigns:read'] });
    expect(created.key).toMatch(/^msv_live_[0-9A-Za-z]{43}$/);
    expect(created.key.startsWith(created.start)).toBe(true);
    const list = await bed.t.app.inject({ method: 'GET', url: '/api/api-keys', headers: bed.headers });
    expect(list.body).not.toContain(created.key);
    const [row] = await rowsOf<{ key_hash: string }>(bed.t.ctx.db, sql`select key_hash from api_keys where id = ${created.id}`);
    expect(row!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await rowsOf(bed.t.ctx.db, sql`select * from api_keys`))).not.toContain(created.key);
  });

  it('scopes: a read key lists but cannot create (403); a console route refuses keys; the last use is recorded', async () => {
    const { key, id } = await createKey({ scopes: ['campaigns:read'] });
    const listed = await v1(key, 'GET', '/campaigns');
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.headers['ratelimit-limit']).toBe('120');
    expectProblem(await v1(key, 'POST', '/campaigns', { name: 'x', whatsapp_account_id: 1, template_id: 1 }), 403, 'forbidden');
    const consoleRoute = await bed.t.app.inject({ method: 'GET', url: '/api/campaigns', headers: { authorization: `Bearer ${key}` } });
    expect(consoleRoute.statusCode).toBe(401);
    const keys = (await bed.t.app.inject({ method: 'GET', url: '/api/api-keys', headers: bed.headers })).json() as Array<{ id: number; last_used_at: string | null; last_used_ip: string | null }>;
    const mine = keys.find((k) => k.id === id)!;
    expect(mine.last_used_at).not.toBeNull();
    expect(mine.last_used_ip).toBeTruthy();
  });

  it('a revoked key and an expired key get 401 at once; no key or a session token too', async () => {
    const { key, id } = await createKey({ scopes: ['campaigns:read'] });
    expect((await v1(key, 'GET', '/campaigns')).statusCode).toBe(200);
    await bed.t.app.inject({ method: 'DELETE', url: `/api/api-keys/${id}`, headers: bed.headers });
    expect(expectProblem(await v1(key, 'GET', '/campaigns'), 401, 'unauthenticated').detail).toContain('revocada');
    const expiring = await createKey({ scopes: ['campaigns:read'], expires_at: new Date(Date.now() + 60_000).toISOString() });
    await bed.t.ctx.db.execute(sql`update api_keys set expires_at = now() - interval '1 second' where id = ${expiring.id}`);
    expect(expectProblem(await v1(expiring.key, 'GET', '/campaigns'), 401, 'unauthenticated').detail).toContain('venció');
    expectProblem(await bed.t.app.inject({ method: 'GET', url: '/api/v1/campaigns' }), 401, 'unauthenticated');
    expectProblem(await bed.t.app.inject({ method: 'GET', url: '/api/v1/campaigns', headers: bed.headers }), 401, 'unauthenticated');
  });

  it('a key never exceeds its creator: an administrator demoted to Lector loses what the role lacks', async () => {
    const admin = await bed.t.addMember(bed.userId, 'admin');
    const { key } = await createKey({ scopes: ['campaigns:read', 'campaigns:write'] }, admin.headers);
    expect((await v1(key, 'GET', '/campaigns')).statusCode).toBe(200);
    await bed.t.ctx.db.execute(sql`update organization_members set role = 'viewer' where user_id = ${admin.userId}`);
    expectProblem(await v1(key, 'POST', '/campaigns', { name: 'x', whatsapp_account_id: 1, template_id: 1 }), 403, 'forbidden');
    await bed.t.ctx.db.execute(sql`delete from organization_members where user_id = ${admin.userId}`);
    expectProblem(await v1(key, 'GET', '/campaigns'), 401, 'unauthenticated');
  });

  it('only owners and administrators manage keys; scopes outside the list are refused in Spanish', async () => {
    const manager = await bed.t.addMember(bed.userId, 'campaign_manager');
    expect((await bed.t.app.inject({ method: 'POST', url: '/api/api-keys', headers: manager.headers, payload: { name: 'x', scopes: ['campaigns:read'] } })).statusCode).toBe(403);
    const bad = await bed.t.app.inject({ method: 'POST', url: '/api/api-keys', headers: bed.headers, payload: { name: 'x', scopes: ['campaigns:approve'] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toContain('Permiso de clave inválido');
  });

  it('the rate limit answers 429 with Retry-After and RateLimit headers, per key', async () => {
    const { key } = await createKey({ scopes: ['campaigns:read'], rate_limit_per_minute: 3 });
    for (let i = 0; i < 3; i++) expect((await v1(key, 'GET', '/campaigns')).statusCode).toBe(200);
    const limited = await v1(key, 'GET', '/campaigns');
    expectProblem(limited, 429, 'rate-limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit-limit']).toBe('3');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    const other = await createKey({ scopes: ['campaigns:read'] });
    expect((await v1(other.key, 'GET', '/campaigns')).statusCode).toBe(200);
  });
});

describe('idempotency and problem details', () => {
  let key: string;
  const body = () => ({ name: 'Idempotente', whatsapp_account_id: bed.worlds[0]!.whatsappAccountId, template_id: bed.worlds[0]!.templateId, kommo_account_id: bed.worlds[0]!.kommoAccountId });

  beforeAll(async () => {
    key = (await createKey({ scopes: ['campaigns:read', 'campaigns:write', 'campaigns:send'] })).key;
  });

  it('a POST without Idempotency-Key is a 400 problem', async () => {
    expectProblem(await v1(key, 'POST', '/campaigns', body(), null), 400, 'idempotency-key-missing');
  });

  it('the same key and body answer the first answer again; another body is a 422; one campaign exists', async () => {
    const first = await v1(key, 'POST', '/campaigns', body(), 'orden-1');
    expect(first.statusCode, first.body).toBe(201);
    const again = await v1(key, 'POST', '/campaigns', body(), 'orden-1');
    expect(again.statusCode).toBe(201);
    expect(again.json().id).toBe(first.json().id);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expectProblem(await v1(key, 'POST', '/campaigns', { ...body(), name: 'Otra' }, 'orden-1'), 422, 'idempotency-key-reused');
    const [n] = await rowsOf<{ n: number }>(bed.t.ctx.db, sql`select count(*)::int as n from campaigns where name = 'Idempotente'`);
    expect(Number(n!.n)).toBe(1);
  });

  it('two concurrent requests with one key create one campaign', async () => {
    const payload = { ...body(), name: 'Concurrente' };
    const [a, b] = await Promise.all([v1(key, 'POST', '/campaigns', payload, 'carrera'), v1(key, 'POST', '/campaigns', payload, 'carrera')]);
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(a.json().id).toBe(b.json().id);
    const [n] = await rowsOf<{ n: number }>(bed.t.ctx.db, sql`select count(*)::int as n from campaigns where name = 'Concurrente'`);
    expect(Number(n!.n)).toBe(1);
  });

  it('errors are problem+json: validation with pointers, not found, conflict, unknown route', async () => {
    const invalid = expectProblem(await v1(key, 'POST', '/campaigns', { name: '' }), 400, 'validation') as unknown as { errors: unknown[] };
    expect(invalid.errors.length).toBeGreaterThan(0);
    expectProblem(await v1(key, 'GET', '/campaigns/999999'), 404, 'not-found');
    expectProblem(await v1(key, 'GET', '/campaigns/abc'), 400, 'validation');
    expectProblem(await v1(key, 'GET', '/nada'), 404, 'not-found');
    const draft = (await v1(key, 'POST', '/campaigns', { ...body(), name: 'Borrador' })).json() as { id: number };
    expectProblem(await v1(key, 'POST', `/campaigns/${draft.id}/pause`), 409, 'conflict');
  });
});

describe('a campaign through the public API', () => {
  it('creates from a Kommo filter, starts, sends through the simulator, and reads counts, pre-flight and recipients', async () => {
    const { key } = await createKey({ scopes: ['campaigns:read', 'campaigns:write', 'campaigns:send'] });
    const w = bed.worlds[0]!;
    const created = await v1(key, 'POST', '/campaigns', { name: 'Desde la API', whatsapp_account_id: w.whatsappAccountId, template_id: w.templateId, kommo_account_id: w.kommoAccountId, filters: {} });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as number;
    const detail = (await v1(key, 'GET', `/campaigns/${id}`)).json();
    expect(detail.preflight).toMatchObject({ matched: 12, attempted: 12 });
    const started = await v1(key, 'POST', `/campaigns/${id}/start`);
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json().status).toBe('sending');
    await waitFor(() => bed.campaign(id), (c) => c.status === 'completed' && c.read_count === 12, 20_000, 'all read');
    const read = (await v1(key, 'GET', `/campaigns/${id}`)).json();
    expect(read.counts).toMatchObject({ total: 12, read: 12 });
    const page1 = (await v1(key, 'GET', `/campaigns/${id}/recipients?limit=5`)).json() as { data: Array<{ id: number; status: string }>; next_cursor: string };
    expect(page1.data).toHaveLength(5);
    const page2 = (await v1(key, 'GET', `/campaigns/${id}/recipients?limit=50&cursor=${page1.next_cursor}`)).json() as { data: Array<{ id: number }>; next_cursor: string | null };
    expect(page2.data).toHaveLength(7);
    expect(page2.next_cursor).toBeNull();
    expect(new Set([...page1.data, ...page2.data].map((r) => r.id)).size).toBe(12);
    // The activity log names the key.
    const [entry] = await rowsOf<{ actor_name: string }>(bed.t.ctx.db, sql`select actor_name from activity_log where action = 'campaign.start' and target_id = ${String(id)}`);
    expect(entry!.actor_name).toMatch(/^clave «clave \d+»$/);
    // Cancel a finished campaign: 409.
    expectProblem(await v1(key, 'POST', `/campaigns/${id}/cancel`), 409, 'conflict');
  });

  it("creates a split test on several numbers with the console's checks, and returns its variants and settings", async () => {
    const { key } = await createKey({ scopes: ['campaigns:read', 'campaigns:write'] });
    const w = bed.worlds[0]!;
    const variantB = await insertTemplate(bed.t.ctx.db, bed.userId, w.whatsappAccountId, { name: 'promo_b' });
    await insertMappings(bed.t.ctx.db, bed.userId, variantB);
    // A second number of the same portfolio (WABA) holding both templates.
    const second = await insertWhatsAppAccount(bed.t.ctx.db, bed.t.ctx.secrets, bed.userId, { phoneNumberId: '771002', wabaId: NUMBER.wabaId, token: 'tok-v1b' });
    await insertTemplate(bed.t.ctx.db, bed.userId, second);
    await insertTemplate(bed.t.ctx.db, bed.userId, second, { name: 'promo_b' });
    const ab = { share: 0.3, metric: 'reply', wait_seconds: 7200, no_winner: 'send_best' };
    const body = {
      name: 'A/B desde la API',
      whatsapp_account_id: w.whatsappAccountId,
      whatsapp_account_ids: [w.whatsappAccountId, second],
      template_id: w.templateId,
      kommo_account_id: w.kommoAccountId,
      filters: {},
      variants: [{ template_id: w.templateId }, { template_id: variantB }],
      ab_test: ab,
    };
    const created = await v1(key, 'POST', '/campaigns', body);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      whatsapp_account_ids: [w.whatsappAccountId, second],
      variants: [
        { variant: 'A', template_id: w.templateId, template_name: 'promo' },
        { variant: 'B', template_id: variantB, template_name: 'promo_b' },
      ],
      ab_test: ab,
      split_result: null,
    });
    const read = (await v1(key, 'GET', `/campaigns/${created.json().id}`)).json();
    expect(read).toMatchObject({ variants: created.json().variants, ab_test: ab });
    const listed = (await v1(key, 'GET', '/campaigns')).json().data.find((c: { id: number }) => c.id === created.json().id);
    expect(listed).toMatchObject({ ab_test: ab });
    // A one-template campaign says null for both.
    const { variants: _v, ab_test: _a, ...oneTemplate } = body;
    const plain = await v1(key, 'POST', '/campaigns', { ...oneTemplate, name: 'Sin prueba' });
    expect(plain.statusCode, plain.body).toBe(201);
    expect(plain.json()).toMatchObject({ variants: null, ab_test: null, split_result: null });

    // The console's validation, as problem details; nothing written.
    const before = (await rowsOf<{ n: number }>(bed.t.ctx.db, sql`select count(*)::int as n from campaigns`))[0]!.n;
    const bad = [
      [{ ...body, ab_test: undefined }, /variantes \(variants\) y su configuración \(ab_test\)/],
      [{ ...body, variants: [{ template_id: w.templateId }] }, /de 2 a 4 variantes/],
      [{ ...body, variants: [{ template_id: variantB }, { template_id: w.templateId }] }, /La variante A debe ser la plantilla de la campaña/],
      [{ ...body, ab_test: { ...ab, share: 2 } }, /porción de prueba/],
      [{ ...body, ab_test: { ...ab, metric: 'ventas' } }, /Métrica inválida/],
      [{ ...body, kommo_account_id: undefined, filters: undefined, recipients: [{ phone: '+5491100000001' }] }, /necesita una audiencia de Kommo/],
    ] as const;
    for (const [payload, message] of bad) {
      const res = await v1(key, 'POST', '/campaigns', payload);
      const problem = expectProblem(res, res.statusCode === 422 ? 422 : 400, res.statusCode === 422 ? 'validation' : res.json().type.split(':').pop());
      expect(JSON.stringify(problem), JSON.stringify(payload)).toMatch(message);
    }
    // promo_b missing on the second number: a Spanish finding naming the number and the template.
    await bed.t.ctx.db.execute(sql`update templates set status = 'pending' where whatsapp_account_id = ${second} and name = 'promo_b'`);
    const missing = await v1(key, 'POST', '/campaigns', body);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().detail).toMatch(/^Variante B: El número «.+» no tiene aprobada la plantilla «promo_b» \(es\)$/);
    expect((await rowsOf<{ n: number }>(bed.t.ctx.db, sql`select count(*)::int as n from campaigns`))[0]!.n).toBe(before);

    // A key limited to the first number cannot name the second one in the list: 404.
    const { key: scoped } = await createKey({ scopes: ['campaigns:read', 'campaigns:write'], whatsapp_account_ids: [w.whatsappAccountId] });
    expectProblem(await v1(scoped, 'POST', '/campaigns', body), 404, 'not-found');
  });

  it('an explicit-recipients campaign sends each recipient its own parameters; a bad batch writes nothing', async () => {
    const { key } = await createKey({ scopes: ['campaigns:read', 'campaigns:write', 'campaigns:send'] });
    const w = bed.worlds[0]!;
    const base = { whatsapp_account_id: w.whatsappAccountId, template_id: w.templateId };
    const bad = await v1(key, 'POST', '/campaigns', { ...base, name: 'Lote malo', recipients: [{ phone: '+5491170000001' }, { phone: '12', params: { variable_9: 'x' } }] });
    const problem = expectProblem(bad, 422, 'unprocessable') as unknown as { errors: Array<{ pointer: string }> };
    expect(problem.errors[0]!.pointer).toBe('/recipients/1');
    const [left] = await rowsOf<{ n: number }>(bed.t.ctx.db, sql`select count(*)::int as n from campaigns where name = 'Lote malo'`);
    expect(Number(left!.n)).toBe(0);

    const created = await v1(key, 'POST', '/campaigns', {
      ...base,
      name: 'Explícita',
      recipients: [
        { phone: '+5491170000011', params: { variable_1: 'Rocío', variable_2: 'Mendoza' } },
        { phone: '+5491170000012', params: { variable_1: 'Tomás' } },
      ],
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as number;
    expect(created.json()).toMatchObject({ audience: 'explicit', kommo_account_id: null, counts: { total: 2 } });
    const more = await v1(key, 'POST', `/campaigns/${id}/recipients`, { recipients: [{ phone: '+5491170000013', params: { variable_1: 'Inés', header_variable_1: 'VIP' } }] });
    expect(more.json()).toEqual({ added: 1, total: 3 });
    expect((await v1(key, 'POST', `/campaigns/${id}/start`)).statusCode).toBe(200);
    expectProblem(await v1(key, 'POST', `/campaigns/${id}/recipients`, { recipients: [{ phone: '+5491170000014' }] }), 409, 'conflict');
    await waitFor(() => bed.campaign(id), (c) => c.status === 'completed' && c.read_count === 3, 20_000, 'explicit read');
    const sent = bed.sim.messages().filter((m) => m.to.startsWith('54911700000'));
    const text = (to: string) => JSON.stringify(sent.find((m) => m.to === to)?.components);
    expect(text('5491170000011')).toContain('Rocío');
    expect(text('5491170000011')).toContain('Mendoza');
    // No value of their own: the console's mapping default.
    expect(text('5491170000012')).toContain('Tomás');
    expect(text('5491170000013')).toContain('VIP');
  });

  it('contacts: a Kommo account’s contacts by pages, with a search; another organisation’s account is a 404', async () => {
    const { key } = await createKey({ scopes: ['contacts:read'] });
    const w = bed.worlds[0]!;
    const first = await v1(key, 'GET', `/contacts?kommo_account_id=${w.kommoAccountId}&limit=5`);
    expect(first.statusCode, first.body).toBe(200);
    const page1 = first.json() as { data: Array<{ id: number; phone: string }>; next_cursor: string };
    expect(page1.data).toHaveLength(5);
    const page2 = (await v1(key, 'GET', `/contacts?kommo_account_id=${w.kommoAccountId}&limit=50&cursor=${page1.next_cursor}`)).json() as { data: unknown[]; next_cursor: string | null };
    expect(page2.data).toHaveLength(7);
    expect(page2.next_cursor).toBeNull();
    const found = (await v1(key, 'GET', `/contacts?kommo_account_id=${w.kommoAccountId}&search=${encodeURIComponent(page1.data[0]!.phone)}`)).json() as { data: Array<{ id: number }> };
    expect(found.data.map((c) => c.id)).toEqual([page1.data[0]!.id]);
    const other = await bed.t.signUp();
    const { key: foreignKey } = await createKey({ scopes: ['contacts:read'] }, other.headers);
    expectProblem(await v1(foreignKey, 'GET', `/contacts?kommo_account_id=${w.kommoAccountId}`), 404, 'not-found');
  });

  it('a key limited to a number sees only that number (404 for the rest)', async () => {
    const { key } = await createKey({ scopes: ['campaigns:read', 'templates:read'], whatsapp_account_ids: [bed.worlds[0]!.whatsappAccountId] });
    expect((await v1(key, 'GET', '/templates')).json().data.length).toBeGreaterThan(0);
    const other = await bed.t.ctx.db.execute(sql`select 1`);
    expect(other).toBeTruthy();
  });
});
